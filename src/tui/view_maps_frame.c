/*
 * The maps screen drawn from a model alone (tui_maps_draw_frame): header
 * (maps_header.h), column headings, rows in their colours with size bars
 * while sorted by size, the address-space strip at the right edge under
 * its own heading (view_strip.h), and the detail pane beside them
 * (view_maps_detail.h).
 * The maps view (view_maps.c) and the screen tests call it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "core/maps/maps.h"
#include "tui/bars.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/maps_header.h"
#include "tui/tui.h"
#include "tui/view_maps_detail.h"
#include "tui/view_strip.h"

#define DETAIL_MAX 16

int tui_maps_rows(int lines, bool detail)
{
	int body = tui_body_lines(lines);
	int pane = detail ? body / 2 : 0;

	if (pane > DETAIL_MAX)
		pane = DETAIL_MAX;
	return body - pane > 0 ? body - pane : 1;
}

static attr_t row_attr(const struct tui_app *app, const struct tui_maprow *r)
{
	const struct ms_mapping *m = r->m;

	if (r->mark == TUI_MARK_ADDED)
		return tui_pair_attr(app, TUI_PAIR_ADDED);
	if (r->mark == TUI_MARK_REMOVED)
		return tui_pair_attr(app, TUI_PAIR_REMOVED);
	if (r->verdict >= 0 && ms_stale_verdict_is_stale((enum ms_stale_verdict)r->verdict))
		return tui_pair_attr(app, TUI_PAIR_STALE);
	if (tui_mapping_is_anomalous(m))
		return tui_pair_attr(app, TUI_PAIR_ANOMALY);
	if (m->perms & MS_PERM_EXEC)
		return tui_pair_attr(app, TUI_PAIR_EXEC);
	if (m->perms & MS_PERM_SHARED)
		return tui_pair_attr(app, TUI_PAIR_SHARED);
	if (m->perms & MS_PERM_WRITE)
		return tui_pair_attr(app, TUI_PAIR_WRITE);
	return A_NORMAL;
}

/* A row's size bar while sorted by SIZE or RSS: its size, or its RSS when known. */
static uint64_t map_bar(const struct tui_mapview *vm, const struct tui_maprow *r, bool *known)
{
	if (vm->sort == TUI_MSORT_RSS) {
		*known = r->rss_known;
		return r->rss;
	}
	*known = r->mark != TUI_MARK_REMOVED;
	return ms_mapping_size(r->m);
}

static bool shows_bars(const struct tui_mapview *vm)
{
	return tui_mapview_sorted(vm) && (vm->sort == TUI_MSORT_SIZE || vm->sort == TUI_MSORT_RSS);
}

/* The strip is the index's: not while a new filter waits for its index.  The width policy says if it fits. */
static bool has_strip(const struct tui_mapview *vm, const struct tui_strip *strip)
{
	return strip && strip->valid && vm->index_valid;
}

/* The widest whole name (file name and " (deleted)", elide.h) of the rows on screen, up to cap (0: any). */
static int names_want(const struct tui_app *app, const struct tui_mapview *vm, int cap)
{
	const char *mark = tui_ellipsis(app->escape_flags);
	size_t first = tui_mapview_first_shown(vm);
	int most = 0;

	for (size_t i = first; i < vm->nrows && i - first < vm->height; i++) {
		const struct ms_mapping *m = vm->rows[i].m;
		char name[TUI_LINE_MAX];
		size_t len;
		int w;

		if (!m || !m->name_len)
			continue;
		len = ms_escape(m->name, m->name_len, name, sizeof(name), app->escape_flags);
		w = tui_elide_want(name, len, mark);
		if ((!cap || w <= cap) && w > most)
			most = w;
	}
	return most;
}

void tui_maps_layout(const struct tui_app *app, const struct tui_mapview *vm, const struct tui_strip *strip,
		     bool rss_column, int width, struct tui_layout *l)
{
	const struct tui_colset *set = &app->cfg.cols[TUI_CV_MAPS];
	unsigned off = rss_column ? 0 : 1u << TUI_MC_RSS;
	int want[TUI_COLS_MAX] = { 0 }, bars = shows_bars(vm) ? TUI_BAR_W + 1 : 0;
	bool band = has_strip(vm, strip);

	/* The columns and the strip give way, by rank, so that the names on screen show whole. */
	want[TUI_MC_NAME] = names_want(app, vm, 0);
	want[TUI_MC_NAME] = names_want(app, vm, tui_layout_reach_band(TUI_CV_MAPS, set, off, TUI_MAPROW_PREFIX,
								      width, bars, band, want));
	tui_layout_fit_band(l, TUI_CV_MAPS, set, off, TUI_MAPROW_PREFIX, width, bars, band, want,
			    app->escape_flags);
}

