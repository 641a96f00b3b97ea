#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "tui/maps_model.h"
#include "core/base/grow.h"

void tui_mapview_init(struct tui_mapview *vm, unsigned filter, size_t height)
{
	memset(vm, 0, sizeof(*vm));
	vm->filter = filter;
	vm->height = height ? height : 1;
}

static void drop_marks(struct tui_mapview *vm)
{
	for (size_t i = 0; i < vm->nmarks; i++)
		ms_mapping_reset(&vm->marks[i].m);
	vm->nmarks = 0;
}

void tui_mapview_free(struct tui_mapview *vm)
{
	drop_marks(vm);
	tui_seen_free(&vm->seen);
	free(vm->marks);
	free(vm->rows);
	free(vm->starts);
	ms_maplist_free(&vm->window);
	memset(vm, 0, sizeof(*vm));
}

size_t tui_mapview_window_size(const struct tui_mapview *vm)
{
	return 2 * vm->height + TUI_WINDOW_MARGIN;
}

bool tui_mapview_name_matches(const struct tui_mapview *vm, const struct ms_mapping *m)
{
	size_t n = strlen(vm->name_filter);

	if (!n)
		return true;
	return m->name && memmem(m->name, m->name_len, vm->name_filter, n) != NULL;
}

int tui_grow(void **items, size_t *cap, size_t count, size_t elem)
{
	return ms_grow(items, cap, count, elem, 16);
}

static int add_mark(struct tui_mapview *vm, const struct ms_mapping *m, enum tui_mark kind)
{
	struct tui_ghost *g;

	/* Two pieces of one comparison can report a mapping that straddles them. */
	for (size_t i = 0; i < vm->nmarks; i++)
		if (vm->marks[i].kind == kind && ms_mapping_same_identity(&vm->marks[i].m, m))
			return 0;
	if (tui_grow((void **)&vm->marks, &vm->marks_cap, vm->nmarks, sizeof(*vm->marks)) < 0)
		return MS_ERR_NOMEM;
	g = &vm->marks[vm->nmarks];
	memset(g, 0, sizeof(*g));
	if (kind == TUI_MARK_REMOVED) {
		if (ms_mapping_copy(&g->m, m) < 0)
			return MS_ERR_NOMEM;
	} else {
		g->m = *m; /* the identity only */
		g->m.name = NULL;
		g->m.name_len = 0;
	}
	g->kind = kind;
	g->ttl = TUI_MARK_TICKS;
	vm->nmarks++;
	return 0;
}

static void remove_mark(struct tui_mapview *vm, size_t i)
{
	ms_mapping_reset(&vm->marks[i].m);
	vm->marks[i] = vm->marks[--vm->nmarks];
}

/* A ghost cut to begin at start (inside it); a file's offset follows. */
static void ghost_start_at(struct ms_mapping *g, uint64_t start)
{
	if (g->inode)
		g->offset += start - g->start;
	g->start = start;
}

/* Ghost i's part from at up becomes a ghost of its own, ghost i ends at below. */
static int split_ghost(struct tui_mapview *vm, size_t i, uint64_t below, uint64_t at)
{
	struct tui_ghost *up;

	if (tui_grow((void **)&vm->marks, &vm->marks_cap, vm->nmarks, sizeof(*vm->marks)) < 0)
		return MS_ERR_NOMEM;
	up = &vm->marks[vm->nmarks];
	*up = vm->marks[i];
	/* up shares ghost i's name until the copy below gives it its own. */
	up->m.name = NULL;
	up->m.name_len = 0;
	if (ms_mapping_copy(&up->m, &vm->marks[i].m) < 0)
		return MS_ERR_NOMEM;
	ghost_start_at(&up->m, at);
	vm->marks[i].m.end = below;
	vm->nmarks++;
	return 0;
}

