#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "tui/procs_model.h"

static const char *const col_names[TUI_PCOL_COUNT] = {
	"PID", "USER", "MAPS", "MAPPED", "RSS", "STALE", "COMMAND",
};

const char *tui_proc_col_name(enum tui_proc_col col)
{
	return col_names[col];
}

void tui_procview_init(struct tui_procview *pv, uid_t me, size_t height)
{
	memset(pv, 0, sizeof(*pv));
	pv->me = me;
	pv->all_users = me == 0;
	pv->height = height ? height : 1;
	pv->sel = -1;
}

void tui_procview_free(struct tui_procview *pv)
{
	ms_proclist_free(&pv->list);
	free(pv->shown);
	memset(pv, 0, sizeof(*pv));
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* Does r show a number in col?  MAPS and MAPPED are blank (or "-") until counted. */
static bool has_value(enum tui_proc_col col, const struct ms_procrow *r)
{
	switch (col) {
	case TUI_PCOL_MAPS: case TUI_PCOL_MAPPED: return r->counted && !r->maps_err;
	case TUI_PCOL_STALE: return r->stale_counted;
	default: return true;
	}
}

static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct tui_procview *pv = ctx;
	const struct ms_procrow *x = &pv->list.rows[*(const size_t *)a];
	const struct ms_procrow *y = &pv->list.rows[*(const size_t *)b];
	bool kx = has_value(pv->sort_col, x), ky = has_value(pv->sort_col, y);
	int c = 0;

	/* Unknowns go last whatever the direction, as in htop, and among them by PID. */
	if (kx != ky)
		return kx ? -1 : 1;
	switch (kx ? pv->sort_col : TUI_PCOL_PID) {
	case TUI_PCOL_USER: c = strcmp(x->user, y->user); break;
	case TUI_PCOL_MAPS: c = CMP(x->nmaps, y->nmaps); break;
	case TUI_PCOL_MAPPED: c = CMP(x->mapped, y->mapped); break;
	case TUI_PCOL_RSS: c = CMP(x->rss, y->rss); break;
	case TUI_PCOL_STALE: c = CMP(x->stale, y->stale); break;
	case TUI_PCOL_COMMAND: c = strcmp(x->cmd, y->cmd); break;
	default: break;
	}
	if (!c)
		c = CMP(x->pid, y->pid);
	return pv->reverse ? -c : c;
}

static void keep_visible(struct tui_procview *pv)
{
	if (pv->sel_row < pv->top_row)
		pv->top_row = pv->sel_row;
	else if (pv->sel_row >= pv->top_row + pv->height)
		pv->top_row = pv->sel_row - pv->height + 1;
	/* Fewer rows than before (a filter): no blank screen below the last. */
	if (pv->nshown <= pv->height)
		pv->top_row = 0;
	else if (pv->top_row > pv->nshown - pv->height)
		pv->top_row = pv->nshown - pv->height;
}

static void select_row(struct tui_procview *pv, size_t row)
{
	if (!pv->nshown)
		return;
	if (row >= pv->nshown)
		row = pv->nshown - 1;
	pv->sel_row = row;
	pv->sel = pv->list.rows[pv->shown[row]].pid;
	keep_visible(pv);
}

void tui_procview_select(struct tui_procview *pv, size_t row)
{
	pv->sel_first = false;
	select_row(pv, row);
}

static void fill_shown(struct tui_procview *pv)
{
	pv->nshown = 0;
	for (size_t i = 0; i < pv->list.count; i++) {
		const struct ms_procrow *r = &pv->list.rows[i];

		if (r->kthread && !pv->kthreads)
			continue;
		if (!pv->all_users && r->uid != pv->me)
			continue;
		if (!tui_find_in(r->cmd, r->cmd_len, pv->filter))
			continue;
		pv->shown[pv->nshown++] = i;
	}
}

