/*
 * maps_model.h - the maps view's model: what the screen shows of one process,
 * without curses and without the kernel.
 *
 * The view feeds it listings it queried and asks it where to query next:
 *   - a window: the mappings from `top` (the first visible address), at most
 *     tui_mapview_window_size() of them, kernel-filtered with `filter`;
 *     tui_mapview_apply takes it.  A tick costs what the screen shows.
 *   - an index: every matching mapping's start, from a full walk, needed only
 *     to scroll above the window, jump to the end, and for the totals in the
 *     header; tui_mapview_apply_index takes it.  It is rebuilt every few
 *     ticks or on demand, never every tick.
 *
 * The selection is an address: after each window it moves to the mapping
 * starting there, else the one covering or following it.  The name filter
 * (substring, client-side) applies to windows and index alike.
 *
 * Marks say what the process changed, never that the window moved.  Every
 * window and index is an observation (map_seen.h): compared with what was
 * seen since the last tick in the ranges seen then, by the mappings'
 * identity (range, perms, offset, device, inode).  A mapping new there is
 * marked ADDED, one gone is kept as a REMOVED ghost row, for TUI_MARK_TICKS
 * ticks; a mapping outside every range seen is only new to the view, and
 * unmarked.  A ghost keeps only the addresses no live mapping in the window
 * covers: a hole unmapped in a mapping shows as a ghost of the hole between
 * the two pieces left (ADDED), a mapping replaced whole shows no ghost.  A change of filter or sort, or a new program image, forgets
 * the marks and what was seen; sorted rows carry no marks.
 *
 * The screen stays full: when the rows from the window do not fill it
 * though mappings lie above (a filter toggled near the end, an exec, a
 * jump), tui_mapview_short says so and tui_mapview_pull_up moves the window
 * up to the last page; the selection keeps its mapping.
 *
 * Sorting by another column than the address (or the address reversed)
 * needs every mapping: the view collects them all, with their RSS when the
 * RSS column is on, and tui_mapview_apply_sorted takes the listing as rows
 * in that order and as the index.  The view collects again when the index
 * is due (the periodic recount), so a sorted order is at most that old;
 * moving needs no query.  In address order the window stays as it is.
 *
 * Stale verdicts (core/stale.h) are asked for the rows on screen only
 * (tui_mapview_judge_visible), through a callback the view backs with a
 * cache (verdicts.h); rows off screen and removed ghosts keep
 * TUI_VERDICT_NONE.  Rebuilding the rows clears them: judge after apply.
 */
#ifndef MAPSCOPE_TUI_MAPS_MODEL_H
#define MAPSCOPE_TUI_MAPS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/maps/mapping.h"
#include "core/resid/residency.h"
#include "core/stale/stale.h"
#include "tui/map_seen.h"

#define TUI_MARK_TICKS 3
#define TUI_INDEX_TICKS 10 /* rebuild the index (totals, scroll map) this often */
#define TUI_WINDOW_MARGIN 8

enum tui_mark {
	TUI_MARK_NONE,
	TUI_MARK_ADDED,
	TUI_MARK_REMOVED,
};

#define TUI_VERDICT_NONE (-1)

struct tui_maprow {
	const struct ms_mapping *m;
	enum tui_mark mark;
	int verdict;              /* enum ms_stale_verdict, or TUI_VERDICT_NONE */
	uint64_t rss;             /* resident bytes, when rss_known */
	bool rss_known;
};

/*
 * Gives the residency of count mappings (address order) in one query, as
 * ms_residency_query: 0, or a negative ms_errcode.
 */
typedef int (*tui_residency_fn)(void *ctx, const struct ms_mapping *maps, size_t count,
				struct ms_resinfo *out);

/* Gives the verdict of one mapping: 0, or a negative ms_errcode. */
typedef int (*tui_judge_fn)(void *ctx, const struct ms_mapping *m, enum ms_stale_verdict *out);

enum tui_map_sort {
	TUI_MSORT_ADDRESS, /* the kernel's order */
	TUI_MSORT_SIZE,
	TUI_MSORT_RSS,     /* only while the RSS column shows */
	TUI_MSORT_PERMS,
	TUI_MSORT_INODE,
	TUI_MSORT_NAME,
	TUI_MSORT_COUNT,
};

struct tui_ghost {
	struct ms_mapping m; /* REMOVED: the mapping as last seen; ADDED: range only */
	enum tui_mark kind;
	unsigned ttl;
};

struct tui_mapview {
	unsigned filter;          /* MS_FILTER_* sent to the kernel */
	char name_filter[128];    /* client-side substring; "" for none */
	size_t height;            /* rows on screen */

	uint64_t top;             /* the window's query address */
	uint64_t sel;             /* the selected mapping's start */
	size_t sel_row;           /* its index in rows */

	struct ms_maplist window; /* last window, kernel-filtered */
	uint64_t window_limit;    /* end of what the window covers */
	bool have_window;

	struct tui_ghost *marks;
	size_t nmarks, marks_cap;
	struct tui_seen seen;     /* observed since the last tick, for the marks */

