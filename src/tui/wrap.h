/*
 * wrap.h - escaped text broken into screen lines at word boundaries,
 * without curses (the detail panes' long values: a verdict's explanation,
 * a name).
 *
 * Input is text ms_escape produced (elide.h's escape units).  A line ends
 * after the last blank that lets it fit, and the blanks at the break are
 * dropped, so no word is cut in two ("...has n" / "o build ID").  Only a
 * word wider than the whole line is cut, and then between escape units,
 * never inside a "\xNN" or a UTF-8 character.  Widths are terminal columns,
 * as tui_units_fit counts them.
 */
#ifndef MAPSCOPE_TUI_WRAP_H
#define MAPSCOPE_TUI_WRAP_H

#include <stddef.h>

/*
 * The first screen line of s (len bytes) in width columns: returns the
 * bytes to show from s; *next gets where the following line starts (past
 * the blanks at the break), always > 0 while len > 0.
 */
size_t tui_wrap_line(const char *s, size_t len, int width, size_t *next);

#endif
