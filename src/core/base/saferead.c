#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/saferead.h"

const char *ms_file_kind(mode_t mode, int *sys_errno)
{
	*sys_errno = ENODEV;
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	*sys_errno = S_ISDIR(mode) ? EISDIR : ENXIO;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown type";
}

static int failed(const char *shown, int code, int e, const char *why, struct ms_error *err)
{
	return ms_error_set(err, code, e, "%s: %s", shown, why);
}

/* A system call's errno e. */
static int sys_failed(const char *shown, int e, struct ms_error *err)
{
	return failed(shown, e == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, e, strerror(e), err);
}

/*
 * The regular file behind an O_PATH descriptor, opened for reading, or a
 * negative ms_errcode.  O_NONBLOCK still matters for a regular file: an
 * open that would break another process's lease fails instead of waiting.
 * With owners (uid_t)-1, any owner will do; else owners or root.
 */
static int reopen_regular(int pathfd, const char *shown, uid_t owner, struct ms_error *err)
{
	char self[64];
	struct stat st;
	int fd, e;

	if (fstat(pathfd, &st) < 0)
		return sys_failed(shown, errno, err);
	/* Only an O_PATH | O_NOFOLLOW open hands back a link's own descriptor. */
	if (S_ISLNK(st.st_mode))
		return failed(shown, MS_ERR_IO, ELOOP, "a symbolic link: not following it", err);
	if (!S_ISREG(st.st_mode)) {
		const char *kind = ms_file_kind(st.st_mode, &e);
		char why[96];

		snprintf(why, sizeof(why), "%s, not a regular file: not reading it", kind);
		return failed(shown, MS_ERR_INVAL, e, why, err);
	}
	if (owner != (uid_t)-1 && st.st_uid != owner && st.st_uid != 0) {
		char why[96];

		snprintf(why, sizeof(why), "owned by uid %u, neither uid %u nor root: not reading it",
			 (unsigned)st.st_uid, (unsigned)owner);
		return failed(shown, MS_ERR_NOACCESS, EPERM, why, err);
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return sys_failed(shown, errno, err);
	return fd;
}

/*
 * Up to max + 1 bytes, to tell "exactly max" from "more", into *buf (cap + 1
 * bytes, NUL included), grown toward max + 2 only when the file is longer
 * than its size said: most files are far below max, and a buffer of max
 * bytes for each (the package database reads hundreds) costs a mapping
 * and its page faults every time.  size is what fstat said (SIZE_MAX:
 * unknown): a read that gives less than asked and leaves exactly size
 * bytes read is the end, with no read more to see it return 0 (one system
 * call in five for the small files the package database reads).  A file
 * that grew since fstat fills the read instead, and is read on.
 */
static int read_bounded(int fd, size_t max, char **buf, size_t cap, size_t size, size_t *len, const char *shown,
			struct ms_error *err)
{
	*len = 0;
	for (;;) {
		size_t asked;
		ssize_t n;

		if (*len == cap && cap <= max) {
			size_t next = cap > max / 2 ? max + 1 : cap * 2;
			char *grown = realloc(*buf, next + 1);

			if (!grown)
				return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "%s: out of memory", shown);
			*buf = grown;
			cap = next;
		}
		asked = cap - *len;
		n = read(fd, *buf + *len, asked);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sys_failed(shown, errno, err);
		if (n == 0)
			return 0;
		*len += (size_t)n;
		if ((size_t)n < asked && *len == size)
			return 0;
		if (*len > max) {
			char why[64];

			snprintf(why, sizeof(why), "larger than %zu bytes", max);
			return failed(shown, MS_ERR_LIMIT, EFBIG, why, err);
		}
	}
}

/* fd's whole content into a buffer sized by fstat, at most max bytes. */
static int read_sized(int fd, size_t max, char **text, size_t *len, const char *shown,
		      struct ms_error *err)
{
	struct stat st;
	size_t cap = 4096;
	char *buf;
	int rc;

	size_t size = SIZE_MAX;

	/* One byte more than the size, to see the end in the first reads. */
	if (fstat(fd, &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size < max) {
		size = (size_t)st.st_size;
		cap = size + 1 > cap ? size + 1 : cap;
	}
	if (cap > max + 1)
		cap = max + 1;
	buf = malloc(cap + 1);
	if (!buf)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "%s: out of memory", shown);
	rc = read_bounded(fd, max, &buf, cap, size, len, shown, err);
	if (rc < 0) {
		free(buf);
		*len = 0;
		return rc;
	}
	buf[*len] = '\0';
	*text = buf;
	return 0;
}

