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
 * ms_lookup_build_id reads the build ID of that file at most once.  Both use
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), falling back to openat
 * where openat2 is missing (before Linux 5.6).  Only regular files are
 * opened for reading, with O_NONBLOCK, so a FIFO or device at the path
 * cannot block or wake hardware.
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

struct ms_lookup_root {
	int fd;       /* -1: unusable, err says why */
	int err;
	bool ours;    /* fd is the cache's own root: not closed on release */
	uint64_t key[3];
};

struct ms_lookup_cache;

int ms_lookup_cache_new(struct ms_lookup_cache **out, struct ms_error *err);
void ms_lookup_cache_free(struct ms_lookup_cache *c);
void ms_lookup_cache_forget(struct ms_lookup_cache *c);

/* Always fills root (fd -1 and err set when it cannot be used). */
void ms_lookup_root_of(struct ms_lookup_cache *c, const struct ms_proc *proc,
		       struct ms_lookup_root *root);
void ms_lookup_root_release(struct ms_lookup_root *root);

/* path: len bytes, absolute.  0 with *out set, or MS_ERR_NOMEM. */
int ms_lookup_path(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
		   const char *path, size_t len, struct ms_lookup **out);

/* Fill l's build ID if not yet tried (l from ms_lookup_path with the same path). */
void ms_lookup_build_id(const struct ms_lookup_root *root, const char *path, size_t len,
			struct ms_lookup *l);

#endif
