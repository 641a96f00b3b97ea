/* dpkglog.c - the running copy's version from dpkg's log: see dpkglog.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/grow.h"
#include "base/saferead.h"
#include "pkg/dpkglog.h"
#include "pkg/dpkglog_gz.h"
#include "pkg/dpkglog_parse.h"

#define CHUNK (64u << 10)

/* An upgrade, removal or purge of a package asked about. */
struct event {
	size_t name;      /* index into the read's names */
	uint64_t stamp;
	uint64_t order;   /* the log's own order: newer files first, lines in file order */
	bool upgrade;
	char arch[MS_DPKGLOG_ARCH_MAX + 1];
	char old_version[MS_DPKGLOG_VERSION_MAX + 1];
	char new_version[MS_DPKGLOG_VERSION_MAX + 1];
};

struct logread {
	const char **names; /* distinct package names asked about, sorted */
	size_t nnames;
	struct event *events;
	size_t nevents, cap;
	bool overflow;
	uint64_t oldest;    /* the oldest stamp of the files read whole; 0: none */
	uint64_t order;
	char line[MS_DPKGLOG_LINE_MAX + 1];
	size_t line_len;
	bool skipping;      /* inside a line over the cap */
	struct ms_dpkglog_stats *stats;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static long find_name(const struct logread *lr, const char *name, size_t len)
{
	size_t lo = 0, hi = lr->nnames;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(lr->names[mid], name, len);

		if (c == 0 && lr->names[mid][len])
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

static void copy_field(char *dst, const struct ms_dpkglog_field *f)
{
	memcpy(dst, f->at, f->len);
	dst[f->len] = '\0';
}

/* One whole line; *file_oldest follows its stamp. */
static int take_line(struct logread *lr, const char *s, size_t len, uint64_t *file_oldest)
{
	struct ms_dpkglog_line ln;
	enum ms_dpkglog_action act = ms_dpkglog_parse_line(s, len, &ln);
	struct event *ev;
	long name;

	lr->order++;
	if (act == MS_DPKGLOG_MALFORMED) {
		lr->stats->malformed++;
		return 0;
	}
	if (!*file_oldest || ln.stamp < *file_oldest)
		*file_oldest = ln.stamp;
	if (act == MS_DPKGLOG_OTHER || (name = find_name(lr, ln.pkg.at, ln.pkg.len)) < 0)
		return 0;
	if (lr->nevents >= MS_DPKGLOG_EVENTS_MAX) {
		lr->overflow = true;
		return 0;
	}
	if (ms_grow((void **)&lr->events, &lr->cap, lr->nevents, sizeof(*lr->events), 64) < 0)
		return MS_ERR_NOMEM;
	ev = &lr->events[lr->nevents++];
	ev->name = (size_t)name;
	ev->stamp = ln.stamp;
	ev->order = lr->order;
	ev->upgrade = act == MS_DPKGLOG_UPGRADE;
	copy_field(ev->arch, &ln.arch);
	copy_field(ev->old_version, &ln.old_version);
	copy_field(ev->new_version, &ln.new_version);
	return 0;
}

/* Bytes of a file, cut into lines; a line over the cap is skipped to its end. */
static int take_bytes(struct logread *lr, const char *buf, size_t n, uint64_t *file_oldest)
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(buf + i, '\n', n - i);
		size_t part = nl ? (size_t)(nl - (buf + i)) : n - i;
		int rc = 0;

