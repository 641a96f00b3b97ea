#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc/fstype.h"
#include "base/hash.h"
#include "untrusted/lookup.h"
#include "untrusted/untrusted_walk.h"

#ifndef BTRFS_SUPER_MAGIC
#define BTRFS_SUPER_MAGIC 0x9123683e
#endif
#ifndef OVERLAYFS_SUPER_MAGIC
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#endif

/*
 * Buckets at first (one page: a stale run's cache holds a few hundred
 * paths, and every page a new cache clears costs a fault); the table
 * grows fourfold past two entries a bucket.
 */
#define CACHE_BUCKETS 512u
#define CACHE_BUCKETS_MAX (1u << 22)

struct entry {
	struct entry *next;
	uint64_t key[3];
	uint64_t hash;
	size_t len;
	struct ms_lookup value;
	char path[];
};

struct ms_lookup_cache {
	int root_fd;       /* our own root */
	uint64_t root_key[3];
	ms_lookup_race_fn race_fn;
	void *race_arg;
	struct ms_walk_mounts *mounts; /* our root's, read on first use */
	bool mounts_tried;
	/* root_fd's mount ID, read once: it cannot change while root_fd is open. */
	bool root_mnt_tried, root_mnt_known;
	uint64_t root_mnt;
	/* The directories the last walk from root_fd passed, until forgotten (NULL: none). */
	struct ms_walk_dircache *dirs;
	/*
	 * The file system type of the last device a lookup ended on: a device
	 * number stands for one superblock while it is mounted, and files of
	 * one process mostly share a few; forgotten with the entries.
	 */
	bool fs_known;
	dev_t fs_dev;
	const char *fs_unreliable;
	struct entry **buckets; /* nbuckets of them, a power of two */
	size_t nbuckets;
	size_t count;
};

int ms_lookup_cache_new(struct ms_lookup_cache **out, struct ms_error *err)
{
	struct ms_lookup_cache *c = calloc(1, sizeof(*c));
	struct stat st;
	int e;

	if (!c || !(c->buckets = calloc(CACHE_BUCKETS, sizeof(*c->buckets)))) {
		free(c);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	c->nbuckets = CACHE_BUCKETS;
	c->root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0 || fstat(c->root_fd, &st) < 0) {
		e = errno;
		if (c->root_fd >= 0)
			close(c->root_fd);
		free(c->buckets);
		free(c);
		return ms_error_set(err, MS_ERR_IO, e, "cannot open /: %s", strerror(e));
	}
	c->root_key[0] = (uint64_t)st.st_dev;
	c->root_key[1] = (uint64_t)st.st_ino;
	c->root_key[2] = ms_proc_mntns_at(AT_FDCWD, "/proc/self/ns/mnt", &e);
	*out = c;
	return 0;
}

void ms_lookup_cache_forget(struct ms_lookup_cache *c)
{
	ms_walk_dircache_clear(c->dirs);
	c->fs_known = false;
	c->count = 0;
	for (size_t i = 0; i < c->nbuckets; i++) {
		struct entry *e = c->buckets[i];

		while (e) {
			struct entry *next = e->next;

			free(e);
			e = next;
		}
		c->buckets[i] = NULL;
	}
}

void ms_lookup_cache_set_race_fn(struct ms_lookup_cache *c, ms_lookup_race_fn fn, void *arg)
{
	c->race_fn = fn;
	c->race_arg = arg;
}

void ms_lookup_cache_free(struct ms_lookup_cache *c)
{
	if (!c)
		return;
	ms_lookup_cache_forget(c);
	ms_walk_dircache_free(c->dirs);
	free(c->buckets);
	ms_walk_mounts_free(c->mounts);
	close(c->root_fd);
	free(c);
}

void ms_lookup_root_ours(struct ms_lookup_cache *c, struct ms_lookup_root *root)
{
	memset(root, 0, sizeof(*root));
	root->fd = c->root_fd;
	root->ours = true;
	root->race_fn = c->race_fn;
	root->race_arg = c->race_arg;
	memcpy(root->key, c->root_key, sizeof(root->key));
	/* Unreadable: no table, and every walk from this root is refused. */
	if (!c->mounts_tried) {
		c->mounts_tried = true;
		ms_walk_mounts_load(-1, &c->mounts, NULL);
	}
	root->mounts = c->mounts;
	if (!c->root_mnt_tried) {
		c->root_mnt_tried = true;
		c->root_mnt_known = ms_walk_mnt_id(c->root_fd, &c->root_mnt) == 0;
	}
	root->mnt_known = c->root_mnt_known;
	root->mnt = c->root_mnt;
	if (!c->dirs)
		c->dirs = ms_walk_dircache_new();
	root->dirs = c->dirs;
}

/*
 * The process's own root directory, under namespace mntns, and the mount
 * table its walks check (its mountinfo prints mount points relative to that
 * root).  The root may itself sit on a daemon-served mount (a chroot or a
 * container's root inside one, made in a user namespace): fstat there could
 * wait on the daemon, so its mount is checked first.
 */