int ms_open_regular(const char *path, struct ms_error *err)
{
	char *shown = ms_escape_dup(path, strlen(path), MS_ESC_ASCII);
	int pathfd, fd;

	if (!shown)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	pathfd = open(path, O_PATH | O_CLOEXEC);
	fd = pathfd < 0 ? sys_failed(shown, errno, err) : reopen_regular(pathfd, shown, (uid_t)-1, err);
	if (pathfd >= 0)
		close(pathfd);
	free(shown);
	return fd;
}

/* The O_PATH descriptor pathfd (or -errno: the open's) read whole, then closed. */
static int read_pathfd(int pathfd, uid_t owner, const char *shown, size_t max, char **text,
		       size_t *len, struct ms_error *err)
{
	int fd = -1, rc;

	*text = NULL;
	*len = 0;
	if (pathfd < 0)
		return sys_failed(shown, -pathfd, err);
	fd = reopen_regular(pathfd, shown, owner, err);
	rc = fd < 0 ? fd : read_sized(fd, max, text, len, shown, err);
	if (fd >= 0)
		close(fd);
	close(pathfd);
	return rc;
}

int ms_read_regular(const char *path, size_t max, char **text, size_t *len,
		    struct ms_error *err)
{
	char *shown = ms_escape_dup(path, strlen(path), MS_ESC_ASCII);
	int pathfd, rc;

	*text = NULL;
	*len = 0;
	if (!shown)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	pathfd = open(path, O_PATH | O_CLOEXEC);
	rc = read_pathfd(pathfd < 0 ? -errno : pathfd, (uid_t)-1, shown, max, text, len, err);
	free(shown);
	return rc;
}

int ms_read_regular_owned(int dirfd, const char *name, uid_t owner, const char *path, size_t max,
			  char **text, size_t *len, struct ms_error *err)
{
	char *shown = ms_escape_dup(path, strlen(path), MS_ESC_ASCII);
	int pathfd, rc;

	*text = NULL;
	*len = 0;
	if (!shown)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	if (!*name || strchr(name, '/')) {
		rc = failed(shown, MS_ERR_INVAL, EINVAL, "not a plain directory entry", err);
	} else {
		pathfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		rc = read_pathfd(pathfd < 0 ? -errno : pathfd, owner, shown, max, text, len, err);
	}
	free(shown);
	return rc;
}

bool ms_dir_only_root_changes(int dirfd)
{
	struct stat st;

	return fstat(dirfd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	       (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

int ms_read_regular_entry(int dirfd, const char *name, size_t max, char **buf, size_t *cap,
			  size_t *len, struct ms_error *err)
{
	char *shown = ms_escape_dup(name, strlen(name), MS_ESC_ASCII);
	struct stat st;
	size_t want;
	int fd = -1, rc = 0, e;

	*len = 0;
	if (!shown)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	if (strchr(name, '/'))
		rc = failed(shown, MS_ERR_INVAL, EINVAL, "not a plain directory entry", err);
	else if ((fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = sys_failed(shown, errno, err);
	else if (fstat(fd, &st) < 0)
		rc = sys_failed(shown, errno, err);
	else if (!S_ISREG(st.st_mode))
		rc = failed(shown, MS_ERR_INVAL, (ms_file_kind(st.st_mode, &e), e), ms_file_kind(st.st_mode, &e), err);
	if (rc == 0) {
		/* Room for the size and one byte, to see the end in the first reads. */
		want = st.st_size >= 0 && (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1;
		if (want < 4096)
			want = 4096 < max + 1 ? 4096 : max + 1;
		if (!*buf || *cap < want) {
			char *grown = realloc(*buf, want + 1);

			if (!grown)
				rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "%s: out of memory", shown);
			else
				*buf = grown, *cap = want;
		}
	}
	if (rc == 0)
		rc = read_bounded(fd, max, buf, *cap > max + 1 ? max + 1 : *cap,
				  st.st_size >= 0 ? (size_t)st.st_size : SIZE_MAX, len, shown, err);
	if (rc == 0)
		(*buf)[*len] = '\0';
	else
		*len = 0;
	if (fd >= 0)
		close(fd);
	free(shown);
	return rc;
}

bool ms_pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, (char *)buf + got, len - got, off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}
