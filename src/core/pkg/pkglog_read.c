/* pkglog_read.c - a package manager's log, file by file: see pkglog_read.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/saferead.h"
#include "pkg/dpkglog_gz.h"
#include "pkg/pkglog_read.h"

#define CHUNK (64u << 10)
#define DATED_MAX 64 /* dated files kept from the pass over DIR */

struct reader {
	const struct ms_pkglog_ops *ops;
	void *ctx;
	struct ms_pkglog_stats *stats;
	char line[MS_PKGLOG_LINE_MAX + 1];
	size_t line_len;
	bool skipping; /* inside a line over the cap */
};

/* Bytes of a file, cut into lines; a line over the cap is skipped to its end. */
static int take_bytes(struct reader *r, const char *buf, size_t n)
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(buf + i, '\n', n - i);
		size_t part = nl ? (size_t)(nl - (buf + i)) : n - i;
		int rc = 0;

		if (!r->skipping && r->line_len + part > MS_PKGLOG_LINE_MAX) {
			r->skipping = true;
			r->stats->long_lines++;
			r->stats->malformed++;
		}
		if (!r->skipping) {
			memcpy(r->line + r->line_len, buf + i, part);
			r->line_len += part;
		}
		i += part;
		if (!nl)
			break;
		i++;
		if (!r->skipping)
			rc = r->ops->line(r->ctx, r->line, r->line_len);
		r->skipping = false;
		r->line_len = 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The log file name of dirfd, when it is one mapscope may read: a regular
 * file of the owner asked, writable by no group or other, never through a
 * symlink, never opening anything else.  The descriptor (st filled), -ENOENT
 * when there is no such entry, or another negative ms_errcode with err set.
 */
static int open_log(int dirfd, const char *name, uid_t owner, struct stat *st, struct ms_error *err)
{
	char self[64];
	int pathfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd, e;

	if (pathfd < 0 && errno == ENOENT)
		return -ENOENT;
	if (pathfd < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "%s: %s", name, strerror(errno));
	if (fstat(pathfd, st) < 0) {
		e = errno;
		close(pathfd);
		return ms_error_set(err, MS_ERR_IO, e, "%s: %s", name, strerror(e));
	}
	if (S_ISLNK(st->st_mode) || !S_ISREG(st->st_mode)) {
		const char *kind = S_ISLNK(st->st_mode) ? "a symbolic link" : ms_file_kind(st->st_mode, &e);

		close(pathfd);
		return ms_error_set(err, MS_ERR_INVAL, S_ISLNK(st->st_mode) ? ELOOP : e,
				    "%s: %s, not a regular file: not reading it", name, kind);
	}
	if (st->st_uid != owner || (st->st_mode & (S_IWGRP | S_IWOTH))) {
		close(pathfd);
		return ms_error_set(err, MS_ERR_NOACCESS, EPERM,
				    "%s: not owned by %s or writable by others: not trusting it", name,
				    owner == 0 ? "root" : "its owner");
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	e = errno;
	close(pathfd);
	if (fd < 0)
		return ms_error_set(err, MS_ERR_IO, e, "%s: %s", name, strerror(e));
	return fd;
}

/*
 * Read one open log file whole through r.  0; MS_ERR_LIMIT when it gives
 * more than its cap or the total left; MS_ERR_IO; MS_ERR_NOMEM.
 */
static int read_file(struct reader *r, const struct ms_pkglog_spec *spec, int fd, bool gz, const char *name,
		     char *buf, unsigned long long *total, struct ms_error *err)
{
	unsigned long long got = 0;
	struct ms_gz *z = NULL;
	int rc = 0;

	if (gz && ms_gz_open(fd, &z) < 0)
		rc = ms_error_set(err, MS_ERR_NOTSUP, ENOSYS, "%s: cannot read gzip files here (no zlib)", name);
	r->line_len = 0;
	r->skipping = false;
	while (rc == 0) {
		long long n = gz ? ms_gz_read(z, buf, CHUNK) : (long long)read(fd, buf, CHUNK);

		if (n < 0 && !gz && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ms_error_set(err, MS_ERR_IO, gz ? EIO : errno, "%s: %s", name,
					  gz ? "not a whole gzip file" : strerror(errno));
			break;
		}
		if (n == 0)
			break;
		got += (unsigned long long)n;
		if (got > spec->file_max || *total + got > spec->total_max) {
			rc = ms_error_set(err, MS_ERR_LIMIT, EFBIG, "%s: over %llu bytes%s: the log ends before it",
					  name, got > spec->file_max ? spec->file_max : spec->total_max,
					  got > spec->file_max ? "" : " with the newer files");
			break;
		}
		rc = take_bytes(r, buf, (size_t)n);
	}
	/* A last line without its newline: the writer may be at it. */
	if (rc == 0 && r->line_len && !r->skipping)
		rc = r->ops->line(r->ctx, r->line, r->line_len);
	if (z)
		ms_gz_close(z);
	if (rc == MS_ERR_NOMEM && err->code != MS_ERR_NOMEM)
		ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "%s: out of memory", name);
	if (rc < 0)
		return rc;
	*total += got;
	r->stats->files++;
	r->stats->bytes += got;
	return 0;
}

