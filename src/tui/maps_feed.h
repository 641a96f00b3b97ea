/*
 * maps_feed.h - the maps view's queries: what it asks the engine for on a
 * tick or after a key, and how the answers reach the model (maps_model.h).
 * Curses-free, so the model-based test drives the view's own code path.
 *
 * In address order a refresh queries one window from the model's top
 * (reading on while a name filter leaves fewer than a window's worth),
 * applies it, and on a timer tick rebuilds the index when it is due.  When
 * the rows then leave part of the screen empty, it asks whether a matching
 * mapping lies above the window (one query, or a walk of the part above
 * with a name filter); if one does, it pulls the window up by the index it
 * has, so the screen is full and g to the last page costs no full walk.
 * Only when there is no index, or the rows pulled up by it still leave the
 * screen short with a mapping above (it lists mappings gone since), does it
 * rebuild the index and pull the window up by the new one.
 * Sorted, it collects every mapping when there is none yet or the index is
 * due.
 *
 * g (tui_mapfeed_goto): one query for the first mapping at or after the
 * address that the filter keeps, selected; the next refresh queries the
 * window from it.
 *
 * Hooks (NULL for none) see every full listing, the index's and the sorted
 * one, before the model takes it: hooks->rss gives each mapping's RSS (one
 * query over the listing), hooks->listing receives the listing and that RSS
 * (the view's strip and header totals come from it), and the sorted rows
 * carry the RSS only when hooks->rss_sorts (the RSS column shows).
 *
 * Residency of the rows and verdicts stay with the view.  Errors come back
 * as negative ms_errcodes with err filled: MS_ERR_EXITED, MS_ERR_EXECED
 * and MS_ERR_NOMM say the address space is gone (the view decides what to
 * show), the others are worth a message.
 */
#ifndef MAPSCOPE_TUI_MAPS_FEED_H
#define MAPSCOPE_TUI_MAPS_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/maps/maps.h"
#include "tui/maps_model.h"

struct tui_mapfeed_hooks {
	/* Every mapping's RSS (all->count of them), malloc'd, or NULL when unknown. */
	uint64_t *(*rss)(void *ctx, const struct ms_maplist *all);
	/* A full listing, with its RSS (NULL when unknown or not asked). */
	void (*listing)(void *ctx, const struct ms_maplist *all, const uint64_t *rss);
	bool rss_sorts;
	void *ctx;
};

/* A full walk as the index.  0 or a negative ms_errcode. */
int tui_mapfeed_index(struct tui_mapview *vm, struct ms_maps *maps,
		      const struct tui_mapfeed_hooks *hooks, struct ms_error *err);

/*
 * Query what the model shows and apply it; timer: a timer tick (marks age,
 * the index may be due).  1: what is shown changed, 0: not, or a negative
 * ms_errcode.
 */
int tui_mapfeed_refresh(struct tui_mapview *vm, struct ms_maps *maps, bool timer,
			const struct tui_mapfeed_hooks *hooks, struct ms_error *err);

/*
 * Select the first mapping at or after addr that vm's filter keeps (one
 * query).  0, MS_END (none), or a negative ms_errcode; then refresh.
 */
int tui_mapfeed_goto(struct tui_mapview *vm, struct ms_maps *maps, uint64_t addr,
		     struct ms_error *err);

/*
 * Finish a move whose model call returned rc (TUI_MV_*): on NEED_INDEX,
 * build the index and call again (again(vm, delta), or tui_mapview_end
 * when again is NULL).  The final TUI_MV_*, or a negative ms_errcode.
 */
int tui_mapfeed_moved(struct tui_mapview *vm, struct ms_maps *maps, int rc,
		      int (*again)(struct tui_mapview *, long), long delta,
		      const struct tui_mapfeed_hooks *hooks, struct ms_error *err);

#endif
