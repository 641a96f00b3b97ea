/* The maps view: one process's mappings, live, with kernel-side filters. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/units.h"
#include "core/base/escape.h"
#include "core/proc/container.h"
#include "core/maps/maps.h"
#include "core/resid/residency.h"
#include "core/snap/snapshot.h"
#include "tui/bars.h"
#include "tui/detail_pkg.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/maps_feed.h"
#include "tui/maps_header.h"
#include "tui/maps_search.h"
#include "tui/tui.h"
#include "tui/verdicts.h"
#include "tui/view_maps_detail.h"
#include "tui/view_strip.h"


struct maps_view {
	struct tui_view base;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct tui_mapview vm;
	struct tui_verdicts verdicts;
	bool verdicts_ok;     /* false: out of memory once, verdicts not shown */
	pid_t pid;
	char title[660];
	char where[4 * MS_CONTAINER_NAME_MAX + 32]; /* empty: our root */
	char banner[200];
	bool gone;
	bool detail;
	struct ms_residency *res;  /* opened when the detail pane first shows */
	struct ms_resinfo sel_res;
	bool sel_res_ok;
	struct ms_mapping sel_bid; /* the selected mapping asked again with its build ID */
	bool sel_bid_ok;
	bool rss_column;           /* R: the visible rows' RSS, one walk per refresh */
	struct tui_maps_drawn drawn; /* the rows the last frame showed, for clicks */
	struct tui_symbols_shown symbols; /* g's symbol */
	struct tui_detail_pkg pkg;        /* the detail pane's package line */
	struct tui_strip strip;    /* from the index listing */
	uint64_t rss_total;        /* the filtered list's RSS, from the index listing */
	bool rss_total_known;
	char search[TUI_FIND_MAX]; /* / n N */
};

static struct maps_view *mv_of(struct tui_view *v)
{
	return (struct maps_view *)v;
}

static void set_height(struct maps_view *mv)
{
	mv->vm.height = (size_t)tui_maps_rows(LINES, mv->detail);
}

/* "pid N COMM [where]", COMM escaped: at open, and again after an exec. */
static void set_title(struct maps_view *mv, const char *comm, unsigned escape_flags)
{
	char shown[4 * sizeof(((struct ms_proc_stat *)0)->comm) + 1];

	ms_escape(comm, strnlen(comm, sizeof(((struct ms_proc_stat *)0)->comm)), shown, sizeof(shown),
		  escape_flags);
	snprintf(mv->title, sizeof(mv->title), "pid %d %s%s%s%s", (int)mv->pid, shown,
		 mv->where[0] ? " [" : "", mv->where, mv->where[0] ? "]" : "");
}

/* A new program image: its name, and the window from its first mapping. */
static void follow_exec(struct tui_app *app, struct maps_view *mv)
{
	struct ms_proc_stat now;

	if (ms_proc_liveness_now(mv->proc, &now) != MS_PROC_GONE)
		set_title(mv, now.comm, app->escape_flags);
	tui_mapview_reset(&mv->vm);
	tui_mapview_home(&mv->vm);
}

/* The address space is gone or replaced: say so, keep what is on screen. */
static unsigned lost(struct tui_app *app, struct maps_view *mv, const struct ms_error *err)
{
	struct ms_error again;

	if (err->code == MS_ERR_EXECED) {
		snprintf(mv->banner, sizeof(mv->banner), "pid %d exec'd a new program: showing it",
			 (int)mv->pid);
		follow_exec(app, mv);
		/* Its pagemap descriptor still describes the old image. */
		ms_residency_close(mv->res);
		mv->res = NULL;
		tui_verdicts_forget(&mv->verdicts);
		/* Its modules are the old image's. */
		tui_symbols_show_forget(&mv->symbols);
		if (ms_maps_reopen(mv->maps, &again) == 0)
			return TUI_F_REDRAW | TUI_F_REQUERY;
		err = &again;
	}
	mv->gone = true;
	snprintf(mv->banner, sizeof(mv->banner), "pid %d %s: showing the last data (q: back)",
		 (int)mv->pid, err->code == MS_ERR_EXECED || err->code == MS_ERR_EXITED ||
		 err->code == MS_ERR_NOMM ? "exited" : ms_errcode_name(err->code));
	return TUI_F_REDRAW;
}

