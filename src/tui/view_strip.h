/*
 * view_strip.h - drawing the address-space strip (strip.h) in one screen
 * column: each cell's kind letter, coloured by kind when colours are on;
 * the cells of the rows on screen in capitals and reverse video, so the
 * window shows without colour.  It is not a column of the rows: it sits
 * apart at the right edge, after a space and a rule ('|') that runs down
 * beside the rows, TUI_STRIP_BAND columns in all (strip.h), under its own
 * heading, ADDRESS SPACE (the maps frame draws it; the width policy's
 * band, columns.h, says when it gives way).
 */
#ifndef MAPSCOPE_TUI_VIEW_STRIP_H
#define MAPSCOPE_TUI_VIEW_STRIP_H

#include <stddef.h>

#include <curses.h>

#include "tui/strip.h"
#include "tui/tui.h"

#define TUI_STRIP_MAX_CELLS 1024 /* taller screens draw the strip over this many lines */

/* Column x from line y, rows lines; the window is vm's live rows [first, first + rows). */
void tui_strip_draw(const struct tui_app *app, WINDOW *win, const struct tui_strip *s,
		    const struct tui_mapview *vm, size_t first, int rows, int y, int x);

#endif
