#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/compat.h"
#include "base/escape.h"
#include "base/saferead.h"
#include "base/safewrite.h"

/*
 * Each retry means another process created or removed the name between two
 * of our opens; far more than that in a row is someone fighting us.
 */
#define MS_SAFEWRITE_TRIES 64

#define MS_SAFEWRITE_RETRY 1

static int real_fcntl(int fd, int cmd)
{
	return fcntl(fd, cmd);
}

static void release(struct ms_safewrite *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	free(w->base);
	free(w->path);
	free(w->tmp);
	w->fd = -1;
	w->dirfd = -1;
	w->base = NULL;
	w->path = NULL;
	w->tmp = NULL;
}

static int fail(struct ms_safewrite *w, int code, int e, const char *what,
		struct ms_error *err)
{
	ms_error_set(err, code, e, "%s: %s: %s", w->path ? w->path : "?", what, strerror(e));
	return code;
}

/* Split path into its directory (opened O_PATH) and its last component. */
static int open_parent(struct ms_safewrite *w, const char *path, struct ms_error *err)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return fail(w, MS_ERR_INVAL, EISDIR, "not a file name", err);
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	w->base = strdup(base);
	if (!dir || !w->base) {
		free(dir);
		return fail(w, MS_ERR_NOMEM, ENOMEM, "cannot open", err);
	}
	w->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (w->dirfd < 0)
		return fail(w, errno == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, errno,
			    "cannot open its directory", err);
	return 0;
}

/* A symlink at the name: refused, naming where it points. */
static int refuse_symlink(struct ms_safewrite *w, struct ms_error *err)
{
	char target[PATH_MAX];
	char shown[256];
	ssize_t n = readlinkat(w->dirfd, w->base, target, sizeof(target) - 1);

	if (n < 0 && (errno == EINVAL || errno == ENOENT))
		return MS_SAFEWRITE_RETRY; /* no longer a symlink */
	if (n < 0)
		return ms_error_set(err, MS_ERR_IO, ELOOP, "%s: a symlink: not following it", w->path);
	ms_escape(target, (size_t)n, shown, sizeof(shown), MS_ESC_ASCII);
	return ms_error_set(err, MS_ERR_IO, ELOOP, "%s: a symlink (to %s): not following it",
			    w->path, shown);
}

/*
 * May an existing file with this status be written?  0, or an error.  Used
 * on what the name holds before opening and on the descriptor after.
 */
static int judge_existing(struct ms_safewrite *w, const struct stat *st,
			  const struct ms_safewrite_opts *opts, struct ms_error *err)
{
	uid_t me = geteuid();
	int e;

	/* Atomic: rename replaces the name itself, whatever it is, never through it. */
	if (opts->atomic && opts->no_clobber)
		return ms_error_set(err, MS_ERR_IO, EEXIST, "%s: already exists; left untouched", w->path);
	if (S_ISLNK(st->st_mode))
		return opts->atomic ? 0 : refuse_symlink(w, err);
	if (!S_ISREG(st->st_mode)) {
		const char *kind = ms_file_kind(st->st_mode, &e);

		return ms_error_set(err, MS_ERR_IO, e, "%s: %s, not a regular file: not writing to it",
				    w->path, kind);
	}
	if (opts->no_clobber)
		return ms_error_set(err, MS_ERR_IO, EEXIST, "%s: already exists; left untouched", w->path);
	if (opts->force)
		return 0;
	if (st->st_uid != me)
		return ms_error_set(err, MS_ERR_NOACCESS, EPERM,
				    "%s: owned by uid %u, not by uid %u: not writing to another user's file",
				    w->path, (unsigned)st->st_uid, (unsigned)me);
	/* A hard link planted in a directory we write to could name any file of ours. */
	if (st->st_nlink > 1 && !opts->atomic)
		return ms_error_set(err, MS_ERR_NOACCESS, EPERM,
				    "%s: has %ju hard links: not writing to a file that has other names",
				    w->path, (uintmax_t)st->st_nlink);
	return 0;
}