static void open_root(int dirfd, uint64_t mntns, bool also_ours, struct ms_lookup_root *root)
{
	struct stat st;
	const char *why = NULL;
	int fd;

	root->ours = false;
	root->also_ours = also_ours;
	root->fd = openat(dirfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root->fd < 0) {
		root->err = errno;
		return;
	}
	if (ms_walk_mounts_load(dirfd, &root->mounts, NULL) < 0)
		root->mounts = NULL;
	root->own_mounts = root->mounts != NULL;
	fd = ms_walk_open(&(struct ms_walk_root){ .fd = root->fd, .mounts = root->mounts }, "/", 0, &st, &why);
	if (fd < 0) {
		root->err = -fd;
		root->why = why;
		ms_lookup_root_release(root);
		return;
	}
	close(fd);
	root->key[0] = (uint64_t)st.st_dev;
	root->key[1] = (uint64_t)st.st_ino;
	root->key[2] = mntns;
}

void ms_lookup_root_guess(struct ms_lookup_cache *c, const struct ms_proc *proc,
			  struct ms_lookup_root *root)
{
	uint64_t mntns;
	int e;

	memset(root, 0, sizeof(*root));
	root->fd = -1;
	root->race_fn = c->race_fn;
	root->race_arg = c->race_arg;
	mntns = ms_proc_mntns_at(ms_proc_dirfd(proc), "ns/mnt", &e);
	/* No ns/mnt at all (CONFIG_NAMESPACES off): everyone shares ours. */
	if (e == ENOENT && c->root_key[2] == 0)
		mntns = 0;
	else if (e) {
		root->err = e;
		return;
	}
	if (mntns == c->root_key[2]) {
		ms_lookup_root_ours(c, root);
		root->unsettled = true;
		return;
	}
	open_root(ms_proc_dirfd(proc), mntns, false, root);
}

void ms_lookup_root_settle(struct ms_lookup_cache *c, const struct ms_proc *proc,
			   struct ms_lookup_root *root)
{
	struct stat st;

	if (!root->unsettled)
		return;
	root->unsettled = false;
	/*
	 * The same namespace is not the same root: a chroot shares it.  Its
	 * root directory's identity says; where it cannot be read, ours is
	 * the best guess, as before.
	 */
	if (fstatat(ms_proc_dirfd(proc), "root", &st, 0) < 0 ||
	    ((uint64_t)st.st_dev == c->root_key[0] && (uint64_t)st.st_ino == c->root_key[1]))
		return;
	open_root(ms_proc_dirfd(proc), c->root_key[2], true, root);
}

void ms_lookup_root_of(struct ms_lookup_cache *c, const struct ms_proc *proc,
		       struct ms_lookup_root *root)
{
	ms_lookup_root_guess(c, proc, root);
	ms_lookup_root_settle(c, proc, root);
}

void ms_lookup_root_release(struct ms_lookup_root *root)
{
	if (root->fd >= 0 && !root->ours)
		close(root->fd);
	root->fd = -1;
	if (root->own_mounts)
		ms_walk_mounts_free(root->mounts);
	root->mounts = NULL;
	root->own_mounts = false;
}

/* Keyed per run (hash.h): the paths are named by the processes judged. */
static uint64_t hash_of(const uint64_t key[3], const char *path, size_t len)
{
	uint64_t h = ms_hash_seed();

	for (size_t i = 0; i < 3; i++)
		h = ms_hash_mix(h, key[i]);
	return ms_hash_bytes(h, path, len);
}

struct ms_walk_root ms_lookup_walk_root(const struct ms_lookup_root *root)
{
	return (struct ms_walk_root){ .fd = root->fd, .mounts = root->mounts, .mnt_known = root->mnt_known,
				     .mnt = root->mnt, .dirs = root->dirs };
}

/*
 * The last component is never followed: the kernel's name for a mapping
 * is the file's own, so a symlink there is another thing at the path.
 */
/* kept (may be NULL) takes the walk's descriptor of a regular file (ms_lookup_path_kept). */
static void stat_path(struct ms_lookup_cache *c, const struct ms_lookup_root *root, const char *path,
		      struct ms_lookup *l, struct ms_lookup_kept *kept)
{
	struct ms_walk_root wr = ms_lookup_walk_root(root);
	struct stat st;
	int fd = ms_walk_open_mnt(&wr, path, MS_LOOKUP_WALK_FLAGS, &st, &l->mnt, &l->mnt_known, &l->why);

	if (fd < 0) {
		l->err = -fd;
		return;
	}
	l->err = 0;
	l->dev_major = major(st.st_dev);
	l->dev_minor = minor(st.st_dev);
	l->inode = (uint64_t)st.st_ino;
	l->mode = st.st_mode;
	/* The walk has checked this mount is served by the kernel. */
	if (!c->fs_known || c->fs_dev != st.st_dev) {
		c->fs_unreliable = ms_lookup_unreliable_fs(fd);
		c->fs_dev = st.st_dev;
		c->fs_known = true;
	}
	l->unreliable_fs = c->fs_unreliable;
	if (kept && S_ISREG(st.st_mode)) {
		kept->fd = fd;
		kept->st = st;
		return;
	}
	close(fd);
}

