/*
 * view_maps_detail.h - the maps view's detail pane (Enter): the selected
 * mapping's lines (format.h), its symbol, residency and where its process
 * lives, drawn under the rows by the shared pane (tui_draw_pane in tui.h,
 * which wraps a long value at words over as many lines as it needs); the
 * rows above give way for it down to a few.  The text comes from format.h.
 */
#ifndef MAPSCOPE_TUI_VIEW_MAPS_DETAIL_H
#define MAPSCOPE_TUI_VIEW_MAPS_DETAIL_H

#include <stddef.h>

#include <curses.h>

#include "tui/format.h"
#include "tui/tui.h"

#define TUI_DETAIL_LINES 16 /* the mapping's own lines, then residency */

/* The selected mapping's detail lines, then its residency; 0 with no selection. */
size_t tui_maps_detail_lines(const struct tui_app *app, const struct tui_maps_frame *f,
			     struct tui_detail_line *lines);

/* Mapping rows left above a pane showing lines (n of them) on a screen lines x w. */
int tui_maps_rows_beside_pane(int lines, int w, const struct tui_detail_line *d, size_t n);

#endif