/*
 * What is at the name now, before any open: nothing (0), or a file judged
 * as above (*existed set).  Anything but a regular file is refused without
 * being opened.
 */
static int look_before(struct ms_safewrite *w, const struct ms_safewrite_opts *opts,
		       bool *existed, struct ms_error *err)
{
	struct stat st;

	*existed = fstatat(w->dirfd, w->base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (*existed)
		return judge_existing(w, &st, opts, err);
	if (errno == ENOENT)
		return 0;
	return fail(w, errno == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, errno, "cannot open", err);
}

/*
 * The attempts below return 0 (w->fd and w->created set), RETRY, or -1 with
 * errno set.
 */

#define MS_SAFEWRITE_FLAGS (O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)

/* One attempt with O_CREAT and F_CREATED_QUERY. */
static int open_query(struct ms_safewrite *w, int acc, mode_t mode, ms_fcntl_fn fn, bool existed)
{
	/*
	 * fs.protected_regular refuses O_CREAT on another user's file in a
	 * sticky directory even to root (may_create_in_sticky), so a file
	 * seen there, and allowed (--force), is opened without it.
	 */
	int fd = openat(w->dirfd, w->base, acc | (existed ? 0 : O_CREAT) | MS_SAFEWRITE_FLAGS, mode);
	int created;

	if (fd < 0)
		return existed && errno == ENOENT ? MS_SAFEWRITE_RETRY : -1;
	if (existed) {
		w->fd = fd;
		w->created = false;
		return 0;
	}
	created = fn(fd, F_CREATED_QUERY);
	if (created < 0) {
		int e = errno;

		/* Whether we created it is unknown now, so it is not ours to remove. */
		close(fd);
		errno = e;
		return -1;
	}
	w->fd = fd;
	w->created = created > 0;
	return 0;
}

/* One attempt of the portable sequence (systemd's openat_report_new). */
static int open_fallback(struct ms_safewrite *w, int acc, mode_t mode)
{
	int fd = openat(w->dirfd, w->base, acc | MS_SAFEWRITE_FLAGS);

	if (fd >= 0) {
		w->fd = fd;
		w->created = false;
		return 0;
	}
	if (errno != ENOENT)
		return -1;
	/* O_EXCL never follows a symlink: one planted now gives EEXIST, and a retry. */
	fd = openat(w->dirfd, w->base, acc | O_CREAT | O_EXCL | MS_SAFEWRITE_FLAGS, mode);
	if (fd < 0)
		return errno == EEXIST ? MS_SAFEWRITE_RETRY : -1;
	w->fd = fd;
	w->created = true;
	return 0;
}

/* The name changed between the look and the open: look again. */
static bool swapped_meanwhile(int e)
{
	/* ELOOP: now a symlink; ENXIO: a FIFO without a reader, or a socket. */
	return e == ELOOP || e == ENXIO || e == EISDIR;
}

/* Judge the opened descriptor; on refusal it is closed, and it was not ours. */
static int look_after(struct ms_safewrite *w, const struct ms_safewrite_opts *opts,
		      struct ms_error *err)
{
	struct stat st;
	int rc = 0;

	if (fstat(w->fd, &st) < 0)
		rc = fail(w, MS_ERR_IO, errno, "cannot stat", err);
	else if (!w->created)
		rc = judge_existing(w, &st, opts, err);
	else if (!S_ISREG(st.st_mode))
		rc = fail(w, MS_ERR_PROTO, ENXIO, "created, but not a regular file", err);
	if (rc != 0) {
		close(w->fd);
		w->fd = -1;
		w->created = false;
		return rc;
	}
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	return 0;
}

static int open_target(struct ms_safewrite *w, const struct ms_safewrite_opts *opts,
		       struct ms_error *err)
{
	ms_fcntl_fn fn = opts->fcntl_fn ? opts->fcntl_fn : real_fcntl;
	mode_t mode = opts->mode ? opts->mode : 0600;
	int acc = opts->readable ? O_RDWR : O_WRONLY;

	/* Probe on the directory, before anything exists that we might have made. */
	if (fn(w->dirfd, F_CREATED_QUERY) < 0) {
		if (errno != EINVAL)
			return fail(w, MS_ERR_IO, errno, "F_CREATED_QUERY failed", err);
		w->used_fallback = true;
	}
	for (int tries = 0; tries < MS_SAFEWRITE_TRIES; tries++) {
		bool existed;
		int rc = look_before(w, opts, &existed, err);
		int e;

		if (rc == 0) {
			rc = w->used_fallback ? open_fallback(w, acc, mode)
					      : open_query(w, acc, mode, fn, existed);
			e = errno;
			if (rc == -1 && swapped_meanwhile(e))
				rc = MS_SAFEWRITE_RETRY;
			else if (rc == -1)
				/* EPERM stays MS_ERR_IO: with NOACCESS it means a refused owner. */
				return fail(w, e == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, e,
					    "cannot open", err);
		}
		if (rc == 0)
			rc = look_after(w, opts, err);
		if (rc != MS_SAFEWRITE_RETRY)
			return rc;
	}
	return ms_error_set(err, MS_ERR_IO, EAGAIN,
			    "%s: the name keeps changing under us; giving up", w->path);
}

/* Atomic: a fresh temporary beside the target; EEXIST means someone else's name. */
static int open_temp(struct ms_safewrite *w, const struct ms_safewrite_opts *opts,
		     struct ms_error *err)
{
	mode_t mode = opts->mode ? opts->mode : 0600;
	struct stat st;

	for (int tries = 0; tries < MS_SAFEWRITE_TRIES; tries++) {
		unsigned rnd;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (unsigned)getpid() * 2654435761u + (unsigned)tries;
		free(w->tmp);
		/* NAME_MAX is 255: a long name is shortened in the temporary's. */
		if (asprintf(&w->tmp, ".%.200s.%08x", w->base, rnd) < 0) {
			w->tmp = NULL;
			return fail(w, MS_ERR_NOMEM, ENOMEM, "cannot open", err);
		}
		fd = openat(w->dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | MS_SAFEWRITE_FLAGS, mode);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return fail(w, errno == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, errno,
				    "cannot create a temporary file beside it", err);
		w->fd = fd;
		if (fstat(fd, &st) < 0) {
			int rc = fail(w, MS_ERR_IO, errno, "cannot stat", err);

			close(fd);
			w->fd = -1;
			return rc;
		}
		w->dev = st.st_dev;
		w->ino = st.st_ino;
		return 0;
	}
	return ms_error_set(err, MS_ERR_IO, EAGAIN,
			    "%s: every temporary name is taken; giving up", w->path);
}

static int open_atomic(struct ms_safewrite *w, const struct ms_safewrite_opts *opts,
		       struct ms_error *err)
{
	bool existed;
	int rc;

	if (opts->keep || opts->readable)
		return fail(w, MS_ERR_INVAL, EINVAL, "an atomic write neither keeps nor reads", err);
	rc = look_before(w, opts, &existed, err);
	if (rc == 0)
		rc = open_temp(w, opts, err);
	w->created = rc == 0 && !existed;
	w->opts = *opts;
	return rc;
}

/* w emptied, with path (escaped) for messages. */
static int start(struct ms_safewrite *w, const char *path, struct ms_error *err)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->dirfd = -1;
	w->path = ms_escape_dup(path, strlen(path), MS_ESC_ASCII);
	if (!w->path)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	return 0;
}