/* The strip's heading, ending over it at column w - 1, after the headings (cols of them), or none. */
static void strip_heading(const struct tui_app *app, WINDOW *win, int cols, int w)
{
	const char *label = tui_columns_band(TUI_CV_MAPS)->heading;
	const char *mark = tui_ellipsis(app->escape_flags);
	char cut[64];
	int room = w - cols - 2, mark_cols, n;

	/* Two spaces apart from the last heading; a cut keeps four letters, or there is none. */
	tui_text_fit(mark, strlen(mark), 8, &mark_cols);
	if (room < 4 + mark_cols && room < (int)strlen(label))
		return;
	n = (int)tui_cut_end(label, strlen(label), room, mark, cut, sizeof(cut));
	tui_text_fit(cut, (size_t)n, room, &room);
	wattron(win, A_BOLD);
	mvwaddnstr(win, 1, w - room, cut, n);
	wattroff(win, A_BOLD);
}

void tui_maps_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_maps_frame *f,
			 struct tui_maps_drawn *drawn)
{
	const struct tui_mapview *vm = f->vm;
	int lines = getmaxy(win), w = getmaxx(win);
	int rows = tui_maps_rows(lines, f->detail);
	size_t first = tui_mapview_first_shown(vm), ndetail = 0;
	char text[TUI_LINE_MAX];
	struct tui_detail_line detail[TUI_DETAIL_LINES];
	bool strip, bars = shows_bars(vm), known;
	int rw;
	uint64_t bar_max = 0;
	struct tui_layout l;

	werase(win);
	if (tui_draw_too_small(win))
		return;
	if (f->detail) {
		ndetail = tui_maps_detail_lines(app, f, detail);
		rows = tui_maps_rows_beside_pane(lines, w, detail, ndetail);
		/* A taller pane leaves fewer rows: keep the selection among them. */
		if (vm->sel_row >= first + (size_t)rows)
			first = vm->sel_row - (size_t)rows + 1;
	}
	if (drawn) {
		drawn->first = first;
		drawn->rows = rows;
		drawn->widest = 0;
	}
	tui_format_maps_header(text, sizeof(text), vm, f->title, f->backend, f->rss_total_known,
			       f->rss_total);
	tui_draw_header(app, win, text);
	/* The columns are placed in what the bar and the strip leave, so NAME keeps its room. */
	tui_maps_layout(app, vm, f->strip, f->rss_column, w, &l);
	strip = l.band > 0;
	rw = w - l.band;
	tui_layout_heading(text, sizeof(text), &l, tui_map_sort_column(vm), vm->sort_reverse, NULL);
	for (size_t i = 0; bars && i < vm->nrows; i++) {
		uint64_t value = map_bar(vm, &vm->rows[i], &known);

		if (known && value > bar_max)
			bar_max = value;
	}
	if (bars)
		tui_bar_insert_heading(text, sizeof(text), "NAME");
	tui_draw_heading(win, text, sizeof(text), vm->hscroll, rw);
	if (strip) {
		int cols;

		tui_text_fit(text, strlen(text), rw, &cols);
		strip_heading(app, win, cols, w);
	}
	for (int i = 0; i < rows && first + (size_t)i < vm->nrows; i++) {
		const struct tui_maprow *r = &vm->rows[first + (size_t)i];
		attr_t a = row_attr(app, r);
		size_t name_at, whole;

		if (first + (size_t)i == vm->sel_row)
			a |= A_REVERSE;
		name_at = tui_format_maprow_cols(text, sizeof(text), &l, r, app->escape_flags);
		if (bars) {
			uint64_t value = map_bar(vm, r, &known);

			name_at = tui_bar_insert(text, sizeof(text), name_at, value, bar_max, known);
		}
		whole = tui_fit_last_column(text, sizeof(text), name_at, rw, vm->hscroll, true,
					    app->escape_flags);
		if (drawn && whole > drawn->widest)
			drawn->widest = whole;
		wattron(win, a);
		tui_put(win, 2 + i, 0, text, rw, true);
		wattroff(win, a);
	}
	if (strip) {
		/* Apart from the rows, under its heading: a rule down beside them, then the strip. */
		for (int y = 2; y < 2 + rows; y++)
			mvwaddch(win, y, w - 2, (chtype)'|');
		tui_strip_draw(app, win, f->strip, vm, first, rows, 2, w - 1);
	}
	if (f->detail)
		tui_draw_pane(win, detail, ndetail, 2 + rows, lines - 1);
	tui_draw_message(app, win, f->banner);
}