/* Another REMOVED ghost has ghost i's range (one mapping reported twice, then cut alike). */
static bool ghost_repeats(const struct tui_mapview *vm, size_t i)
{
	for (size_t j = 0; j < vm->nmarks; j++)
		if (j != i && vm->marks[j].kind == TUI_MARK_REMOVED &&
		    vm->marks[j].m.start == vm->marks[i].m.start && vm->marks[j].m.end == vm->marks[i].m.end)
			return true;
	return false;
}

/*
 * Ghost i less what the window's live mappings cover now: what is left is
 * the range that vanished (a hole unmapped in a mapping, the end a mapping
 * lost), cut in two around a mapping inside it; *gone when nothing is
 * left.  0 or MS_ERR_NOMEM.
 */
static int cut_ghost(struct tui_mapview *vm, size_t i, bool *gone)
{
	*gone = false;
	for (size_t w = 0; w < vm->window.count && !*gone; w++) {
		const struct ms_mapping *m = &vm->window.items[w];
		struct ms_mapping *g = &vm->marks[i].m;

		if (m->end <= g->start || m->start >= g->end)
			continue;
		if (m->start <= g->start && m->end >= g->end)
			*gone = true;
		else if (m->start <= g->start)
			ghost_start_at(g, m->end);
		else if (m->end >= g->end)
			g->end = m->start;
		else if (split_ghost(vm, i, m->start, m->end) < 0)
			return MS_ERR_NOMEM;
	}
	return 0;
}

/* Ghosts keep only what no live mapping on screen covers; one covered whole goes. */
static int cut_ghosts_under_window(struct tui_mapview *vm)
{
	for (size_t i = 0; i < vm->nmarks;) {
		bool gone = false;

		if (vm->marks[i].kind == TUI_MARK_REMOVED && cut_ghost(vm, i, &gone) < 0)
			return MS_ERR_NOMEM;
		if (vm->marks[i].kind == TUI_MARK_REMOVED && (gone || ghost_repeats(vm, i)))
			remove_mark(vm, i);
		else
			i++;
	}
	return 0;
}

static int on_diff(void *ctx, const struct ms_diff_entry *e)
{
	struct tui_mapview *vm = ctx;

	if (e->kind == MS_DIFF_REMOVED)
		return add_mark(vm, e->old_map, TUI_MARK_REMOVED) < 0 ? MS_ERR_NOMEM : 0;
	/* CHANGED: the range stayed, the mapping is another one (a name alone is not). */
	if (e->kind == MS_DIFF_CHANGED && ms_mapping_same_identity(e->old_map, e->new_map))
		return 0;
	return add_mark(vm, e->new_map, TUI_MARK_ADDED) < 0 ? MS_ERR_NOMEM : 0;
}

static enum tui_mark added_mark(const struct tui_mapview *vm, const struct ms_mapping *m)
{
	for (size_t i = 0; i < vm->nmarks; i++)
		if (vm->marks[i].kind == TUI_MARK_ADDED && ms_mapping_same_identity(&vm->marks[i].m, m))
			return TUI_MARK_ADDED;
	return TUI_MARK_NONE;
}

static int push_row(struct tui_mapview *vm, const struct ms_mapping *m, enum tui_mark mark)
{
	if (tui_grow((void **)&vm->rows, &vm->rows_cap, vm->nrows, sizeof(*vm->rows)) < 0)
		return MS_ERR_NOMEM;
	vm->rows[vm->nrows].m = m;
	vm->rows[vm->nrows].mark = mark;
	vm->rows[vm->nrows].verdict = TUI_VERDICT_NONE;
	vm->rows[vm->nrows].rss_known = false;
	vm->nrows++;
	return 0;
}

static int ghost_cmp(const void *a, const void *b)
{
	const struct tui_ghost *x = a, *y = b;

	return (x->m.start > y->m.start) - (x->m.start < y->m.start);
}

