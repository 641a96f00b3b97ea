/*
 * rpmlog_parse.h - one line of dnf's rpm log (/var/log/dnf.rpm.log) or of
 * yum's log (/var/log/yum.log), parsed with bounds and no allocation: the
 * reader of the logs (rpmlog.h) calls it for every line, and the fuzz
 * target (tests/fuzz/fuzz_rpmlog.c) for anything.
 *
 * dnf (3 and 4) writes a line per element of rpm's transaction, just
 * before rpm works on it, its time in local time with the zone's offset
 * (ISO 8601; from 2.7.2 to before 4.4.0 dnf wrote UTC with a "Z"):
 *     2026-12-05T23:21:54+0100 SUBDEBUG Upgrade: foo-2.0-1.fc40.x86_64
 *     2026-12-05T23:21:55+0100 SUBDEBUG Upgraded: foo-1.0-1.fc40.x86_64
 *     2017-06-01T10:00:00Z SUBDEBUG Erase: 2:bar-1.0-1.fc26.noarch
 * and "INFO --- logging initialized ---" when it starts (MS_RPMLOG_MARK);
 * other lines (a scriptlet's output, errors) are MS_RPMLOG_OTHER, and the
 * lines of a scriptlet's output after its first have no time: malformed.
 * The time is turned into seconds since the epoch exactly, from the
 * offset written.  Before 2.7.2 dnf wrote "Dec 05 23:21:54" with no year:
 * such lines are not read (malformed).
 *
 * yum (3) writes a line when rpm is done with an element, in local time
 * with no year and no zone, English month names (the C locale's %b):
 *     Dec 05 23:21:54 Updated: foo-2.0-1.el7.x86_64
 *     Dec 05 23:21:54 Erased: 1:foo-1.0-1.el7.x86_64     (or only "foo")
 * Its time is kept as written (yum_stamp, MMDDhhmmss); the reader decides
 * the year (rpmlog.h).  yum does not log the version an update replaced.
 *
 * The package is a NEVRA: dnf writes NAME-[EPOCH:]VERSION-RELEASE.ARCH,
 * yum [EPOCH:]NAME-VERSION-RELEASE.ARCH; both leave out epoch 0.  Either
 * form is read: the architecture after the last '.', the release after
 * the last '-' before it, the version after the '-' before that, an epoch
 * (digits and ':') in front of the version or of the whole.  Each part is
 * non-empty, printable ASCII with no space; the name fits struct
 * ms_pkg's name, the architecture its arch, and "EPOCH:VERSION-RELEASE"
 * its version (MS_RPMLOG_*_MAX).  Anything else, a line over
 * MS_RPMLOG_LINE_MAX bytes, or a time that is no date (month 1-12, a day
 * the month has, 00:00:00-23:59:60, an offset under 24 hours) is
 * MS_RPMLOG_MALFORMED.  Fields point into the line (not NUL-terminated):
 * raw bytes from a root-owned file, escape before display.
 */
#ifndef MAPSCOPE_RPMLOG_PARSE_H
#define MAPSCOPE_RPMLOG_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define MS_RPMLOG_LINE_MAX 1024
#define MS_RPMLOG_NAME_MAX 127    /* struct ms_pkg's name[128] */
#define MS_RPMLOG_ARCH_MAX 31     /* arch[32] */
#define MS_RPMLOG_VERSION_MAX 127 /* version[128]: "EPOCH:VERSION-RELEASE" */

enum ms_rpmlog_action {
	MS_RPMLOG_MALFORMED = -1,
	MS_RPMLOG_OTHER = 0,    /* a time, but no package: a scriptlet's output, an error */
	MS_RPMLOG_MARK,         /* dnf: "--- logging initialized ---", a new run */
	MS_RPMLOG_INSTALL,      /* dnf Installed:, Obsolete:; yum Installed: (nothing replaced) */
	MS_RPMLOG_UPGRADE,      /* dnf Upgrade: NEW; yum Updated: NEW */
	MS_RPMLOG_DOWNGRADE,    /* dnf Downgrade: NEW */
	MS_RPMLOG_REINSTALL,    /* dnf Reinstall: the same NEVRA */
	MS_RPMLOG_UPGRADED,     /* dnf Upgraded: OLD (its files' cleanup) */
	MS_RPMLOG_DOWNGRADED,   /* dnf Downgraded: OLD */
	MS_RPMLOG_REINSTALLED,  /* dnf Reinstalled: the same NEVRA */
	MS_RPMLOG_ERASE,        /* dnf Erase:, yum Erased: */
	MS_RPMLOG_OBSOLETED,    /* dnf and yum Obsoleted: */
};

struct ms_rpmlog_field {
	const char *at;
	size_t len;
};

/* A package as dnf or yum names it; epoch.len 0: none written (0). */
struct ms_rpmlog_nevra {
	struct ms_rpmlog_field name, epoch, version, release, arch;
};

struct ms_rpmlog_line {
	bool yum;
	time_t when;        /* dnf: seconds since the epoch */
	uint32_t yum_stamp; /* yum: MMDDhhmmss as written (local time, no year) */
	bool name_only;     /* yum's "Erased: NAME": nevra.name only */
	struct ms_rpmlog_nevra nevra;
};

/* A dnf line, or a yum line, of len bytes without its newline; out's fields for an action. */
enum ms_rpmlog_action ms_rpmlog_parse_dnf(const char *line, size_t len, struct ms_rpmlog_line *out);
enum ms_rpmlog_action ms_rpmlog_parse_yum(const char *line, size_t len, struct ms_rpmlog_line *out);

/* A NEVRA in either form (len bytes); false when it is none or too long. */
bool ms_rpmlog_parse_nevra(const char *s, size_t len, struct ms_rpmlog_nevra *out);

/* "[EPOCH:]VERSION-RELEASE" of n, as rpm's database gives it (rpmdb.h), into out (size bytes). */
void ms_rpmlog_evr(const struct ms_rpmlog_nevra *n, char *out, size_t size);

/* The day count since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
long long ms_rpmlog_days(long year, int month, int day);

#endif
