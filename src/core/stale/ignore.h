/*
 * ignore.h - the stale-ignore list: mappings `stale` never flags.
 *
 * A list is parsed from text (data/stale-ignore.conf describes the format):
 * one rule per line, "PATTERN REASON", where PATTERN is an fnmatch(3) glob
 * that ends at the first unescaped blank and REASON is the rest of the line.
 * '#' starts a comment line; blank lines are skipped.  A rule matches a
 * mapped path as the kernel names it, with any trailing " (deleted)"
 * removed; the first matching rule wins and its REASON is the explanation.
 *
 * The text is untrusted (a user's file): parsing is bounded
 * (MS_IGNORE_TEXT_MAX bytes, MS_IGNORE_LINE_MAX per line,
 * MS_IGNORE_RULES_MAX rules), rejects NUL bytes, a rule without a reason and
 * a pattern ending in a lone backslash, and reports the line number in the
 * MS_ERR_INVAL message.  No curses, no printing.
 *
 * The defaults are the text of data/stale-ignore.conf compiled in
 * (ms_ignore_default); ms_ignore_load reads a file instead, through
 * ms_read_regular (saferead.h): a FIFO, device or directory at the path is
 * an error naming it, never opened, so it can neither block nor act.
 */
#ifndef MAPSCOPE_IGNORE_H
#define MAPSCOPE_IGNORE_H

#include <stddef.h>

#include "base/error.h"

#define MS_IGNORE_TEXT_MAX (1u << 20)
#define MS_IGNORE_LINE_MAX 4096u
#define MS_IGNORE_RULES_MAX 4096u

struct ms_ignore;

int ms_ignore_parse(const char *text, size_t len, struct ms_ignore **out,
		    struct ms_error *err);

/*
 * Parse a file; the message names the file and the line.  Errors are
 * ms_read_regular's (sys_errno ENOENT for a missing file, ENXIO for a FIFO,
 * EFBIG past MS_IGNORE_TEXT_MAX...) or the parser's.
 */
int ms_ignore_load(const char *path, struct ms_ignore **out, struct ms_error *err);

/* The compiled-in defaults. */
int ms_ignore_default(struct ms_ignore **out, struct ms_error *err);

/*
 * The user's list, $XDG_CONFIG_HOME/mapscope/stale-ignore.conf (or
 * ~/.config/mapscope/stale-ignore.conf when XDG_CONFIG_HOME is unset or not
 * absolute), else the defaults when that file does not exist.  A file that
 * exists but cannot be read or parsed is an error naming it.  This is the
 * one place `mapscope stale` and the explorer find the list.  The folder is
 * reached as confdir.h reaches it: with another user's folder (root under
 * sudo -E) nothing is read and the defaults hold; a link planted below the
 * base is refused, an error naming it.
 */
int ms_ignore_load_user(struct ms_ignore **out, struct ms_error *err);

/* The reason of the first rule matching name (len bytes), or NULL. */
const char *ms_ignore_match(const struct ms_ignore *ign, const char *name, size_t len);

size_t ms_ignore_count(const struct ms_ignore *ign);
void ms_ignore_free(struct ms_ignore *ign);

/* " (deleted)" as the kernel appends it (fs/d_path.c, d_path()). */
#define MS_DELETED_SUFFIX " (deleted)"
#define MS_DELETED_SUFFIX_LEN (sizeof(MS_DELETED_SUFFIX) - 1)

/* len without a trailing " (deleted)", if there is one. */
size_t ms_name_strip_deleted(const char *name, size_t len);

/* Generated from data/stale-ignore.conf at build time. */
extern const char ms_ignore_default_text[];

#endif
