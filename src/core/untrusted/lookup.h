/*
 * lookup.h - what is at a path now, under the root a process's
 * mapping names resolve against; cached.  For the stale verdicts, the symbols and the files facts.
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
 * ms_lookup_build_id (elf/lookup_buildid.h) reads the build ID of that file
 * at most once, through ms_lookup_open_read.  Both walk the path through
 * untrusted_walk.h, the one owner of user-controlled paths: one component
 * at a time inside the root, never into a mount of a daemon-served file
 * system, as the root's mount table says (our mountinfo for our root,
 * /proc/PID/mountinfo for another), and never following the last component.
 * A walk refused that way leaves err EREMOTE and why the walk's reason for
 * the cause (untrusted_walk.h: MS_WALK_WHY_SERVED, "the path crosses a
 * daemon-served mount", only for a mount of such a type; another for a
 * mount the table does not know): the stale verdict is then unknown, never
 * deleted or replaced.  The file is read
 * only through a reopen of the checked O_PATH descriptor (/proc/self/fd/N),
 * after fstat says it is a regular file with the device and inode the
 * lookup recorded, and its inode is checked again; a name is never opened
 * for reading, so what is checked is what is read.  When refused, the build
 * ID is MS_LOOKUP_BID_REFUSED and bid_why says why ("the path changed under
 * us: not a regular file now", "the path crosses a daemon-served mount").
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
#include <sys/stat.h>
#include <sys/types.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "proc/proc.h"
#include "untrusted/untrusted_walk.h"

enum ms_lookup_bid {
	MS_LOOKUP_BID_UNREAD,
	MS_LOOKUP_BID_HAVE,
	MS_LOOKUP_BID_NONE,   /* not ELF, or no build-ID note */
	MS_LOOKUP_BID_FAILED, /* could not be opened or read, or changed under us */
	MS_LOOKUP_BID_REFUSED, /* not read on purpose (buildid.h): bid_why says why */
};

struct ms_lookup {
	int err;                    /* 0: something is at the path; else errno */
	const char *why;            /* with err, when the walk refused on purpose (static), else NULL */
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	mode_t mode;
	/*
	 * The mount the walk ended on (mnt_known): the file's, or, when
	 * nothing is at the path, the deepest directory's it reached.
	 */
	bool mnt_known;
	uint64_t mnt;
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
	int fd;       /* -1: unusable, err (and why, when refused on purpose) says why */
	struct ms_walk_mounts *mounts; /* the mount table walks from fd check (untrusted_walk.h) */
	bool own_mounts;
	ms_lookup_race_fn race_fn;
	void *race_arg;
	int err;
	const char *why;
	bool ours;    /* fd is the cache's own root: not closed on release */
	bool mnt_known; /* fd's mount ID is mnt (ours: read once per cache) */
	uint64_t mnt;
	/* ours: the cache's directories kept between walks, dropped when it forgets (untrusted_walk.h) */
	struct ms_walk_dircache *dirs;
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

/*
 * Lookups walk a mapping's name following only symlinks that root alone
 * can have made (untrusted_walk.h, MS_WALK_ROOT_SYMLINKS): the kernel's
 * names hold none, so a user's on the way means the name is not a path
 * here (nameproof.h).
 */
#define MS_LOOKUP_WALK_FLAGS MS_WALK_ROOT_SYMLINKS

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
/* The root as untrusted_walk.h takes it, for walks with other flags (debug files). */
struct ms_walk_root ms_lookup_walk_root(const struct ms_lookup_root *root);

/* path: len bytes, absolute.  0 with *out set, or MS_ERR_NOMEM. */
int ms_lookup_path(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
		   const char *path, size_t len, struct ms_lookup **out);

/*
 * ms_lookup_path, keeping the walk's O_PATH descriptor when it walked the
 * path now (the record was not cached) and found a regular file: kept->fd
 * (else -1) and its stat, which ms_lookup_open_kept then reopens for
 * reading the checked way instead of walking the path a second time.  A
 * reader that looks a path up only to open it walks it once.  Close
 * kept->fd when it is not given to ms_lookup_open_kept.
 */
struct ms_lookup_kept {
	int fd;
	struct stat st;
};
int ms_lookup_path_kept(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
			const char *path, size_t len, struct ms_lookup **out, struct ms_lookup_kept *kept);

/*
 * "btrfs" or "overlayfs" when fd (O_PATH will do) is on one, whose st_dev
 * is not the device PROCMAP_QUERY reports for the mapped inode; else NULL.
 * Only for a descriptor whose mount is known to be kernel-served: it asks
 * the file system (fstatfs).
 */
const char *ms_lookup_unreliable_fs(int fd);

/*
 * The file l describes (l from ms_lookup_path with the same path), opened
 * for reading the checked way above, for other bounded readers (the files
 * view's SONAME); -1 with *why set (static text) when refused.  Close it.
 */
int ms_lookup_open_read(const struct ms_lookup_root *root, const char *path, size_t len,
			const struct ms_lookup *l, const char **why);
/*
 * The same through kept (ms_lookup_path_kept, for l and path): its
 * descriptor reopened (through /proc/self/fd, checked to be the same
 * inode; kept->fd is then -1) when it holds one, else ms_lookup_open_read.
 * The race seam sees MS_LOOKUP_BEFORE_REOPEN only: nothing is opened by name.
 */
int ms_lookup_open_kept(const struct ms_lookup_root *root, const char *path, size_t len,
			const struct ms_lookup *l, struct ms_lookup_kept *kept, const char **why);

#endif
