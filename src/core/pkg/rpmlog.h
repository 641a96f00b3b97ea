/*
 * rpmlog.h - the version of the copy a process maps, for a file rpm
 * replaced or deleted under it, from the logs dnf and yum keep of what
 * rpm did: DIR/dnf.rpm.log and DIR/yum.log with their rotated copies (DIR
 * is /var/log).  The rpm source's history (owner_source.h); the same rule
 * as dpkg's (dpkglog.h).
 *
 * Entries.  dnf logs each element of rpm's transaction just before rpm
 * works on it (rpmlog_parse.h): "Upgrade: NEW" when it puts the new
 * package's files in place (a file both versions hold is replaced then),
 * "Upgraded: OLD" when it cleans up the old one's (a file only OLD held is
 * deleted then), the same pairs for a downgrade and a reinstall, "Erase:"
 * and "Obsoleted:" for a removal.  An entry's window runs from its line
 * to the next element or start of dnf in the same file, at most
 * MS_RPMLOG_ELEMENT_MAX seconds (the last element of a transaction has
 * nothing after it: its own second).  yum logs an element once rpm is
 * done with it ("Updated: NEW", "Erased:", "Obsoleted:"), so its window
 * runs back to the element before, as far.  The version an entry took
 * away: an old-side line's own; a new-side line's partner of the same
 * name and architecture after it ("Upgraded:" for "Upgrade:"...; a
 * reinstall's is its own), and, where none is found (yum never names it),
 * the version the log last installed before it, else unknown.
 *
 * The rule, by the copy's own inode: its st_ctime (struct ms_copy, pkg.h;
 * read by root through map_files) is when it was unlinked.  The entries of
 * the package (its architecture, or any for a name-only yum erase) whose
 * window holds it name the version that runs; none exactly, a second
 * either way.  One version: known.  Two or more (several transactions in
 * one second, a version no line names): unknown, with the two as
 * candidates.  None (a file replaced by hand, a clock stepped): unknown,
 * and the reason says when and what rpm had installed then.  The logs
 * must reach back to the unlink time, or unknown.
 *
 * The rule without it (not root): the holders' start T (copies[i].start).
 * Of the package's entries whose window ends at or after T less
 * MS_RPMLOG_SLACK, one version taken away (an upgrade's pair, a chain of
 * reinstalls) is the answer, unless the newest put in place another
 * version than the one installed now; none, or several, and unknown.  A
 * copy loaded long after its process started (dlopen) may be taken for an
 * older one, which the inode rule never does.
 *
 * Versions are written as rpm's database gives them (rpmdb.h):
 * "EPOCH:VERSION-RELEASE" when the log names an epoch, else
 * "VERSION-RELEASE"; dnf and yum leave out epoch 0, so a version the
 * database writes "0:1.0-1" compares equal to the log's "1.0-1".
 *
 * Time.  dnf's lines carry their zone's offset (or "Z"): exact seconds.
 * yum's carry local time with no year.  The year of a yum file's last
 * line is its mtime's (the last write), or the one before when the line's
 * month and day come after the mtime's; going back through the file, each
 * time the month goes down from one line to the next a year has turned.
 * Known limits: a year with no line at all in one file is not seen (yum's
 * logrotate rotates it yearly); yum's month names are the C locale's, any
 * other makes its lines malformed; around the hour a clock goes back
 * local times repeat.  A wall clock stepped since moves every time by as
 * much.
 *
 * Bounds and trust: each log as pkglog_read.h reads it (root-owned,
 * writable by no group or other, no symlink followed, no FIFO opened,
 * numbered, gzip and dated rotations, MS_RPMLOG_FILES files of at most
 * MS_RPMLOG_FILE_MAX bytes, MS_RPMLOG_TOTAL_MAX per log), lines over
 * MS_RPMLOG_LINE_MAX and malformed ones skipped and counted.  Only
 * entries for the packages asked are kept, at most MS_RPMLOG_EVENTS_MAX
 * (past it, every answer is unknown).  A log stops early once it reaches
 * back before the earliest time asked.  The parser is ours, bounded and
 * fuzzed, and runs in this process; zlib as dpkglog.h says.
 *
 * Once per run: ms_rpmlog_running reads both logs once for all the
 * packages asked, and answers each.
 */
#ifndef MAPSCOPE_RPMLOG_H
#define MAPSCOPE_RPMLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "base/error.h"
#include "pkg/pkg.h"
#include "pkg/pkglog_read.h"

#define MS_RPMLOG_DIR "/var/log"
#define MS_RPMLOG_FILES 16               /* per log: BASE and 15 rotated copies */
#define MS_RPMLOG_FILE_MAX (32u << 20)   /* bytes one file may give */
#define MS_RPMLOG_TOTAL_MAX (128u << 20) /* bytes one log's files may give */
#define MS_RPMLOG_EVENTS_MAX 65536u      /* entries kept for the packages asked */
#define MS_RPMLOG_ELEMENT_MAX 60         /* seconds: the longest window of one entry */
#define MS_RPMLOG_SLACK 2                /* seconds */

struct ms_rpmlog_opts {
	const char *dir; /* NULL: MS_RPMLOG_DIR */
	uid_t owner_uid; /* the owner a file must have: 0 (root); tests set another */
};

/* What the reads saw, for tests and messages: dnf's log, then yum's. */
struct ms_rpmlog_stats {
	struct ms_pkglog_stats log[2]; /* malformed counts the lines the parser refused too */
	size_t events;                 /* entries kept */
};

/*
 * For each pkgs[i] that rpm owns (found, source MS_PKG_SOURCE_RPM), the
 * copy copies[i]: set running_state to KNOWN with running, or to UNKNOWN
 * with the candidates; running_why says how or why (pkg.h).  Others are
 * left as they are.  stats may be NULL.  0, or MS_ERR_NOMEM; logs that
 * cannot be read make every answer unknown.
 */
int ms_rpmlog_running(const struct ms_rpmlog_opts *opts, struct ms_pkg *pkgs, const struct ms_copy *copies,
		      size_t n, struct ms_rpmlog_stats *stats, struct ms_error *err);

#endif
