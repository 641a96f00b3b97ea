/*
 * safewrite.h - open an output file and learn whether we created it.
 *
 * The target is opened with O_WRONLY|O_CREAT|O_CLOEXEC (O_RDWR when the
 * caller must read it back), never O_TRUNC and never O_EXCL, and then
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
 * Kernels before 6.12 answer F_CREATED_QUERY with EINVAL.  The probe is made
 * on the parent directory's descriptor before anything is created, and on
 * EINVAL the portable sequence (systemd's openat_report_new) is used
 * instead: open without O_CREAT; on ENOENT open with O_CREAT|O_EXCL; on
 * EEXIST start again.  Both give the same answers.  The fcntl call is a
 * seam (struct ms_safewrite_opts.fcntl_fn) so tests can play an old kernel.
 *
 * The last path component is opened with O_NOFOLLOW.  A symlink there to an
 * existing file is followed (the file "existed"); a dangling symlink is an
 * error naming its target, so O_CREAT never creates a file somewhere the
 * user did not name.
 *
 * New files get mode 0644 (or opts.mode), less the umask.
 */
#ifndef MAPSCOPE_SAFEWRITE_H
#define MAPSCOPE_SAFEWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* fcntl(2) with an int argument; returns -1 and sets errno on failure. */
typedef int (*ms_fcntl_fn)(int fd, int cmd);

struct ms_safewrite_opts {
	bool no_clobber;      /* refuse an existing file, leaving it untouched */
	bool keep;            /* keep an existing file's contents (append) */
	bool readable;        /* open O_RDWR: the caller reads what is there */
	mode_t mode;          /* 0 means 0644 */
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
};

/*
 * Open path for writing.  Returns 0 with *w filled, or a negative
 * ms_errcode with err filled (sys_errno EEXIST for a refused existing file
 * under no_clobber, ELOOP for a dangling symlink).
 */
int ms_safewrite_open(const char *path, const struct ms_safewrite_opts *opts,
		      struct ms_safewrite *w, struct ms_error *err);

/* Write all of buf (short writes and EINTR are continued).  0 or MS_ERR_IO. */
int ms_safewrite_write(struct ms_safewrite *w, const void *buf, size_t len,
		       struct ms_error *err);

/*
 * Close; a failing close (NFS reports write errors there) aborts like a
 * failed write.  0 or MS_ERR_IO.  *w is released either way.
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

/* Write all of buf to an already open fd (stdout).  0, or -errno. */
int ms_write_all(int fd, const void *buf, size_t len);

#endif