/* A process to reveal that the filters hide: widen them until it shows. */
static void widen_for(struct tui_procview *pv, pid_t pid)
{
	for (size_t i = 0; i < pv->list.count; i++) {
		const struct ms_procrow *r = &pv->list.rows[i];

		if (r->pid != pid)
			continue;
		if (r->kthread)
			pv->kthreads = true;
		if (r->uid != pv->me)
			pv->all_users = true;
		return;
	}
}

int tui_procview_rebuild(struct tui_procview *pv)
{
	size_t old_row = pv->sel_row, i;

	if (pv->list.count > pv->shown_cap) {
		size_t *grown = realloc(pv->shown, pv->list.count * sizeof(*grown));

		if (!grown)
			return MS_ERR_NOMEM;
		pv->shown = grown;
		pv->shown_cap = pv->list.count;
	}
	if (pv->reveal && pv->list.count) {
		widen_for(pv, pv->sel);
		pv->reveal = false;
	}
	fill_shown(pv);
	qsort_r(pv->shown, pv->nshown, sizeof(*pv->shown), row_cmp, pv);
	for (i = 0; i < pv->nshown; i++)
		if (pv->list.rows[pv->shown[i]].pid == pv->sel)
			break;
	select_row(pv, pv->sel_first ? 0 : i < pv->nshown ? i : old_row);
	return 0;
}

void tui_procview_sort(struct tui_procview *pv, enum tui_proc_col col, bool reverse)
{
	pv->sort_col = col;
	pv->reverse = reverse;
	pv->sel_first = true;
	tui_procview_rebuild(pv);
}

int tui_procview_reveal(struct tui_procview *pv, pid_t pid)
{
	pv->sel_first = false;
	pv->sel = pid;
	pv->reveal = true;
	return pv->list.count ? tui_procview_rebuild(pv) : 0;
}

void tui_procview_count_shown(struct tui_procview *pv, struct ms_stale_ctx *stale, bool only_new)
{
	size_t n = pv->top_row < pv->nshown ? pv->nshown - pv->top_row : 0;

	if (n > pv->height)
		n = pv->height;
	ms_proclist_count(&pv->list, pv->shown + pv->top_row, n, stale, only_new);
	if (pv->list.walked && (pv->sort_col == TUI_PCOL_MAPS || pv->sort_col == TUI_PCOL_MAPPED ||
				pv->sort_col == TUI_PCOL_STALE))
		tui_procview_rebuild(pv);
}

const struct ms_procrow *tui_procview_row(const struct tui_procview *pv, size_t i)
{
	return i < pv->nshown ? &pv->list.rows[pv->shown[i]] : NULL;
}

const struct ms_procrow *tui_procview_selected(const struct tui_procview *pv)
{
	return tui_procview_row(pv, pv->sel_row);
}

void tui_procview_move(struct tui_procview *pv, long delta)
{
	long target = (long)pv->sel_row + delta;

	tui_procview_select(pv, target < 0 ? 0 : (size_t)target);
}

bool tui_procview_click(struct tui_procview *pv, size_t line)
{
	if (line >= pv->height || pv->top_row + line >= pv->nshown)
		return false;
	tui_procview_select(pv, pv->top_row + line);
	return true;
}

void tui_procview_set_height(struct tui_procview *pv, size_t height)
{
	pv->height = height ? height : 1;
	keep_visible(pv);
}

static bool row_has_search(const void *ctx, size_t row)
{
	const struct tui_procview *pv = ctx;
	const struct ms_procrow *r = &pv->list.rows[pv->shown[row]];

	return tui_find_in(r->cmd, r->cmd_len, pv->search);
}

bool tui_procview_search(struct tui_procview *pv, int dir, bool from_current)
{
	size_t row;

	if (!pv->nshown || !pv->search[0])
		return false;
	row = tui_find_row(pv->nshown, pv->sel_row, dir, from_current, row_has_search, pv);
	if (row >= pv->nshown)
		return false;
	tui_procview_select(pv, row);
	return true;
}

int tui_procview_set_filter(struct tui_procview *pv, const char *text)
{
	snprintf(pv->filter, sizeof(pv->filter), "%s", text);
	return tui_procview_rebuild(pv);
}
