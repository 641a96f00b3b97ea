/*
 * fuse_server.h - a one-file FUSE file system over raw /dev/fuse, for tests
 * of what mapscope does with files served by a user's daemon.
 *
 * fuse_server_start mounts a directory holding one regular file, NAME,
 * with the bytes of a local file, and serves it from a forked process
 * (INIT, LOOKUP, GETATTR, OPEN, READ, STATFS, FLUSH, RELEASE; ENOSYS for
 * the rest).  Only the server holds the /dev/fuse descriptor, so killing it
 * aborts the connection (fs/fuse/dev.c, fuse_dev_release ->
 * fuse_abort_conn), which ends every request still waiting, even for a
 * process in uninterruptible sleep.
 *
 * Modes, switched at any time through shared memory:
 *   - hang_reads: READ requests are never answered, as a hostile daemon
 *     would do;
 *   - new_inode: LOOKUP answers another node (inode 3 instead of 2), as if
 *     the file had been replaced;
 *   - hang_lookups: LOOKUP requests are never answered, so any path walk
 *     that steps into the file system blocks in fuse_lookup;
 *   - hang_getattrs: GETATTR requests are never answered.  Attributes are
 *     answered valid for 0 s, so any stat of the file (through
 *     /proc/PID/exe too) asks the daemon and blocks in fuse_do_getattr.
 * The file is mode 0755 and the mount is allow_other, so another user can
 * map or run it (fuse_exec_in_child).
 * fuse_server_start_over mounts the file system over a directory the test
 * gives (hiding what is below it) instead of a mount point of its own, and
 * leaves that directory in place when stopped.
 * Needs root (mount(2)) and /dev/fuse; fuse_server_start says why not.
 */
#ifndef MAPSCOPE_TESTS_FUSE_SERVER_H
#define MAPSCOPE_TESTS_FUSE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define FUSE_SERVER_NAME "lib.so"

struct fuse_modes {
	volatile int hang_reads;
	volatile int new_inode;
	volatile int reads_hung; /* READs left unanswered so far */
	volatile int drop_caches_failed;
	volatile int hang_lookups;
	volatile int lookups_hung; /* LOOKUPs left unanswered so far */
	volatile int hang_getattrs;
	volatile int getattrs_hung; /* GETATTRs left unanswered so far */
};

struct fuse_server {
	char mnt[256];       /* the mount point */
	char path[300];      /* mnt + "/" FUSE_SERVER_NAME */
	pid_t pid;           /* the server; 0 once stopped */
	struct fuse_modes *modes;
	bool mounted;
	bool borrowed_mnt;   /* mnt is the test's: not removed on stop */
	int reads_hung;      /* the modes' counts when it was stopped */
	int lookups_hung;
	int getattrs_hung;
	bool aborted;        /* stopped by fuse_server_abort */
	char why[512];       /* fuse_server_run's */
};

/* 0, or -1 with why (a static string) set: not root, no /dev/fuse, mount failed. */
int fuse_server_start(struct fuse_server *s, const char *content_path, const char **why);
/* The same, mounted over the existing directory over (hang modes can be set once it returns). */
int fuse_server_start_over(struct fuse_server *s, const char *content_path, const char *over,
			   const char **why);
/*
 * Fork a child that maps the served file and reads its first page (so READ
 * must be answered then), and waits to be killed.  0 with *pid and *start
 * (the mapping's address; start may be NULL), or -1.
 */
int fuse_server_map_in_child(struct fuse_server *s, pid_t *pid, unsigned long *start);
/* The same for any path, as uid (and gid uid) unless uid is 0. */
int fuse_map_in_child(const char *path, uid_t uid, pid_t *pid, unsigned long *start);
/*
 * Fork a child that runs the program at path, as uid (and gid uid) unless
 * uid is 0, with its stdout on a pipe: 0 with *pid once the program wrote
 * its first byte there (tests/ms-sleeper), or -1 if it did not within
 * TU_DEADLINE_MS.  The caller kills and reaps it.
 */
int fuse_exec_in_child(const char *path, uid_t uid, pid_t *pid);
/*
 * From now on READ is never answered, nothing of the file is left in the
 * page cache (an open without FOPEN_KEEP_CACHE invalidates it, then
 * POSIX_FADV_DONTNEED and drop_caches), and the path names a new inode.
 */
void fuse_server_hang_reads(struct fuse_server *s);
/* Kill the server (aborting its connection), unmount (MNT_DETACH), remove mnt. */
void fuse_server_stop(struct fuse_server *s);
/*
 * A run's deadline hook (msrun.h, on_timeout; arg is the server): stop it,
 * which releases whatever blocked on it, and mark it aborted.
 */
void fuse_server_abort(void *arg);
/*
 * Run mapscope (msrun.h) with args under a 10 s deadline that aborts s.
 * Its stdout (malloc'd; NULL if it could not run) and *status, with *why
 * NULL when it finished on its own, left no mapscope process in D state and
 * the daemon no request unanswered; otherwise *why says which (in s).
 */
char *fuse_server_run(struct fuse_server *s, const char *const *args, int *status, const char **why);
/* Kill the child mapping or running the file (*mapper; 0: none), stop, then reap it. */
void fuse_server_stop_mapped(struct fuse_server *s, pid_t *mapper);

#endif
