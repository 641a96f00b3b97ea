/*
 * The libraries view (L from the process list): every mapped file of every
 * process, as `mapscope libs`, live; Enter lists a file's processes, and
 * Enter there opens a process's maps view at the file's first mapping.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "tui/bars.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/libs_feed.h"
#include "tui/libs_model.h"
#include "tui/tui.h"

struct libs_view {
	struct tui_view base;
	struct tui_libview lv;
	struct tui_libfeed feed;
	unsigned have;   /* MS_LIBTABLE_* the shown table was walked with */
	unsigned forced; /* what the last walk forced by a column change asked for */
	size_t widest;
};

struct libprocs_view {
	struct tui_view base;
	struct libs_view *libs;     /* the view below, which owns the table */
	struct tui_libprocs lp;
	const struct ms_libtable_row *row; /* in libs' table now; NULL: gone */
	char name[4 * 256];         /* the file, escaped, for the header */
	size_t widest;
};

static struct libs_view *lv_of(struct tui_view *v)
{
	return (struct libs_view *)v;
}

static struct libprocs_view *lp_of(struct tui_view *v)
{
	return (struct libprocs_view *)v;
}

/*
 * The columns for the rows on screen (their versions whole, their file
 * names whole where room allows).  The size bar before NAME takes NAME's
 * room, not the columns'; it gives way before a file name is cut (*bar
 * false).
 */
static void libs_layout(const struct tui_app *app, const struct libs_view *s, int width,
			struct tui_layout *l, bool *bar)
{
	const struct tui_colset *set = &app->cfg.cols[TUI_CV_LIBS];
	int want[TUI_COLS_MAX] = { 0 };

	tui_libview_want(&s->lv, app->escape_flags, 0, want);
	tui_libview_want(&s->lv, app->escape_flags,
			 tui_layout_reach(TUI_CV_LIBS, set, 0, TUI_LIBROW_PREFIX, width, 0, want), want);
	*bar = tui_layout_fit_yielding(l, TUI_CV_LIBS, set, 0, TUI_LIBROW_PREFIX,
				       width, TUI_BAR_W + 1, want, app->escape_flags);
}

/* What the next walk finds out: RSS, SONAMEs and build IDs only where their columns show. */
static unsigned libs_wanted(const struct tui_app *app, const struct libs_view *s)
{
	struct tui_layout l;
	bool bar;

	libs_layout(app, s, COLS > 0 ? COLS : 80, &l, &bar);
	return (tui_layout_shows(&l, TUI_LC_RSS) ? MS_LIBTABLE_RSS : 0) |
	       (tui_layout_shows(&l, TUI_LC_SONAME) || tui_layout_shows(&l, TUI_LC_LIBVER) ?
		MS_LIBTABLE_SONAME : 0) |
	       (tui_layout_shows(&l, TUI_LC_BUILDID) ? MS_LIBTABLE_BUILD_ID : 0);
}

/* A share of the walk (the whole of it the first time); a table that ends one is swapped in. */
static void libs_walk(struct tui_app *app, struct libs_view *s, bool whole)
{
	struct ms_libtable *done;
	struct ms_error err;

	if (!s->feed.walking)
		s->feed.what = libs_wanted(app, s) | MS_LIBTABLE_PROCS;
	if (tui_libfeed_step(&s->feed, whole, &done, &err) < 0) {
		tui_message(app, "%s", err.msg);
		return;
	}
	if (!done)
		return;
	s->have = s->feed.what;
	if (tui_libview_apply(&s->lv, done) < 0)
		tui_message(app, "libraries view: out of memory");
}

/*
 * A column chosen since the shown table was walked (C: RSS, SONAME,
 * BUILDID) is filled by a whole walk now, not blank until the next one
 * ends; at most one such walk per set of columns, so a walk that fails is
 * not retried at every tick.
 */
