/*
 * stale_cols.h - the stale view's columns and the text of its lines and
 * heading, beside its model (stale_model.h); without curses.
 *
 * The view has two kinds of line.  A process line is a row of the column
 * table (PID, USER, FILES) followed by the last column, the systemd unit
 * (or "-"), where a process under another root lives, and the command
 * line.  A file line, under its process, is
 *     VERDICT  VERSION  FILE
 * indented by two columns: the verdict, the version of
 * the copy the process maps (ms_fact_text's VERSION, core/files/facts.h:
 * the dated version for a replaced or deleted copy, "-" where there is no
 * version to show), and the file's name, the last column.  The reason and
 * the package go to the detail pane (stale_detail.h), so an 80-column
 * screen shows what to restart and what runs.  Grouped by unit, a group's
 * heading line says its kind ("service", "session"...: ms_plan_kind_name),
 * its unit, how many of its processes show, and what a restart of services leaves to
 * do (ms_plan_advice), the same words as `stale --restart-plan`.
 *
 * Width: the VERSION column is as wide as the widest version on screen,
 * never cut, and the name gives way, losing the middle of its folders
 * first (elide.h: the file name and " (deleted)" stay whole).  Only a
 * version that would leave the name fewer than TUI_STALE_NAME_MIN columns
 * (some hundred-byte string a Python distribution claims) is cut there,
 * with the ellipsis, never '~'.
 *
 * Everything from another process (command lines, names, units, the
 * versions a user-writable source gives) is escaped with escape_flags
 * before it reaches a buffer; widths are measured after escaping.
 */
#ifndef MAPSCOPE_TUI_STALE_COLS_H
#define MAPSCOPE_TUI_STALE_COLS_H

#include <stddef.h>

#include "tui/columns.h"
#include "tui/stale_model.h"

/* The stale view's column ids: the index in tui_stale_cols; the last is UNIT/COMMAND. */
enum tui_scol_id { TUI_SC_PID, TUI_SC_USER, TUI_SC_FILES, TUI_SC_LAST, TUI_SC_COUNT };

extern const struct tui_column tui_stale_cols[TUI_SC_COUNT];

/* The fewest columns a file's name keeps before a version is cut. */
#define TUI_STALE_NAME_MIN 24
/* A file line's verdict column: "replaced". */
#define TUI_STALE_VERDICT_W 8

/* Where a screen's lines go: the table's columns, and the file lines' VERSION. */
struct tui_stale_layout {
	struct tui_layout cols;
	int indent;        /* where a file line's verdict starts */
	int version_w;     /* the VERSION column's width on this screen */
	unsigned escape_flags;
};

/*
 * The layout of sv's screen width columns wide with the columns set s
 * shows: VERSION as wide as the widest version among the lines on screen,
 * the `rows` lines from sv->top_row the view draws (fewer than
 * sv->height beside the detail pane, or more), not the lines below them.
 */
void tui_stale_layout_make(struct tui_stale_layout *sl, const struct tui_colset *s,
			   const struct tui_staleview *sv, int width, size_t rows, unsigned escape_flags);

/*
 * One line of the view into buf (size bytes, TUI_LINE_MAX is enough).
 * Returns where the last column starts (the unit, or the file's name), for
 * tui_fit_last_column: a file line's is a path, elided in its middle.
 */
size_t tui_stale_format_line(char *buf, size_t size, const struct tui_stale_layout *sl,
			     const struct tui_staleview *sv, const struct tui_stale_line *line);
void tui_stale_format_heading(char *buf, size_t size, const struct tui_stale_layout *sl);

#endif