static int open_residency(struct maps_view *mv, struct ms_error *err)
{
	return mv->res ? 0 : ms_residency_open(mv->proc, NULL, &mv->res, err);
}

static int query_rows(void *ctx, const struct ms_mapping *maps, size_t count, struct ms_resinfo *out)
{
	struct maps_view *mv = ctx;
	struct ms_error err;

	return ms_residency_query(mv->res, maps, count, out, &err);
}

/* The RSS column: one PAGEMAP_SCAN over the rows on screen, not one per row. */
static void refresh_rss_column(struct tui_app *app, struct maps_view *mv)
{
	struct ms_error err;

	if (!mv->rss_column || mv->gone)
		return;
	if (open_residency(mv, &err) < 0) {
		tui_message(app, "%s", err.msg);
		mv->rss_column = false;
		return;
	}
	tui_mapview_residency_visible(&mv->vm, query_rows, mv);
}

struct feed_ctx {
	struct tui_app *app;
	struct maps_view *mv;
};

/*
 * What a full listing gives beside the rows: the strip, and the RSS total of
 * the mappings the filters keep (rss: NULL when unknown).  A feed hook
 * (maps_feed.h), called before the model takes the listing.
 */
static void index_pictures(void *ctx, const struct ms_maplist *all, const uint64_t *rss)
{
	struct maps_view *mv = ((struct feed_ctx *)ctx)->mv;

	if (tui_strip_build(&mv->strip, all, &mv->vm) < 0)
		mv->strip.valid = false;
	mv->rss_total = 0;
	mv->rss_total_known = rss != NULL;
	for (size_t i = 0; rss && i < all->count; i++)
		if (tui_mapview_name_matches(&mv->vm, &all->items[i]))
			mv->rss_total += rss[i];
}

/* Stale verdicts for the rows on screen. */
static void judge_shown(struct tui_app *app, struct maps_view *mv, bool timer)
{
	if (timer)
		tui_verdicts_tick(&mv->verdicts);
	if (mv->verdicts_ok &&
	    tui_mapview_judge_visible(&mv->vm, tui_verdicts_judge, &mv->verdicts) < 0) {
		mv->verdicts_ok = false;
		tui_message(app, "pid %d: out of memory for stale verdicts", (int)mv->pid);
	}
}

/*
 * Every mapping's RSS, in one query over the whole listing (a sort by RSS
 * needs them all, and so does the header's total); NULL when unknown.
 */
static uint64_t *listing_rss(void *ctx, const struct ms_maplist *all)
{
	struct tui_app *app = ((struct feed_ctx *)ctx)->app;
	struct maps_view *mv = ((struct feed_ctx *)ctx)->mv;
	struct ms_resinfo *info = calloc(all->count ? all->count : 1, sizeof(*info));
	uint64_t *rss = calloc(all->count ? all->count : 1, sizeof(*rss));
	struct ms_error err;

	if (!info || !rss || open_residency(mv, &err) < 0 ||
	    (all->count && ms_residency_query(mv->res, all->items, all->count, info, &err) < 0)) {
		free(rss);
		rss = NULL;
		if (mv->rss_column && tui_mapview_sorted(&mv->vm))
			tui_message(app, "pid %d: no RSS for the sorted rows", (int)mv->pid);
	}
	for (size_t i = 0; rss && i < all->count; i++)
		rss[i] = info[i].rss;
	free(info);
	return rss;
}

static bool gone_code(int rc)
{
	return rc == MS_ERR_EXITED || rc == MS_ERR_EXECED || rc == MS_ERR_NOMM;
}

