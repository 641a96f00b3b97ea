/*
 * dpkglog.h - the version of the copy a process maps, for a file dpkg
 * replaced or deleted under it, from dpkg's own log of what it did
 * (DIR/dpkg.log and its rotated copies; DIR is /var/log).
 *
 * The rule, by the copy's own inode.  A replaced or deleted file is an
 * unlinked inode, and its st_ctime (read by the caller through map_files,
 * root only: struct ms_copy, pkg.h) is the moment it was unlinked, that
 * is, the moment the upgrade that replaced it ran.  Each upgrade, removal
 * or purge of the package (its architecture, or "all"; any architecture
 * for a package whose list file names none) has a window in the log: from
 * its own line to the status line that says dpkg was done with the files
 * ("unpacked" of the new version for an upgrade, "config-files" or
 * "not-installed" for a removal; the entry's own second when none
 * follows).  The entry whose window holds the unlink time (whole seconds,
 * local time) names the old version: the one that runs.  That holds for
 * any number of upgrades, reinstalls (old == new), downgrades and copies
 * mapped late (dlopen), and needs no process start.  When no window holds
 * it exactly, a second either way is allowed.  Two entries with different
 * old versions in the same second: unknown, the two as candidates.  No
 * entry at all (a file replaced by hand, a clock stepped): unknown, and
 * the reason says when, and what dpkg had installed then.  The log must
 * reach back to the unlink time, or unknown.
 *
 * The rule without it (not root): the holders' start T (the earliest start
 * of the processes that map the copy and of their parents that map it
 * too: the callers pass it).  Of the package's entries logged at or after
 * T: one old version among them (a chain of reinstalls is one) is the
 * answer, unless the newest is an upgrade to another version than the one
 * installed now (the database and the log disagree); none, or several old
 * versions (then the candidates when two), and unknown.  This is weaker:
 * a copy mapped long after its process started (dlopen) may be taken for
 * an older one, which the inode rule never does.
 *
 * Time.  Lines carry local time to the second with no zone; a time is
 * turned into the same form with localtime_r (mapscope's TZ, as dpkg's),
 * with MS_DPKGLOG_SLACK seconds taken off a start for the log's whole
 * seconds and boot time's.  Known limits: around the hour a clock goes
 * back (the end of summer time) local times repeat; a wall clock stepped
 * since moves every time by as much.
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
 * before the earliest time asked about.
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
 * For each pkgs[i] that dpkg owns (found, source MS_PKG_SOURCE_DPKG), the
 * copy copies[i]: set running_state to KNOWN with running, or to UNKNOWN
 * with the candidates; running_why says how or why (pkg.h).  Others are
 * left as they are.  stats may be NULL.  0, or MS_ERR_NOMEM; a log that
 * cannot be read makes every answer unknown.
 */
int ms_dpkglog_running(const struct ms_dpkglog_opts *opts, struct ms_pkg *pkgs, const struct ms_copy *copies,
		       size_t n, struct ms_dpkglog_stats *stats, struct ms_error *err);

#endif
