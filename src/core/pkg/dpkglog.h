/*
 * dpkglog.h - the version of the copy a process maps, for a file dpkg
 * replaced or deleted under it, from dpkg's own log of what it did
 * (DIR/dpkg.log and its rotated copies; DIR is /var/log).
 *
 * The rule.  The running copy is the one installed when the process
 * mapped it, some time after the process started (at T).  Of the log's
 * upgrades, removals and purges of the package (its architecture, or
 * "all"; any architecture for a package whose list file names none) logged
 * at or after T:
 *   - none: running unknown.  The file changed without dpkg, or the log
 *     that said so was rotated away;
 *   - one, or several that all started from the same version (a chain of
 *     reinstalls): the running version is that old version.  A
 *     `dpkg --reinstall` (old == new) gives the version installed now;
 *   - several from different versions: the file could have been mapped
 *     between two of them, so running unknown.
 * And running unknown unless the log reaches back before T: the oldest
 * line read is older than T, so no upgrade between T and the start of the
 * log can hide (rotation keeps a year; the files are read newest first and
 * stop at the first missing or refused one).  And running unknown when
 * the newest of those entries is an upgrade to another version than the
 * one installed now (dpkg's database and its log disagree).
 *
 * T.  Lines carry local time to the second with no zone; T is turned into
 * the same form with localtime_r (mapscope's TZ, as dpkg's) and
 * MS_DPKGLOG_SLACK seconds earlier, for the log's whole seconds and boot
 * time's (T comes from /proc/stat btime plus the process's start in
 * ticks): an upgrade logged in the same seconds as the start counts as
 * after it.  Known limits, each making a wrong answer possible, none
 * common: around the hour a clock goes back (the end of summer time)
 * local times repeat; a wall clock stepped since the process started moves
 * T by as much; a process forked after an upgrade from a parent that had
 * mapped the old copy started later than its mapping (the caller,
 * stale_report.h, passes for each copy the earliest start of the
 * processes that map it and of their parents that map it too, which
 * covers a parent still alive); a copy mapped long after its process
 * started (dlopen) and replaced by hand, not by dpkg, after an upgrade
 * logged in between is taken for that upgrade's old version.
 *
 * Bounds and trust.  A log file is read only when it is a regular file
 * owned by root (opts owner_uid, a seam for tests) that no group or other
 * can write: opened O_PATH|O_NOFOLLOW relative to the directory (a
 * symlink is refused, never followed), checked with fstat, reopened
 * through /proc/self/fd non-blocking (a FIFO or device is never opened).
 * Files: dpkg.log, then dpkg.log.N or dpkg.log.N.gz for N = 1 up to
 * MS_DPKGLOG_FILES - 1.  A .gz is read through zlib, loaded with dlopen at
 * first use (configure --with-zlib); without zlib a .gz file ends the log
 * like a missing one.  Each file may give at most MS_DPKGLOG_FILE_MAX
 * bytes (after decompression), all of them together MS_DPKGLOG_TOTAL_MAX:
 * a file over its cap, or one that would pass the total, is refused whole
 * and ends the log there (its older part read alone would be a log with a
 * hole).  Lines over MS_DPKGLOG_LINE_MAX bytes and malformed lines
 * (dpkglog_parse.h) are skipped and counted.  Only entries for the
 * packages asked about are kept, at most MS_DPKGLOG_EVENTS_MAX (past it,
 * every answer is unknown).  Reading stops early once a file reaches back
 * before the earliest T asked about.
 *
 * zlib runs in this process: it inflates into a fixed window and opens or
 * allocates nothing by what the file says, and the files are root's own,
 * so the isolated child (untrusted_child.h) is not needed; the
 * decompressed bytes are bounded as above (a gzip bomb stops at the cap).
 *
 * Once per run: ms_dpkglog_running reads the log once for all the
 * packages asked, indexes their entries by package, and answers each.
 */
#ifndef MAPSCOPE_DPKGLOG_H
#define MAPSCOPE_DPKGLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "base/error.h"
#include "pkg/pkgdb.h"

#define MS_DPKGLOG_DIR "/var/log"
#define MS_DPKGLOG_FILES 16                /* dpkg.log and dpkg.log.1 ... .15 */
#define MS_DPKGLOG_FILE_MAX (32u << 20)    /* bytes one file may give */
#define MS_DPKGLOG_TOTAL_MAX (128u << 20)  /* bytes all files may give */
#define MS_DPKGLOG_EVENTS_MAX 65536u       /* entries kept for the packages asked */
#define MS_DPKGLOG_SLACK 2                 /* seconds */

struct ms_dpkglog_opts {
	const char *dir; /* NULL: MS_DPKGLOG_DIR */
	uid_t owner_uid; /* the owner a file must have: 0 (root); tests set another */
};

/* What the read saw, for tests and messages. */
struct ms_dpkglog_stats {
	unsigned files;            /* log files read whole */
	unsigned long long bytes;  /* bytes they gave */
	size_t malformed;          /* lines skipped, too long ones included */
	size_t long_lines;         /* lines over MS_DPKGLOG_LINE_MAX */
	size_t events;             /* entries kept */
	struct ms_error stopped;   /* why the log ended at a file that exists (code 0: it did not) */
};

/*
 * For each pkgs[i] that dpkg owns (found, source MS_PKG_SOURCE_DPKG) and
 * whose process started at starts[i] (seconds since the epoch): set
 * running_state to KNOWN with running, or to UNKNOWN.  Others are left
 * as they are.  stats may be NULL.  0, or MS_ERR_NOMEM; a log that cannot
 * be read makes every answer unknown.
 */
int ms_dpkglog_running(const struct ms_dpkglog_opts *opts, struct ms_pkg *pkgs, const time_t *starts,
		       size_t n, struct ms_dpkglog_stats *stats, struct ms_error *err);

#endif
