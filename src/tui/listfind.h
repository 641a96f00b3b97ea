/*
 * listfind.h - search and filter in the explorer's lists, without curses.
 *
 * Every list (process list, stale view, files view, maps view) filters its
 * rows with \ (only rows whose text contains the filter show) and searches
 * them with / n N (the selection jumps to the next row containing the text,
 * wrapping around; the maps view, which holds only a window of its rows,
 * searches through the engine: maps_search.h).  Both compare raw bytes, case-sensitive, against the text the
 * row shows before escaping (a command line, a path), so what was typed
 * matches what is on screen for printable text.  The models keep the text
 * typed; this module holds the parts they share.
 */
#ifndef MAPSCOPE_TUI_LISTFIND_H
#define MAPSCOPE_TUI_LISTFIND_H

#include <stdbool.h>
#include <stddef.h>

/* Room for a typed filter or search text, NUL included. */
#define TUI_FIND_MAX 128

/* hay (len bytes) contains needle; an empty needle is in everything. */
bool tui_find_in(const char *hay, size_t len, const char *needle);

/*
 * The first of n rows, going from sel in direction dir (> 0 down, < 0 up)
 * and wrapping around, for which match(ctx, row) holds: sel itself first
 * when from_current (typing), else last.  Returns n when none does.
 */
size_t tui_find_row(size_t n, size_t sel, int dir, bool from_current,
		    bool (*match)(const void *ctx, size_t row), const void *ctx);

#endif
