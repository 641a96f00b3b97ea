/*
 * settings.h - the explorer's settings file, parsed without curses.
 *
 * The file is config in the folder confdir.h opens: $XDG_CONFIG_HOME/mapscope,
 * or ~/.config/mapscope when XDG_CONFIG_HOME is unset or not absolute.  It
 * holds `key = value` lines; blank lines and lines starting with '#' are
 * ignored.  Keys:
 *   delay = SECONDS            refresh period, 0.1 to 3600
 *   filters = LETTERS          default kernel filters: r w x s f ("" none)
 *   color = yes|no             colours (NO_COLOR in the environment wins)
 *   color.exec|write|shared|anomaly|added|removed|stale = COLOUR
 *                              black red green yellow blue magenta cyan
 *                              white default
 *   hide = COLUMN[,COLUMN...]  maps columns not to show: SIZE PERMS OFFSET
 *                              DEV (NAME and START-END always show);
 *                              ignored when a columns.maps line is there
 *   columns.procs|maps|files|stale = COLUMN[,COLUMN...]
 *                              the columns that view shows, in that order
 *                              (columns.h names them; the last column,
 *                              NAME or COMMAND, always shows, last).  The
 *                              column chooser (C) writes these lines.
 *   backend = auto|ioctl|text
 *   rss = yes|no               the maps view's RSS column shown at start
 *                              (the R key toggles it)
 * A bad line is reported through the callback with its line number and
 * skipped; the other lines still apply.  Input is untrusted text: lines
 * are bounded and messages escape it.
 *
 * Only tui_settings_save_columns writes the file, and only its columns.*
 * lines: every other line and comment stays as it was, and a view's line
 * is replaced where it stands (or appended).  The new text goes to a
 * temporary beside it, mode 0600, renamed over the file (atomic), never
 * longer than TUI_SETTINGS_MAX_BYTES.
 *
 * Both go through confdir.h, which follows nothing below XDG_CONFIG_HOME or
 * HOME: a symbolic link as the folder, a level above it or the file is
 * refused (a dotfiles manager's link is left alone; the message says so),
 * and so is anything but a regular file, never opened (a FIFO cannot block
 * the explorer's start), a file over TUI_SETTINGS_MAX_BYTES, and a level or
 * file owned by anyone but the effective uid or root.  When XDG_CONFIG_HOME
 * or HOME (whichever the folder is under) is another user's, as root's is
 * under `sudo -E`, the settings are off: nothing under it is read or
 * written, and where->foreign says so.
 */
#ifndef MAPSCOPE_TUI_SETTINGS_H
#define MAPSCOPE_TUI_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"
#include "core/maps/maps.h"
#include "core/untrusted/confdir.h"
#include "tui/columns.h"

enum tui_color_role {
	TUI_COLOR_EXEC,
	TUI_COLOR_WRITE,
	TUI_COLOR_SHARED,
	TUI_COLOR_ANOMALY,
	TUI_COLOR_ADDED,
	TUI_COLOR_REMOVED,
	TUI_COLOR_STALE,
	TUI_COLOR_ROLES,
};

/* Column bits for `hide`. */
#define TUI_COL_SIZE 0x1u
#define TUI_COL_PERMS 0x2u
#define TUI_COL_OFFSET 0x4u
#define TUI_COL_DEV 0x8u
/* `hide` bits -> the maps view's column bits (columns.h ids). */
unsigned tui_settings_hide_columns(unsigned hidden);

#define TUI_SETTINGS_MAX_BYTES (64 * 1024)
/* Its name in the folder. */
#define TUI_SETTINGS_FILE "config"

struct tui_settings {
	double delay;
	unsigned filter;
	bool color;
	int colors[TUI_COLOR_ROLES]; /* 0-7 as ANSI, -1 the terminal's default */
	unsigned hidden;
	enum ms_backend backend;
	bool rss;
	struct tui_colset cols[TUI_CV_COUNT]; /* columns.VIEW, or the defaults (with hide) */
};

/* msg says why the line was skipped; an unknown key is named in it, escaped. */
typedef void (*tui_settings_warn_fn)(void *ctx, unsigned line, const char *msg);

void tui_settings_defaults(struct tui_settings *c);

/* Apply text to c.  Returns the number of bad lines (each reported to warn). */
unsigned tui_settings_parse(struct tui_settings *c, const char *text, size_t len,
			  tui_settings_warn_fn warn, void *ctx);

/*
 * Read the file in the folder where (opened here, closed again) and apply
 * it to c (bad lines go to warn, as above).  0, or a negative ms_errcode
 * with err set when the file was not applied at all: where->foreign when
 * the settings are off (err says whose the folder is); sys_errno ENOENT or
 * ENOTDIR when there is none (no warning is due); else why it was ignored,
 * naming the level or file.
 */
int tui_settings_load(struct tui_settings *c, struct ms_confdir *where, tui_settings_warn_fn warn,
		      void *ctx, struct ms_error *err);

/*
 * Write c's columns.VIEW lines (the views whose colset is given) into the
 * file in where, making the missing levels below XDG_CONFIG_HOME or HOME
 * (0700), as the header says.  0, or a negative ms_errcode with err naming
 * the level or file and why (sys_errno ELOOP: a symbolic link is there),
 * or where->foreign set: the settings are off.
 */
int tui_settings_save_columns(const struct tui_settings *c, struct ms_confdir *where,
			      struct ms_error *err);

#endif
