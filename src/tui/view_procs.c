/* The process list: the first screen. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "core/stale/stale.h"
#include "tui/bars.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/procs_model.h"
#include "tui/tui.h"

struct procs_view {
	struct tui_view base;
	struct tui_procview pv;
	struct ms_stale_ctx *stale; /* NULL: no STALE counts (out of memory) */
	bool scanned;
	size_t widest; /* the widest COMMAND drawn, for Right */
};

static struct procs_view *pv_of(struct tui_view *v)
{
	return (struct procs_view *)v;
}

static unsigned procs_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	struct procs_view *p = pv_of(v);
	struct ms_error err;

	tui_procview_set_height(&p->pv, (size_t)tui_body_lines(LINES));
	if (!timer && p->scanned) {
		/* Scrolled: rows new on screen get their first count now. */
		tui_procview_count_shown(&p->pv, p->stale, true);
		return TUI_F_REDRAW;
	}
	/* A scan stats each mapped file once; the next scan must see the disk anew. */
	if (p->stale)
		ms_stale_ctx_forget(p->stale);
	p->pv.list.backend = app->backend;
	if (ms_proclist_scan(MS_PROCLIST_AUTO, 0, &p->pv.list, &err) < 0) {
		tui_message(app, "%s", err.msg);
		return TUI_F_REDRAW;
	}
	p->scanned = true;
	if (tui_procview_rebuild(&p->pv) < 0)
		tui_message(app, "process list: out of memory");
	else
		tui_procview_count_shown(&p->pv, p->stale, false);
	return TUI_F_REDRAW;
}

static unsigned search_prompt(struct tui_app *app, struct tui_view *v, const char *text,
			      bool done, bool accepted)
{
	struct procs_view *p = pv_of(v);

	if (tui_search_step(app, p->pv.search, sizeof(p->pv.search), text, done, accepted) &&
	    !tui_procview_search(&p->pv, 1, true))
		tui_message(app, "no match");
	return TUI_F_REDRAW;
}

static unsigned filter_prompt(struct tui_app *app, struct tui_view *v, const char *text,
			      bool done, bool accepted)
{
	struct procs_view *p = pv_of(v);

	if (tui_procview_set_filter(&p->pv, done && !accepted ? "" : text) < 0)
		tui_message(app, "process list: out of memory");
	/* Rows new on screen get their counts. */
	return TUI_F_REDRAW | TUI_F_REQUERY;
}

static unsigned procs_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct procs_view *p = pv_of(v);
	struct tui_procview *pv = &p->pv;
	long page = (long)pv->height;

	switch (act) {
	case TUI_ACT_DOWN: tui_procview_move(pv, 1); break;
	case TUI_ACT_UP: tui_procview_move(pv, -1); break;
	case TUI_ACT_PAGE_DOWN: tui_procview_move(pv, page); break;
	case TUI_ACT_PAGE_UP: tui_procview_move(pv, -page); break;
	case TUI_ACT_HOME: tui_procview_select(pv, 0); break;
	case TUI_ACT_END: tui_procview_select(pv, pv->nshown ? pv->nshown - 1 : 0); break;
	case TUI_ACT_SCROLL_LEFT: tui_hscroll(&pv->hscroll, -1, p->widest); break;
	case TUI_ACT_SCROLL_RIGHT: tui_hscroll(&pv->hscroll, 1, p->widest); break;
	case TUI_ACT_OPEN:
		return tui_procview_selected(pv) ? tui_open_maps(app, tui_procview_selected(pv)->pid) : 0;
	case TUI_ACT_LIBS_VIEW:
		return tui_open_libs(app);
	case TUI_ACT_SORT_NEXT:
		tui_procview_sort(pv, (enum tui_proc_col)((pv->sort_col + 1) % TUI_PCOL_COUNT), pv->reverse);
		break;
	case TUI_ACT_SORT_PREV:
		tui_procview_sort(pv, (enum tui_proc_col)((pv->sort_col + TUI_PCOL_COUNT - 1) % TUI_PCOL_COUNT),
				  pv->reverse);
		break;
	case TUI_ACT_SORT_REVERSE:
		tui_procview_sort(pv, pv->sort_col, !pv->reverse);
		break;
	case TUI_ACT_SEARCH:
		tui_prompt_start(app, v, "search: ", "", search_prompt);
		break;
	case TUI_ACT_PROCS_FILTER:
		tui_prompt_start(app, v, "command contains: ", pv->filter, filter_prompt);
		break;
	case TUI_ACT_SEARCH_NEXT:
	case TUI_ACT_SEARCH_PREV:
		if (!tui_procview_search(pv, act == TUI_ACT_SEARCH_NEXT ? 1 : -1, false))
			tui_message(app, "no match");
		break;
	case TUI_ACT_USERS:
		pv->all_users = !pv->all_users;
		tui_procview_rebuild(pv);
		break;
	case TUI_ACT_KTHREADS:
		pv->kthreads = !pv->kthreads;
		tui_procview_rebuild(pv);
		break;
	case TUI_ACT_BACK:
		/* One stray Esc must not end a session: only q leaves the first screen. */
		tui_message(app, "q quits");
		break;
	case TUI_ACT_QUIT:
		return TUI_F_BACK;
	default:
		return 0;
	}
	return TUI_F_REDRAW;
}

