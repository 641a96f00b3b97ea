/* The stale view (D): processes that run deleted or replaced files. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "core/stale/stale.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/stale_cols.h"
#include "tui/stale_detail.h"
#include "tui/stale_model.h"
#include "tui/tui.h"

struct stale_view {
	struct tui_view base;
	struct tui_staleview sv;
	struct ms_proclist procs;
	struct ms_stale_ctx *ctx;
	bool scanned;
	size_t widest; /* the widest last column drawn, for Right */
};

static struct stale_view *sv_of(struct tui_view *v)
{
	return (struct stale_view *)v;
}

/* The rows on screen: with the pane, at least those it leaves at its largest. */
static void set_height(struct tui_staleview *sv)
{
	int body = tui_body_lines(LINES);

	tui_staleview_set_height(sv, (size_t)(sv->detail ? body - (body / 2 + 1) : body));
}

static unsigned stale_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	struct stale_view *s = sv_of(v);
	struct ms_error err;

	set_height(&s->sv);
	if (!timer && s->scanned)
		return TUI_F_REDRAW;
	/* Each scan sees the disk as it is now: replacements since the last one count. */
	ms_stale_ctx_forget(s->ctx);
	if (ms_proclist_scan(MS_PROCLIST_AUTO, 0, &s->procs, &err) < 0 ||
	    tui_staleview_scan(&s->sv, s->ctx, &s->procs, app->backend, getpid(), &err) < 0) {
		tui_message(app, "%s", err.msg);
		return TUI_F_REDRAW;
	}
	s->scanned = true;
	return TUI_F_REDRAW;
}

static unsigned stale_search_prompt(struct tui_app *app, struct tui_view *v, const char *text,
				    bool done, bool accepted)
{
	struct tui_staleview *sv = &sv_of(v)->sv;

	if (tui_search_step(app, sv->search, sizeof(sv->search), text, done, accepted) &&
	    !tui_staleview_search(sv, 1, true))
		tui_message(app, "no match");
	return TUI_F_REDRAW;
}

static unsigned stale_filter_prompt(struct tui_app *app, struct tui_view *v, const char *text,
				    bool done, bool accepted)
{
	if (tui_staleview_set_filter(&sv_of(v)->sv, done && !accepted ? "" : text) < 0)
		tui_message(app, "stale view: out of memory");
	return TUI_F_REDRAW;
}

static unsigned stale_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct stale_view *s = sv_of(v);
	struct tui_staleview *sv = &s->sv;
	long page = (long)sv->height;

	switch (act) {
	case TUI_ACT_DOWN: tui_staleview_move(sv, 1); break;
	case TUI_ACT_UP: tui_staleview_move(sv, -1); break;
	case TUI_ACT_PAGE_DOWN: tui_staleview_move(sv, page); break;
	case TUI_ACT_PAGE_UP: tui_staleview_move(sv, -page); break;
	case TUI_ACT_HOME: tui_staleview_select(sv, 0); break;
	case TUI_ACT_END: tui_staleview_select(sv, sv->nlines ? sv->nlines - 1 : 0); break;
	case TUI_ACT_SCROLL_LEFT: tui_hscroll(&sv->hscroll, -1, s->widest); break;
	case TUI_ACT_SCROLL_RIGHT: tui_hscroll(&sv->hscroll, 1, s->widest); break;
	case TUI_ACT_STALE_OPEN: return tui_open_maps(app, tui_staleview_selected_pid(sv));
	case TUI_ACT_REFRESH:
		/* A package upgraded since: its version now. */
		tui_staleview_forget_packages(sv);
		s->scanned = false;
		break;
	case TUI_ACT_STALE_SEARCH:
		tui_prompt_start(app, v, "search: ", "", stale_search_prompt);
		break;
	case TUI_ACT_STALE_SEARCH_NEXT:
	case TUI_ACT_STALE_SEARCH_PREV:
		if (!tui_staleview_search(sv, act == TUI_ACT_STALE_SEARCH_NEXT ? 1 : -1, false))
			tui_message(app, "no match");
		break;
	case TUI_ACT_STALE_FILTER:
		tui_prompt_start(app, v, "name contains: ", sv->filter, stale_filter_prompt);
		break;
	case TUI_ACT_STALE_BY_UNIT:
		if (tui_staleview_set_by_unit(sv, !sv->by_unit) < 0)
			tui_message(app, "stale view: out of memory");
		break;
	case TUI_ACT_STALE_DETAIL:
		sv->detail = !sv->detail;
		set_height(sv);
		break;
	case TUI_ACT_BACK:
		if (sv->detail) {
			sv->detail = false;
			set_height(sv);
			break;
		}
		return TUI_F_BACK;
	case TUI_ACT_QUIT:
		return TUI_F_BACK;
	default:
		return 0;
	}
	return TUI_F_REDRAW;
}

static unsigned stale_click(struct tui_app *app, struct tui_view *v, int y)
{
	return y >= 2 && tui_staleview_click(&sv_of(v)->sv, (size_t)(y - 2)) ? TUI_F_REDRAW : 0;
}