static int build_rows(struct tui_mapview *vm)
{
	size_t w = 0, g = 0;

	/* qsort(NULL, 0, ...) is undefined behaviour (C11 7.22.5), and UBSan says so. */
	if (vm->nmarks > 1)
		qsort(vm->marks, vm->nmarks, sizeof(*vm->marks), ghost_cmp);
	vm->nrows = 0;
	while (w < vm->window.count || g < vm->nmarks) {
		const struct ms_mapping *live = w < vm->window.count ? &vm->window.items[w] : NULL;
		const struct tui_ghost *ghost = g < vm->nmarks ? &vm->marks[g] : NULL;
		int rc = 0;

		if (ghost && (ghost->kind != TUI_MARK_REMOVED || ghost->m.end <= vm->top ||
			      ghost->m.start >= vm->window_limit)) {
			g++;
			continue;
		}
		if (ghost && (!live || ghost->m.start < live->start)) {
			if (tui_mapview_name_matches(vm, &ghost->m))
				rc = push_row(vm, &ghost->m, TUI_MARK_REMOVED);
			g++;
		} else {
			if (tui_mapview_name_matches(vm, live))
				rc = push_row(vm, live, added_mark(vm, live));
			w++;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void reselect(struct tui_mapview *vm)
{
	size_t i;

	if (!vm->nrows) {
		vm->sel_row = 0;
		return;
	}
	for (i = 0; i < vm->nrows; i++)
		if (vm->rows[i].m->start == vm->sel)
			break;
	if (i == vm->nrows)
		for (i = 0; i < vm->nrows; i++)
			if (vm->rows[i].m->end > vm->sel)
				break;
	if (i == vm->nrows)
		i = vm->nrows - 1;
	vm->sel_row = i;
	vm->sel = vm->rows[i].m->start;
}

int tui_mapview_apply(struct tui_mapview *vm, struct ms_maplist *fresh, uint64_t addr,
		      bool more, bool tick)
{
	bool changed = !vm->have_window || addr != vm->top || fresh->count != vm->window.count;
	size_t nmarks;
	uint64_t lo, limit;
	int rc;

	if (tick) {
		vm->index_age++;
		for (size_t i = 0; i < vm->nmarks;) {
			if (--vm->marks[i].ttl == 0) {
				remove_mark(vm, i);
				changed = true;
			} else {
				i++;
			}
		}
	}
	/* Marks come from what the process changed where the view had looked, never from a move. */
	nmarks = vm->nmarks;
	tui_seen_range(fresh, addr, more, &lo, &limit);
	rc = tui_seen_observe(&vm->seen, fresh, lo, limit, tick, on_diff, vm);
	if (rc < 0)
		return rc;
	if (vm->nmarks != nmarks)
		changed = true;
	ms_maplist_free(&vm->window);
	vm->window = *fresh;
	memset(fresh, 0, sizeof(*fresh));
	vm->top = addr;
	vm->window_limit = limit;
	vm->have_window = true;
	rc = cut_ghosts_under_window(vm);
	if (rc == 0)
		rc = build_rows(vm);
	if (rc < 0)
		return rc;
	reselect(vm);
	return changed ? 1 : 0;
}

int tui_mapview_apply_index(struct tui_mapview *vm, const struct ms_maplist *all)
{
	size_t nmarks = vm->nmarks;
	int rc;

	/* A full walk is seen too: later moves compare with it, not with nothing. */
	rc = tui_seen_observe(&vm->seen, all, 0, UINT64_MAX, false, on_diff, vm);
	if (rc < 0)
		return rc;
	if (vm->nmarks != nmarks && vm->have_window && !tui_mapview_sorted(vm)) {
		/* A mapping that straddled the window's end is reported again from beyond it. */
		rc = cut_ghosts_under_window(vm);
		if (rc == 0)
			rc = build_rows(vm);
		if (rc < 0)
			return rc;
		reselect(vm);
	}
	vm->nstarts = 0;
	vm->total_size = 0;
	if (all->count > vm->starts_cap) {
		uint64_t *grown = realloc(vm->starts, all->count * sizeof(*grown));

		if (!grown)
			return MS_ERR_NOMEM;
		vm->starts = grown;
		vm->starts_cap = all->count;
	}
	for (size_t i = 0; i < all->count; i++) {
		if (!tui_mapview_name_matches(vm, &all->items[i]))
			continue;
		vm->starts[vm->nstarts++] = all->items[i].start;
		vm->total_size += ms_mapping_size(&all->items[i]);
	}
	vm->index_valid = true;
	vm->index_age = 0;
	vm->index_walks++;
	return 0;
}

static const char *const sort_names[TUI_MSORT_COUNT] = {
	"address", "SIZE", "RSS", "PERMS", "INODE", "NAME",
};

const char *tui_map_sort_name(enum tui_map_sort sort)
{
	return sort < TUI_MSORT_COUNT ? sort_names[sort] : "?";
}

bool tui_mapview_sorted(const struct tui_mapview *vm)
{
	return vm->sort != TUI_MSORT_ADDRESS || vm->sort_reverse;
}

void tui_mapview_set_sort(struct tui_mapview *vm, enum tui_map_sort sort, bool reverse)
{
	vm->sort = sort;
	vm->sort_reverse = reverse;
	drop_marks(vm);
	tui_seen_forget(&vm->seen);
	vm->have_window = false;
	/* Back in address order, the window starts at the selection. */
	vm->top = vm->sel;
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int names_cmp(const struct ms_mapping *x, const struct ms_mapping *y)
{
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c;

	/* Unnamed mappings first; names by their bytes, as the kernel gave them. */
	if (!x->name || !y->name)
		return CMP(x->name != NULL, y->name != NULL);
	c = memcmp(x->name, y->name, n);
	return c ? c : CMP(x->name_len, y->name_len);
}

static int sorted_cmp(const void *a, const void *b, void *ctx)
{
	const struct tui_mapview *vm = ctx;
	const struct tui_maprow *p = a, *q = b;
	const struct ms_mapping *x = p->m, *y = q->m;
	char px[5], py[5];
	int c = 0;

	switch (vm->sort) {
	case TUI_MSORT_SIZE: c = CMP(ms_mapping_size(x), ms_mapping_size(y)); break;
	case TUI_MSORT_RSS: c = CMP(p->rss_known ? p->rss : 0, q->rss_known ? q->rss : 0); break;
	case TUI_MSORT_PERMS:
		ms_perms_format(x->perms, px);
		ms_perms_format(y->perms, py);
		c = strcmp(px, py);
		break;
	case TUI_MSORT_INODE:
		c = CMP(x->inode, y->inode);
		if (!c)
			c = CMP(((uint64_t)x->dev_major << 32) | x->dev_minor,
				((uint64_t)y->dev_major << 32) | y->dev_minor);
		break;
	case TUI_MSORT_NAME: c = names_cmp(x, y); break;
	default: break;
	}
	if (!c)
		c = CMP(x->start, y->start);
	return vm->sort_reverse ? -c : c;
}

int tui_mapview_apply_sorted(struct tui_mapview *vm, struct ms_maplist *all, const uint64_t *rss)
{
	size_t i;
	int rc = tui_mapview_apply_index(vm, all);

	if (rc < 0)
		return rc;
	drop_marks(vm);
	ms_maplist_free(&vm->window);
	vm->window = *all;
	memset(all, 0, sizeof(*all));
	vm->top = 0;
	vm->window_limit = UINT64_MAX;
	vm->have_window = true;
	vm->nrows = 0;
	for (i = 0; i < vm->window.count; i++) {
		if (!tui_mapview_name_matches(vm, &vm->window.items[i]))
			continue;
		if (push_row(vm, &vm->window.items[i], TUI_MARK_NONE) < 0)
			return MS_ERR_NOMEM;
		if (rss) {
			vm->rows[vm->nrows - 1].rss = rss[i];
			vm->rows[vm->nrows - 1].rss_known = true;
		}
	}
	if (vm->nrows > 1)
		qsort_r(vm->rows, vm->nrows, sizeof(*vm->rows), sorted_cmp, vm);
	for (i = 0; i < vm->nrows && vm->rows[i].m->start != vm->sel; i++)
		;
	if (i == vm->nrows)
		i = vm->sel_row < vm->nrows ? vm->sel_row : 0;
	vm->sel_row = i;
	vm->sel = vm->nrows ? vm->rows[i].m->start : 0;
	return 0;
}

void tui_mapview_reset(struct tui_mapview *vm)
{
	drop_marks(vm);
	tui_seen_forget(&vm->seen);
	vm->have_window = false;
	vm->index_valid = false;
}

void tui_mapview_set_filter(struct tui_mapview *vm, unsigned filter)
{
	vm->filter = filter;
	tui_mapview_reset(vm);
}

void tui_mapview_set_name_filter(struct tui_mapview *vm, const char *s)
{
	snprintf(vm->name_filter, sizeof(vm->name_filter), "%s", s);
	vm->index_valid = false;
	if (tui_mapview_sorted(vm)) {
		vm->have_window = false; /* the next listing is filtered and sorted */
		return;
	}
	build_rows(vm);
	reselect(vm);
}

const struct tui_maprow *tui_mapview_selected(const struct tui_mapview *vm)
{
	return vm->nrows ? &vm->rows[vm->sel_row] : NULL;
}

size_t tui_mapview_first_shown(const struct tui_mapview *vm)
{
	return vm->sel_row >= vm->height ? vm->sel_row - vm->height + 1 : 0;
}

static size_t starts_lower_bound(const struct tui_mapview *vm, uint64_t addr)
{
	size_t lo = 0, hi = vm->nstarts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vm->starts[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int select_row(struct tui_mapview *vm, size_t row)
{
	size_t first = tui_mapview_first_shown(vm);

	vm->sel_row = row;
	vm->sel = vm->rows[row].m->start;
	if (tui_mapview_sorted(vm))
		return TUI_MV_OK; /* every row is here */
	if (row >= first + vm->height)
		first = row - vm->height + 1;
	else if (row < first)
		first = row;
	else if (first == 0)
		return TUI_MV_OK;
	/* Query again from the new first visible row, so the window follows the screen. */
	vm->top = vm->rows[first].m->start;
	return TUI_MV_REQUERY;
}

int tui_mapview_move(struct tui_mapview *vm, long delta)
{
	long target;
	size_t i;

	if (!vm->nrows)
		return TUI_MV_OK;
	target = (long)vm->sel_row + delta;
	if (delta >= 0) {
		if ((size_t)target < vm->nrows)
			return select_row(vm, (size_t)target);
		return select_row(vm, vm->nrows - 1);
	}
	if (target >= 0)
		return select_row(vm, (size_t)target);
	if (vm->rows[0].m->start == 0 || vm->top == 0)
		return select_row(vm, 0);
	if (!vm->index_valid)
		return TUI_MV_NEED_INDEX;
	i = starts_lower_bound(vm, vm->rows[0].m->start);
	if (i == 0)
		return select_row(vm, 0);
	i = (size_t)-target > i ? 0 : i - (size_t)-target;
	vm->top = vm->sel = vm->starts[i];
	return TUI_MV_REQUERY;
}

int tui_mapview_home(struct tui_mapview *vm)
{
	if (tui_mapview_sorted(vm))
		return vm->nrows ? select_row(vm, 0) : TUI_MV_OK;
	vm->top = vm->sel = 0;
	vm->sel_row = 0;
	return TUI_MV_REQUERY;
}

int tui_mapview_end(struct tui_mapview *vm)
{
	size_t n = vm->nstarts;

	if (tui_mapview_sorted(vm))
		return vm->nrows ? select_row(vm, vm->nrows - 1) : TUI_MV_OK;
	if (!vm->index_valid)
		return TUI_MV_NEED_INDEX;
	if (!n)
		return TUI_MV_OK;
	vm->top = vm->starts[n > vm->height ? n - vm->height : 0];
	vm->sel = vm->starts[n - 1];
	return TUI_MV_REQUERY;
}

bool tui_mapview_short(const struct tui_mapview *vm)
{
	return !tui_mapview_sorted(vm) && vm->have_window && vm->top > 0 && vm->nrows < vm->height;
}

int tui_mapview_pull_up(struct tui_mapview *vm)
{
	size_t n = vm->nstarts;
	uint64_t top;

	if (!vm->index_valid)
		return TUI_MV_NEED_INDEX;
	top = n ? vm->starts[n > vm->height ? n - vm->height : 0] : 0;
	if (top >= vm->top)
		return TUI_MV_OK;
	vm->top = top;
	return TUI_MV_REQUERY;
}

void tui_mapview_goto(struct tui_mapview *vm, uint64_t start)
{
	if (tui_mapview_sorted(vm)) {
		for (size_t i = 0; i < vm->nrows; i++)
			if (vm->rows[i].m->start == start)
				select_row(vm, i);
		return;
	}
	vm->top = vm->sel = start;
	vm->sel_row = 0;
}

bool tui_mapview_click(struct tui_mapview *vm, size_t line)
{
	size_t row = tui_mapview_first_shown(vm) + line;

	if (row >= vm->nrows || line >= vm->height)
		return false;
	vm->sel_row = row;
	vm->sel = vm->rows[row].m->start;
	return true;
}

int tui_mapview_judge_visible(struct tui_mapview *vm, tui_judge_fn judge, void *ctx)
{
	size_t first = tui_mapview_first_shown(vm);

	for (size_t i = first; i < vm->nrows && i < first + vm->height; i++) {
		struct tui_maprow *r = &vm->rows[i];
		enum ms_stale_verdict v;
		int rc;

		if (r->mark == TUI_MARK_REMOVED || !ms_mapping_is_file_backed(r->m))
			continue;
		rc = judge(ctx, r->m, &v);
		if (rc < 0)
			return rc;
		r->verdict = (int)v;
	}
	return 0;
}

size_t tui_mapview_position(const struct tui_mapview *vm)
{
	if (!vm->index_valid || !vm->nrows)
		return 0;
	if (tui_mapview_sorted(vm))
		return vm->sel_row + 1;
	return starts_lower_bound(vm, vm->sel) + 1;
}

int tui_mapview_residency_visible(struct tui_mapview *vm, tui_residency_fn query, void *ctx)
{
	size_t first = tui_mapview_first_shown(vm), n = 0;
	struct ms_mapping *maps;
	struct ms_resinfo *info;
	int rc = 0;

	/* Sorted rows came with every mapping's RSS, and are not in address order. */
	if (tui_mapview_sorted(vm))
		return 0;
	for (size_t i = first; i < vm->nrows; i++)
		vm->rows[i].rss_known = false;
	if (first >= vm->nrows || !vm->height)
		return 0;
	maps = calloc(vm->height, sizeof(*maps));
	info = calloc(vm->height, sizeof(*info));
	if (!maps || !info)
		rc = MS_ERR_NOMEM;
	/* Shallow copies: the query reads the ranges only, in one array. */
	for (size_t i = first; rc == 0 && i < vm->nrows && i < first + vm->height; i++)
		if (vm->rows[i].mark != TUI_MARK_REMOVED)
			maps[n++] = *vm->rows[i].m;
	if (rc == 0 && n)
		rc = query(ctx, maps, n, info);
	for (size_t i = first, k = 0; rc == 0 && i < vm->nrows && k < n; i++) {
		if (vm->rows[i].mark == TUI_MARK_REMOVED)
			continue;
		vm->rows[i].rss = info[k++].rss;
		vm->rows[i].rss_known = true;
	}
	free(maps);
	free(info);
	return rc;
}