/* What the view adds to every full listing the feed takes (maps_feed.h). */
static struct tui_mapfeed_hooks feed_hooks(struct feed_ctx *ctx)
{
	return (struct tui_mapfeed_hooks){ .rss = listing_rss, .listing = index_pictures,
					   .rss_sorts = ctx->mv->rss_column, .ctx = ctx };
}

/* A tick or a requery: the feed queries (maps_feed.h), the view adds RSS and verdicts. */
static unsigned query_window(struct tui_app *app, struct maps_view *mv, bool timer)
{
	struct feed_ctx ctx = { app, mv };
	struct tui_mapfeed_hooks hooks = feed_hooks(&ctx);
	bool sorted = tui_mapview_sorted(&mv->vm);
	struct ms_error err;
	int rc;

	if (mv->gone)
		return 0;
	set_height(mv);
	rc = tui_mapfeed_refresh(&mv->vm, mv->maps, timer, &hooks, &err);
	if (rc < 0) {
		if (gone_code(rc))
			return lost(app, mv, &err);
		tui_message(app, "%s", err.msg);
		return TUI_F_REDRAW;
	}
	if (!sorted)
		refresh_rss_column(app, mv);
	judge_shown(app, mv, timer);
	return rc > 0 || sorted ? TUI_F_REDRAW : 0;
}

static unsigned maps_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	return query_window(app, mv_of(v), timer);
}

static unsigned moved(struct tui_app *app, struct maps_view *mv, int rc, int (*again)(struct tui_mapview *, long), long delta)
{
	struct feed_ctx ctx = { app, mv };
	struct tui_mapfeed_hooks hooks = feed_hooks(&ctx);
	struct ms_error err;

	if (rc == TUI_MV_NEED_INDEX && mv->gone)
		return TUI_F_REDRAW;
	rc = tui_mapfeed_moved(&mv->vm, mv->maps, rc, again, delta, &hooks, &err);
	if (rc < 0)
		return TUI_F_REDRAW;
	/* Sorted rows are all here: only the verdicts of those now shown are asked. */
	if (tui_mapview_sorted(&mv->vm))
		return TUI_F_REQUERY | TUI_F_REDRAW;
	/* Rows scrolled in without a new window need their RSS too. */
	if (rc == TUI_MV_OK)
		refresh_rss_column(app, mv);
	return rc == TUI_MV_REQUERY ? TUI_F_REQUERY | TUI_F_REDRAW : TUI_F_REDRAW;
}

