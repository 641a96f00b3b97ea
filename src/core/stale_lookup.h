/*
 * stale_lookup.h - what is at a path now, under the root a process's
 * mapping names resolve against; cached.  Internal to the stale verdicts.
 *
 * ms_lookup_root_of picks the directory a process's names resolve against
 * (see stale.h): our own root when the process shares our mount namespace,
 * else /proc/PID/root, opened through the process handle.  Its key (device
 * and inode of that directory, and the mount namespace's inode) identifies
 * it across processes, so lookups are shared by every process with the same
 * root.
 *
 * ms_lookup_path stats a path below a root once per cache lifetime and
 * returns the cached record (valid until ms_lookup_cache_forget or free).
 * ms_lookup_build_id reads the build ID of that file at most once.  Both
 * resolve with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), falling
 * back to openat where openat2 is missing (before Linux 5.6), and both open
 * the name with O_PATH | O_NOFOLLOW only: such an open never reaches a
 * driver or a FIFO (fs/open.c, do_dentry_open returns before f_op->open for
 * O_PATH), so a name swapped for a device, a FIFO or a symlink to one
 * cannot block or wake hardware.  The file is read only after fstat on that
 * descriptor says it is a regular file with the device and inode the lookup
 * recorded, through a reopen of the descriptor itself (/proc/self/fd/N,
 * O_RDONLY | O_NONBLOCK | O_NOCTTY), whose inode is checked again.  A name
 * is never opened for reading, so what is checked is what is read.  A file
 * on a file system served by someone else (fstype.h, by fstatfs on the
 * O_PATH descriptor) is never read: a read there may never return.  In
 * both cases the build ID is MS_LOOKUP_BID_REFUSED and bid_why says why
 * ("the path changed under us: not a regular file now", "file on a fuse
 * file system").
 *
 * ms_lookup_cache_set_race_fn is a test seam: fn runs at each step between
 * the check of a path and the open that follows it, so a test can swap the
 * path there.  Roots taken from the cache afterwards carry it.
 */
#ifndef MAPSCOPE_STALE_LOOKUP_H
#define MAPSCOPE_STALE_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "mapping.h"
#include "proc.h"

enum ms_lookup_bid {
	MS_LOOKUP_BID_UNREAD,
	MS_LOOKUP_BID_HAVE,
	MS_LOOKUP_BID_NONE,   /* not ELF, or no build-ID note */
	MS_LOOKUP_BID_FAILED, /* could not be opened or read, or changed under us */
	MS_LOOKUP_BID_REFUSED, /* not read on purpose (buildid.h): bid_why says why */
};

struct ms_lookup {
	int err;                    /* 0: something is at the path; else errno */
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	mode_t mode;
	const char *unreliable_fs;  /* "btrfs", "overlayfs" or NULL */
	enum ms_lookup_bid bid_state;
	size_t bid_len;
	unsigned char bid[MS_BUILD_ID_MAX];
	char bid_why[64];           /* a reason when not HAVE, or "" */
};

enum ms_lookup_step {
	MS_LOOKUP_BEFORE_OPEN,   /* stat'ed; the build-ID read opens the name next */
	MS_LOOKUP_BEFORE_REOPEN, /* the name is open O_PATH and checked; reopen next */
};

typedef void (*ms_lookup_race_fn)(void *arg, enum ms_lookup_step step, const char *path);

struct ms_lookup_root {
	int fd;       /* -1: unusable, err says why */
	ms_lookup_race_fn race_fn;
	void *race_arg;
	int err;
	bool ours;    /* fd is the cache's own root: not closed on release */
	/*
	 * Another root in our mount namespace (a chroot, either way round):
	 * the kernel gave names against our root where the file is reachable
	 * from it, and against the namespace's root where not, so a name may
	 * hold under ours as well.
	 */
	bool also_ours;
	/*
	 * ms_lookup_root_guess only: our namespace, taken as our root, but the
	 * process may be chrooted in it; ms_lookup_root_settle says.
	 */
	bool unsettled;
	uint64_t key[3];
};

struct ms_lookup_cache;

int ms_lookup_cache_new(struct ms_lookup_cache **out, struct ms_error *err);
void ms_lookup_cache_free(struct ms_lookup_cache *c);
void ms_lookup_cache_forget(struct ms_lookup_cache *c);
void ms_lookup_cache_set_race_fn(struct ms_lookup_cache *c, ms_lookup_race_fn fn, void *arg);

/* Always fills root (fd -1 and err set when it cannot be used). */
/* Our own root, to look names up the way the kernel gave them to us. */
void ms_lookup_root_ours(struct ms_lookup_cache *c, struct ms_lookup_root *root);

void ms_lookup_root_of(struct ms_lookup_cache *c, const struct ms_proc *proc,
		       struct ms_lookup_root *root);
/*
 * ms_lookup_root_of in two steps, for a caller that may not need the
 * second: guess reads only the mount namespace (a process in ours is
 * taken as having our root, marked unsettled); settle then checks its
 * root directory and, for a chroot, opens it.  Settling a settled root
 * does nothing.
 */
void ms_lookup_root_guess(struct ms_lookup_cache *c, const struct ms_proc *proc,
			  struct ms_lookup_root *root);
void ms_lookup_root_settle(struct ms_lookup_cache *c, const struct ms_proc *proc,
			   struct ms_lookup_root *root);
void ms_lookup_root_release(struct ms_lookup_root *root);

/* path: len bytes, absolute.  0 with *out set, or MS_ERR_NOMEM. */
int ms_lookup_path(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
		   const char *path, size_t len, struct ms_lookup **out);

/*
 * The file l describes (l from ms_lookup_path with the same path), opened
 * for reading the checked way above, for other bounded readers (the files
 * view's SONAME); -1 with *why set (static text) when refused.  Close it.
 */
int ms_lookup_open_read(const struct ms_lookup_root *root, const char *path, size_t len,
			const struct ms_lookup *l, const char **why);

/* Fill l's build ID if not yet tried (l from ms_lookup_path with the same path). */
void ms_lookup_build_id(const struct ms_lookup_root *root, const char *path, size_t len,
			struct ms_lookup *l);

#endif
