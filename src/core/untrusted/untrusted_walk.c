#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif

#include "proc/fstype.h"
#include "untrusted/untrusted_walk.h"
#include "untrusted/walk_dircache.h"
#include "untrusted/walk_mounts.h"

static const char why_symlink[] = "a symlink on the path";
const char ms_walk_why_user_link[] = "a symlink that a user can change is on the way";
static const char why_dir_owner[] = "a directory on the path is not root's alone";

struct walk {
	const struct ms_walk_root *root;
	unsigned flags;
	const char **why;
	size_t depth;                           /* dirs[0] is the root (not ours to close) */
	size_t borrowed;                        /* dirs[1..borrowed] are the cache's (not ours to close) */
	int dirs[MS_WALK_MAX_DEPTH + 1];
	uint64_t mnts[MS_WALK_MAX_DEPTH + 1];
	bool roots[MS_WALK_MAX_DEPTH + 1];      /* root's alone (dir_is_roots) */
	size_t lens[MS_WALK_MAX_DEPTH + 1];      /* cur's length at each depth */
	char cur[PATH_MAX + NAME_MAX + 2];       /* canonical, relative to the root; "" is the root */
	size_t cur_len;
	uint64_t end_mnt; /* the mount of what was opened last, or of the deepest directory reached */
};

static void pop_to(struct walk *w, size_t depth)
{
	for (; w->depth > depth; w->depth--)
		if (w->depth > w->borrowed)
			close(w->dirs[w->depth]);
	if (w->borrowed > depth)
		w->borrowed = depth;
	w->cur_len = w->lens[w->depth];
	w->cur[w->cur_len] = '\0';
}

static bool is_dot_or_dotdot(const char *comp, size_t len)
{
	return (len == 1 && comp[0] == '.') || (len == 2 && comp[0] == '.' && comp[1] == '.');
}

/*
 * Start below the kept directories path begins with (walk_dircache.h):
 * whole plain components, each followed by another, each kept, and root's
 * alone where the flags ask it.  The bytes of path they cover; *steps
 * counts them as taken.
 */
static size_t adopt(struct walk *w, const char *path, unsigned *steps)
{
	struct ms_walk_dircache *c = w->root->dirs;
	size_t at = 0;

	if (!c)
		return 0;
	for (;;) {
		const struct ms_walk_kept *k;
		size_t p = at, len, next;

		while (path[p] == '/')
			p++;
		len = strcspn(path + p, "/");
		for (next = p + len; path[next] == '/'; next++)
			;
		if (!len || !path[next] || is_dot_or_dotdot(path + p, len) || len > NAME_MAX ||
		    w->cur_len + 1 + len > PATH_MAX || w->depth >= MS_WALK_MAX_DEPTH)
			break;
		w->cur[w->cur_len] = '/';
		memcpy(w->cur + w->cur_len + 1, path + p, len);
		k = ms_walk_dircache_find(c, w->cur, w->cur_len + 1 + len);
		if (!k || ((w->flags & MS_WALK_ROOT_DIRS) && !k->roots)) {
			w->cur[w->cur_len] = '\0';
			break;
		}
		w->depth++;
		w->dirs[w->depth] = k->fd;
		w->mnts[w->depth] = k->mnt;
		w->roots[w->depth] = k->roots;
		w->cur_len += 1 + len;
		w->cur[w->cur_len] = '\0';
		w->lens[w->depth] = w->cur_len;
		w->borrowed = w->depth;
		(*steps)++;
		at = p + len;
	}
	return at;
}

/* Give the directories the walk entered to the cache (those it cannot keep are closed). */
static void keep(struct walk *w)
{
	struct ms_walk_dircache *c = w->root->dirs;

	/* A directory is kept only below its kept parent, so the first refusal ends it. */
	while (c && w->borrowed < w->depth) {
		size_t d = w->borrowed + 1;
		const struct ms_walk_kept k = { .fd = w->dirs[d], .mnt = w->mnts[d], .roots = w->roots[d] };

		if (!ms_walk_dircache_keep(c, w->cur, w->lens[d], &k))
			break;
		w->borrowed = d;
	}
	pop_to(w, 0);
}

static int refuse(struct walk *w, int fd, int err, const char *why)
{
	if (fd >= 0)
		close(fd);
	*w->why = why;
	return -err;
}

/*
 * Root's, and no one else can change its entries: writable by root alone,
 * or sticky (others may add entries but not rename or remove root's,
 * fs/namei.c may_delete; every entry passed is checked to be root's in turn).
 */