		if (!lr->skipping && lr->line_len + part > MS_DPKGLOG_LINE_MAX) {
			lr->skipping = true;
			lr->stats->long_lines++;
			lr->stats->malformed++;
		}
		if (!lr->skipping) {
			memcpy(lr->line + lr->line_len, buf + i, part);
			lr->line_len += part;
		}
		i += part;
		if (!nl)
			break;
		i++;
		if (!lr->skipping)
			rc = take_line(lr, lr->line, lr->line_len, file_oldest);
		lr->skipping = false;
		lr->line_len = 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The log file name of dirfd, when it is one mapscope may read: a regular
 * file of the owner asked, writable by no group or other, never through a
 * symlink, never opening anything else.  The descriptor, -ENOENT when
 * there is no such entry, or another negative ms_errcode with err set.
 */
static int open_log(int dirfd, const char *name, uid_t owner, struct ms_error *err)
{
	char self[64];
	struct stat st;
	int pathfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd, e;

	if (pathfd < 0 && errno == ENOENT)
		return -ENOENT;
	if (pathfd < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "%s: %s", name, strerror(errno));
	if (fstat(pathfd, &st) < 0) {
		e = errno;
		close(pathfd);
		return ms_error_set(err, MS_ERR_IO, e, "%s: %s", name, strerror(e));
	}
	if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
		const char *kind = S_ISLNK(st.st_mode) ? "a symbolic link" : ms_file_kind(st.st_mode, &e);

		close(pathfd);
		return ms_error_set(err, MS_ERR_INVAL, S_ISLNK(st.st_mode) ? ELOOP : e,
				    "%s: %s, not a regular file: not reading it", name, kind);
	}
	if (st.st_uid != owner || (st.st_mode & (S_IWGRP | S_IWOTH))) {
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
 * Read one open log file whole into lr.  0; MS_ERR_LIMIT when it gives more
 * than its cap or the total left; MS_ERR_IO; MS_ERR_NOMEM.  On an error its
 * entries are taken back.
 */
static int read_log(struct logread *lr, unsigned index, int fd, bool gz, const char *name, char *buf,
		    unsigned long long *total, struct ms_error *err)
{
	size_t first = lr->nevents;
	unsigned long long got = 0;
	uint64_t file_oldest = 0;
	struct ms_gz *z = NULL;
	int rc = 0;

	if (gz && ms_gz_open(fd, &z) < 0)
		rc = ms_error_set(err, MS_ERR_NOTSUP, ENOSYS, "%s: cannot read gzip files here (no zlib)", name);
	lr->line_len = 0;
	lr->skipping = false;
	lr->order = (uint64_t)(MS_DPKGLOG_FILES - index) << 40;
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
		if (got > MS_DPKGLOG_FILE_MAX || *total + got > MS_DPKGLOG_TOTAL_MAX) {
			rc = ms_error_set(err, MS_ERR_LIMIT, EFBIG, "%s: over %u bytes%s: the log ends before it",
					  name, got > MS_DPKGLOG_FILE_MAX ? MS_DPKGLOG_FILE_MAX : MS_DPKGLOG_TOTAL_MAX,
					  got > MS_DPKGLOG_FILE_MAX ? "" : " with the newer files");
			break;
		}
		rc = take_bytes(lr, buf, (size_t)n, &file_oldest);
	}
	/* A last line without its newline: dpkg may be writing it. */
	if (rc == 0 && lr->line_len && !lr->skipping)
		rc = take_line(lr, lr->line, lr->line_len, &file_oldest);
	if (z)
		ms_gz_close(z);
	if (rc < 0) {
		lr->nevents = first;
		return rc;
	}
	*total += got;
	lr->stats->files++;
	lr->stats->bytes += got;
	if (file_oldest && (!lr->oldest || file_oldest < lr->oldest))
		lr->oldest = file_oldest;
	return 0;
}

/* Newest first, until a file is missing or refused, or the log reaches before need. */
static int read_logs(struct logread *lr, const struct ms_dpkglog_opts *opts, uint64_t need,
		     struct ms_error *err)
{
	const char *dir = opts && opts->dir ? opts->dir : MS_DPKGLOG_DIR;
	uid_t owner = opts ? opts->owner_uid : 0;
	unsigned long long total = 0;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	char *buf = malloc(CHUNK);

