/* The maps view's detail pane: the selected mapping's lines, wrapped whole under the rows. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tui/elide.h"
#include "tui/format.h"
#include "tui/tui.h"
#include "tui/view_maps_detail.h"

#define DETAIL_LABEL_W 10
#define PANE_MIN_ROWS 3 /* mapping rows kept above a pane grown for a long name */

/* The selected mapping's detail lines, then its residency; 0 with no selection. */
size_t tui_maps_detail_lines(const struct tui_app *app, const struct tui_maps_frame *f,
			     struct tui_detail_line *lines)
{
	const struct tui_maprow *sel = tui_mapview_selected(f->vm);
	size_t n;

	if (!sel)
		return 0;
	n = tui_format_detail(lines, TUI_DETAIL_LINES - 4, f->detail_map ? f->detail_map : sel->m,
			      f->verdict, f->ioctl_backend,
			      app->escape_flags);
	if (f->symbol) {
		lines[n].label = "symbol";
		snprintf(lines[n++].value, sizeof(lines[0].value), "%s", f->symbol);
	}
	if (f->res_source)
		n += tui_format_residency(lines + n, TUI_DETAIL_LINES - n, f->res, f->res_source);
	if (f->where && n < TUI_DETAIL_LINES) {
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
int tui_maps_rows_beside_pane(int lines, int w, const struct tui_detail_line *d, size_t n)
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

void tui_maps_draw_detail(WINDOW *win, const struct tui_detail_line *lines, size_t n, int y,
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