/* Body lines left for the rows beside the pane, which takes what its wrapped lines need, up to half. */
static int rows_beside_pane(WINDOW *win, const struct tui_detail_line *d, size_t n)
{
	int body = tui_body_lines(getmaxy(win));
	int pane = tui_pane_height(getmaxx(win), d, n, body);

	if (pane > body / 2 + 1)
		pane = body / 2 + 1;
	return body - pane;
}

size_t tui_stale_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_staleview *sv)
{
	size_t widest = 0, ndetail = 0;
	int w = getmaxx(win), rows = tui_body_lines(getmaxy(win));
	struct tui_detail_line detail[TUI_STALE_DETAIL_LINES];
	char text[TUI_LINE_MAX], filter[4 * TUI_FIND_MAX], ignored[80] = "", mode[80] = "";
	struct tui_stale_layout l;

	werase(win);
	if (tui_draw_too_small(win))
		return 0;
	ms_escape(sv->filter, strlen(sv->filter), filter, sizeof(filter), app->escape_flags | MS_ESC_ASCII);
	if (sv->ignored)
		snprintf(ignored, sizeof(ignored), " | %zu deleted %s ignored", sv->ignored,
			 ms_plural(sv->ignored, "file", "files"));
	/* By unit, the units the plan's `systemctl restart` line names, of those the filter shows. */
	if (sv->by_unit)
		snprintf(mode, sizeof(mode), " by unit, %zu %s to restart", sv->services_shown,
			 ms_plural(sv->services_shown, "service", "services"));
	/* The filter before the counts: an 80-column header still shows what hides lines. */
	/* The counts `stale` prints on stderr, in its words. */
	snprintf(text, sizeof(text),
		 "mapscope | stale%s: %zu %s deleted or replaced files%s%s%s | %zu scanned, %zu without access, %zu unreadable",
		 mode, sv->count, ms_plural(sv->count, "process runs", "processes run"), sv->filter[0] ? " | name~" : "",
		 filter, ignored, sv->scanned, sv->denied, sv->unreadable);
	tui_draw_header(app, win, text);
	if (sv->detail) {
		ndetail = tui_format_stale_detail(detail, TUI_STALE_DETAIL_LINES, sv, app->escape_flags);
		rows = rows_beside_pane(win, detail, ndetail);
	}
	/* VERSION as wide as the versions on the rows drawn, not those below them. */
	tui_stale_layout_make(&l, &app->cfg.cols[TUI_CV_STALE], sv, w, (size_t)(rows > 0 ? rows : 0),
			      app->escape_flags);
	tui_stale_format_heading(text, sizeof(text), &l);
	tui_draw_heading(win, text, sizeof(text), sv->hscroll, w);
	if (!sv->nlines)
		tui_put(win, 2, 0, sv->count ? "  nothing matches the filter" :
			"  nothing stale: every scanned process runs the files on disk", w, false);
	for (int i = 0; i < rows; i++) {
		size_t row = sv->top_row + (size_t)i;
		const struct tui_stale_line *line = tui_staleview_line(sv, row);
		attr_t a;
		size_t last_at, whole;

		if (!line)
			break;
		a = line->file == TUI_STALE_UNIT_LINE ? A_BOLD | A_UNDERLINE
		    : line->file < 0		   ? A_BOLD
						   : tui_pair_attr(app, TUI_PAIR_STALE);
		if (row == sv->sel_row)
			a |= A_REVERSE;
		last_at = tui_stale_format_line(text, sizeof(text), &l, sv, line);
		/* A file's name loses folders before its file name; a command line is cut at its end. */
		whole = tui_put_fitted_row(win, 2 + i, text, sizeof(text), last_at, sv->hscroll, line->file >= 0, a,
					   app->escape_flags);
		if (whole > widest)
			widest = whole;
	}
	if (sv->detail)
		tui_draw_pane(win, detail, ndetail, 2 + rows, getmaxy(win) - 1);
	tui_draw_message(app, win, NULL);
	return widest;
}

static void stale_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	sv_of(v)->widest = tui_stale_draw_frame(app, win, &sv_of(v)->sv);
}

static void stale_destroy(struct tui_view *v)
{
	struct stale_view *s = sv_of(v);

	tui_staleview_free(&s->sv);
	ms_proclist_free(&s->procs);
	ms_stale_ctx_free(s->ctx);
	free(s);
}

static const struct tui_view_ops stale_ops = {
	.scope = TUI_SCOPE_STALE,
	.handle = stale_handle,
	.tick = stale_tick,
	.draw = stale_draw,
	.click = stale_click,
	.destroy = stale_destroy,
};

struct tui_view *tui_stale_new(struct tui_app *app)
{
	struct stale_view *s = calloc(1, sizeof(*s));
	struct ms_error err;

	if (!s)
		return NULL;
	if (ms_stale_ctx_new(app->ignore, &s->ctx, &err) < 0) {
		free(s);
		return NULL;
	}
	ms_stale_ctx_no_ignored_proof(s->ctx);
	s->base.ops = &stale_ops;
	tui_staleview_init(&s->sv, (size_t)tui_body_lines(LINES > 0 ? LINES : 24));
	return &s->base;
}