/* Once w->dirfd and w->base are set (rc 0), or released with rc. */
static int open_in_parent(struct ms_safewrite *w, int rc, const struct ms_safewrite_opts *opts,
			  struct ms_error *err)
{
	static const struct ms_safewrite_opts defaults = { 0 };

	if (!opts)
		opts = &defaults;
	if (rc == 0 && opts->atomic) {
		rc = open_atomic(w, opts, err);
		if (rc < 0)
			ms_safewrite_abort(w);
		return rc;
	}
	if (rc == 0)
		rc = open_target(w, opts, err);
	if (rc < 0) {
		/* Nothing of ours to remove: open_target fails only before or without creating. */
		release(w);
		return rc;
	}
	/* Only now, with every check passed on the descriptor itself. */
	if (!w->created && !opts->keep && ftruncate(w->fd, 0) < 0) {
		rc = fail(w, MS_ERR_IO, errno, "cannot truncate", err);
		release(w);
		return rc;
	}
	return 0;
}

int ms_safewrite_open(const char *path, const struct ms_safewrite_opts *opts,
		      struct ms_safewrite *w, struct ms_error *err)
{
	int rc = start(w, path, err);

	if (rc < 0)
		return rc;
	return open_in_parent(w, open_parent(w, path, err), opts, err);
}

