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

#include "core/maps/mapping.h"
#include "core/procs/proclist.h"
#include "tui/columns.h"
#include "tui/maps_model.h"
#include "tui/stale_model.h"
#include "tui/files_model.h"

#define TUI_LINE_MAX 8192

/* The stale flag letter of a verdict: 'D' deleted, 'R' replaced, else ' '. */
char tui_verdict_flag(int verdict);

/* A cell of raw text s (len bytes) escaped to ASCII, cut to width columns with '~'. */
void tui_ascii_cell(char *out, size_t width, const char *s, size_t len);

/*
 * One maps row, marker first ('+' appeared, '-' removed, ' '), then the
 * stale flag ('D' deleted, 'R' replaced, ' '; verdict is an enum
 * ms_stale_verdict or TUI_VERDICT_NONE).
 */
void tui_format_maprow(char *buf, size_t size, const struct ms_mapping *m,
		       enum tui_mark mark, int verdict, unsigned hidden, unsigned escape_flags);
/*
 * The same with the optional RSS column after SIZE (rss_column): the row's
 * resident size, blank while unknown (a removed ghost, a failed query).
 * Returns where NAME starts in buf (for tui_fit_last_column).
 */
size_t tui_format_maprow_rss(char *buf, size_t size, const struct tui_maprow *r, unsigned hidden,
			     bool rss_column, unsigned escape_flags);
void tui_format_mapheading_rss(char *buf, size_t size, unsigned hidden, bool rss_column);
/*
 * The same with the columns a layout (columns.h) places; the rows start
 * with the marker and flag, TUI_MAPROW_PREFIX columns, before the layout's.
 * The heading is tui_layout_heading's, over the column
 * tui_map_sort_column gives (-1: none).
 */
#define TUI_MAPROW_PREFIX 3
size_t tui_format_maprow_cols(char *buf, size_t size, const struct tui_layout *l,
			      const struct tui_maprow *r, unsigned escape_flags);
int tui_map_sort_column(const struct tui_mapview *vm);

/* "rx" for the active kernel filters, "none" when there are none. */
void tui_format_filters(char *buf, size_t size, unsigned filter);

/* Writable and executable, or executing a deleted file. */
bool tui_mapping_is_anomalous(const struct ms_mapping *m);

/* Returns where COMMAND starts in buf. */
size_t tui_format_procrow(char *buf, size_t size, const struct ms_procrow *r,
			  unsigned escape_flags);
void tui_format_procheading(char *buf, size_t size, int sort_col, bool reverse);
/* The same with the columns l places (the two above show them all). */
size_t tui_format_procrow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_procrow *r, unsigned escape_flags);
void tui_format_procheading_cols(char *buf, size_t size, const struct tui_layout *l, int sort_col,
				 bool reverse);
/*
 * Where the STALE count sits in a process row with every column (for its
 * colour; with a layout, its x there).  MAPS and MAPPED are blank until the
 * row has been on screen once; RSS is "-" for kernel threads and zombies.
 */
#define TUI_PROCROW_RSS_W 7
#define TUI_PROCROW_STALE_X 42
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
 * The files view: heading for a screen `width` wide, its sorted column
 * marked; one row, returning where NAME starts in buf.  The default
 * columns; the _cols forms take the user's, placed by a layout.
 */
void tui_format_fileheading(char *buf, size_t size, const struct tui_fileview *fv, int width);
size_t tui_format_filerow(char *buf, size_t size, const struct tui_fileview *fv,
			  const struct ms_filerow *r, int width, unsigned escape_flags);
void tui_format_fileheading_cols(char *buf, size_t size, const struct tui_layout *l,
				 const struct tui_fileview *fv);
size_t tui_format_filerow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_filerow *r, unsigned escape_flags);

#endif
