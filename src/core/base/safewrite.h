/*
 * safewrite.h - open an output file and learn whether we created it.
 *
 * The directory holding the target may belong to someone else (the attacker
 * model in DESIGN.md): a user can plant a symlink, a FIFO or a hard link at
 * the name, or swap one in between two system calls.  So:
 *   - the last path component is never followed: every open is O_NOFOLLOW,
 *     and a symlink there (to an existing file or dangling) is refused, with
 *     an error naming it a symlink;
 *   - every open is O_NONBLOCK|O_NOCTTY, so a FIFO never blocks and a tty
 *     never becomes ours;
 *   - before opening, fstatat (no follow) classifies what is at the name:
 *     anything but a regular file (FIFO, directory, device, socket) is
 *     refused without being opened;
 *   - after opening, fstat on the descriptor decides again, since the name
 *     may have changed meanwhile; nothing is written or truncated until it
 *     says a regular file that passes every check;
 *   - an existing file not owned by the effective uid, or with other hard
 *     links, is refused unless opts.force (the CLI's --force);
 *   - new files get mode 0600 (or opts.mode), less the umask: a map of
 *     another process's address space defeats its ASLR.
 * A refused target is left exactly as it was.
 *
 * The target is opened with O_WRONLY|O_CREAT (O_RDWR when the caller must
 * read it back), never O_TRUNC and never O_EXCL, and then
 * fcntl(F_CREATED_QUERY) (Linux 6.12, fs/fcntl.c) says whether this open
 * created it.  That answer drives everything else:
 *   - created: the file is ours.  If a later write or the close fails,
 *     ms_safewrite_abort unlinks it, after checking that the name still
 *     refers to the inode we created.  A file we did not create is never
 *     removed.
 *   - existed, with no_clobber: the descriptor is closed without a byte
 *     written or truncated, and the open fails with sys_errno EEXIST.
 *   - existed, with keep: the contents stay (a recording appends to them).
 *   - existed otherwise: it is truncated, and the caller reports
 *     "overwrote".
 *
 * With opts.atomic the target is never opened at all: readers of the name
 * (node_exporter's textfile collector) must see the old document or the new
 * one, never half of either.  So:
 *   - ms_safewrite_open creates a temporary file beside the target, named
 *     "." + the target's name + "." + 8 random hex digits, with
 *     O_CREAT|O_EXCL|O_NOFOLLOW (a name someone planted gives EEXIST and
 *     another name); it is ours, and every failure unlinks it (checking
 *     its inode first, as above);
 *   - ms_safewrite_close writes nothing more: it fsyncs, closes, then
 *     renameat()s the temporary over the target.  rename never follows a
 *     symlink at the target: a link planted there is itself replaced, and
 *     what it points to is untouched.  Nor does it write through what it
 *     replaces, so hard links elsewhere keep their contents.  no_clobber
 *     uses renameat2(RENAME_NOREPLACE), which cannot race;
 *   - what is at the target is judged as above, at open and again just
 *     before the rename, except that a symlink or a file with other hard
 *     links is acceptable.  A directory, FIFO, device or socket there is
 *     still refused, and another user's file needs force;
 *   - *created (and w->created) say whether the target existed at open.
 * The name of the temporary could be swapped between the check of its
 * inode and the rename only by someone who may rename entries in that
 * directory (not sticky, or owner), and they could rename their own file
 * over the target at any time anyway.  keep and readable make no sense
 * here and are refused with MS_ERR_INVAL.
 *
 * Kernels before 6.12 answer F_CREATED_QUERY with EINVAL.  The probe is made
 * on the parent directory's descriptor before anything is created, and on
 * EINVAL the portable sequence (systemd's openat_report_new) is used
 * instead: open without O_CREAT; on ENOENT open with O_CREAT|O_EXCL; on
 * EEXIST start again.  Both give the same answers and make the same checks.
 * The fcntl call is a seam (struct ms_safewrite_opts.fcntl_fn) so tests can
 * play an old kernel.
 */
#ifndef MAPSCOPE_SAFEWRITE_H
#define MAPSCOPE_SAFEWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

/* fcntl(2) with an int argument; returns -1 and sets errno on failure. */
typedef int (*ms_fcntl_fn)(int fd, int cmd);

