/*
 * dpkglog_parse.h - one line of dpkg's log (/var/log/dpkg.log), parsed
 * with bounds and no allocation: the reader of the log (dpkglog.h) calls
 * it for every line, and the fuzz target (tests/fuzz/fuzz_dpkglog.c) for
 * anything.
 *
 * dpkg writes a line per action, its time in local time with no zone:
 *     2026-12-03 10:00:00 upgrade libssl3:amd64 3.0.19-1~deb12u1 3.0.22-1~deb12u2
 *     2026-12-03 10:00:00 remove libfoo:amd64 1.2-1 <none>
 *     2026-12-03 10:00:00 status installed libssl3:amd64 3.0.22-1~deb12u2
 * ms_dpkglog_parse_line takes a line without its newline and answers
 * MS_DPKGLOG_OTHER for what is well formed but changes no package's files
 * (startup, configure, trigproc, conffile, install: an install puts files
 * where the package had none), and for the actions that replace or delete
 * them (upgrade, remove, purge) their fields: the package, its
 * architecture (after the last ':'; dpkg always writes one), the version
 * before and after ("<none>" as dpkg writes it).  A status line
 * ("status STATE PKG:ARCH VERSION") is MS_DPKGLOG_STATUS with state, the
 * package, its architecture and the version (in new_version): the status
 * lines after an upgrade or removal say when dpkg was done with the
 * package's files (dpkglog.h).  Anything else is
 * MS_DPKGLOG_MALFORMED: a line over MS_DPKGLOG_LINE_MAX bytes, a time
 * that is no date (month 1-12, day 1-31, 00:00:00-23:59:60), a field
 * missing, a field longer than what struct ms_pkg holds (MS_DPKGLOG_NAME_MAX,
 * MS_DPKGLOG_ARCH_MAX, MS_DPKGLOG_VERSION_MAX), or a byte below 0x21 or
 * DEL inside a field.  The fields point into the line (not NUL-terminated);
 * they are raw bytes from a root-owned file, escape before display.
 *
 * The time is kept as dpkg wrote it, packed into a number that sorts as
 * the text does (YYYYMMDDhhmmss): comparing two of them needs no time
 * zone, and ms_dpkglog_stamp turns a process's start into the same form
 * once per process rather than turning every line into seconds.
 */
#ifndef MAPSCOPE_DPKGLOG_PARSE_H
#define MAPSCOPE_DPKGLOG_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define MS_DPKGLOG_LINE_MAX 1024
#define MS_DPKGLOG_NAME_MAX 127    /* struct ms_pkg's name[128] */
#define MS_DPKGLOG_ARCH_MAX 31     /* arch[32] */
#define MS_DPKGLOG_VERSION_MAX 127 /* version[128], running[128] */

enum ms_dpkglog_action {
	MS_DPKGLOG_MALFORMED = -1,
	MS_DPKGLOG_OTHER = 0,
	MS_DPKGLOG_UPGRADE,
	MS_DPKGLOG_REMOVE,
	MS_DPKGLOG_PURGE,
	MS_DPKGLOG_STATUS,
};

struct ms_dpkglog_field {
	const char *at;
	size_t len;
};

struct ms_dpkglog_line {
	uint64_t stamp; /* YYYYMMDDhhmmss, local time as written */
	struct ms_dpkglog_field pkg, arch, old_version, new_version;
	struct ms_dpkglog_field state; /* MS_DPKGLOG_STATUS: "unpacked", "config-files"... */
};

/* The action of line (len bytes, no newline); the fields for the three that count. */
enum ms_dpkglog_action ms_dpkglog_parse_line(const char *line, size_t len, struct ms_dpkglog_line *out);

/* t in local time, packed as a line's stamp; 0 when localtime_r fails. */
/* "YYYY-MM-DD hh:mm:ss" of a packed stamp into out (20 bytes). */
void ms_dpkglog_stamp_text(uint64_t stamp, char out[20]);

uint64_t ms_dpkglog_stamp(time_t t);

#endif