	struct tui_maprow *rows;  /* window (name-filtered) merged with ghosts */
	size_t nrows, rows_cap;

	uint64_t *starts;         /* the index: starts of matching mappings */
	size_t nstarts, starts_cap;
	uint64_t total_size;
	bool index_valid;
	unsigned index_age;       /* ticks since the index was built */
	unsigned long index_walks; /* indexes applied so far (each a full walk) */
	size_t hscroll;           /* NAME scrolled by this many columns (Left, Right) */
	enum tui_map_sort sort;
	bool sort_reverse;
};

void tui_mapview_init(struct tui_mapview *vm, unsigned filter, size_t height);
void tui_mapview_free(struct tui_mapview *vm);

/* How many mappings to ask for from vm->top: screen, next page, margin. */
size_t tui_mapview_window_size(const struct tui_mapview *vm);

bool tui_mapview_name_matches(const struct tui_mapview *vm, const struct ms_mapping *m);

/*
 * Take a fresh window queried from addr (the list is moved out of *fresh).
 * more: the query stopped at its maximum, so mappings may follow.  tick: a
 * timer tick, which ages marks.  Returns 1 if what is shown changed, 0 if
 * not, MS_ERR_NOMEM.
 */
int tui_mapview_apply(struct tui_mapview *vm, struct ms_maplist *fresh, uint64_t addr,
		      bool more, bool tick);

/* The first row on screen (rows above it scrolled off). */
size_t tui_mapview_first_shown(const struct tui_mapview *vm);

/* Take a full listing as the index (the list is only read). */
int tui_mapview_apply_index(struct tui_mapview *vm, const struct ms_maplist *all);

/* "SIZE" for TUI_MSORT_SIZE, "address" for the default. */
const char *tui_map_sort_name(enum tui_map_sort sort);

/* Sorted by anything but the address in the kernel's order: rows need a full listing. */
bool tui_mapview_sorted(const struct tui_mapview *vm);

/*
 * Sort by sort (reverse: descending) from the next listing on; a sorted
 * order asks for a full listing (the window is forgotten).
 */
void tui_mapview_set_sort(struct tui_mapview *vm, enum tui_map_sort sort, bool reverse);

/*
 * Take every mapping (moved out of *all, address order) as the rows, in the
 * sort order, and as the index; rss, when not NULL, holds each one's
 * resident bytes (all->count of them).  The selection keeps its mapping
 * when it is still there.  0 or MS_ERR_NOMEM.
 */
int tui_mapview_apply_sorted(struct tui_mapview *vm, struct ms_maplist *all, const uint64_t *rss);

/* Forget marks and the index: the filter changed, or a new program image. */
void tui_mapview_reset(struct tui_mapview *vm);

void tui_mapview_set_filter(struct tui_mapview *vm, unsigned filter);
void tui_mapview_set_name_filter(struct tui_mapview *vm, const char *s);

/* The selected row, NULL when the view is empty. */
const struct tui_maprow *tui_mapview_selected(const struct tui_mapview *vm);

/*
 * Move the selection by delta rows (negative: up).  Returns TUI_MV_* :
 * OK (shown rows suffice), REQUERY (top moved: query a window again), or
 * NEED_INDEX (call again once an index is applied).
 */
enum { TUI_MV_OK = 0, TUI_MV_REQUERY = 1, TUI_MV_NEED_INDEX = 2 };
int tui_mapview_move(struct tui_mapview *vm, long delta);
int tui_mapview_home(struct tui_mapview *vm);
int tui_mapview_end(struct tui_mapview *vm);
/*
 * Rows do not fill the screen though the window could start higher (the
 * address order only).
 */
bool tui_mapview_short(const struct tui_mapview *vm);
/*
 * Move the window up so that its last page is full, from the index:
 * TUI_MV_REQUERY (query again), TUI_MV_OK (nothing above) or NEED_INDEX.
 */
int tui_mapview_pull_up(struct tui_mapview *vm);
/* Select addr's mapping (found by the caller through ms_maps_next). */
void tui_mapview_goto(struct tui_mapview *vm, uint64_t start);
/* Select the row shown at screen line `line` (a mouse click). */
bool tui_mapview_click(struct tui_mapview *vm, size_t line);

/*
 * Judge the file-backed live rows on screen (from tui_mapview_first_shown,
 * height rows).  0, or the first error of judge (the rest stay unjudged).
 */
int tui_mapview_judge_visible(struct tui_mapview *vm, tui_judge_fn judge, void *ctx);

/*
 * The RSS of the live rows on screen, from one call of query over all of
 * them (one page-table walk per refresh, whatever the height).  Removed
 * ghosts and rows off screen stay unknown.  0, or query's error (then no
 * row is known).
 */
int tui_mapview_residency_visible(struct tui_mapview *vm, tui_residency_fn query, void *ctx);

/* Room for one more element in a growable array (the explorer's models share it); 0 or MS_ERR_NOMEM. */
int tui_grow(void **items, size_t *cap, size_t count, size_t elem);

/* Position of the selection among the indexed mappings (for "12/340"). */
size_t tui_mapview_position(const struct tui_mapview *vm);

#endif
