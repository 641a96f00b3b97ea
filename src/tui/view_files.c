/* The files view (F in a maps view): one row per file or kind of anonymous memory. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/files/fileinfo.h"
#include "core/resid/residency.h"
#include "core/base/units.h"
#include "tui/bars.h"
#include "tui/elide.h"
#include "tui/files_feed.h"
#include "tui/files_model.h"
#include "tui/format.h"
#include "tui/tui.h"

struct files_view {
	struct tui_view base;
	struct tui_view *maps_view; /* the view below, which lends proc and maps */
	struct ms_proc *proc;       /* borrowed */
	struct ms_maps *maps;       /* borrowed */
	struct tui_filefeed feed;   /* when to walk again; the maps view's kernel filters */
	struct tui_fileview fv;
	struct ms_fileinfo_ctx *info;
	struct ms_residency *res;
	char title[300];
	bool gone;
	unsigned age;               /* timer ticks since the lookups were forgotten */
	size_t widest;
};

/* As the maps view's verdicts: files replaced on disk show within a few seconds. */
#define FILES_FORGET_TICKS 5

static struct files_view *fv_of(struct tui_view *v)
{
	return (struct files_view *)v;
}

/*
 * The columns as they are placed on a screen width wide, for the rows on
 * screen (their versions whole, their file names whole where room
 * allows).  The size bar before NAME takes NAME's room, not the columns';
 * it gives way before a file name is cut (*bar false).
 */
static void files_layout(const struct tui_app *app, const struct tui_fileview *fv, int width,
			 struct tui_layout *l, bool *bar)
{
	const struct tui_colset *set = &app->cfg.cols[TUI_CV_FILES];
	unsigned off = fv->rss_column ? 0 : 1u << TUI_FC_RSS;
	int want[TUI_COLS_MAX] = { 0 };

	tui_fileview_want(fv, app->escape_flags, 0, want);
	tui_fileview_want(fv, app->escape_flags, tui_layout_reach(TUI_CV_FILES, set, off, 0, width, 0, want),
			  want);
	*bar = tui_layout_fit_yielding(l, TUI_CV_FILES, set, off, 0, width, TUI_BAR_W + 1, want,
				       app->escape_flags);
}

/* SONAMEs, LIBVERs and build IDs only where their columns show. */
static unsigned info_wanted(const struct tui_app *app, const struct tui_fileview *fv)
{
	struct tui_layout l;
	bool bar;

	files_layout(app, fv, COLS > 0 ? COLS : 80, &l, &bar);
	return MS_FILEINFO_VERDICT | (tui_layout_shows(&l, TUI_FC_SONAME) ? MS_FILEINFO_SONAME : 0) |
	       (tui_layout_shows(&l, TUI_FC_LIBVER) ? MS_FILEINFO_LIBVER : 0) |
	       (tui_layout_shows(&l, TUI_FC_BUILDID) ? MS_FILEINFO_BUILD_ID : 0) |
	       (tui_layout_shows(&l, TUI_FC_PACKAGE) || tui_layout_shows(&l, TUI_FC_VERSION) ? MS_FILEINFO_PACKAGE : 0);
}

/* One PAGEMAP_SCAN over the mappings of the rows on screen. */
static int residency(struct files_view *f, size_t from, size_t n, struct ms_error *err)
{
	if (!f->res && ms_residency_open(f->proc, NULL, &f->res, err) < 0)
		return err->code;
	return ms_fileinfo_residency(f->res, &f->fv.fm, &f->fv.list, from, n, err);
}

static unsigned files_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	struct files_view *f = fv_of(v);
	struct ms_error err;
	size_t from, n;

	tui_fileview_set_height(&f->fv, (size_t)tui_body_lines(LINES));
	if (f->gone)
		return TUI_F_REDRAW;
	if (timer && ++f->age >= FILES_FORGET_TICKS) {
		f->age = 0;
		ms_fileinfo_forget(f->info);
		for (size_t i = 0; i < f->fv.fm.count; i++)
			f->fv.fm.rows[i].info.described = false;
	}
	/* The whole walk only when due (files_feed.h): else the rows on screen are checked. */
	if (tui_filefeed_refresh(&f->feed, &f->fv, f->maps, timer, &err) < 0) {
		tui_message(app, "%s", err.msg);
		f->gone = err.code == MS_ERR_EXITED || err.code == MS_ERR_EXECED || err.code == MS_ERR_NOMM;
		return TUI_F_REDRAW;
	}
	/* Sorting by RSS needs every row's: the one walk then covers them all. */
	if (f->fv.rss_column && f->fv.sort == MS_FILESORT_RSS) {
		if (residency(f, 0, f->fv.fm.count, &err) < 0) {
			tui_message(app, "%s", err.msg);
			tui_fileview_set_rss(&f->fv, false);
		} else {
			tui_fileview_resort(&f->fv);
		}
	}
	tui_fileview_visible(&f->fv, &from, &n);
	if (ms_fileinfo_describe(f->info, &f->fv.fm, &f->fv.list, from, n, info_wanted(app, &f->fv), &err) < 0)
		tui_message(app, "%s", err.msg);
	if (f->fv.rss_column && f->fv.sort != MS_FILESORT_RSS && residency(f, from, n, &err) < 0) {
		tui_message(app, "%s", err.msg);
		tui_fileview_set_rss(&f->fv, false);
	}
	return TUI_F_REDRAW;
}

