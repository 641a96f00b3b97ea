#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "tui/maps_feed.h"

static int out_of_memory(struct ms_maps *maps, struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
			    (int)ms_proc_pid(ms_maps_proc(maps)));
}

/* What the hooks make of a full listing: its RSS (malloc'd, or NULL), after they saw it. */
static uint64_t *listing_seen(const struct tui_mapfeed_hooks *hooks, const struct ms_maplist *all)
{
	uint64_t *rss = hooks && hooks->rss ? hooks->rss(hooks->ctx, all) : NULL;

	if (hooks && hooks->listing)
		hooks->listing(hooks->ctx, all, rss);
	return rss;
}

int tui_mapfeed_index(struct tui_mapview *vm, struct ms_maps *maps,
		      const struct tui_mapfeed_hooks *hooks, struct ms_error *err)
{
	struct ms_maplist all = { 0 };
	int rc = ms_maps_collect(maps, vm->filter, &all, err);

	if (rc == 0) {
		/* Before the model takes the listing: a hook's name filter reads it. */
		free(listing_seen(hooks, &all));
		if (tui_mapview_apply_index(vm, &all) < 0)
			rc = out_of_memory(maps, err);
	}
	ms_maplist_free(&all);
	return rc;
}

static bool index_due(const struct tui_mapview *vm)
{
	/* A full walk: rarer for big processes (60,000 maps: once a minute at 1 Hz). */
	return !vm->index_valid || vm->index_age >= TUI_INDEX_TICKS + vm->nstarts / 1000;
}

static int refresh_sorted(struct tui_mapview *vm, struct ms_maps *maps, bool timer,
			  const struct tui_mapfeed_hooks *hooks, struct ms_error *err)
{
	struct ms_maplist all = { 0 };
	uint64_t *rss = NULL;
	int rc;

	if (timer)
		vm->index_age++;
	if (vm->have_window && !index_due(vm))
		return 1;
	rc = ms_maps_collect(maps, vm->filter, &all, err);
	if (rc == 0) {
		rss = listing_seen(hooks, &all);
		if (tui_mapview_apply_sorted(vm, &all, hooks && hooks->rss_sorts ? rss : NULL) < 0)
			rc = out_of_memory(maps, err);
	}
	ms_maplist_free(&all);
	free(rss);
	return rc < 0 ? rc : 1;
}

/* One window from the model's top; a name filter reads on until a screenful matches. */
static int refresh_window(struct tui_mapview *vm, struct ms_maps *maps, bool timer,
			  struct ms_error *err)
{
	struct ms_maplist list = { 0 };
	size_t want = tui_mapview_window_size(vm), matched = 0;
	uint64_t addr = vm->top;
	bool more = false;
	int rc;

	do {
		size_t before = list.count;

		rc = ms_maps_window(maps, addr, vm->filter, want, &list, err);
		if (rc < 0)
			break;
		more = list.count - before == want;
		for (size_t i = before; i < list.count; i++)
			matched += tui_mapview_name_matches(vm, &list.items[i]);
		if (list.count)
			addr = list.items[list.count - 1].end;
	} while (more && matched < want && vm->name_filter[0]);
	if (rc == 0) {
		rc = tui_mapview_apply(vm, &list, vm->top, more, timer);
		if (rc < 0)
			rc = out_of_memory(maps, err);
	}
	ms_maplist_free(&list);
	return rc;
}

struct above {
	const struct tui_mapview *vm;
	uint64_t top;
	bool found;
};

static int find_above(void *ctx, struct ms_mapping *m)
{
	struct above *a = ctx;

	if (m->end > a->top)
		return 1;
	a->found = tui_mapview_name_matches(a->vm, m);
	return a->found;
}

/*
 * Does a matching mapping lie wholly above the window?  Only the mappings
 * above it are read, up to the first that matches: a screen that shows all
 * there is costs no full walk per tick.
 */
static bool anything_above(const struct tui_mapview *vm, struct ms_maps *maps)
{
	struct above a = { vm, vm->top, false };
	struct ms_mapping m = { 0 };
	struct ms_error err;

	/* Without a name filter the first mapping says: one query. */
	if (!vm->name_filter[0]) {
		a.found = ms_maps_next(maps, 0, vm->filter, &m, &err) == 0 && m.end <= vm->top;
		ms_mapping_reset(&m);
		return a.found;
	}
	return ms_maps_walk(maps, 0, vm->filter, find_above, &a, &err) >= 0 && a.found;
}

int tui_mapfeed_refresh(struct tui_mapview *vm, struct ms_maps *maps, bool timer,
			const struct tui_mapfeed_hooks *hooks, struct ms_error *err)
{
	int rc, again;

	if (tui_mapview_sorted(vm))
		return refresh_sorted(vm, maps, timer, hooks, err);
	rc = refresh_window(vm, maps, timer, err);
	if (rc < 0)
		return rc;
	if (timer && index_due(vm) && tui_mapfeed_index(vm, maps, hooks, err) == 0)
		rc = 1;
	if (!tui_mapview_short(vm) || !anything_above(vm, maps))
		return rc;
	/* The index at hand first: a jump to the last page costs no full walk. */
	if (vm->index_valid && tui_mapview_pull_up(vm) == TUI_MV_REQUERY) {
		again = refresh_window(vm, maps, false, err);
		if (again < 0)
			return again;
		rc = 1;
		if (!tui_mapview_short(vm) || !anything_above(vm, maps))
			return rc;
	}
	/* A fresh index: the old one pulled up too little (mappings gone since), or there was none. */
	again = tui_mapfeed_index(vm, maps, hooks, err);
	if (again < 0)
		return again;
	if (tui_mapview_pull_up(vm) != TUI_MV_REQUERY)
		return rc;
	again = refresh_window(vm, maps, false, err);
	return again < 0 ? again : 1;
}

int tui_mapfeed_goto(struct tui_mapview *vm, struct ms_maps *maps, uint64_t addr,
		     struct ms_error *err)
{
	struct ms_mapping m = { 0 };
	int rc = ms_maps_next(maps, addr, vm->filter, &m, err);

	if (rc == 0)
		tui_mapview_goto(vm, m.start);
	ms_mapping_reset(&m);
	return rc;
}

int tui_mapfeed_moved(struct tui_mapview *vm, struct ms_maps *maps, int rc,
		      int (*again)(struct tui_mapview *, long), long delta,
		      const struct tui_mapfeed_hooks *hooks, struct ms_error *err)
{
	int irc;

	if (rc != TUI_MV_NEED_INDEX)
		return rc;
	irc = tui_mapfeed_index(vm, maps, hooks, err);
	if (irc < 0)
		return irc;
	return again ? again(vm, delta) : tui_mapview_end(vm);
}