static bool dir_is_roots(const struct stat *st)
{
	return st->st_uid == 0 && (!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

/*
 * A symlink only root can have made or can change: root's, in a directory
 * that is root's alone.  A symlink's own mode means nothing (fs/namei.c
 * never checks it), so its directory decides who may replace it; the
 * directory is the walk's current one, on a mount already accepted.
 */
static bool link_is_roots(const struct walk *w, const struct stat *link)
{
	struct stat dir;

	return link->st_uid == 0 && fstat(w->dirs[w->depth], &dir) == 0 && dir_is_roots(&dir);
}

/* The root itself: its mount known kernel-served, and root's when asked. */
static int start(struct walk *w)
{
	const char *why;
	struct stat st;

	w->depth = 0;
	w->borrowed = 0;
	w->dirs[0] = w->root->fd;
	if (w->root->dirs)
		ms_walk_dircache_begin(w->root->dirs, w->root);
	w->lens[0] = 0;
	w->cur_len = 0;
	w->cur[0] = '\0';
	if (!w->root->mounts)
		return refuse(w, -1, EREMOTE, ms_walk_why_no_table);
	if (ms_walk_root_mnt_id(w->root, &w->mnts[0]) < 0)
		return refuse(w, -1, EIO, ms_walk_why_mnt_id);
	/*
	 * Anywhere: a root need not be a mount point.  Our descriptor holds
	 * its mount, so its ID cannot be freed and reused (mnt_free_id runs
	 * when the last reference goes), and the table was read after it was
	 * opened.
	 */
	if (!ms_walk_own_root_unlisted(w->root->mounts, w->mnts[0]) &&
	    (why = ms_walk_mount_refused(w->root->mounts, w->mnts[0], NULL, 0, MS_WALK_WHY_UNLISTED)))
		return refuse(w, -1, EREMOTE, why);
	if (w->flags & MS_WALK_ROOT_DIRS) {
		bool roots;

		if (!w->root->dirs || !ms_walk_dircache_root_known(w->root->dirs, &roots)) {
			if (fstat(w->root->fd, &st) < 0)
				return -errno;
			roots = dir_is_roots(&st);
			if (w->root->dirs)
				ms_walk_dircache_root_set(w->root->dirs, roots);
		}
		if (!roots)
			return refuse(w, -1, EPERM, why_dir_owner);
	}
	return 0;
}

#if defined(HAVE_LINUX_OPENAT2_H) && defined(SYS_openat2)
/*
 * name below dirfd as an O_PATH descriptor, only if it lies on dirfd's own
 * mount: openat2 with RESOLVE_NO_XDEV (Linux 5.6, openat2(2): "pathname
 * must be on the same mount as the directory referred to by dirfd";
 * fs/namei.c handle_mounts turns any jump to another mount into EXDEV, the
 * last component included, a mount on a file too).  The directory's mount
 * was accepted when the walk entered it, so what opens here needs no mount
 * ID read.  -EXDEV, or -ENOSYS where openat2 is missing or filtered: the
 * caller takes the checked way, as for any error but a missing name.
 */
static int open_same_mount(int dirfd, const char *name)
{
	static int unavailable;
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = RESOLVE_NO_XDEV };
	long fd;

	if (unavailable)
		return -ENOSYS;
	fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno == ENOSYS || errno == EPERM || errno == EINVAL || errno == E2BIG) {
		unavailable = 1;
		return -ENOSYS;
	}
	return -errno;
}
#else
static int open_same_mount(int dirfd, const char *name)
{
	(void)dirfd;
	(void)name;
	return -ENOSYS;
}
#endif