static unsigned procs_click(struct tui_app *app, struct tui_view *v, int y)
{
	return y >= 2 && tui_procview_click(&pv_of(v)->pv, (size_t)(y - 2)) ? TUI_F_REDRAW : 0;
}

/* The size bar's columns before COMMAND: while sorted by RSS or MAPPED. */
static int procs_bar_w(const struct tui_procview *pv)
{
	return pv->sort_col == TUI_PCOL_RSS || pv->sort_col == TUI_PCOL_MAPPED ? TUI_BAR_W + 1 : 0;
}

static int procs_beside(const struct tui_view *v)
{
	return procs_bar_w(&((const struct procs_view *)v)->pv);
}

/* A click on the heading sorts by that column; again, the other way. */
static unsigned procs_heading(struct tui_app *app, struct tui_view *v, int x)
{
	struct tui_procview *pv = &pv_of(v)->pv;
	int sort = (int)pv->sort_col;
	bool reverse = pv->reverse;

	if (!tui_heading_sort(app, TUI_CV_PROCS, 0, 0, procs_bar_w(pv), x, &sort, &reverse))
		return 0;
	tui_procview_sort(pv, (enum tui_proc_col)sort, reverse);
	return TUI_F_REDRAW;
}

/* Back from a maps view, even one the command line opened: land on its process. */
static void procs_back_from(struct tui_app *app, struct tui_view *v, pid_t pid)
{
	if (tui_procview_reveal(&pv_of(v)->pv, pid) < 0)
		tui_message(app, "process list: out of memory");
}

/* A row's size bar while sorted by RSS or MAPPED; MAPPED is known once counted. */
static uint64_t proc_bar(const struct tui_procview *pv, const struct ms_procrow *r, bool *known)
{
	if (pv->sort_col == TUI_PCOL_RSS) {
		*known = !r->kthread && r->state != 'Z';
		return r->rss;
	}
	*known = r->counted && !r->maps_err;
	return r->mapped;
}

