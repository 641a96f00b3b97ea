/* The maps view's search: through the engine in the address order (maps_search.h). */
#include "config.h"

#include "tui/listfind.h"
#include "tui/maps_search.h"

struct search_walk {
	const struct tui_mapview *vm;
	const char *text;
	uint64_t sel;
	bool from_current;
	bool wrapped;      /* forward: the second walk, from the lowest address */
	bool found;        /* forward: the match; backward: the last before sel */
	uint64_t hit;
	bool any;          /* backward: some match at all, the last in last */
	uint64_t last;
};

static bool is_match(const struct search_walk *w, const struct ms_mapping *m)
{
	return tui_mapview_name_matches(w->vm, m) && tui_find_in(m->name, m->name_len, w->text);
}

/* Before or at the selection, as the search counts it (at: only from_current). */
static bool not_after(const struct search_walk *w, uint64_t start)
{
	return start < w->sel || (start == w->sel && w->from_current);
}

/* After or at the selection, as the search counts it (at: only from_current). */
static bool after(const struct search_walk *w, uint64_t start)
{
	return start > w->sel || (start == w->sel && w->from_current);
}

/*
 * Forward: the first match after the selection (at it when from_current);
 * wrapped, the first from the lowest address up to the selection.
 */
static int first_match(void *ctx, struct ms_mapping *m)
{
	struct search_walk *w = ctx;

	if (w->wrapped && m->start > w->sel)
		return 1;
	if ((!w->wrapped && !after(w, m->start)) || !is_match(w, m))
		return 0;
	w->found = true;
	w->hit = m->start;
	return 1;
}

/* Backward: the last match before the selection, and the last of all. */
static int last_before(void *ctx, struct ms_mapping *m)
{
	struct search_walk *w = ctx;

	if (!is_match(w, m))
		return 0;
	if (not_after(w, m->start)) {
		w->found = true;
		w->hit = m->start;
	}
	w->any = true;
	w->last = m->start;
	return 0;
}

static bool row_matches(const void *ctx, size_t row)
{
	const struct search_walk *w = ctx;
	const struct tui_maprow *r = &w->vm->rows[row];

	return r->mark != TUI_MARK_REMOVED && is_match(w, r->m);
}

int tui_mapsearch_find(const struct tui_mapview *vm, struct ms_maps *maps, const char *text,
		       int dir, bool from_current, uint64_t *start, struct ms_error *err)
{
	struct search_walk w = { .vm = vm, .text = text, .sel = vm->sel,
				 .from_current = from_current };
	int rc;

	if (!text[0])
		return 0;
	if (tui_mapview_sorted(vm)) {
		size_t row = tui_find_row(vm->nrows, vm->sel_row, dir, from_current, row_matches, &w);

		if (row >= vm->nrows)
			return 0;
		*start = vm->rows[row].m->start;
		return 1;
	}
	if (dir > 0) {
		rc = ms_maps_walk(maps, vm->sel, vm->filter, first_match, &w, err);
		if (rc >= 0 && !w.found) {
			w.wrapped = true;
			rc = ms_maps_walk(maps, 0, vm->filter, first_match, &w, err);
		}
	} else {
		rc = ms_maps_walk(maps, 0, vm->filter, last_before, &w, err);
		if (!w.found && w.any) {
			w.found = true;
			w.hit = w.last;
		}
	}
	if (rc < 0)
		return rc;
	if (!w.found)
		return 0;
	*start = w.hit;
	return 1;
}

int tui_mapsearch_step(struct tui_mapview *vm, struct ms_maps *maps, const char *text,
		       int dir, bool from_current, struct ms_error *err)
{
	size_t first = tui_mapview_first_shown(vm);
	uint64_t start;
	int rc = tui_mapsearch_find(vm, maps, text, dir, from_current, &start, err);

	if (rc <= 0)
		return rc;
	for (size_t i = first; i < vm->nrows && i < first + vm->height; i++)
		if (vm->rows[i].mark != TUI_MARK_REMOVED && vm->rows[i].m->start == start &&
		    tui_mapview_click(vm, i - first))
			return TUI_MSEARCH_SHOWN;
	tui_mapview_goto(vm, start);
	return tui_mapview_sorted(vm) ? TUI_MSEARCH_SHOWN : TUI_MSEARCH_MOVED;
}
