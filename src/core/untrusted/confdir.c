#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/saferead.h"
#include "base/safewrite.h"
#include "untrusted/confdir.h"

#define LEVEL_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int ms_confdir_at(struct ms_confdir *d, const char *var, const char *base)
{
	int n;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (!base || base[0] != '/')
		return -1;
	n = snprintf(d->base, sizeof(d->base), "%s", base);
	if (n < 0 || (size_t)n >= sizeof(d->base))
		return -1;
	d->var = var;
	d->below = strcmp(var, "HOME") ? "mapscope" : ".config/mapscope";
	return 0;
}

int ms_confdir_locate(struct ms_confdir *d)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");

	/* The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored. */
	if (xdg && xdg[0] == '/')
		return ms_confdir_at(d, "XDG_CONFIG_HOME", xdg);
	return ms_confdir_at(d, "HOME", getenv("HOME"));
}

/* base/below[/name], not escaped: what saferead and safewrite name (and escape). */
static void joined(const struct ms_confdir *d, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s%s%s", d->base, d->below, name ? "/" : "", name ? name : "");
}

void ms_confdir_shown(const struct ms_confdir *d, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX + 64];

	joined(d, name, path, sizeof(path));
	ms_escape(path, strlen(path), buf, size, MS_ESC_ASCII);
}

/* The first len bytes of path, escaped, then ": " and why. */
static int refused(const char *path, size_t len, int code, int e, const char *why, struct ms_error *err)
{
	char shown[MS_ERRMSG_MAX];

	ms_escape(path, len, shown, sizeof(shown), MS_ESC_ASCII);
	return ms_error_set(err, code, e, "%s: %s", shown, why);
}

/* Is fd a folder of ours (or root's) that no one else may change? */
static int check_level(int fd, const char *path, size_t len, struct ms_error *err)
{
	uid_t me = geteuid();
	struct stat st;
	char why[96];

	if (fstat(fd, &st) < 0)
		return refused(path, len, MS_ERR_IO, errno, strerror(errno), err);
	if (st.st_uid != me && st.st_uid != 0) {
		snprintf(why, sizeof(why), "owned by uid %u, neither uid %u nor root: not using it",
			 (unsigned)st.st_uid, (unsigned)me);
		return refused(path, len, MS_ERR_NOACCESS, EPERM, why, err);
	}
	/* Group-writable only for the user's own group (a private group, umask 002). */
	if ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != getegid()))
		return refused(path, len, MS_ERR_NOACCESS, EPERM, "writable by others: not using it", err);
	return 0;
}

/*
 * The level name below dir into *out, made 0700 first when missing and
 * create; never through a link.  path's first len bytes name it.
 */
static int enter_level(int dir, const char *name, bool create, const char *path, size_t len, int *out,
		       struct ms_error *err)
{
	struct stat st;
	int fd = openat(dir, name, LEVEL_FLAGS), e, rc;

	if (fd < 0 && errno == ENOENT && create && (mkdirat(dir, name, 0700) == 0 || errno == EEXIST))
		fd = openat(dir, name, LEVEL_FLAGS);
	if (fd < 0) {
		e = errno;
		/* Already refused; the look is only to say why. */
		if ((e == ELOOP || e == ENOTDIR) && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return refused(path, len, MS_ERR_NOACCESS, S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR,
				       S_ISLNK(st.st_mode) ? "a symbolic link: not following it" :
				       "not a directory", err);
		return refused(path, len, e == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, e, strerror(e), err);
	}
	rc = check_level(fd, path, len, err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

/* base, opened as named, or MS_ERR_NOACCESS with d->foreign when another user owns it. */
static int open_base(struct ms_confdir *d, struct ms_error *err)
{
	size_t len = strlen(d->base);
	struct stat st;
	uid_t me = geteuid();
	int fd = open(d->base, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return refused(d->base, len, errno == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, errno,
			       strerror(errno), err);
	if (fstat(fd, &st) < 0) {
		int rc = refused(d->base, len, MS_ERR_IO, errno, strerror(errno), err);

		close(fd);
		return rc;
	}
	if (st.st_uid != me && st.st_uid != 0) {
		close(fd);
		d->foreign = true;
		d->base_owner = st.st_uid;
		return ms_error_set(err, MS_ERR_NOACCESS, EPERM, "%s belongs to uid %u (run as that user, or %s)",
				    d->var, (unsigned)st.st_uid,
				    strcmp(d->var, "HOME") ? "point XDG_CONFIG_HOME to a folder of yours" :
				    "set XDG_CONFIG_HOME");
	}
	return fd;
}

int ms_confdir_open(struct ms_confdir *d, bool create, struct ms_error *err)
{
	char path[PATH_MAX + 64];
	size_t at;
	int dir, next = -1, rc = 0;

	if (!d->var)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "neither XDG_CONFIG_HOME nor HOME is set");
	ms_confdir_close(d);
	d->foreign = false;
	dir = open_base(d, err);
	if (dir < 0)
		return dir;
	joined(d, NULL, path, sizeof(path));
	at = strlen(d->base) + 1;
	while (rc == 0 && path[at]) {
		size_t n = strcspn(path + at, "/");
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)n, path + at);
		rc = enter_level(dir, name, create, path, at + n, &next, err);
		if (rc == 0) {
			close(dir);
			dir = next;
		}
		at += n + (path[at + n] == '/');
	}
	if (rc < 0) {
		close(dir);
		return rc;
	}
	d->fd = dir;
	return 0;
}

void ms_confdir_close(struct ms_confdir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

int ms_confdir_read(const struct ms_confdir *d, const char *name, size_t max, char **text,
		    size_t *len, struct ms_error *err)
{
	char path[PATH_MAX + 64];

	joined(d, name, path, sizeof(path));
	return ms_read_regular_owned(d->fd, name, geteuid(), path, max, text, len, err);
}

int ms_confdir_replace(const struct ms_confdir *d, const char *name, const void *data, size_t len,
		       struct ms_error *err)
{
	const struct ms_safewrite_opts opts = { .atomic = true, .mode = 0600 };
	char path[PATH_MAX + 64];

	joined(d, name, path, sizeof(path));
	return ms_safewrite_file_at(d->fd, name, path, &opts, data, len, NULL, err);
}
