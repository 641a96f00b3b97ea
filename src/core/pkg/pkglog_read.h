/*
 * pkglog_read.h - a package manager's own log, read newest file first,
 * bounded, cut into lines: what dpkg's log (dpkglog.h) and dnf's and
 * yum's logs (rpmlog.h) share.  The caller parses the lines.
 *
 * Files, in DIR: BASE, then BASE.N or BASE.N.gz for N = 1, 2... (dpkg's
 * and dnf's own rotation, logrotate without dateext), and, when asked
 * (dated), then BASE-YYYYMMDD or BASE-YYYYMMDD.gz newest first
 * (logrotate's dateext, the default of Red Hat's logrotate.conf): at most
 * files in all.  A missing numbered file ends the numbered run; the
 * dated ones are found by one bounded pass over DIR
 * (MS_PKGLOG_DIR_ENTRIES entries, the rest unseen).
 *
 * Trust.  A file is read only when it is a regular file owned by owner
 * (root; a seam for tests) that no group or other can write: opened
 * O_PATH|O_NOFOLLOW relative to DIR (a symlink is refused, never
 * followed), checked with fstat, reopened through /proc/self/fd
 * non-blocking (a FIFO or device is never opened).  A .gz is read through
 * zlib (dpkglog_gz.h); without zlib it is refused.
 *
 * Bounds.  Each file may give at most file_max bytes (after
 * decompression), all of them total_max: a file over its cap, or one that
 * would pass the total, is refused whole and ends the log there (its
 * older part read alone would be a log with a hole); the caller's end
 * hook takes back what its lines gave.  A line over MS_PKGLOG_LINE_MAX
 * bytes is skipped and counted (long_lines, malformed); the caller counts
 * the malformed lines it parses.  A last line without its newline (the
 * writer may be at it) is given too.
 *
 * Errors: 0, or MS_ERR_NOMEM (err set).  Why the log ended at a file that
 * exists (refused, over a cap, unreadable) is in stats->stopped.
 */
#ifndef MAPSCOPE_PKGLOG_READ_H
#define MAPSCOPE_PKGLOG_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/error.h"

#define MS_PKGLOG_LINE_MAX 1024
#define MS_PKGLOG_DIR_ENTRIES 65536u

struct ms_pkglog_spec {
	const char *dir;       /* the directory */
	const char *base;      /* "dpkg.log", "dnf.rpm.log" */
	uid_t owner;           /* the owner a file must have */
	unsigned files;        /* at most this many files, BASE included */
	bool dated;            /* also BASE-YYYYMMDD[.gz] */
	unsigned long long file_max, total_max;
};

/* What the read saw. */
struct ms_pkglog_stats {
	unsigned files;           /* files read whole */
	unsigned long long bytes; /* bytes they gave */
	size_t malformed;         /* lines skipped: the caller adds its own */
	size_t long_lines;        /* lines over MS_PKGLOG_LINE_MAX */
	struct ms_error stopped;  /* why the log ended at a file that exists (code 0: it did not) */
};

/* The file about to be read. */
struct ms_pkglog_file {
	unsigned index;       /* 0: BASE, then each older one */
	bool gz;
	const struct stat *st; /* as checked before reading */
};

struct ms_pkglog_ops {
	void (*begin)(void *ctx, const struct ms_pkglog_file *f);
	/* A whole line (no newline, at most MS_PKGLOG_LINE_MAX bytes): 0 or MS_ERR_NOMEM. */
	int (*line)(void *ctx, const char *s, size_t len);
	/* The file ends: read whole (ok), or refused midway (take back what its lines gave). */
	void (*end)(void *ctx, bool ok);
	/* After a file read whole: true when the log reaches back far enough (no older file read). */
	bool (*enough)(void *ctx);
};

/*
 * Small helpers the log readers share: the index of the name of len
 * bytes (not NUL-terminated) among n sorted distinct names, or -1; and n
 * decimal digits at s as a number, or -1 when one is not a digit.
 */
long ms_pkglog_name_find(const char *const *names, size_t n, const char *name, size_t len);
long ms_pkglog_digits(const char *s, int n);

/* Read the log; stats is reset first.  0 or MS_ERR_NOMEM. */
int ms_pkglog_read(const struct ms_pkglog_spec *spec, const struct ms_pkglog_ops *ops, void *ctx,
		   struct ms_pkglog_stats *stats, struct ms_error *err);

#endif
