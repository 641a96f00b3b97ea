/* The maps view's detail pane: the selected mapping's lines, wrapped whole under the rows. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tui/format.h"
#include "tui/tui.h"
#include "tui/view_maps_detail.h"

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
	if (f->package) {
		lines[n].label = "package";
		snprintf(lines[n++].value, sizeof(lines[0].value), "%s", f->package);
	}
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

/*
 * Mapping rows above the pane: the usual split, or fewer when the detail
 * lines need more (a long name is wrapped whole, tui_pane_height), down to
 * PANE_MIN_ROWS.
 */
int tui_maps_rows_beside_pane(int lines, int w, const struct tui_detail_line *d, size_t n)
{
	int body = tui_body_lines(lines), rows = tui_maps_rows(lines, true);
	int floor = rows < PANE_MIN_ROWS ? rows : PANE_MIN_ROWS, need = tui_pane_height(w, d, n, body);

	if (body - rows < need)
		rows = body - need;
	return rows < floor ? floor : rows;
}