/* One step from the current directory into comp (len bytes). */
static int step(struct walk *w, const char *comp, size_t len, struct stat *st, uint64_t *mnt)
{
	char name[NAME_MAX + 1];
	const char *why;
	int fd;

	if (len > NAME_MAX || w->cur_len + 1 + len > PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(name, comp, len);
	name[len] = '\0';
	/* The candidate path in cur, past its NUL, until the step is taken (push). */
	w->cur[w->cur_len] = '/';
	memcpy(w->cur + w->cur_len + 1, comp, len);
	/* First line: a mount point the table already knows, before any lookup in it. */
	if (ms_fstypes_refuse_point(w->root->mounts->table, w->cur, w->cur_len + 1 + len)) {
		w->cur[w->cur_len] = '\0';
		return refuse(w, -1, EREMOTE, MS_WALK_WHY_SERVED);
	}
	/* O_PATH: do_dentry_open (fs/open.c) returns before f_op->open, so no driver or FIFO is reached. */
	fd = open_same_mount(w->dirs[w->depth], name);
	if (fd >= 0) {
		*mnt = w->mnts[w->depth];
		w->cur[w->cur_len] = '\0';
		goto known;
	}
	/* A missing name is missing either way; anything else (EXDEV, a filter's errno) is asked again. */
	if (fd == -ENOENT || fd == -ENOTDIR) {
		w->cur[w->cur_len] = '\0';
		return fd;
	}
	fd = openat(w->dirs[w->depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		w->cur[w->cur_len] = '\0';
		return -errno;
	}
	/* Second line: a mount made after the table was read, or a mount point the name crosses. */
	if (ms_walk_mnt_id(fd, mnt) < 0) {
		w->cur[w->cur_len] = '\0';
		return refuse(w, fd, EIO, ms_walk_why_mnt_id);
	}
	if (*mnt != w->mnts[w->depth] &&
	    (why = ms_walk_mount_refused(w->root->mounts, *mnt, w->cur, w->cur_len + 1 + len, MS_WALK_WHY_UNLISTED))) {
		w->cur[w->cur_len] = '\0';
		return refuse(w, fd, EREMOTE, why);
	}
	w->cur[w->cur_len] = '\0';
known:
	if (fstat(fd, st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static int push(struct walk *w, int fd, uint64_t mnt, bool roots, const char *comp, size_t len)
{
	if (w->depth >= MS_WALK_MAX_DEPTH) {
		close(fd);
		return -ENAMETOOLONG;
	}
	w->cur[w->cur_len] = '/';
	memcpy(w->cur + w->cur_len + 1, comp, len);
	w->cur_len += 1 + len;
	w->cur[w->cur_len] = '\0';
	w->depth++;
	w->dirs[w->depth] = fd;
	w->mnts[w->depth] = mnt;
	w->roots[w->depth] = roots;
	w->lens[w->depth] = w->cur_len;
	return 0;
}

/* rest becomes target + "/" + rest (malloc'd); absolute targets restart at the root. */
static int follow(struct walk *w, int fd, char **rest, const char *after)
{
	char target[PATH_MAX];
	size_t alen = strlen(after);
	ssize_t n = readlinkat(fd, "", target, sizeof(target));
	char *next;

	close(fd);
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	if (n == 0)
		return -ENOENT;
	if ((size_t)n + 1 + alen > 2 * PATH_MAX)
		return -ENAMETOOLONG;
	if (!(next = malloc((size_t)n + 1 + alen + 1)))
		return -ENOMEM;
	memcpy(next, target, (size_t)n);
	next[n] = '/';
	memcpy(next + n + 1, after, alen + 1);
	if (target[0] == '/')
		pop_to(w, 0);
	free(*rest);
	*rest = next;
	return 0;
}

static int walk(struct walk *w, const char *path, unsigned steps, struct stat *st)
{
	char *rest = strdup(path);
	unsigned symlinks = 0;
	const char *p;
	int rc = 0, fd;

	if (!rest)
		return -ENOMEM;
	p = rest;
	for (;;) {
		const char *comp, *after;
		size_t len;
		uint64_t mnt;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		len = strcspn(comp, "/");
		after = comp + len;
		p = after;
		if (is_dot_or_dotdot(comp, len)) {
			if (len == 2)
				pop_to(w, w->depth ? w->depth - 1 : 0);
			continue;
		}
		if (++steps > MS_WALK_MAX_STEPS) {
			rc = -ELOOP;
			break;
		}
		w->end_mnt = w->mnts[w->depth];
		fd = step(w, comp, len, st, &mnt);
		if (fd < 0) {
			rc = fd;
			break;
		}
		w->end_mnt = mnt;
		while (*after == '/')
			after++;
		if (S_ISLNK(st->st_mode)) {
			if (w->flags & MS_WALK_NO_SYMLINKS) {
				rc = refuse(w, fd, ELOOP, why_symlink);
				break;
			}
			if (!*after && !(w->flags & MS_WALK_FOLLOW_LAST))
				goto done;
			if ((w->flags & MS_WALK_ROOT_SYMLINKS) && !link_is_roots(w, st)) {
				rc = refuse(w, fd, ELOOP, MS_WALK_WHY_USER_LINK);
				break;
			}
			if (++symlinks > MS_WALK_MAX_SYMLINKS) {
				close(fd);
				rc = -ELOOP;
				break;
			}
			if ((rc = follow(w, fd, &rest, after)) < 0)
				break;
			p = rest;
			continue;
		}
		if (!*after)
			goto done;
		if (!S_ISDIR(st->st_mode)) {
			close(fd);
			rc = -ENOTDIR;
			break;
		}
		if ((w->flags & MS_WALK_ROOT_DIRS) && !dir_is_roots(st)) {
			rc = refuse(w, fd, EPERM, why_dir_owner);
			break;
		}
		if ((rc = push(w, fd, mnt, dir_is_roots(st), comp, len)) < 0)
			break;
	}
	free(rest);
	if (rc < 0)
		return rc;
	/* The path ended on a directory already walked ("/", "a/..", "a/."). */
	w->end_mnt = w->mnts[w->depth];
	fd = openat(w->dirs[w->depth], ".", O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) < 0) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
done:
	free(rest);
	return fd;
}

int ms_walk_open_mnt(const struct ms_walk_root *root, const char *path, unsigned flags,
		     struct stat *st, uint64_t *mnt, bool *mnt_known, const char **why)
{
	struct walk *w = malloc(sizeof(*w));
	int rc;

	*why = NULL;
	*mnt_known = false;
	if (!w)
		return -ENOMEM;
	w->root = root;
	w->flags = flags;
	w->why = why;
	rc = start(w);
	if (rc == 0) {
		unsigned steps = 0;
		size_t at = adopt(w, path, &steps);

		w->end_mnt = w->mnts[w->depth];
		rc = walk(w, path + at, steps, st);
		*mnt = w->end_mnt;
		*mnt_known = rc >= 0 || rc == -ENOENT || rc == -ENOTDIR;
	}
	keep(w);
	free(w);
	return rc;
}

int ms_walk_open(const struct ms_walk_root *root, const char *path, unsigned flags,
		 struct stat *st, const char **why)
{
	uint64_t mnt;
	bool known;

	return ms_walk_open_mnt(root, path, flags, st, &mnt, &known, why);
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev;
}

static void race_point(ms_walk_race_fn race, void *arg, enum ms_walk_step step, const char *path)
{
	if (race)
		race(arg, step, path);
}

/*
 * The checked O_PATH descriptor pathfd (closed here), of what pst says,
 * reopened through /proc/self/fd/N for reading (oflags: O_DIRECTORY for a
 * directory), and checked again to be the same inode of the same type.
 * The descriptor, or -1 with *why set.
 */
static int reopen_checked(int pathfd, const struct stat *pst, int oflags, struct stat *st, const char **why)
{
	struct stat rst;
	char self[64];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | oflags);
	close(pathfd);
	if (fd < 0) {
		*why = "cannot reopen the checked file";
		return -1;
	}
	if (fstat(fd, &rst) < 0 || (rst.st_mode & S_IFMT) != (pst->st_mode & S_IFMT) || !same_inode(&rst, pst)) {
		*why = "the reopened file is not the checked one";
		close(fd);
		return -1;
	}
	if (st)
		*st = rst;
	*why = NULL;
	return fd;
}

/*
 * Reading goes through a reopen of the checked descriptor (proc_fd_link in
 * fs/proc/base.c follows to the very file), so a swap of the name after the
 * check changes nothing.
 */
int ms_walk_open_read(const struct ms_walk_root *root, const char *path, unsigned flags,
		      const struct stat *expect, ms_walk_race_fn race, void *race_arg,
		      struct stat *st, const char **why)
{
	struct stat pst;
	int pathfd;

	race_point(race, race_arg, MS_WALK_BEFORE_OPEN, path);
	pathfd = ms_walk_open(root, path, flags, &pst, why);
	if (pathfd < 0) {
		if (!*why)
			*why = "the path changed under us: it cannot be opened now";
		return -1;
	}
	if (!S_ISREG(pst.st_mode)) {
		*why = "the path changed under us: not a regular file now";
		close(pathfd);
		return -1;
	}
	if (expect && !same_inode(&pst, expect)) {
		*why = "the path changed under us: another file now";
		close(pathfd);
		return -1;
	}
	race_point(race, race_arg, MS_WALK_BEFORE_REOPEN, path);
	return reopen_checked(pathfd, &pst, 0, st, why);
}

int ms_walk_reopen_read(int pathfd, const struct stat *pst, struct stat *st, const char **why)
{
	if (!S_ISREG(pst->st_mode)) {
		*why = "not a regular file";
		close(pathfd);
		return -1;
	}
	return reopen_checked(pathfd, pst, 0, st, why);
}

int ms_walk_open_dir(const struct ms_walk_root *root, const char *path, unsigned flags,
		     const char **why)
{
	struct stat pst;
	int pathfd = ms_walk_open(root, path, flags, &pst, why);

	if (pathfd < 0) {
		if (!*why)
			*why = "the directory cannot be opened now";
		return -1;
	}
	if (!S_ISDIR(pst.st_mode)) {
		*why = "not a directory";
		close(pathfd);
		return -1;
	}
	return reopen_checked(pathfd, &pst, O_DIRECTORY, NULL, why);
}

/*
 * An O_PATH descriptor of what the magic link name below dirfd leads to,
 * once its mount is known to root's table as kernel-served; -errno with
 * *why as ms_walk_stat_link's.
 */
static int open_link_checked(int dirfd, const char *name, const struct ms_walk_root *root,
			     uint64_t *mnt_out, const char **why)
{
	uint64_t mnt, root_mnt;
	int fd, rc = 0;

	*why = NULL;
	/*
	 * A magic link is followed by nd_jump_link without a lookup in the
	 * target's file system, and O_PATH stops before f_op->open: nothing
	 * here reaches a daemon until the caller's fstat or reopen, which wait
	 * for the mount check.
	 */
	fd = openat(dirfd, name, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A link to a mapped file or a program: no directory. */
	if (ms_walk_file_mnt_id(fd, &mnt) < 0) {
		*why = ms_walk_why_mnt_id;
		rc = -EIO;
	} else if (!(ms_walk_root_mnt_id(root, &root_mnt) == 0 && mnt == root_mnt &&
		     ms_walk_own_root_unlisted(root->mounts, mnt)) &&
		   (*why = ms_walk_mount_refused(root->mounts, mnt, NULL, 0, MS_WALK_WHY_LINK_UNLISTED))) {
		rc = -EREMOTE;
	}
	if (rc < 0) {
		close(fd);
		return rc;
	}
	if (mnt_out)
		*mnt_out = mnt;
	return fd;
}

int ms_walk_stat_link_mnt(int dirfd, const char *name, const struct ms_walk_root *root, struct stat *st,
			  uint64_t *mnt, const char **why)
{
	/*
	 * The mount ID read for the check is the file's for good: an open
	 * descriptor's mount never changes, so it is not read again.
	 */
	int fd = open_link_checked(dirfd, name, root, mnt, why), rc = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int ms_walk_stat_link(int dirfd, const char *name, const struct ms_walk_root *root, struct stat *st,
		      const char **why)
{
	return ms_walk_stat_link_mnt(dirfd, name, root, st, NULL, why);
}

int ms_walk_open_link_read(int dirfd, const char *name, const struct ms_walk_root *root,
			   struct stat *st, const char **why)
{
	struct stat rst;
	char self[64];
	int pathfd = open_link_checked(dirfd, name, root, NULL, why), fd;

	if (pathfd < 0)
		return pathfd;
	if (fstat(pathfd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(pathfd);
		*why = "not a regular file";
		return -EINVAL;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pathfd);
	if (fd < 0) {
		*why = "cannot reopen the checked file";
		return -EIO;
	}
	if (fstat(fd, &rst) < 0 || !S_ISREG(rst.st_mode) || !same_inode(&rst, st)) {
		*why = "the reopened file is not the checked one";
		close(fd);
		return -EIO;
	}
	return fd;
}

int ms_walk_root_ours(struct ms_walk_root *root)
{
	*root = (struct ms_walk_root){ .fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) };
	if (root->fd < 0)
		return -errno;
	if (ms_walk_mounts_load(-1, &root->mounts, NULL) < 0) {
		ms_walk_root_release(root);
		return -EIO;
	}
	/* Unknown, it is read at each use instead. */
	root->mnt_known = ms_walk_mnt_id(root->fd, &root->mnt) == 0;
	root->dirs = ms_walk_dircache_new();
	return 0;
}

void ms_walk_root_release(struct ms_walk_root *root)
{
	ms_walk_dircache_free(root->dirs);
	ms_walk_mounts_free(root->mounts);
	if (root->fd >= 0)
		close(root->fd);
	*root = (struct ms_walk_root){ .fd = -1 };
}

int ms_walk_stat_ours(const char *path, struct stat *st, const char **why)
{
	struct ms_walk_root root = { .fd = -1 };
	char cwd[PATH_MAX], *abs = NULL;
	int fd, rc;

	*why = NULL;
	if (path[0] != '/') {
		/* getcwd prints the dentry's path (d_path): no lookup in any file system. */
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (asprintf(&abs, "%s/%s", cwd, path) < 0)
			return -ENOMEM;
		path = abs;
	}
	root.fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root.fd < 0 || ms_walk_mounts_load(-1, &root.mounts, NULL) < 0) {
		rc = root.fd < 0 ? -errno : -EIO;
	} else {
		fd = ms_walk_open(&root, path, MS_WALK_FOLLOW_LAST, st, why);
		rc = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
	ms_walk_mounts_free(root.mounts);
	if (root.fd >= 0)
		close(root.fd);
	free(abs);
	return rc;
}
