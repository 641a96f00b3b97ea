/*
 * mapcols.h - the columns that describe one mapping, shared by `list` and
 * `at` (and later commands that print mappings).  Rendering turns a record
 * into display text: addresses and offsets in hex, device as decimal
 * MAJ:MIN (as lsblk and stat show it), sizes human-readable unless -b, the
 * name escaped.
 *
 * RSS and SWAP come from the residency module (core/residency.h), which
 * costs a page-table walk: a command asks for it only when
 * mapcols_want_residency says one of them is selected, and passes the
 * results to the _res variants (NULL renders those columns empty).
 */
#ifndef MAPSCOPE_CLI_MAPCOLS_H
#define MAPSCOPE_CLI_MAPCOLS_H

#include "cli/cli.h"
#include "core/resid/residency.h"

enum {
	MAPCOL_START,
	MAPCOL_END,
	MAPCOL_SIZE,
	MAPCOL_PERMS,
	MAPCOL_OFFSET,
	MAPCOL_DEV,
	MAPCOL_INODE,
	MAPCOL_PAGESIZE,
	MAPCOL_BUILDID,
	MAPCOL_NAME,
	MAPCOL_RSS,        /* residency: queried only when selected */
	MAPCOL_SWAP,
	MAPCOL_LIST_COUNT, /* columns past here need an address (`at`) */
	MAPCOL_ADDR = MAPCOL_LIST_COUNT,
	MAPCOL_FILEOFF,
	MAPCOL_COUNT,
};

extern const struct cli_column mapcols[MAPCOL_COUNT];

/*
 * Add one line to tb for m.  addr is the looked-up address for ADDR and
 * FILEOFF.  Returns 0, or -1 when out of memory.
 */
int mapcols_add_line(struct libscols_table *tb, const struct cli_opts *o,
		     const int *selected, size_t nselected,
		     const struct ms_mapping *m, uint64_t addr);

/* The text of one column for m (malloc'd, escaped), or NULL when out of memory. */
char *mapcols_render(const struct cli_opts *o, int col, const struct ms_mapping *m, uint64_t addr);

/* Is RSS or SWAP among the selected columns (numbered from base)? */
/* The MS_FIELD_* the selected columns need from the kernel. */
unsigned mapcols_fields(const int *selected, size_t nselected);

bool mapcols_want_residency(const int *selected, size_t nselected, int base);

/*
 * Residency of every mapping of list, from one walk.  *out is malloc'd
 * (NULL for an empty list).  On failure the message is printed and the exit
 * status returned; a note on stderr says so when the numbers came from
 * smaps.
 */
int mapcols_residency(struct ms_proc *proc, const struct ms_maplist *list,
		      struct ms_resinfo **out);

/* The note on stderr that residency came from smaps, for pid. */
void mapcols_note_smaps(pid_t pid);

int mapcols_add_line_res(struct libscols_table *tb, const struct cli_opts *o,
			 const int *selected, size_t nselected,
			 const struct ms_mapping *m, uint64_t addr,
			 const struct ms_resinfo *res);
/*
 * The same text written into dst, which has room for mapcols_cell_max
 * bytes (NUL included); returns its length.  No allocation: for listings.
 */
#define MAPCOL_CELL_MAX 64
size_t mapcols_cell_max(int col, const struct ms_mapping *m);
size_t mapcols_render_to(const struct cli_opts *o, int col, const struct ms_mapping *m,
			 uint64_t addr, const struct ms_resinfo *res, char *dst);

char *mapcols_render_res(const struct cli_opts *o, int col, const struct ms_mapping *m,
			 uint64_t addr, const struct ms_resinfo *res);

#endif
