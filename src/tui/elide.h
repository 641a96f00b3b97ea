/*
 * elide.h - the last column of a row (NAME, COMMAND) fitted to the screen,
 * without curses.
 *
 * Input is text that ms_escape produced: printable UTF-8, where each
 * untrusted byte that needed it is a "\xNN" and a backslash is "\\".  Those
 * are escape units, and every cut here falls between units, never inside
 * one, so what is shown can still be read back.  Widths are terminal
 * columns of the escaped text, counted as tui_text_fit counts them.
 *
 * A path that does not fit loses its middle, not its file name: it keeps
 * its first component and as many trailing components as fit around the
 * ellipsis ("/opt/…/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so"),
 * and more leading components if there is room.  The file name and a
 * " (deleted)" suffix stay whole before any folder shows: when the first
 * component leaves no room, only the root does ("/…/libapp.so.1 (deleted)").
 * When even that does not fit, the file name loses its middle, the suffix
 * kept whole; text that is not a path loses its middle.  The ellipsis is
 * U+2026 in a UTF-8 locale and "..." otherwise.
 *
 * Scrolled (Left and Right), the column shows the raw escaped text from a
 * column offset on, unelided, starting at a whole unit.
 */
#ifndef MAPSCOPE_TUI_ELIDE_H
#define MAPSCOPE_TUI_ELIDE_H

#include <stdbool.h>
#include <stddef.h>

/* Columns one Left or Right press scrolls. */
#define TUI_HSCROLL_STEP 8

/* The ellipsis for the locale escape_flags describe. */
const char *tui_ellipsis(unsigned escape_flags);
/* MS_ESC_ASCII unless LC_CTYPE's codeset is UTF-8: the explorer's escape flags. */
unsigned tui_locale_escape_flags(void);

/*
 * s (len bytes of escaped text) in at most width columns, into out (size
 * bytes, NUL-terminated): as it is when it fits, else elided as above.
 * Returns the length written.
 */
size_t tui_elide(const char *s, size_t len, int width, const char *ellipsis, char *out,
		 size_t size);

/*
 * The columns tui_elide needs to show s's file name whole: a path's last
 * component (a " (deleted)" suffix included) after "/" and the ellipsis
 * ("/…/libfoo.so.1 (deleted)"), or the whole text when that is no shorter.
 */
int tui_elide_want(const char *s, size_t len, const char *ellipsis);

/*
 * s cut at its end to width columns, between units, the ellipsis marking
 * the cut (as it is when it fits); into out as tui_elide.
 */
size_t tui_cut_end(const char *s, size_t len, int width, const char *ellipsis, char *out,
		   size_t size);

/* Bytes of s in the longest run of whole units within width; *cols: their columns. */
size_t tui_units_fit(const char *s, size_t len, int width, int *cols);

/* The byte offset of the first unit of s that starts at or after column cols. */
size_t tui_skip_cols(const char *s, size_t len, size_t cols);

/*
 * Fit the last column of a formatted row in place: line (NUL-terminated,
 * size bytes) holds its column from byte name_at on, after ASCII columns
 * one byte wide; the screen is width columns.  scroll > 0 shows the column
 * from that offset; otherwise, when path_column, an overlong column is
 * elided (a command line is left for the screen to cut at its end).
 * Returns the column's whole width, for tui_hscroll.
 */
size_t tui_fit_last_column(char *line, size_t size, size_t name_at, int width, size_t scroll,
			   bool path_column, unsigned escape_flags);

/* Append " +N" to a heading when its last column is scrolled by N. */
void tui_heading_offset(char *heading, size_t size, size_t scroll);

/*
 * One Left (dir < 0) or Right press on a column offset.  Right stops while
 * some of the widest text last drawn (widest columns) would still show.
 */
void tui_hscroll(size_t *scroll, int dir, size_t widest);

#endif