static unsigned files_search_prompt(struct tui_app *app, struct tui_view *v, const char *text,
				    bool done, bool accepted)
{
	struct tui_fileview *fv = &fv_of(v)->fv;

	if (tui_search_step(app, fv->search, sizeof(fv->search), text, done, accepted) &&
	    !tui_fileview_search(fv, 1, true))
		tui_message(app, "no match");
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

static unsigned files_filter_prompt(struct tui_app *app, struct tui_view *v, const char *text,
				    bool done, bool accepted)
{
	struct files_view *f = fv_of(v);

	snprintf(f->fv.filter, sizeof(f->fv.filter), "%s", done && !accepted ? "" : text);
	/* Group the mappings again under the new filter. */
	tui_filefeed_invalidate(&f->feed);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

static unsigned files_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct files_view *f = fv_of(v);
	struct tui_fileview *fv = &f->fv;
	const struct ms_filerow *r;
	long page = (long)fv->height;

	switch (act) {
	case TUI_ACT_DOWN: tui_fileview_move(fv, 1); break;
	case TUI_ACT_UP: tui_fileview_move(fv, -1); break;
	case TUI_ACT_PAGE_DOWN: tui_fileview_move(fv, page); break;
	case TUI_ACT_PAGE_UP: tui_fileview_move(fv, -page); break;
	case TUI_ACT_HOME: tui_fileview_select(fv, 0); break;
	case TUI_ACT_END: tui_fileview_select(fv, fv->fm.count ? fv->fm.count - 1 : 0); break;
	case TUI_ACT_SCROLL_LEFT: tui_hscroll(&fv->hscroll, -1, f->widest); break;
	case TUI_ACT_SCROLL_RIGHT: tui_hscroll(&fv->hscroll, 1, f->widest); break;
	case TUI_ACT_FILES_SORT_NEXT: tui_fileview_sort_step(fv, 1); break;
	case TUI_ACT_FILES_SORT_PREV: tui_fileview_sort_step(fv, -1); break;
	case TUI_ACT_FILES_SORT_REVERSE: tui_fileview_sort_reverse(fv); break;
	case TUI_ACT_FILES_SEARCH:
		tui_prompt_start(app, v, "search: ", "", files_search_prompt);
		return TUI_F_REDRAW;
	case TUI_ACT_FILES_SEARCH_NEXT:
	case TUI_ACT_FILES_SEARCH_PREV:
		if (!tui_fileview_search(fv, act == TUI_ACT_FILES_SEARCH_NEXT ? 1 : -1, false))
			tui_message(app, "no match");
		break;
	case TUI_ACT_FILES_FILTER:
		tui_prompt_start(app, v, "name contains: ", fv->filter, files_filter_prompt);
		return TUI_F_REDRAW;
	case TUI_ACT_FILES_JUMP:
		r = tui_fileview_selected(fv);
		if (!r)
			return 0;
		if (f->maps_view->ops->jump)
			f->maps_view->ops->jump(f->maps_view, r->first_addr);
		return TUI_F_BACK;
	case TUI_ACT_REFRESH:
		ms_fileinfo_forget(f->info);
		for (size_t i = 0; i < fv->fm.count; i++)
			fv->fm.rows[i].info.described = false;
		tui_filefeed_invalidate(&f->feed);
		return TUI_F_REQUERY | TUI_F_REDRAW;
	case TUI_ACT_BACK:
	case TUI_ACT_QUIT:
		return TUI_F_BACK;
	default:
		return 0;
	}
	/* Moving and sorting bring other rows on screen: describe them. */
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

static unsigned files_click(struct tui_app *app, struct tui_view *v, int y)
{
	(void)app;
	return y >= 2 && tui_fileview_click(&fv_of(v)->fv, (size_t)(y - 2)) ? TUI_F_REQUERY | TUI_F_REDRAW : 0;
}

/* A row's bar: its RSS while sorted by RSS, else its size. */
static uint64_t file_bar(const struct tui_fileview *fv, const struct ms_filerow *r, bool *known)
{
	if (fv->sort == MS_FILESORT_RSS) {
		*known = r->info.rss_known;
		return r->info.rss;
	}
	*known = true;
	return r->size;
}

/* The size bar before NAME, always shown. */
static int files_beside(const struct tui_view *v)
{
	(void)v;
	return TUI_BAR_W + 1;
}

static void files_layout_op(const struct tui_app *app, const struct tui_view *v, int width,
			    struct tui_layout *l)
{
	bool bar;

	files_layout(app, &((const struct files_view *)v)->fv, width, l, &bar);
}

static unsigned files_heading(struct tui_app *app, struct tui_view *v, int x)
{
	struct tui_fileview *fv = &fv_of(v)->fv;
	int sort = (int)fv->sort;

	struct tui_layout l;
	bool bar;

	files_layout(app, fv, COLS, &l, &bar);
	if (!tui_layout_sort_click(&l, x, &sort, &fv->reverse))
		return 0;
	fv->sort = (enum ms_filesort)sort;
	tui_fileview_resort(fv);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

size_t tui_files_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_fileview *fv,
			    const char *title)
{
	int w = getmaxx(win), rows = tui_body_lines(getmaxy(win));
	char text[TUI_LINE_MAX], size[32], filter[4 * TUI_FIND_MAX];
	size_t widest = 0;
	uint64_t total = 0, bar_max = 0;
	struct tui_layout l;
	bool known, bar;

	werase(win);
	if (tui_draw_too_small(win))
		return 0;
	for (size_t i = 0; i < fv->fm.count; i++) {
		uint64_t value = file_bar(fv, &fv->fm.rows[i], &known);

		total += fv->fm.rows[i].size;
		if (known && value > bar_max)
			bar_max = value;
	}
	ms_format_size(total, false, size, sizeof(size));
	ms_escape(fv->filter, strlen(fv->filter), filter, sizeof(filter), app->escape_flags | MS_ESC_ASCII);
	snprintf(text, sizeof(text), "mapscope | %.300s | files: %zu, %s mapped%s%s | sorted by %s%s",
		 title, fv->fm.count, size, fv->filter[0] ? " | name~" : "", filter,
		 ms_filesort_name(fv->sort), fv->reverse ? ", reversed" : "");
	tui_draw_header(app, win, text);
	files_layout(app, fv, w, &l, &bar);
	tui_format_fileheading_cols(text, sizeof(text), &l, fv);
	if (bar)
		tui_bar_insert_heading(text, sizeof(text), "NAME");
	tui_draw_heading(win, text, sizeof(text), fv->hscroll, w);
	for (int i = 0; i < rows; i++) {
		size_t row = fv->top + (size_t)i, name_at, whole;
		const struct ms_filerow *r;
		attr_t a = 0;
		uint64_t value;

		if (row >= fv->fm.count)
			break;
		r = &fv->fm.rows[row];
		if (r->info.verdict_known && ms_stale_verdict_is_stale(r->info.verdict.verdict))
			a = tui_pair_attr(app, TUI_PAIR_STALE);
		else if (ms_permsets_wx(r->perm_sets))
			a = tui_pair_attr(app, TUI_PAIR_ANOMALY);
		if (row == fv->sel)
			a |= A_REVERSE;
		name_at = tui_format_filerow_cols(text, sizeof(text), &l, r, app->escape_flags);
		value = file_bar(fv, r, &known);
		if (bar)
			name_at = tui_bar_insert(text, sizeof(text), name_at, value, bar_max, known);
		whole = tui_put_fitted_row(win, 2 + i, text, sizeof(text), name_at, fv->hscroll,
					   r->kind == MS_FILEKIND_FILE, a, app->escape_flags);
		if (whole > widest)
			widest = whole;
	}
	tui_draw_message(app, win, NULL);
	return widest;
}

static void files_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	struct files_view *f = fv_of(v);

	f->widest = tui_files_draw_frame(app, win, &f->fv, f->title);
}

static void files_destroy(struct tui_view *v)
{
	struct files_view *f = fv_of(v);

	tui_fileview_free(&f->fv);
	ms_fileinfo_ctx_free(f->info);
	ms_residency_close(f->res);
	free(f);
}

static const struct tui_view_ops files_ops = {
	.scope = TUI_SCOPE_FILES,
	.handle = files_handle,
	.tick = files_tick,
	.draw = files_draw,
	.click = files_click,
	.heading = files_heading,
	.beside = files_beside,
	.layout = files_layout_op,
	.destroy = files_destroy,
};

unsigned tui_open_files(struct tui_app *app, const struct tui_files_source *src)
{
	struct files_view *f = calloc(1, sizeof(*f));
	struct ms_error err;

	if (!f || ms_fileinfo_ctx_new(app->ignore, src->proc, src->maps, &f->info, &err) < 0) {
		free(f);
		tui_message(app, "files view: out of memory");
		return TUI_F_REDRAW;
	}
	f->base.ops = &files_ops;
	f->maps_view = src->maps_view;
	f->proc = src->proc;
	f->maps = src->maps;
	tui_filefeed_init(&f->feed, src->filter);
	snprintf(f->title, sizeof(f->title), "%s", src->title);
	tui_fileview_init(&f->fv, (size_t)tui_body_lines(LINES > 0 ? LINES : 24));
	tui_fileview_set_rss(&f->fv, src->rss_column);
	tui_push(app, &f->base);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}
