/*
 * bars.h - size bars, as ncdu draws them: a cell "[####    ]" whose
 * '#' count is proportional to a row's value over the largest value the
 * list shows, so it reads the same with or without colour.  No curses.
 *
 * A bar is a column of its own, put just before a row's last column
 * (NAME, COMMAND) by inserting it into a row already formatted (format.h):
 * the rows' formats stay as they are and the column can move with one
 * call.  Where it shows:
 *   - the files view, always (by RSS while sorted by RSS, else by SIZE);
 *   - the libraries view, always (by RSS);
 *   - the process list while sorted by RSS or MAPPED;
 *   - the maps view while sorted by SIZE or RSS.
 * A value above zero gets at least one '#', so small rows stay visible
 * beside a huge one; zero and unknown values get an empty bar.
 */
#ifndef MAPSCOPE_TUI_BARS_H
#define MAPSCOPE_TUI_BARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TUI_BAR_FILL 8 /* '#' cells of a full bar */
#define TUI_BAR_W (TUI_BAR_FILL + 2) /* with its brackets */

/* The bar of value against max in buf (TUI_BAR_W + 1 bytes); known false: an empty bar. */
void tui_bar_format(char *buf, uint64_t value, uint64_t max, bool known);

/*
 * Insert the bar and a space at byte at of the row in buf (size bytes,
 * NUL-terminated).  Returns where the row's last column now starts (at
 * moved past the bar), for tui_fit_last_column.
 */
size_t tui_bar_insert(char *buf, size_t size, size_t at, uint64_t value, uint64_t max, bool known);

/* Insert "BAR" as a heading before the last column named label (" NAME"). */
void tui_bar_insert_heading(char *buf, size_t size, const char *label);

#endif
