/*
 * The maps screen drawn from a model alone (tui_maps_draw_frame): header,
 * column headings, rows in their colours, and the detail pane beside them.
 * The maps view (view_maps.c) and the screen tests call it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/units.h"
#include "core/maps/maps.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/tui.h"

#define DETAIL_MAX 16
#define DETAIL_LINES 16 /* the mapping's own lines, then residency */
#define DETAIL_LABEL_W 10
#define PANE_MIN_ROWS 3 /* mapping rows kept above a pane grown for a long name */

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

/* The selected mapping's detail lines, then its residency; 0 with no selection. */
static size_t detail_lines(const struct tui_app *app, const struct tui_maps_frame *f,
			   struct tui_detail_line *lines)
{
	const struct tui_maprow *sel = tui_mapview_selected(f->vm);
	size_t n;

	if (!sel)
		return 0;
	n = tui_format_detail(lines, DETAIL_LINES - 4, f->detail_map ? f->detail_map : sel->m,
			      f->verdict, f->ioctl_backend,
			      app->escape_flags);
	if (f->symbol) {
		lines[n].label = "symbol";
		snprintf(lines[n++].value, sizeof(lines[0].value), "%s", f->symbol);
	}
	if (f->res_source)
		n += tui_format_residency(lines + n, DETAIL_LINES - n, f->res, f->res_source);
	if (f->where && n < DETAIL_LINES) {
		lines[n].label = "process in";
		snprintf(lines[n++].value, sizeof(lines[0].value), "%s", f->where);
	}
	return n;
}

/* The next screen line's worth of val (whole escape units), at least one unit. */
static size_t wrap_piece(const char *val, size_t left, int width)
{
	size_t fit = tui_units_fit(val, left, width, NULL);

	return fit ? fit : tui_skip_cols(val, left, 1);
}

/*
 * Mapping rows above the pane: the usual split, or fewer when the detail
 * lines need more (a long name is wrapped whole), down to PANE_MIN_ROWS.
 */
static int rows_beside_pane(int lines, int w, const struct tui_detail_line *d, size_t n)
{
	int body = tui_body_lines(lines), rows = tui_maps_rows(lines, true), need = 1;
	int floor = rows < PANE_MIN_ROWS ? rows : PANE_MIN_ROWS;

	for (size_t i = 0; i < n; i++) {
		const char *val = d[i].value;
		size_t left = strlen(val);

		do {
			size_t fit = wrap_piece(val, left, w - DETAIL_LABEL_W);

			val += fit;
			left -= fit;
			need++;
		} while (left && need < body);
	}
	if (body - rows < need)
		rows = body - need;
	return rows < floor ? floor : rows;
}

static void draw_detail(WINDOW *win, const struct tui_detail_line *lines, size_t n, int y,
			int last)
{
	int w = getmaxx(win);

	mvwhline(win, y, 0, '-', w);
	tui_put(win, y, 0, "- detail ", w, false);
	for (size_t i = 0; i < n && ++y < last; i++) {
		const char *val = lines[i].value;
		size_t left = strlen(val);

		tui_put(win, y, 0, lines[i].label, DETAIL_LABEL_W, true);
		/* The name is shown whole: wrap it over as many lines as it needs, between escapes. */
		while (left) {
			size_t fit = wrap_piece(val, left, w - DETAIL_LABEL_W);
			char part[TUI_LINE_MAX];

			memcpy(part, val, fit);
			part[fit] = '\0';
			tui_put(win, y, DETAIL_LABEL_W, part, w - DETAIL_LABEL_W, false);
			val += fit;
			left -= fit;
			if (!left || y + 1 >= last)
				break;
			y++;
		}
	}
}

void tui_maps_layout(const struct tui_app *app, bool rss_column, int width, struct tui_layout *l)
{
	tui_layout_make(l, TUI_CV_MAPS, &app->cfg.cols[TUI_CV_MAPS], rss_column ? 0 : 1u << TUI_MC_RSS,
			TUI_MAPROW_PREFIX, width);
}

void tui_maps_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_maps_frame *f,
			 struct tui_maps_drawn *drawn)
{
	const struct tui_mapview *vm = f->vm;
	int lines = getmaxy(win), w = getmaxx(win);
	int rows = tui_maps_rows(lines, f->detail);
	size_t first = tui_mapview_first_shown(vm), ndetail = 0;
	char text[TUI_LINE_MAX], filters[16], total[32];
	struct tui_detail_line detail[DETAIL_LINES];
	struct tui_layout l;

	werase(win);
	if (tui_draw_too_small(win))
		return;
	if (f->detail) {
		ndetail = detail_lines(app, f, detail);
		rows = rows_beside_pane(lines, w, detail, ndetail);
		/* A taller pane leaves fewer rows: keep the selection among them. */
		if (vm->sel_row >= first + (size_t)rows)
			first = vm->sel_row - (size_t)rows + 1;
	}
	if (drawn) {
		drawn->first = first;
		drawn->rows = rows;
		drawn->widest = 0;
	}
	tui_format_filters(filters, sizeof(filters), vm->filter);
	ms_format_size(vm->total_size, false, total, sizeof(total));
	if (vm->index_valid)
		snprintf(text, sizeof(text), "%s | %s | filter %s%s%s | %zu/%zu maps, %s%s%s%s", f->title,
			 f->backend, filters, vm->name_filter[0] ? " name~" : "", vm->name_filter,
			 tui_mapview_position(vm), vm->nstarts, total,
			 tui_mapview_sorted(vm) ? " | sort " : "",
			 tui_mapview_sorted(vm) ? tui_map_sort_name(vm->sort) : "",
			 vm->sort_reverse ? ", reversed" : "");
	else
		snprintf(text, sizeof(text), "%s | %s | filter %s%s%s | %zu shown", f->title,
			 f->backend, filters, vm->name_filter[0] ? " name~" : "", vm->name_filter,
			 vm->nrows);
	tui_draw_header(app, win, text);
	tui_maps_layout(app, f->rss_column, w, &l);
	tui_layout_heading(text, sizeof(text), &l, tui_map_sort_column(vm), vm->sort_reverse, NULL);
	tui_heading_offset(text, sizeof(text), vm->hscroll);
	wattron(win, A_BOLD);
	tui_put(win, 1, 0, text, w, false);
	wattroff(win, A_BOLD);
	for (int i = 0; i < rows && first + (size_t)i < vm->nrows; i++) {
		const struct tui_maprow *r = &vm->rows[first + (size_t)i];
		attr_t a = row_attr(app, r);
		size_t name_at, whole;

		if (first + (size_t)i == vm->sel_row)
			a |= A_REVERSE;
		name_at = tui_format_maprow_cols(text, sizeof(text), &l, r, app->escape_flags);
		whole = tui_fit_last_column(text, sizeof(text), name_at, w, vm->hscroll, true,
					    app->escape_flags);
		if (drawn && whole > drawn->widest)
			drawn->widest = whole;
		wattron(win, a);
		tui_put(win, 2 + i, 0, text, w, true);
		wattroff(win, a);
	}
	if (f->detail)
		draw_detail(win, detail, ndetail, 2 + rows, lines - 1);
	tui_draw_message(app, win, f->banner);
}
