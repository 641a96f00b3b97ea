/*
 * pathtable.h - the wanted paths of a package lookup (pkgdb.h), hashed,
 * and the scan of a list file's lines against them.
 *
 * Each of the caller's paths is looked for under its own spelling and,
 * under merged /usr, its alias (/lib/... for /usr/lib/... and the
 * reverse: ms_pkg_alias_of); a NULL path is answered already and not
 * looked for.  ms_pkg_table_scan marks every path a line of a list file
 * names as that package's (the name and architecture from the file name,
 * PACKAGE[:ARCH].list), unless the list of an earlier file (a smaller
 * file index: pkgdb sorts them by name) holds it too, or the package is
 * the one the path must not be answered by (excl, a diverter).  owner[i]
 * is the file index that answered path i, MS_PKG_NO_IDX for none.  The
 * hash is keyed per run (hash.h): the paths are named by the processes
 * judged.  Lines of lengths no path has are skipped unhashed.
 */
#ifndef MAPSCOPE_PKG_PATHTABLE_H
#define MAPSCOPE_PKG_PATHTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "pkg/pkgdb.h"

/*
 * One spelling of a wanted path.  Several of the caller's paths may be
 * spelled so (the same file mapped by many processes, or a path and its
 * merged-/usr alias both asked for): head[0] chains those whose own path
 * it is, head[1] those whose alias it is, through the table's next[].
 */
struct ms_pkg_want {
	const char *path; /* NULL: an empty slot */
	size_t len;
	size_t head[2];   /* into the caller's arrays; MS_PKG_NO_IDX ends a chain */
	char *own;        /* an alias we made, freed with the table */
};

#define MS_PKG_NO_IDX SIZE_MAX

#define MS_PKG_LEN_BUCKETS 4096u

struct ms_pkg_table {
	struct ms_pkg_want *slots;
	size_t mask;
	size_t left;      /* caller's paths not found yet */
	size_t *next[2];  /* per caller's path: the next in its spelling's chain */
	/* Per caller's path: a package whose list never answers it (a diverter), or NULL. */
	const char *const *excl;
	const size_t *excl_len;
	/*
	 * The lengths wanted (modulo MS_PKG_LEN_BUCKETS): a list line of another
	 * length is skipped unhashed, and most of the database's lines are.
	 */
	unsigned char len_wanted[MS_PKG_LEN_BUCKETS];
};

int ms_pkg_table_init(struct ms_pkg_table *t, const char *const *paths, const size_t *lens, size_t n);
void ms_pkg_table_free(struct ms_pkg_table *t);
/* The lines of one list file (their lengths from listlines.h) against the table. */
void ms_pkg_table_scan(struct ms_pkg_table *t, const char *text, const uint32_t *lengths, size_t nlines,
		       const char *file, size_t file_idx, struct ms_pkg *out, size_t *owner);
/*
 * Split then scan, with *lengths (*cap entries) grown as needed.  The
 * number of lines, their lengths left in *lengths; SIZE_MAX when memory
 * ran out and nothing was scanned.
 */
size_t ms_pkg_table_split_scan(struct ms_pkg_table *t, const char *text, size_t len, uint32_t **lengths,
			     size_t *cap, const char *file, size_t file_idx, struct ms_pkg *out, size_t *owner);
/* The other spelling of a path under merged /usr, malloc'd; NULL if none. */
char *ms_pkg_alias_of(const char *p, size_t len, size_t *alias_len);
/* The package's name in a list file's name, PACKAGE[:ARCH].list: its length. */
size_t ms_pkg_name_len(const char *file);

#endif
