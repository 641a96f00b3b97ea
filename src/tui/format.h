/*
 * format.h - the text of explorer rows, headings and the detail pane,
 * without curses, so tests can check it with no terminal.
 *
 * Everything that came from another process (names, command lines) is
 * escaped here with ms_escape (escape_flags: MS_ESC_ASCII outside UTF-8
 * locales) before it reaches a buffer.  Widths are terminal columns,
 * measured after escaping.
 */
#ifndef MAPSCOPE_TUI_FORMAT_H
#define MAPSCOPE_TUI_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "core/files/facts.h"
#include "core/maps/mapping.h"
#include "core/procs/proclist.h"
#include "tui/columns.h"
#include "tui/maps_model.h"
#include "tui/stale_model.h"
#include "tui/files_model.h"

#define TUI_LINE_MAX 8192

/* The stale flag letter of a verdict: 'D' deleted, 'R' replaced, else ' '. */
char tui_verdict_flag(int verdict);

/*
 * A cell of fact f (core/files/facts.h: its one wording) escaped to ASCII,
 * whole: the layout cuts it (columns.h), never with '~'.
 */
void tui_fact_cell(char *out, size_t size, enum ms_fact f, const struct ms_fact_src *src);
/* The same escaped for the screen (escape_flags), for the detail pane; returns its length. */
size_t tui_fact_escaped(char *out, size_t size, enum ms_fact f, const struct ms_fact_src *src,
			unsigned escape_flags);

/*
 * A maps row, marker first ('+' appeared, '-' removed, ' '), then the stale
 * flag ('D' deleted, 'R' replaced, ' '), TUI_MAPROW_PREFIX columns, then
 * the columns a layout (columns.h) places, RSS blank while unknown (a
 * removed ghost, a failed query).  Returns where NAME starts in buf (for
 * tui_fit_last_column).  The heading is tui_layout_heading's, over the
 * column tui_map_sort_column gives (-1: none).  maps_cols.c.
 */
#define TUI_MAPROW_PREFIX 3
size_t tui_format_maprow_cols(char *buf, size_t size, const struct tui_layout *l,
			      const struct tui_maprow *r, unsigned escape_flags);
int tui_map_sort_column(const struct tui_mapview *vm);

/* printf appended at *at of buf (size bytes), cut at its end, *at moved. */
void tui_appendf(char *buf, size_t size, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A mapping's name escaped, or why it has none that can be shown. */
void tui_mapping_name(char *buf, size_t size, const struct ms_mapping *m, unsigned flags);

/* "rx" for the active kernel filters, "none" when there are none. */
void tui_format_filters(char *buf, size_t size, unsigned filter);

/* Writable and executable, or executing a deleted file. */
bool tui_mapping_is_anomalous(const struct ms_mapping *m);

/* A process row with the columns l places; returns where COMMAND starts.  procs_cols.c. */
size_t tui_format_procrow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_procrow *r, unsigned escape_flags);
void tui_format_procheading_cols(char *buf, size_t size, const struct tui_layout *l, int sort_col,
				 bool reverse);
/* The STALE cell's width, for its colour.  MAPS and MAPPED are blank until the row was on screen. */
#define TUI_PROCROW_STALE_W 6

/*
 * The detail pane for m: label/value lines; the name is escaped, full
 * length (the caller wraps it).  verdict, when not NULL, adds a "stale"
 * line: the verdict and its explanation.  Returns the line count written
 * (max n).
 */
struct tui_detail_line {
	const char *label;
	char value[TUI_LINE_MAX];
};
size_t tui_format_detail(struct tui_detail_line *lines, size_t n, const struct ms_mapping *m,
			 const struct ms_stale_result *verdict, bool ioctl_backend,
			 unsigned escape_flags);

/* The S key's suggested file: "mapscope-PID-YYYYMMDD-HHMMSS.json", local time. */
void tui_format_snapshot_name(char *buf, size_t size, pid_t pid, time_t when);

/*
 * Residency lines for the detail pane, after tui_format_detail's: resident,
 * swapped, huge pages (and zero-page bytes when known), with the source
 * ("pagemap" or "smaps").  res NULL: one line saying it is unavailable.
 * Returns the line count written (max n).
 */
struct ms_resinfo;
size_t tui_format_residency(struct tui_detail_line *lines, size_t n,
			    const struct ms_resinfo *res, const char *source);

/*
 * How many bytes of s (len bytes of UTF-8) fit in width columns; *cols
 * gets the columns they take.  Stops before a character that would not fit.
 */
size_t tui_text_fit(const char *s, size_t len, int width, int *cols);

/*
 * The same loop over other steps: step returns the bytes of the piece at s
 * (len bytes left) and puts its columns in *cols.
 */
typedef size_t (*tui_fit_step)(const char *s, size_t len, int *cols);
size_t tui_fit_by(const char *s, size_t len, int width, int *cols, tui_fit_step step);

/*
 * The files view: heading (its sorted column marked) and one row with the
 * columns a layout places, returning where NAME starts in buf.
 * files_cols.c.
 */
void tui_format_fileheading_cols(char *buf, size_t size, const struct tui_layout *l,
				 const struct tui_fileview *fv);
size_t tui_format_filerow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_filerow *r, unsigned escape_flags);
/*
 * Raise want[] (TUI_COLS_MAX ints, columns.h: tui_layout_fit) for the rows
 * on screen: each version column's widest cell, and at NAME the room that
 * keeps whole every file name that needs no more than cap
 * (tui_layout_reach; 0: none).
 */
void tui_fileview_want(const struct tui_fileview *fv, unsigned escape_flags, int cap, int *want);

#endif