static void libs_follow_columns(struct tui_app *app, struct libs_view *s)
{
	unsigned want = libs_wanted(app, s) | MS_LIBTABLE_PROCS;

	if (!s->feed.walks || !(want & ~s->have) || want == s->forced)
		return;
	s->forced = want;
	tui_libfeed_restart(&s->feed);
	libs_walk(app, s, true);
}

static unsigned libs_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	struct libs_view *s = lv_of(v);

	tui_libview_set_height(&s->lv, (size_t)tui_body_lines(LINES));
	libs_follow_columns(app, s);
	if (timer || !s->feed.walks)
		libs_walk(app, s, !s->feed.walks);
	return TUI_F_REDRAW;
}

static unsigned libs_search_prompt(struct tui_app *app, struct tui_view *v, const char *text, bool done,
				   bool accepted)
{
	struct tui_libview *lv = &lv_of(v)->lv;

	if (tui_search_step(app, lv->search, sizeof(lv->search), text, done, accepted) &&
	    !tui_libview_search(lv, 1, true))
		tui_message(app, "no match");
	return TUI_F_REDRAW;
}

static unsigned libs_filter_prompt(struct tui_app *app, struct tui_view *v, const char *text, bool done,
				   bool accepted)
{
	(void)app;
	tui_libview_set_filter(&lv_of(v)->lv, done && !accepted ? "" : text);
	return TUI_F_REDRAW;
}

static unsigned open_procs(struct tui_app *app, struct libs_view *s);

static unsigned libs_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct libs_view *s = lv_of(v);
	struct tui_libview *lv = &s->lv;
	long page = (long)lv->height;

	switch (act) {
	case TUI_ACT_DOWN: tui_libview_move(lv, 1); break;
	case TUI_ACT_UP: tui_libview_move(lv, -1); break;
	case TUI_ACT_PAGE_DOWN: tui_libview_move(lv, page); break;
	case TUI_ACT_PAGE_UP: tui_libview_move(lv, -page); break;
	case TUI_ACT_HOME: tui_libview_select(lv, 0); break;
	case TUI_ACT_END: tui_libview_select(lv, lv->count ? lv->count - 1 : 0); break;
	case TUI_ACT_SCROLL_LEFT: tui_hscroll(&lv->hscroll, -1, s->widest); break;
	case TUI_ACT_SCROLL_RIGHT: tui_hscroll(&lv->hscroll, 1, s->widest); break;
	case TUI_ACT_LIBS_SORT_NEXT: tui_libview_sort_step(lv, 1); break;
	case TUI_ACT_LIBS_SORT_PREV: tui_libview_sort_step(lv, -1); break;
	case TUI_ACT_LIBS_SORT_REVERSE: tui_libview_sort_reverse(lv); break;
	case TUI_ACT_LIBS_SEARCH:
		tui_prompt_start(app, v, "search: ", "", libs_search_prompt);
		break;
	case TUI_ACT_LIBS_SEARCH_NEXT:
	case TUI_ACT_LIBS_SEARCH_PREV:
		if (!tui_libview_search(lv, act == TUI_ACT_LIBS_SEARCH_NEXT ? 1 : -1, false))
			tui_message(app, "no match");
		break;
	case TUI_ACT_LIBS_FILTER:
		tui_prompt_start(app, v, "path, SONAME or package contains: ", lv->filter, libs_filter_prompt);
		break;
	case TUI_ACT_LIBS_OPEN: return open_procs(app, s);
	case TUI_ACT_REFRESH:
		/* A whole walk now, with what the columns ask for now. */
		tui_libfeed_restart(&s->feed);
		libs_walk(app, s, true);
		break;
	case TUI_ACT_BACK:
	case TUI_ACT_QUIT:
		return TUI_F_BACK;
	default:
		return 0;
	}
	return TUI_F_REDRAW;
}

static unsigned libs_click(struct tui_app *app, struct tui_view *v, int y)
{
	(void)app;
	return y >= 2 && tui_libview_click(&lv_of(v)->lv, (size_t)(y - 2)) ? TUI_F_REDRAW : 0;
}

