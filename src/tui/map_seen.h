/*
 * map_seen.h - what the maps view has seen of a process since the last
 * tick, by address range, so that `+` and `-` mean a change in the process
 * and never a move of the window.
 *
 * The view observes the process through listings that each cover an
 * address range completely (a window from its first mapping to its last,
 * a full walk from 0 to the top).  tui_seen_observe compares a new listing
 * with what was seen in the part of its range that an earlier observation
 * covered, and reports each difference through the ms_maplist_diff
 * callback (mappings matched by range, so a changed identity - perms,
 * offset, device, inode, name - comes as CHANGED).  What lies outside every
 * range seen is new to the view, not new in the process: it is never
 * reported.  Then the listing replaces what was known in its range.
 *
 * What is known has two generations: what was seen since the last timer
 * tick, and what was seen between the tick before and that one.  A
 * listing compares with the newest generation that covers each address.
 * A tick (restart) turns the current generation into the previous one and
 * starts an empty one, so everything the tick queries (its window, the
 * index, a window pulled up) compares with what was seen before the tick,
 * and nothing older than one tick ever counts.
 *
 * All listings must come from one kernel filter: a change of filter or a
 * new program image calls tui_seen_forget.  Memory: copies of the mappings
 * of the ranges seen since the last tick (a window, or one full walk).
 */
#ifndef MAPSCOPE_TUI_MAP_SEEN_H
#define MAPSCOPE_TUI_MAP_SEEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/maps/mapdiff.h"
#include "core/maps/mapping.h"

struct tui_span {
	uint64_t lo, hi; /* [lo, hi) */
};

struct tui_seen_gen {
	struct ms_maplist known;  /* copies, address order, inside spans */
	struct tui_span *spans;   /* sorted, disjoint */
	size_t nspans, spans_cap;
};

struct tui_seen {
	struct tui_seen_gen cur;  /* since the last tick */
	struct tui_seen_gen prev; /* between the tick before and the last */
};

/* The range a listing from addr covers: from its first mapping (which may
 * start below addr) to its last one's end, or to the top when complete. */
void tui_seen_range(const struct ms_maplist *list, uint64_t addr, bool more, uint64_t *lo,
		    uint64_t *hi);

/*
 * Compare list (address order, covering [lo, hi)) with what was seen in
 * that range, report differences through fn (may be NULL), then remember
 * it; restart (a timer tick) starts a new generation first.  0, fn's non-zero value, or
 * MS_ERR_NOMEM (then nothing is known any more).
 */
int tui_seen_observe(struct tui_seen *s, const struct ms_maplist *list, uint64_t lo, uint64_t hi,
		     bool restart, ms_diff_fn fn, void *ctx);

/* Forget everything (the filter changed, a new image). */
void tui_seen_forget(struct tui_seen *s);
void tui_seen_free(struct tui_seen *s);

#endif