struct ms_safewrite_opts {
	bool no_clobber;      /* refuse an existing file, leaving it untouched */
	bool keep;            /* keep an existing file's contents (append) */
	bool readable;        /* open O_RDWR: the caller reads what is there */
	bool force;           /* accept another owner's file, or one with other links */
	bool atomic;          /* write a temporary beside it, then rename over it */
	mode_t mode;          /* 0 means 0600 */
	ms_fcntl_fn fcntl_fn; /* NULL: the real fcntl; tests answer EINVAL */
};

struct ms_safewrite {
	int fd;
	bool created;       /* this open created the file */
	bool used_fallback; /* F_CREATED_QUERY was unavailable */
	int dirfd;          /* the parent directory, O_PATH */
	char *base;         /* the last path component */
	char *path;         /* as given, for messages */
	dev_t dev;          /* identity of the file, to unlink only ours */
	ino_t ino;
	char *tmp;          /* atomic: the temporary's name, else NULL */
	struct ms_safewrite_opts opts; /* atomic: as given, for the recheck before the rename */
};

/*
 * Open path for writing.  Returns 0 with *w filled, or a negative
 * ms_errcode with err filled.  The refusals, each naming the file:
 *   - MS_ERR_IO, sys_errno EEXIST: it exists and no_clobber was asked;
 *   - MS_ERR_IO, sys_errno ELOOP: a symlink (the message says where to);
 *   - MS_ERR_IO, sys_errno EISDIR, ENXIO (FIFO, socket) or ENODEV (device):
 *     not a regular file;
 *   - MS_ERR_NOACCESS, sys_errno EPERM: another owner's file, or one with
 *     other hard links, without force.  No other failure gives this pair,
 *     so a front end can tell the user about its --force.
 */
int ms_safewrite_open(const char *path, const struct ms_safewrite_opts *opts,
		      struct ms_safewrite *w, struct ms_error *err);

/*
 * The same for the entry name (no slash) of an open directory (an O_PATH
 * descriptor will do; it is duplicated), for a caller that walked to it
 * itself (confdir.h).  path names the file in messages.
 */
int ms_safewrite_openat(int dirfd, const char *name, const char *path,
			const struct ms_safewrite_opts *opts, struct ms_safewrite *w,
			struct ms_error *err);

/* Write all of buf (short writes and EINTR are continued).  0 or MS_ERR_IO. */
int ms_safewrite_write(struct ms_safewrite *w, const void *buf, size_t len,
		       struct ms_error *err);

/*
 * Close; a failing close (NFS reports write errors there) aborts like a
 * failed write.  0 or MS_ERR_IO.  *w is released either way.  Atomic: fsync,
 * close and rename over the target, or any of the refusals of the open.
 */
int ms_safewrite_close(struct ms_safewrite *w, struct ms_error *err);

/* Give up: unlink the file if we created it, close, release *w. */
void ms_safewrite_abort(struct ms_safewrite *w);

/*
 * The whole cycle for one document: open, write len bytes, close, abort on
 * any failure.  *created (may be NULL) says created or overwrote.
 */
int ms_safewrite_file(const char *path, const struct ms_safewrite_opts *opts,
		      const void *data, size_t len, bool *created,
		      struct ms_error *err);
/* The same through ms_safewrite_openat. */
int ms_safewrite_file_at(int dirfd, const char *name, const char *path,
			 const struct ms_safewrite_opts *opts, const void *data, size_t len,
			 bool *created, struct ms_error *err);

/*
 * A directory only root may change, for files root writes there later by
 * name (a cache another library fills).  path is walked from dirfd (from
 * "/" when absolute) one component at a time, never through a symbolic
 * link (O_PATH|O_NOFOLLOW|O_DIRECTORY); a missing level is made 0700.
 * dirfd itself and every level must be a directory root owns that neither
 * group nor others may write: otherwise someone else could put a link in
 * a level and steer root's later writes.  0, or MS_ERR_NOACCESS (a level
 * is another's, writable by others, a symbolic link or not a directory)
 * or MS_ERR_IO, with err naming the level.
 */
int ms_safewrite_root_dir(int dirfd, const char *path, struct ms_error *err);
/*
 * The same, missing levels made with mode (whatever the umask), and the
 * last level left open (O_PATH) in *out on success, for a caller that
 * then creates its files there with openat.
 */
int ms_safewrite_root_dir_open(int dirfd, const char *path, mode_t mode, int *out, struct ms_error *err);

/* Write all of buf to an already open fd (stdout).  0, or -errno. */
int ms_write_all(int fd, const void *buf, size_t len);

#endif