static int libs_beside(const struct tui_view *v)
{
	(void)v;
	return TUI_BAR_W + 1;
}

static void libs_layout_op(const struct tui_app *app, const struct tui_view *v, int width,
			   struct tui_layout *l)
{
	bool bar;

	libs_layout(app, (const struct libs_view *)v, width, l, &bar);
}

static unsigned libs_heading(struct tui_app *app, struct tui_view *v, int x)
{
	struct tui_libview *lv = &lv_of(v)->lv;
	int sort = (int)lv->sort;
	bool reverse = lv->reverse;

	struct tui_layout l;
	bool bar;

	libs_layout(app, lv_of(v), COLS, &l, &bar);
	if (!tui_layout_sort_click(&l, x, &sort, &reverse))
		return 0;
	tui_libview_set_sort(lv, (enum tui_libsort)sort, reverse);
	return TUI_F_REDRAW;
}

static void libs_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	struct libs_view *s = lv_of(v);
	const struct tui_libview *lv = &s->lv;
	int w = getmaxx(win), rows = tui_body_lines(getmaxy(win));
	char text[TUI_LINE_MAX], filter[4 * TUI_FIND_MAX];
	uint64_t bar_max = 0;
	struct tui_layout l;
	bool bar;

	s->widest = 0;
	werase(win);
	if (tui_draw_too_small(win))
		return;
	for (size_t i = 0; i < lv->count; i++) {
		const struct ms_libtable_row *r = tui_libview_row(lv, i);

		if (r->rss > bar_max)
			bar_max = r->rss;
	}
	/* No total RSS: a page shared by many processes counts once per process in each row. */
	ms_escape(lv->filter, strlen(lv->filter), filter, sizeof(filter), app->escape_flags | MS_ESC_ASCII);
	/* The filter before the counts: an 80-column header still shows what hides rows. */
	snprintf(text, sizeof(text), "mapscope | libraries: %zu files%s%s | %zu scanned, %zu unreadable | sorted by %s%s",
		 lv->count, lv->filter[0] ? " | name~" : "", filter, s->feed.scanned, s->feed.unreadable,
		 tui_libsort_name(lv->sort), lv->reverse ? ", reversed" : "");
	tui_draw_header(app, win, text);
	libs_layout(app, s, w, &l, &bar);
	tui_format_libheading_cols(text, sizeof(text), &l, lv);
	if (bar)
		tui_bar_insert_heading(text, sizeof(text), "NAME");
	tui_draw_heading(win, text, sizeof(text), lv->hscroll, w);
	if (!lv->count)
		tui_put(win, 2, 0, !lv->table ? "  walking the processes..." :
			lv->filter[0] ? "  nothing matches the filter" : "  no mapped files", w, false);
	for (int i = 0; i < rows; i++) {
		size_t row = lv->top + (size_t)i, name_at, whole;
		const struct ms_libtable_row *r = tui_libview_row(lv, row);
		attr_t a = 0;

		if (!r)
			break;
		if (ms_stale_verdict_is_stale(r->verdict))
			a = tui_pair_attr(app, TUI_PAIR_STALE);
		if (row == lv->sel)
			a |= A_REVERSE;
		name_at = tui_format_librow_cols(text, sizeof(text), &l, lv->table, r, app->escape_flags);
		if (bar)
			name_at = tui_bar_insert(text, sizeof(text), name_at, r->rss, bar_max,
						 ms_libtable_row_res_known(r));
		whole = tui_put_fitted_row(win, 2 + i, text, sizeof(text), name_at, lv->hscroll, true, a,
					   app->escape_flags);
		if (whole > s->widest)
			s->widest = whole;
	}
	tui_draw_message(app, win, NULL);
}

static void libs_destroy(struct tui_view *v)
{
	struct libs_view *s = lv_of(v);

	tui_libview_free(&s->lv);
	tui_libfeed_free(&s->feed);
	free(s);
}