	if (!buf) {
		if (dirfd >= 0)
			close(dirfd);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "dpkg log: out of memory");
	}
	if (dirfd < 0) {
		int e = errno;
		char *shown = ms_escape_dup(dir, strlen(dir), MS_ESC_ASCII);

		ms_error_set(&lr->stats->stopped, MS_ERR_IO, e, "%s: %s", shown ? shown : "dpkg's log directory",
			     strerror(e));
		free(shown);
	}
	for (unsigned i = 0; dirfd >= 0 && i < MS_DPKGLOG_FILES; i++) {
		char name[64], shown[4 * sizeof(name)];
		bool gz = false;
		int fd;

		snprintf(name, sizeof(name), i ? "dpkg.log.%u" : "dpkg.log", i);
		fd = open_log(dirfd, name, owner, &lr->stats->stopped);
		if (fd == -ENOENT && i) {
			snprintf(name, sizeof(name), "dpkg.log.%u.gz", i);
			gz = true;
			fd = open_log(dirfd, name, owner, &lr->stats->stopped);
		}
		if (fd < 0)
			break;
		ms_escape(name, strlen(name), shown, sizeof(shown), MS_ESC_ASCII);
		rc = read_log(lr, i, fd, gz, shown, buf, &total, &lr->stats->stopped);
		close(fd);
		if (rc == MS_ERR_NOMEM) {
			*err = lr->stats->stopped;
			break;
		}
		if (rc < 0 || (lr->oldest && lr->oldest < need))
			break;
	}
	if (rc != MS_ERR_NOMEM)
		rc = 0;
	if (dirfd >= 0)
		close(dirfd);
	free(buf);
	return rc;
}

static int event_cmp(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The answer for p, started at start, from the sorted entries. */
static void answer(const struct logread *lr, struct ms_pkg *p, time_t start)
{
	uint64_t after = ms_dpkglog_stamp(start - MS_DPKGLOG_SLACK);
	long name = find_name(lr, p->name, strnlen(p->name, sizeof(p->name)));
	const struct event *first = NULL, *newest = NULL;
	bool same = true;

	p->running_state = MS_PKG_RUNNING_UNKNOWN;
	p->running[0] = '\0';
	size_t lo = 0, hi = lr->nevents;

	if (name < 0 || lr->overflow || !after || !lr->oldest || lr->oldest >= after)
		return;
	/* The first entry of the package at or after the start: they are sorted by both. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct event *ev = &lr->events[mid];

		if (ev->name < (size_t)name || (ev->name == (size_t)name && ev->stamp < after))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < lr->nevents && lr->events[i].name == (size_t)name; i++) {
		const struct event *ev = &lr->events[i];

		if (p->arch[0] && strcmp(ev->arch, p->arch) && strcmp(ev->arch, "all"))
			continue;
		if (!first)
			first = ev;
		same = same && !strcmp(ev->old_version, first->old_version);
		newest = ev;
	}
	if (!first || !same || !strcmp(first->old_version, "<none>"))
		return;
	if (newest->upgrade && p->version[0] && strcmp(newest->new_version, p->version))
		return;
	p->running_state = MS_PKG_RUNNING_KNOWN;
	snprintf(p->running, sizeof(p->running), "%s", first->old_version);
}

static bool asked(const struct ms_pkg *p)
{
	return p->found && p->source == MS_PKG_SOURCE_DPKG;
}

int ms_dpkglog_running(const struct ms_dpkglog_opts *opts, struct ms_pkg *pkgs, const time_t *starts,
		       size_t n, struct ms_dpkglog_stats *stats, struct ms_error *err)
{
	struct ms_dpkglog_stats local;
	struct logread lr = { .stats = stats ? stats : &local };
	time_t earliest = 0;
	size_t k = 0;
	int rc = 0;

	memset(lr.stats, 0, sizeof(*lr.stats));
	for (size_t i = 0; i < n; i++)
		if (asked(&pkgs[i])) {
			pkgs[i].running_state = MS_PKG_RUNNING_UNKNOWN;
			pkgs[i].running[0] = '\0';
			if (!k++ || starts[i] < earliest)
				earliest = starts[i];
		}
	if (!k)
		return 0;
	lr.names = calloc(k, sizeof(*lr.names));
	if (!lr.names)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "dpkg log: out of memory");
	for (size_t i = 0; i < n; i++)
		if (asked(&pkgs[i]))
			lr.names[lr.nnames++] = pkgs[i].name;
	qsort(lr.names, lr.nnames, sizeof(*lr.names), name_cmp);
	k = 0;
	for (size_t i = 0; i < lr.nnames; i++)
		if (!k || strcmp(lr.names[k - 1], lr.names[i]))
			lr.names[k++] = lr.names[i];
	lr.nnames = k;
	rc = read_logs(&lr, opts, ms_dpkglog_stamp(earliest - MS_DPKGLOG_SLACK), err);
	if (rc == 0) {
		if (lr.nevents)
			qsort(lr.events, lr.nevents, sizeof(*lr.events), event_cmp);
		for (size_t i = 0; i < n; i++)
			if (asked(&pkgs[i]))
				answer(&lr, &pkgs[i], starts[i]);
	}
	lr.stats->events = lr.nevents;
	free(lr.events);
	free(lr.names);
	return rc;
}