static unsigned name_prompt(struct tui_app *app, struct tui_view *v, const char *text,
			    bool done, bool accepted)
{
	struct maps_view *mv = mv_of(v);

	tui_mapview_set_name_filter(&mv->vm, done && !accepted ? "" : text);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

/* / n N: the next match past the rows on screen too (maps_search.h). */
static unsigned search_step(struct tui_app *app, struct maps_view *mv, int dir, bool from_current)
{
	struct ms_error err;
	int rc;

	if (mv->gone)
		return TUI_F_REDRAW;
	rc = tui_mapsearch_step(&mv->vm, mv->maps, mv->search, dir, from_current, &err);
	if (gone_code(rc))
		return lost(app, mv, &err);
	if (rc < 0)
		tui_message(app, "%s", err.msg);
	else if (rc == TUI_MSEARCH_NONE)
		tui_message(app, "no match");
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

static unsigned search_prompt(struct tui_app *app, struct tui_view *v, const char *text,
			      bool done, bool accepted)
{
	struct maps_view *mv = mv_of(v);

	if (!tui_search_step(app, mv->search, sizeof(mv->search), text, done, accepted))
		return TUI_F_REDRAW;
	return search_step(app, mv, 1, true);
}

static unsigned goto_prompt(struct tui_app *app, struct tui_view *v, const char *text,
			    bool done, bool accepted)
{
	struct maps_view *mv = mv_of(v);
	struct ms_error err;
	uint64_t addr;
	int rc;

	if (!done || !accepted || !text[0])
		return TUI_F_REDRAW;
	if (ms_parse_addr(text, &addr) < 0) {
		tui_message(app, "not a hex address");
		return TUI_F_REDRAW;
	}
	rc = tui_mapfeed_goto(&mv->vm, mv->maps, addr, &err);
	if (rc == MS_END) {
		tui_message(app, "no mapping at or after %" PRIx64, addr);
		return TUI_F_REDRAW;
	}
	if (rc < 0)
		return rc == MS_ERR_EXITED || rc == MS_ERR_EXECED ? lost(app, mv, &err) : TUI_F_REDRAW;
	rc = tui_symbols_show_goto(app, &mv->symbols, mv->proc, mv->maps, addr, &err);
	if (rc == MS_ERR_EXITED || rc == MS_ERR_EXECED || rc == MS_ERR_NOMM)
		return lost(app, mv, &err);
	if (rc < 0)
		tui_message(app, "%s", err.msg);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

static unsigned snapshot_prompt(struct tui_app *app, struct tui_view *v, const char *text,
				bool done, bool accepted)
{
	struct maps_view *mv = mv_of(v);
	char shown[4 * sizeof(app->prompt.text) + 1];
	struct ms_error err;
	bool created = false;

	if (!done)
		return TUI_F_REDRAW;
	if (!accepted || !text[0]) {
		tui_message(app, "snapshot not saved");
		return TUI_F_REDRAW;
	}
	ms_escape(text, strlen(text), shown, sizeof(shown), app->escape_flags);
	if (ms_snapshot_save(mv->maps, text, NULL, &created, &err) < 0)
		tui_message(app, "%s", err.msg);
	else
		tui_message(app, "%s %s", created ? "created" : "overwrote", shown);
	return TUI_F_REDRAW;
}

static unsigned start_snapshot(struct tui_app *app, struct maps_view *mv)
{
	char name[128];

	tui_format_snapshot_name(name, sizeof(name), mv->pid, time(NULL));
	tui_prompt_start(app, &mv->base, "save snapshot to: ", name, snapshot_prompt);
	return TUI_F_REDRAW;
}

static unsigned toggle_filter(struct maps_view *mv, unsigned bit)
{
	tui_mapview_set_filter(&mv->vm, mv->vm.filter ^ bit);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

/* The columns as drawn now, for the chooser and heading clicks. */
static void maps_layout(const struct tui_app *app, const struct tui_view *v, int width, struct tui_layout *l)
{
	const struct maps_view *mv = (const struct maps_view *)v;

	tui_maps_layout(app, &mv->vm, &mv->strip, mv->rss_column, width, l);
}

/* A click on a heading sorts by its column (RSS only shows while R is on); again, reversed. */
static unsigned maps_heading(struct tui_app *app, struct tui_view *v, int x)
{
	struct maps_view *mv = mv_of(v);
	int sort = (int)mv->vm.sort;
	bool reverse = mv->vm.sort_reverse;
	struct tui_layout l;

	maps_layout(app, v, COLS, &l);
	if (!tui_layout_sort_click(&l, x, &sort, &reverse))
		return 0;
	tui_mapview_set_sort(&mv->vm, (enum tui_map_sort)sort, reverse);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

/* The next (dir > 0) or previous sort column; RSS only while its column shows. */
static unsigned sort_by(struct maps_view *mv, int dir)
{
	enum tui_map_sort sort = mv->vm.sort;

	do
		sort = (enum tui_map_sort)((sort + TUI_MSORT_COUNT + dir) % TUI_MSORT_COUNT);
	while (sort == TUI_MSORT_RSS && !mv->rss_column);
	tui_mapview_set_sort(&mv->vm, sort, mv->vm.sort_reverse);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}

static unsigned maps_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct maps_view *mv = mv_of(v);
	long page = (long)mv->vm.height;

	switch (act) {
	case TUI_ACT_DOWN: return moved(app, mv, tui_mapview_move(&mv->vm, 1), tui_mapview_move, 1);
	case TUI_ACT_UP: return moved(app, mv, tui_mapview_move(&mv->vm, -1), tui_mapview_move, -1);
	case TUI_ACT_PAGE_DOWN: return moved(app, mv, tui_mapview_move(&mv->vm, page), tui_mapview_move, page);
	case TUI_ACT_PAGE_UP: return moved(app, mv, tui_mapview_move(&mv->vm, -page), tui_mapview_move, -page);
	case TUI_ACT_HOME: return moved(app, mv, tui_mapview_home(&mv->vm), NULL, 0);
	case TUI_ACT_SCROLL_LEFT: tui_hscroll(&mv->vm.hscroll, -1, mv->drawn.widest); return TUI_F_REDRAW;
	case TUI_ACT_SCROLL_RIGHT: tui_hscroll(&mv->vm.hscroll, 1, mv->drawn.widest); return TUI_F_REDRAW;
	case TUI_ACT_END: return moved(app, mv, tui_mapview_end(&mv->vm), NULL, 0);
	case TUI_ACT_DETAIL:
		mv->detail = !mv->detail;
		return TUI_F_REQUERY | TUI_F_REDRAW;
	case TUI_ACT_FILTER_FILE: return toggle_filter(mv, MS_FILTER_FILE_BACKED);
	case TUI_ACT_FILTER_EXEC: return toggle_filter(mv, MS_FILTER_EXECUTABLE);
	case TUI_ACT_FILTER_WRITE: return toggle_filter(mv, MS_FILTER_WRITABLE);
	case TUI_ACT_FILTER_READ: return toggle_filter(mv, MS_FILTER_READABLE);
	case TUI_ACT_FILTER_SHARED: return toggle_filter(mv, MS_FILTER_SHARED);
	case TUI_ACT_FILTER_NAME:
		tui_prompt_start(app, v, "name contains: ", mv->vm.name_filter, name_prompt);
		return TUI_F_REDRAW;
	case TUI_ACT_MAPS_SEARCH:
		tui_prompt_start(app, v, "search: ", "", search_prompt);
		return TUI_F_REDRAW;
	case TUI_ACT_MAPS_SEARCH_NEXT: return search_step(app, mv, 1, false);
	case TUI_ACT_MAPS_SEARCH_PREV: return search_step(app, mv, -1, false);
	case TUI_ACT_GOTO:
		tui_prompt_start(app, v, "go to address (hex): ", "", goto_prompt);
		return TUI_F_REDRAW;
	case TUI_ACT_SNAPSHOT:
		return start_snapshot(app, mv);
	case TUI_ACT_RSS_COLUMN:
		mv->rss_column = !mv->rss_column;
		/* Sorted rows get their RSS with the listing; without the column, no RSS order. */
		if (!mv->rss_column && mv->vm.sort == TUI_MSORT_RSS)
			tui_mapview_set_sort(&mv->vm, TUI_MSORT_ADDRESS, mv->vm.sort_reverse);
		else if (tui_mapview_sorted(&mv->vm))
			tui_mapview_set_sort(&mv->vm, mv->vm.sort, mv->vm.sort_reverse);
		return TUI_F_REQUERY | TUI_F_REDRAW;
	case TUI_ACT_MAPS_SORT_NEXT: return sort_by(mv, 1);
	case TUI_ACT_MAPS_SORT_PREV: return sort_by(mv, -1);
	case TUI_ACT_MAPS_SORT_REVERSE:
		tui_mapview_set_sort(&mv->vm, mv->vm.sort, !mv->vm.sort_reverse);
		return TUI_F_REQUERY | TUI_F_REDRAW;
	case TUI_ACT_FILES_VIEW:
		return tui_open_files(app, &(struct tui_files_source){ v, mv->proc, mv->maps,
				      mv->vm.filter, mv->rss_column, mv->title });
	case TUI_ACT_REFRESH:
		tui_verdicts_forget(&mv->verdicts);
		tui_detail_pkg_forget(&mv->pkg);
		return TUI_F_REQUERY | TUI_F_REDRAW;
	case TUI_ACT_BACK:
		/* Esc closes the innermost thing: the pane before the view. */
		if (mv->detail) {
			mv->detail = false;
			return TUI_F_REQUERY | TUI_F_REDRAW;
		}
		return TUI_F_BACK;
	case TUI_ACT_QUIT:
		return TUI_F_BACK;
	default:
		return 0;
	}
}

static unsigned maps_click(struct tui_app *app, struct tui_view *v, int y)
{
	struct maps_view *mv = mv_of(v);
	size_t row = mv->drawn.first + (size_t)(y - 2), first = tui_mapview_first_shown(&mv->vm);

	/* Lines under the pane are not rows; rows may start later than the model's. */
	if (y < 2 || y - 2 >= mv->drawn.rows || row < first || !tui_mapview_click(&mv->vm, row - first))
		return 0;
	return TUI_F_REDRAW;
}


/*
 * One PAGEMAP_SCAN over the selected mapping only: microseconds, so it is
 * simply redone for every frame the detail pane shows.
 */
static void refresh_residency(struct maps_view *mv)
{
	const struct tui_maprow *sel = tui_mapview_selected(&mv->vm);
	struct ms_error err;

	mv->sel_res_ok = false;
	if (!mv->detail || !sel || mv->gone)
		return;
	if (open_residency(mv, &err) < 0)
		return;
	mv->sel_res_ok = ms_residency_query(mv->res, sel->m, 1, &mv->sel_res, &err) == 0;
}

/*
 * The rows carry no build IDs (each costs the kernel a read of the file);
 * the detail pane asks for the selected one, once per selection.  The
 * engine skips files on file systems served by someone else.
 */
static void refresh_build_id(struct maps_view *mv)
{
	const struct tui_maprow *sel = tui_mapview_selected(&mv->vm);
	struct ms_mapping *b = &mv->sel_bid;
	struct ms_error err;
	unsigned fields;

	if (!mv->detail || !sel || mv->gone || ms_maps_backend(mv->maps) != MS_BACKEND_IOCTL) {
		mv->sel_bid_ok = false;
		return;
	}
	if (mv->sel_bid_ok && b->start == sel->m->start && b->end == sel->m->end &&
	    b->inode == sel->m->inode)
		return;
	fields = ms_maps_set_fields(mv->maps, MS_FIELD_BUILD_ID);
	mv->sel_bid_ok = ms_maps_at(mv->maps, sel->m->start, b, &err) == 0 &&
			 b->end == sel->m->end && b->inode == sel->m->inode;
	ms_maps_set_fields(mv->maps, fields);
}

static void maps_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	struct maps_view *mv = mv_of(v);
	const struct tui_maprow *sel = tui_mapview_selected(&mv->vm);
	struct tui_maps_frame f = {
		.vm = &mv->vm,
		.title = mv->title,
		.backend = ms_backend_name(ms_maps_backend(mv->maps)),
		.banner = mv->banner[0] ? mv->banner : NULL,
		.detail = mv->detail,
		.rss_column = mv->rss_column,
		.where = mv->where[0] ? mv->where : NULL,
		.ioctl_backend = ms_maps_backend(mv->maps) == MS_BACKEND_IOCTL,
		/* Only a cache look-up: the tick judged every row on screen. */
		.verdict = sel && sel->verdict != TUI_VERDICT_NONE ?
			   tui_verdicts_find(&mv->verdicts, sel->m) : NULL,
		.strip = &mv->strip,
		.rss_total_known = mv->rss_total_known,
		.rss_total = mv->rss_total,
	};

	struct ms_mapping shown;

	refresh_residency(mv);
	refresh_build_id(mv);
	if (mv->sel_bid_ok && sel) {
		shown = *sel->m;
		shown.build_id_len = mv->sel_bid.build_id_len;
		memcpy(shown.build_id, mv->sel_bid.build_id, sizeof(shown.build_id));
		shown.build_id_skipped = mv->sel_bid.build_id_skipped;
		f.detail_map = &shown;
	}
	f.symbol = tui_symbols_show_line(&mv->symbols, sel ? sel->m : NULL);
	if (mv->detail)
		f.package = tui_detail_pkg_line(&mv->pkg, mv->proc, sel ? sel->m : NULL, f.verdict, mv->where[0] != '\0',
						app->escape_flags);
	if (mv->detail && mv->res) {
		f.res = mv->sel_res_ok ? &mv->sel_res : NULL;
		f.res_source = ms_res_backend_name(ms_residency_backend(mv->res));
	}
	tui_maps_draw_frame(app, win, &f, &mv->drawn);
}

static void maps_destroy(struct tui_view *v)
{
	struct maps_view *mv = mv_of(v);

	tui_mapview_free(&mv->vm);
	tui_strip_free(&mv->strip);
	tui_symbols_show_forget(&mv->symbols);
	tui_detail_pkg_forget(&mv->pkg);
	ms_mapping_reset(&mv->sel_bid);
	ms_residency_close(mv->res);
	tui_verdicts_free(&mv->verdicts);
	ms_maps_close(mv->maps);
	ms_proc_close(mv->proc);
	free(mv);
}

/* The files view's Enter: the mapping at or after addr. */
static void maps_jump(struct tui_view *v, uint64_t addr)
{
	tui_mapview_goto(&mv_of(v)->vm, addr);
}

static const struct tui_view_ops maps_ops = {
	.scope = TUI_SCOPE_MAPS,
	.handle = maps_handle,
	.tick = maps_tick,
	.draw = maps_draw,
	.click = maps_click,
	.heading = maps_heading,
	.layout = maps_layout,
	.jump = maps_jump,
	.destroy = maps_destroy,
};

/* A process under another root than ours: its container, or "other root". */
static void where_it_lives(struct maps_view *mv, unsigned escape_flags)
{
	struct ms_container c;

	mv->where[0] = '\0';
	if (!ms_stale_ctx_other_root(mv->verdicts.ctx, mv->proc))
		return;
	if (ms_container_of(mv->proc, &c) == 0)
		ms_container_describe(&c, escape_flags, mv->where, sizeof(mv->where));
	else
		snprintf(mv->where, sizeof(mv->where), "other root");
}

struct tui_view *tui_maps_new(struct tui_app *app, pid_t pid, char *errbuf, size_t errsize)
{
	struct maps_view *mv = calloc(1, sizeof(*mv));
	struct ms_maps_opts opts = { .backend = app->backend, .ioctl_fn = NULL };
	struct ms_error err;

	if (!mv) {
		snprintf(errbuf, errsize, "pid %d: out of memory", (int)pid);
		return NULL;
	}
	if (ms_proc_open(pid, &mv->proc, &err) < 0 ||
	    ms_maps_open(mv->proc, &opts, &mv->maps, &err) < 0) {
		snprintf(errbuf, errsize, "%s", err.msg);
		ms_proc_close(mv->proc);
		free(mv);
		return NULL;
	}
	if (tui_verdicts_init(&mv->verdicts, app->ignore, mv->maps, &err) < 0) {
		snprintf(errbuf, errsize, "%s", err.msg);
		ms_maps_close(mv->maps);
		ms_proc_close(mv->proc);
		free(mv);
		return NULL;
	}
	mv->verdicts_ok = true;
	mv->rss_column = app->cfg.rss;
	mv->base.ops = &maps_ops;
	mv->base.pid = pid;
	mv->pid = pid;
	where_it_lives(mv, app->escape_flags);
	set_title(mv, ms_proc_stat_at_open(mv->proc)->comm, app->escape_flags);
	tui_mapview_init(&mv->vm, app->cfg.filter, (size_t)tui_maps_rows(LINES > 0 ? LINES : 24, false));
	return &mv->base;
}

unsigned tui_open_maps(struct tui_app *app, pid_t pid)
{
	struct tui_view *mv;
	char why[256];

	if (!pid)
		return 0;
	mv = tui_maps_new(app, pid, why, sizeof(why));
	if (!mv) {
		tui_message(app, "%s", why);
		return TUI_F_REDRAW;
	}
	tui_push(app, mv);
	return TUI_F_REQUERY | TUI_F_REDRAW;
}