size_t tui_procs_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_procview *pv)
{
	int w = getmaxx(win), rows = tui_body_lines(getmaxy(win));
	char text[TUI_LINE_MAX], filter[4 * TUI_FIND_MAX];
	size_t widest = 0;
	bool bars = pv->sort_col == TUI_PCOL_RSS || pv->sort_col == TUI_PCOL_MAPPED, known;
	uint64_t bar_max = 0;
	struct tui_layout l;
	int stale_x = -1;

	werase(win);
	if (tui_draw_too_small(win))
		return 0;
	/* The bar sits before COMMAND: the columns are placed in what it leaves. */
	tui_layout_make_beside(&l, TUI_CV_PROCS, &app->cfg.cols[TUI_CV_PROCS], 0, 0, w, procs_bar_w(pv));
	for (size_t i = 0; i < l.n; i++)
		if (l.id[i] == TUI_PC_STALE)
			stale_x = l.x[i];
	ms_escape(pv->filter, strlen(pv->filter), filter, sizeof(filter), app->escape_flags | MS_ESC_ASCII);
	snprintf(text, sizeof(text), "mapscope | %zu %s (%s) | %s%s%s%s | sort %s", pv->nshown,
		 ms_plural(pv->nshown, "process", "processes"), ms_proclist_source_name(MS_PROCLIST_AUTO),
		 pv->all_users ? "all users" : "your processes",
		 pv->kthreads ? ", kernel threads" : "", pv->filter[0] ? ", command~" : "", filter,
		 tui_proc_col_name(pv->sort_col));
	tui_draw_header(app, win, text);
	tui_format_procheading_cols(text, sizeof(text), &l, (int)pv->sort_col, pv->reverse);
	for (size_t i = 0; bars && i < pv->nshown; i++) {
		uint64_t value = proc_bar(pv, tui_procview_row(pv, i), &known);

		if (known && value > bar_max)
			bar_max = value;
	}
	if (bars)
		tui_bar_insert_heading(text, sizeof(text), "COMMAND");
	tui_draw_heading(win, text, sizeof(text), pv->hscroll, w);
	for (int i = 0; i < rows; i++) {
		size_t row = pv->top_row + (size_t)i;
		const struct ms_procrow *r = tui_procview_row(pv, row);
		attr_t a = A_NORMAL;
		size_t cmd_at, whole;

		if (!r)
			break;
		if (r->maps_err)
			a |= A_DIM;
		if (row == pv->sel_row)
			a |= A_REVERSE;
		cmd_at = tui_format_procrow_cols(text, sizeof(text), &l, r, app->escape_flags);
		if (bars) {
			uint64_t value = proc_bar(pv, r, &known);

			cmd_at = tui_bar_insert(text, sizeof(text), cmd_at, value, bar_max, known);
		}
		whole = tui_fit_last_column(text, sizeof(text), cmd_at, w, pv->hscroll, false,
					    app->escape_flags);
		if (whole > widest)
			widest = whole;
		wattron(win, a);
		tui_put(win, 2 + i, 0, text, w, true);
		wattroff(win, a);
		if (r->stale_counted && r->stale && stale_x >= 0 && w > stale_x) {
			/* The count alone in the stale colour, over the plain row. */
			attr_t sa = a | tui_pair_attr(app, TUI_PAIR_STALE);
			char cell[32];

			snprintf(cell, sizeof(cell), "%*zu", TUI_PROCROW_STALE_W, r->stale);
			wattron(win, sa);
			tui_put(win, 2 + i, stale_x, cell, w - stale_x, false);
			wattroff(win, sa);
		}
	}
	tui_draw_message(app, win, NULL);
	return widest;
}

static void procs_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	pv_of(v)->widest = tui_procs_draw_frame(app, win, &pv_of(v)->pv);
}

static void procs_destroy(struct tui_view *v)
{
	tui_procview_free(&pv_of(v)->pv);
	ms_stale_ctx_free(pv_of(v)->stale);
	free(v);
}

static const struct tui_view_ops procs_ops = {
	.scope = TUI_SCOPE_PROCS,
	.handle = procs_handle,
	.tick = procs_tick,
	.draw = procs_draw,
	.click = procs_click,
	.heading = procs_heading,
	.beside = procs_beside,
	.back_from = procs_back_from,
	.destroy = procs_destroy,
};

struct tui_view *tui_procs_new(struct tui_app *app)
{
	struct procs_view *p = calloc(1, sizeof(*p));
	struct ms_error err;

	if (!p)
		return NULL;
	p->base.ops = &procs_ops;
	if (ms_stale_ctx_new(app->ignore, &p->stale, &err) < 0)
		p->stale = NULL;
	else
		ms_stale_ctx_no_ignored_proof(p->stale);
	tui_procview_init(&p->pv, app->me, (size_t)tui_body_lines(LINES > 0 ? LINES : 24));
	return &p->base;
}