static const struct tui_view_ops libs_ops = {
	.scope = TUI_SCOPE_LIBS,
	.handle = libs_handle,
	.tick = libs_tick,
	.draw = libs_draw,
	.click = libs_click,
	.heading = libs_heading,
	.beside = libs_beside,
	.layout = libs_layout_op,
	.destroy = libs_destroy,
};

unsigned tui_open_libs(struct tui_app *app)
{
	struct libs_view *s = calloc(1, sizeof(*s));
	struct ms_error err;

	if (!s || tui_libfeed_init(&s->feed, app->ignore, app->backend, &err) < 0) {
		free(s);
		tui_message(app, "libraries view: out of memory");
		return TUI_F_REDRAW;
	}
	s->base.ops = &libs_ops;
	tui_libview_init(&s->lv, (size_t)tui_body_lines(LINES > 0 ? LINES : 24));
	tui_push(app, &s->base);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

/* ---- a file's processes ---- */

/* The sub-list follows the table below, which goes on walking while it shows. */
static void libprocs_sync(struct tui_app *app, struct libprocs_view *p)
{
	if (tui_libprocs_sync(&p->lp, &p->libs->lv, &p->row) < 0)
		tui_message(app, "libraries view: out of memory");
}

static unsigned libprocs_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	struct libprocs_view *p = lp_of(v);

	tui_libprocs_set_height(&p->lp, (size_t)tui_body_lines(LINES));
	if (timer)
		libs_walk(app, p->libs, false);
	libprocs_sync(app, p);
	return TUI_F_REDRAW;
}

struct first_of {
	const struct ms_libtable_row *row;
	uint64_t addr;
	bool found;
};

static int first_mapping(void *ctx, struct ms_mapping *m)
{
	struct first_of *f = ctx;

	if (m->inode != f->row->inode || m->dev_major != f->row->dev_major || m->dev_minor != f->row->dev_minor)
		return 0;
	f->addr = m->start;
	f->found = true;
	return 1;
}

/* The process's maps view, at the file's first mapping there (as it is now). */
static unsigned open_at_file(struct tui_app *app, struct libprocs_view *p, pid_t pid)
{
	struct first_of first = { .row = p->row };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	struct tui_view *below = app->top;
	unsigned flags;
	int rc;

	rc = ms_fleet_open_one(pid, app->backend, &proc, &maps, NULL, &err);
	if (rc == 0) {
		rc = ms_maps_walk(maps, 0, MS_FILTER_FILE_BACKED, first_mapping, &first, &err);
		ms_maps_close(maps);
		ms_proc_close(proc);
	}
	flags = tui_open_maps(app, pid);
	if (app->top == below)
		return flags;
	if (first.found && app->top->ops->jump)
		app->top->ops->jump(app->top, first.addr);
	else if (rc < 0)
		tui_message(app, "%s", err.msg);
	else
		tui_message(app, "pid %d maps that file no more", (int)pid);
	return flags;
}

static unsigned libprocs_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct libprocs_view *p = lp_of(v);
	struct tui_libprocs *lp = &p->lp;
	const struct ms_libtable *t = p->libs->lv.table;
	const struct ms_libtable_use *u;
	long page = (long)lp->height;

	switch (act) {
	case TUI_ACT_DOWN: tui_libprocs_move(lp, t, p->row, 1); break;
	case TUI_ACT_UP: tui_libprocs_move(lp, t, p->row, -1); break;
	case TUI_ACT_PAGE_DOWN: tui_libprocs_move(lp, t, p->row, page); break;
	case TUI_ACT_PAGE_UP: tui_libprocs_move(lp, t, p->row, -page); break;
	case TUI_ACT_HOME: tui_libprocs_select(lp, t, p->row, 0); break;
	case TUI_ACT_END: tui_libprocs_select(lp, t, p->row, lp->count ? lp->count - 1 : 0); break;
	case TUI_ACT_SCROLL_LEFT: tui_hscroll(&lp->hscroll, -1, p->widest); break;
	case TUI_ACT_SCROLL_RIGHT: tui_hscroll(&lp->hscroll, 1, p->widest); break;
	case TUI_ACT_LIBPROCS_OPEN:
		u = tui_libprocs_use(lp, p->row, lp->sel);
		return u ? open_at_file(app, p, ms_libtable_proc_of(t, u)->pid) : 0;
	case TUI_ACT_BACK:
	case TUI_ACT_QUIT:
		return TUI_F_BACK;
	default:
		return 0;
	}
	return TUI_F_REDRAW;
}