/* The date of "BASE-YYYYMMDD" or "BASE-YYYYMMDD.gz", or 0. */
static unsigned long dated_of(const char *name, const char *base, size_t blen, bool *gz)
{
	unsigned long v = 0;
	const char *s = name + blen + 1;

	if (strncmp(name, base, blen) || name[blen] != '-')
		return 0;
	for (int i = 0; i < 8; i++, s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	*gz = !strcmp(s, ".gz");
	return *gz || !*s ? v : 0;
}

struct dated {
	unsigned long date;
	bool gz;
};

/* The dated rotations in dirfd, newest first, at most max of them: how many. */
static size_t find_dated(int dirfd, const char *base, struct dated *out, size_t max)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t blen = strlen(base), n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	for (unsigned seen = 0; seen < MS_PKGLOG_DIR_ENTRIES && (de = readdir(d)); seen++) {
		struct dated x;
		size_t at;

		x.date = dated_of(de->d_name, base, blen, &x.gz);
		if (!x.date)
			continue;
		for (at = 0; at < n && (out[at].date > x.date || (out[at].date == x.date && !out[at].gz)); at++)
			;
		if (at >= max)
			continue;
		if (n == max)
			n--;
		memmove(&out[at + 1], &out[at], (n - at) * sizeof(*out));
		out[at] = x;
		n++;
	}
	closedir(d);
	return n;
}

struct walk {
	int dirfd;
	const struct ms_pkglog_spec *spec;
	bool numbered_done;
	struct dated dated[DATED_MAX];
	size_t ndated, next_dated;
	bool dated_found;
};

/*
 * The name of the index-th file into name: numbered ones until one is
 * missing, then the dated ones.  -ENOENT: none; else an open descriptor,
 * or another negative ms_errcode with stopped set.
 */
static int next_file(struct walk *w, unsigned index, char *name, size_t size, bool *gz, struct stat *st,
		     struct ms_error *stopped)
{
	const char *base = w->spec->base;
	int fd;

	*gz = false;
	if (!w->numbered_done) {
		snprintf(name, size, index ? "%s.%u" : "%s", base, index);
		fd = open_log(w->dirfd, name, w->spec->owner, st, stopped);
		if (fd == -ENOENT && index) {
			snprintf(name, size, "%s.%u.gz", base, index);
			*gz = true;
			fd = open_log(w->dirfd, name, w->spec->owner, st, stopped);
		}
		if (fd != -ENOENT || !index || !w->spec->dated)
			return fd;
		w->numbered_done = true;
	}
	if (!w->dated_found) {
		size_t max = w->spec->files < DATED_MAX ? w->spec->files : DATED_MAX;

		w->ndated = find_dated(w->dirfd, base, w->dated, max);
		w->dated_found = true;
	}
	if (w->next_dated >= w->ndated)
		return -ENOENT;
	*gz = w->dated[w->next_dated].gz;
	snprintf(name, size, "%s-%08lu%s", base, w->dated[w->next_dated].date, *gz ? ".gz" : "");
	w->next_dated++;
	return open_log(w->dirfd, name, w->spec->owner, st, stopped);
}

long ms_pkglog_name_find(const char *const *names, size_t n, const char *name, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(names[mid], name, len);

		if (c == 0 && names[mid][len])
			c = 1;
		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

long ms_pkglog_digits(const char *s, int n)
{
	long v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int ms_pkglog_read(const struct ms_pkglog_spec *spec, const struct ms_pkglog_ops *ops, void *ctx,
		   struct ms_pkglog_stats *stats, struct ms_error *err)
{
	struct reader *r = calloc(1, sizeof(*r));
	struct walk w = { .spec = spec };
	unsigned long long total = 0;
	char *buf = malloc(CHUNK);
	int rc = 0;

	memset(stats, 0, sizeof(*stats));
	if (!buf || !r) {
		free(buf);
		free(r);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "package log: out of memory");
	}
	*r = (struct reader){ .ops = ops, .ctx = ctx, .stats = stats };
	w.dirfd = open(spec->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.dirfd < 0) {
		int e = errno;
		char *shown = ms_escape_dup(spec->dir, strlen(spec->dir), MS_ESC_ASCII);

		ms_error_set(&stats->stopped, MS_ERR_IO, e, "%s: %s", shown ? shown : "the log's directory",
			     strerror(e));
		free(shown);
	}
	for (unsigned i = 0; w.dirfd >= 0 && i < spec->files; i++) {
		char name[256], shown[4 * sizeof(name)];
		struct stat st;
		bool gz;
		int fd = next_file(&w, i, name, sizeof(name), &gz, &st, &stats->stopped);

		if (fd < 0)
			break;
		ms_escape(name, strlen(name), shown, sizeof(shown), MS_ESC_ASCII);
		ops->begin(ctx, &(struct ms_pkglog_file){ .index = i, .gz = gz, .st = &st });
		rc = read_file(r, spec, fd, gz, shown, buf, &total, &stats->stopped);
		close(fd);
		ops->end(ctx, rc == 0);
		if (rc == MS_ERR_NOMEM) {
			*err = stats->stopped;
			break;
		}
		if (rc < 0 || ops->enough(ctx))
			break;
	}
	if (rc != MS_ERR_NOMEM)
		rc = 0;
	if (w.dirfd >= 0)
		close(w.dirfd);
	free(buf);
	free(r);
	return rc;
}
