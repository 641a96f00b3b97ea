/*
 * libs_model.h - the libraries view's model (L from the process list):
 * the rows of `mapscope libs` (core/files/libtable.h), sorted, searched,
 * with a selection that follows its file across tables.  No curses.
 *
 * The view builds a whole new table over one walk of every process
 * (libs_feed.h) and hands it here with tui_libview_apply, which takes it
 * (the old one is freed), orders its kept rows that some process maps,
 * and keeps the selected file (device, inode) selected; when that file is
 * gone, the row now at the same position is, so the screen stays full.
 *
 * Sorting: < and > step through TUI_LIBSORT_* in order; counts and sizes
 * sort largest first, names A to Z, verdicts stale first (deleted,
 * replaced, then the rest), I reverses.  Ties go by NAME, then device and
 * inode, so a sort is the same on every table.  Search (/ n N, listfind.h)
 * selects the next row whose path, SONAME, package or source package
 * contains the text, as `mapscope libs PATTERN` searches a plain name; the
 * filter (\\) keeps only such rows, on this table and every later one.
 *
 * The process sub-list (Enter on a file): struct tui_libprocs names its
 * file by (device, inode) and its selected process by PID, so both survive
 * a table swap; its rows are the file's uses in the current table, in PID
 * order.
 *
 * Rows format to text in libs_cols.c (tui_format_librow_cols): the stale flag ('D'
 * deleted, 'R' replaced, as the maps view marks them, from the row's
 * verdict: `mapscope libs`'s VERDICT) and a space, then the layout's
 * columns, every field escaped (a cut cell may end in U+2026: widths are
 * columns, not bytes), so
 * tui_fit_last_column can elide or scroll NAME.
 */
#ifndef MAPSCOPE_TUI_LIBS_MODEL_H
#define MAPSCOPE_TUI_LIBS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/files/libtable.h"
#include "tui/columns.h"
#include "tui/listfind.h"

enum tui_libsort {
	TUI_LIBSORT_PROCS,
	TUI_LIBSORT_RSS,
	TUI_LIBSORT_VERDICT,
	TUI_LIBSORT_PACKAGE,
	TUI_LIBSORT_NAME,
	TUI_LIBSORT_COUNT,
};

/* Columns before a row's layout: the stale flag and a space. */
#define TUI_LIBROW_PREFIX 2

struct tui_libkey {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
};

struct tui_libview {
	struct ms_libtable *table; /* owned; NULL until the first walk ends */
	size_t *order;             /* indices in table->rows of the rows shown, sorted */
	size_t count;
	enum tui_libsort sort;
	bool reverse;
	size_t sel, top, height;
	size_t hscroll;
	bool have_sel;             /* sel_key names the selected file */
	struct tui_libkey sel_key;
	char search[TUI_FIND_MAX];
	char filter[TUI_FIND_MAX]; /* "" shows every row */
};

void tui_libview_init(struct tui_libview *lv, size_t height);
void tui_libview_free(struct tui_libview *lv);

/*
 * Take fresh (malloc'd, initialised; ownership passes, also on error) as
 * the table.  0 or MS_ERR_NOMEM, the old table then kept.
 */
int tui_libview_apply(struct tui_libview *lv, struct ms_libtable *fresh);

void tui_libview_set_height(struct tui_libview *lv, size_t height);
void tui_libview_select(struct tui_libview *lv, size_t row);
void tui_libview_move(struct tui_libview *lv, long delta);
bool tui_libview_click(struct tui_libview *lv, size_t line);
/* The shown row at i (sorted order), or NULL. */
const struct ms_libtable_row *tui_libview_row(const struct tui_libview *lv, size_t i);
const struct ms_libtable_row *tui_libview_selected(const struct tui_libview *lv);

void tui_libview_sort_step(struct tui_libview *lv, int dir);
void tui_libview_sort_reverse(struct tui_libview *lv);
/* Sort by key (a heading click), keeping the selection. */
void tui_libview_set_sort(struct tui_libview *lv, enum tui_libsort key, bool reverse);
const char *tui_libsort_name(enum tui_libsort key);

bool tui_libview_search(struct tui_libview *lv, int dir, bool from_current);
/* Show only the rows that contain text (as the search matches; "" shows all), keeping the selection. */
void tui_libview_set_filter(struct tui_libview *lv, const char *text);

/* "host", "other root", or the container as `stale` names it (escaped). */
void tui_libwhere_text(const struct ms_libtable *t, const struct ms_libtable_proc *p, unsigned esc,
		       char *out, size_t size);

/*
 * Raise want[] (TUI_COLS_MAX ints, columns.h: tui_layout_fit) for the rows
 * on screen: each version column's widest cell, and at NAME the room that
 * keeps whole every file name that needs no more than cap
 * (tui_layout_reach; 0: none).
 */
void tui_libview_want(const struct tui_libview *lv, unsigned escape_flags, int cap, int *want);

/* Heading (the flag's room, then the columns) and row; the row returns where NAME starts. */
void tui_format_libheading_cols(char *buf, size_t size, const struct tui_layout *l,
				const struct tui_libview *lv);
size_t tui_format_librow_cols(char *buf, size_t size, const struct tui_layout *l,
			      const struct ms_libtable *t, const struct ms_libtable_row *r,
			      unsigned escape_flags);

/* The processes of one file. */
struct tui_libprocs {
	struct tui_libkey file;
	pid_t sel_pid;
	size_t sel, top, height;
	size_t hscroll;
	size_t *order;             /* indices in the row's uses, by PID */
	size_t count;
};

void tui_libprocs_init(struct tui_libprocs *lp, const struct ms_libtable_row *r, size_t height);
void tui_libprocs_free(struct tui_libprocs *lp);
/* The file's row in lv's table now (NULL: gone), its uses reordered.  0 or MS_ERR_NOMEM. */
int tui_libprocs_sync(struct tui_libprocs *lp, const struct tui_libview *lv,
		      const struct ms_libtable_row **row);
void tui_libprocs_set_height(struct tui_libprocs *lp, size_t height);
/* Select position i (or move by delta) among r's processes in table t. */
void tui_libprocs_select(struct tui_libprocs *lp, const struct ms_libtable *t,
			 const struct ms_libtable_row *r, size_t i);
void tui_libprocs_move(struct tui_libprocs *lp, const struct ms_libtable *t,
		       const struct ms_libtable_row *r, long delta);
/* The use at sorted position i of r, or NULL. */
const struct ms_libtable_use *tui_libprocs_use(const struct tui_libprocs *lp,
					       const struct ms_libtable_row *r, size_t i);
size_t tui_format_libproc_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_libtable *t, const struct ms_libtable_use *u,
			       unsigned escape_flags);

#endif