static unsigned libprocs_click(struct tui_app *app, struct tui_view *v, int y)
{
	struct libprocs_view *p = lp_of(v);
	size_t line = (size_t)(y - 2);

	(void)app;
	if (y < 2 || line >= p->lp.height || p->lp.top + line >= p->lp.count)
		return 0;
	tui_libprocs_select(&p->lp, p->libs->lv.table, p->row, p->lp.top + line);
	return TUI_F_REDRAW;
}

static void libprocs_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	struct libprocs_view *p = lp_of(v);
	const struct tui_libprocs *lp = &p->lp;
	const struct ms_libtable *t = p->libs->lv.table;
	int w = getmaxx(win), rows = tui_body_lines(getmaxy(win));
	char text[TUI_LINE_MAX];
	struct tui_layout l;

	p->widest = 0;
	werase(win);
	if (tui_draw_too_small(win))
		return;
	snprintf(text, sizeof(text), "mapscope | %zu %s map %s%s", lp->count,
		 ms_plural(lp->count, "process", "processes"), p->name,
		 p->row && ms_stale_verdict_is_stale(p->row->verdict) ? p->row->verdict == MS_STALE_DELETED ?
		 " (D: deleted)" : " (R: replaced)" : "");
	tui_draw_header(app, win, text);
	tui_layout_make(&l, TUI_CV_LIBPROCS, &app->cfg.cols[TUI_CV_LIBPROCS], 0, 0, w);
	tui_layout_heading(text, sizeof(text), &l, -1, false, NULL);
	tui_draw_heading(win, text, sizeof(text), lp->hscroll, w);
	if (!p->row)
		tui_put(win, 2, 0, "  no process maps that file now", w, false);
	for (int i = 0; i < rows; i++) {
		size_t row = lp->top + (size_t)i, at, whole;
		const struct ms_libtable_use *u = tui_libprocs_use(lp, p->row, row);

		if (!u)
			break;
		at = tui_format_libproc_cols(text, sizeof(text), &l, t, u, app->escape_flags);
		whole = tui_put_fitted_row(win, 2 + i, text, sizeof(text), at, lp->hscroll, false,
					   row == lp->sel ? A_REVERSE : 0, app->escape_flags);
		if (whole > p->widest)
			p->widest = whole;
	}
	tui_draw_message(app, win, NULL);
}

static void libprocs_destroy(struct tui_view *v)
{
	struct libprocs_view *p = lp_of(v);

	tui_libprocs_free(&p->lp);
	free(p);
}

static const struct tui_view_ops libprocs_ops = {
	.scope = TUI_SCOPE_LIBPROCS,
	.handle = libprocs_handle,
	.tick = libprocs_tick,
	.draw = libprocs_draw,
	.click = libprocs_click,
	.destroy = libprocs_destroy,
};

static unsigned open_procs(struct tui_app *app, struct libs_view *s)
{
	const struct ms_libtable_row *r = tui_libview_selected(&s->lv);
	struct libprocs_view *p;

	if (!r)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p) {
		tui_message(app, "libraries view: out of memory");
		return TUI_F_REDRAW;
	}
	p->base.ops = &libprocs_ops;
	p->libs = s;
	ms_escape(r->name, r->name_len, p->name, sizeof(p->name), app->escape_flags);
	tui_libprocs_init(&p->lp, r, (size_t)tui_body_lines(LINES > 0 ? LINES : 24));
	libprocs_sync(app, p);
	tui_push(app, &p->base);
	return TUI_F_REDRAW;
}