int ms_safewrite_openat(int dirfd, const char *name, const char *path,
			const struct ms_safewrite_opts *opts, struct ms_safewrite *w,
			struct ms_error *err)
{
	int rc = start(w, path, err);

	if (rc < 0)
		return rc;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		rc = fail(w, MS_ERR_INVAL, EINVAL, "not a plain directory entry", err);
	else if (!(w->base = strdup(name)))
		rc = fail(w, MS_ERR_NOMEM, ENOMEM, "cannot open", err);
	else if ((w->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
		rc = fail(w, MS_ERR_IO, errno, "cannot open its directory", err);
	return open_in_parent(w, rc, opts, err);
}

int ms_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ms_safewrite_write(struct ms_safewrite *w, const void *buf, size_t len,
		       struct ms_error *err)
{
	int rc = ms_write_all(w->fd, buf, len);

	if (rc < 0)
		return fail(w, MS_ERR_IO, -rc, "write failed", err);
	return 0;
}

/* Does name (in w's directory) still hold the inode we created? */
static bool still_ours(const struct ms_safewrite *w, const char *name)
{
	struct stat st;

	return w->dirfd >= 0 && fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == w->dev && st.st_ino == w->ino;
}

void ms_safewrite_abort(struct ms_safewrite *w)
{
	/* The temporary is always ours; the target only if this open created it. */
	const char *name = w->tmp ? w->tmp : w->created ? w->base : NULL;

	/* Only the inode we created, in case the name was replaced meanwhile. */
	if (name && still_ours(w, name))
		unlinkat(w->dirfd, name, 0);
	release(w);
}

/* Atomic, once the temporary is complete on disk: judge the target again, then rename. */
static int rename_into_place(struct ms_safewrite *w, struct ms_error *err)
{
	bool existed;
	int rc = look_before(w, &w->opts, &existed, err);

	if (rc < 0)
		return rc;
	if (!still_ours(w, w->tmp))
		return fail(w, MS_ERR_IO, ESTALE, "the temporary file was replaced meanwhile", err);
	rc = w->opts.no_clobber ? renameat2(w->dirfd, w->tmp, w->dirfd, w->base, RENAME_NOREPLACE)
				: renameat(w->dirfd, w->tmp, w->dirfd, w->base);
	if (rc < 0)
		return fail(w, errno == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, errno,
			    "cannot rename the temporary file over it", err);
	return 0;
}

static int close_atomic(struct ms_safewrite *w, struct ms_error *err)
{
	int fd = w->fd, rc = 0;

	w->fd = -1;
	if (fsync(fd) < 0)
		rc = fail(w, MS_ERR_IO, errno, "cannot sync", err);
	if (close(fd) < 0 && errno != EINTR && rc == 0)
		rc = fail(w, MS_ERR_IO, errno, "write failed at close", err);
	if (rc == 0)
		rc = rename_into_place(w, err);
	if (rc < 0) {
		ms_safewrite_abort(w);
		return rc;
	}
	release(w);
	return 0;
}

int ms_safewrite_close(struct ms_safewrite *w, struct ms_error *err)
{
	int fd = w->fd;

	if (w->tmp)
		return close_atomic(w, err);

	w->fd = -1;
	if (close(fd) < 0 && errno != EINTR) {
		int rc = fail(w, MS_ERR_IO, errno, "write failed at close", err);

		ms_safewrite_abort(w);
		return rc;
	}
	release(w);
	return 0;
}

/* The rest of the cycle, once ms_safewrite_open(at) gave rc. */
static int write_whole(struct ms_safewrite *w, int rc, const void *data, size_t len, bool *created,
		       struct ms_error *err)
{
	if (rc < 0)
		return rc;
	if (created)
		*created = w->created;
	rc = ms_safewrite_write(w, data, len, err);
	if (rc < 0) {
		ms_safewrite_abort(w);
		return rc;
	}
	return ms_safewrite_close(w, err);
}

int ms_safewrite_file(const char *path, const struct ms_safewrite_opts *opts,
		      const void *data, size_t len, bool *created,
		      struct ms_error *err)
{
	struct ms_safewrite w;

	return write_whole(&w, ms_safewrite_open(path, opts, &w, err), data, len, created, err);
}

int ms_safewrite_file_at(int dirfd, const char *name, const char *path,
			 const struct ms_safewrite_opts *opts, const void *data, size_t len,
			 bool *created, struct ms_error *err)
{
	struct ms_safewrite w;

	return write_whole(&w, ms_safewrite_openat(dirfd, name, path, opts, &w, err), data, len,
			   created, err);
}

/* Is fd a directory root owns that no one else may write?  0, or MS_ERR_NOACCESS naming shown. */
static int root_only_dir(int fd, const char *shown, int len, struct ms_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "%.*s: %s", len, shown, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ms_error_set(err, MS_ERR_NOACCESS, ENOTDIR, "%.*s: not a directory", len, shown);
	if (st.st_uid != 0)
		return ms_error_set(err, MS_ERR_NOACCESS, EPERM, "%.*s: owned by uid %u, not root", len,
				    shown, (unsigned)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return ms_error_set(err, MS_ERR_NOACCESS, EPERM, "%.*s: writable by group or others",
				    len, shown);
	return 0;
}

/*
 * The next level below dir into *out, made with mode when missing (set
 * after the mkdir, whatever the umask).  0 or an error, with err filled.
 */
static int root_dir_level(int dir, const char *name, mode_t mode, const char *shown, int len, int *out,
			  struct ms_error *err)
{
	int flags = O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC;
	int fd = openat(dir, name, flags), rc;

	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(dir, name, mode) == 0) {
			(void)fchmodat(dir, name, mode, 0); /* dir is checked root-only: no swap */
			fd = openat(dir, name, flags);
		} else if (errno == EEXIST) {
			fd = openat(dir, name, flags);
		}
	}
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return ms_error_set(err, MS_ERR_NOACCESS, errno, "%.*s: a symbolic link or not a directory",
				    len, shown);
	if (fd < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "%.*s: %s", len, shown, strerror(errno));
	rc = root_only_dir(fd, shown, len, err);
	if (rc < 0)
		close(fd);
	else
		*out = fd;
	return rc;
}

int ms_safewrite_root_dir_open(int dirfd, const char *path, mode_t mode, int *out, struct ms_error *err)
{
	char name[NAME_MAX + 1];
	const char *at = path;
	int dir, next = -1, rc;

	dir = *path == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (dir < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "%s: %s", path, strerror(errno));
	rc = root_only_dir(dir, *path == '/' ? "/" : ".", 1, err);
	while (rc == 0 && *at) {
		size_t n = strcspn(at, "/");

		if (n == 0 || (n == 1 && *at == '.')) {
			at += n + (at[n] == '/');
			continue;
		}
		if (n > NAME_MAX || (n == 2 && !memcmp(at, "..", 2))) {
			rc = ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: not a plain path", path);
			break;
		}
		memcpy(name, at, n);
		name[n] = '\0';
		rc = root_dir_level(dir, name, mode, path, (int)(at + n - path), &next, err);
		if (rc == 0) {
			close(dir);
			dir = next;
		}
		at += n + (at[n] == '/');
	}
	if (rc == 0) {
		*out = dir;
		return 0;
	}
	close(dir);
	return rc;
}

int ms_safewrite_root_dir(int dirfd, const char *path, struct ms_error *err)
{
	int fd, rc = ms_safewrite_root_dir_open(dirfd, path, 0700, &fd, err);

	if (rc == 0)
		close(fd);
	return rc;
}