/*
 * fstatfs works on O_PATH descriptors (fs/statfs.c); callers know the
 * mount is served by the kernel, so it cannot wait on a daemon's STATFS.
 */
const char *ms_lookup_unreliable_fs(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return NULL;
	if ((unsigned long)sfs.f_type == (unsigned long)BTRFS_SUPER_MAGIC)
		return "btrfs";
	if ((unsigned long)sfs.f_type == (unsigned long)OVERLAYFS_SUPER_MAGIC)
		return "overlayfs";
	return NULL;
}

/* The path as a C string: kernel names hold no NUL, but be sure. */
static char *path_dup(const char *path, size_t len)
{
	if (memchr(path, '\0', len))
		return NULL;
	return strndup(path, len);
}

/* Four times the buckets, when memory allows; else the chains grow longer. */
static void grow(struct ms_lookup_cache *c)
{
	size_t n = c->nbuckets * 4;
	struct entry **b;

	if (n > CACHE_BUCKETS_MAX || !(b = calloc(n, sizeof(*b))))
		return;
	for (size_t i = 0; i < c->nbuckets; i++)
		for (struct entry *e = c->buckets[i], *next; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = n;
}

static int lookup_path(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
		       const char *path, size_t len, struct ms_lookup **out, struct ms_lookup_kept *kept)
{
	uint64_t h = hash_of(root->key, path, len);
	struct entry **bucket = &c->buckets[h & (c->nbuckets - 1)];
	struct entry *e;
	char *cpath;

	for (e = *bucket; e; e = e->next)
		if (e->hash == h && e->len == len && !memcmp(e->key, root->key, sizeof(e->key)) &&
		    !memcmp(e->path, path, len)) {
			*out = &e->value;
			return 0;
		}
	if (len > PATH_MAX * 2 || !(e = calloc(1, sizeof(*e) + len + 1)))
		return MS_ERR_NOMEM;
	memcpy(e->key, root->key, sizeof(e->key));
	e->hash = h;
	e->len = len;
	memcpy(e->path, path, len);
	e->path[len] = '\0';
	cpath = path_dup(path, len);
	if (!cpath)
		e->value.err = EINVAL;
	else
		stat_path(c, root, cpath, &e->value, kept);
	free(cpath);
	/* stat_path walked nothing of the table: the bucket is still this one. */
	e->next = *bucket;
	*bucket = e;
	*out = &e->value;
	if (++c->count > 2 * c->nbuckets)
		grow(c);
	return 0;
}

int ms_lookup_path(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
		   const char *path, size_t len, struct ms_lookup **out)
{
	return lookup_path(c, root, path, len, out, NULL);
}

int ms_lookup_path_kept(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
			const char *path, size_t len, struct ms_lookup **out, struct ms_lookup_kept *kept)
{
	kept->fd = -1;
	return lookup_path(c, root, path, len, out, kept);
}

/* The walk's race seam, in the lookup's own terms (test_stale_race.c). */
static void race_point(void *arg, enum ms_walk_step step, const char *path)
{
	const struct ms_lookup_root *root = arg;

	root->race_fn(root->race_arg,
		      step == MS_WALK_BEFORE_OPEN ? MS_LOOKUP_BEFORE_OPEN : MS_LOOKUP_BEFORE_REOPEN, path);
}

static int open_checked(const struct ms_lookup_root *root, const char *path,
			const struct ms_lookup *l, const char **why)
{
	struct ms_walk_root wr = ms_lookup_walk_root(root);
	struct stat expect = { .st_dev = makedev(l->dev_major, l->dev_minor), .st_ino = (ino_t)l->inode };

	return ms_walk_open_read(&wr, path, MS_LOOKUP_WALK_FLAGS, &expect, root->race_fn ? race_point : NULL,
				 (void *)root, NULL, why);
}

int ms_lookup_open_kept(const struct ms_lookup_root *root, const char *path, size_t len,
			const struct ms_lookup *l, struct ms_lookup_kept *kept, const char **why)
{
	int fd = kept->fd;

	if (fd < 0)
		return ms_lookup_open_read(root, path, len, l, why);
	kept->fd = -1;
	if (root->race_fn)
		root->race_fn(root->race_arg, MS_LOOKUP_BEFORE_REOPEN, path);
	return ms_walk_reopen_read(fd, &kept->st, NULL, why);
}

int ms_lookup_open_read(const struct ms_lookup_root *root, const char *path, size_t len,
			const struct ms_lookup *l, const char **why)
{
	char *cpath;
	int fd;

	*why = "no regular file at the path";
	if (l->err || !S_ISREG(l->mode))
		return -1;
	*why = "a name that is not a path";
	if (!(cpath = path_dup(path, len)))
		return -1;
	fd = open_checked(root, cpath, l, why);
	free(cpath);
	return fd;
}
