/*
 * untrusted_walk.h - the one place that walks and opens a path a user
 * controls.
 *
 * What: ms_walk_open resolves an absolute path below a root directory
 * descriptor one component at a time, as systemd's chase() does, and
 * returns an O_PATH descriptor of what it names.  ms_walk_open_read goes on
 * to open that very file for reading, the checked way.  Every lookup of a
 * path taken from a mapping name, and every debug-file lookup, comes here,
 * so a reviewer checks one file.
 *
 * Why: a user chooses what sits at every component of such a path at any
 * moment: a symlink out of the root or to a root-only file, a FIFO or a
 * device, or a FUSE file system whose daemon never answers LOOKUP.  A kernel
 * path walk (openat2 with RESOLVE_IN_ROOT included) crosses mounts by
 * itself, and one step into a FUSE mount parks the walker in
 * fuse_lookup, in uninterruptible sleep, until the daemon dies.
 *
 * Guarantees:
 *   - each component is opened with O_PATH | O_NOFOLLOW from the directory
 *     before it, first with openat2's RESOLVE_NO_XDEV (it opens only what
 *     lies on that directory's own mount, so no mount ID need be read),
 *     then, on EXDEV or without openat2, with openat and the mount checks
 *     below; "." is skipped, ".." goes back up the
 *     directories this walk came through and never above the root;
 *   - a symlink is read with readlinkat(fd, "") (at most PATH_MAX bytes)
 *     and resolved here, inside the root (an absolute target restarts at
 *     the root): at most MS_WALK_MAX_SYMLINKS of them (then ELOOP), at most
 *     MS_WALK_MAX_STEPS components and MS_WALK_MAX_DEPTH directories deep;
 *     magic links (/proc/PID/root, /proc/PID/fd/N) are only text here;
 *   - the walk never steps into a mount of a daemon-served type (fstype.h):
 *     before each step the path so far is checked against the refused mount
 *     points of the root's mount table (read once, by ms_walk_mounts_load);
 *     after each step that crossed a mount the new descriptor's mount ID, read from
 *     /proc/self/fdinfo/N, must be the parent's or a mount the table knows
 *     as kernel-served and mounted at exactly the path so far (mount IDs
 *     are reused once freed); an unknown ID, or one the table puts
 *     elsewhere, makes the table be read again, at most
 *     MS_WALK_MAX_REREADS times per table, then refuses;
 *   - fstat is called on a descriptor only once its mount is known to be
 *     kernel-served, and fstatfs never is;
 *   - ms_walk_open_read opens nothing by name: it reopens the checked
 *     O_PATH descriptor through /proc/self/fd/N (O_RDONLY | O_NONBLOCK |
 *     O_NOCTTY), after checking it is a regular file (and the expected
 *     inode), and checks the reopened one again.
 * Directories kept (ms_walk_dircache), for one run of walks from one root:
 *   - what is kept: a directory a walk entered by a plain step (after
 *     every check above: its mount, that it is a directory, and under
 *     MS_WALK_ROOT_DIRS that it is root's alone), as its O_PATH descriptor,
 *     its mount ID, whether it is root's alone, and its path from the root
 *     without symlinks (the path the walk took to it, "." and ".." applied);
 *     and whether the root itself is root's alone, once a walk looked;
 *   - reuse: a later walk, with any flags, starts at the deepest kept
 *     directory whose path is a run of whole leading components of its own
 *     path (each followed by another component; "." and ".." end the run),
 *     provided every kept directory on the way is kept too, and, under
 *     MS_WALK_ROOT_DIRS, is root's alone; the rest it walks as above.  The
 *     steps it skips count towards MS_WALK_MAX_STEPS as if taken.  So it
 *     gives the answers a walk from the root gives (refusals, errors and
 *     the reason included) while no kept directory is replaced: a
 *     directory of another owner is walked again and refused, a name that
 *     only begins like a kept one ("/a/bb" and "/a/b") is not matched, a
 *     symlink is never kept (it is resolved, and its target's directories
 *     are kept under their own path);
 *   - a race it keeps: a descriptor names the directory it opened, not
 *     the name.  A kept directory renamed, replaced by a symlink, or
 *     covered by a mount during the run is seen, by the walks that start
 *     below it, as it was when it was kept: the later walk reaches what is
 *     in the old directory now, and no more (no symlink is followed, no
 *     mount entered that the first walk did not accept).  A walk from the
 *     root has the same race between two of its own steps; the kept
 *     directories make the window the run's length.  Only its owner can
 *     replace a directory, so under MS_WALK_ROOT_DIRS only root can, and
 *     whether a directory is root's alone cannot change without root;
 *   - bounds: at most MS_WALK_CACHE_DIRS directories (the least recently
 *     used make room), so as many descriptors; a directory deeper than
 *     that many kept ancestors is not kept;
 *   - lifetime: the cache's owner clears it when a run's batch of walks is
 *     over (ms_walk_dircache_clear closes every descriptor), so that it
 *     outlives no run and pins no mount for long.  A cache serves one root:
 *     a walk from another root (another descriptor or mount table) empties
 *     it first.
 * Flags:
 *   - MS_WALK_NO_SYMLINKS: any symlink on the path refuses it (debug files);
 *   - MS_WALK_ROOT_DIRS: every directory passed through, the root
 *     included, must be owned by root and writable by neither group nor
 *     others, or sticky (/tmp: others cannot rename or remove root's
 *     entries there), so a user cannot choose which file is found (debug
 *     files); the file at the end is the caller's to check (its owner);
 *   - MS_WALK_FOLLOW_LAST: a symlink as the last component is followed;
 *     without it the descriptor of the symlink itself is returned (stale
 *     lookups: the kernel's name is the file's own, never a link's);
 *   - MS_WALK_ROOT_SYMLINKS: a symlink is followed only when root owns it
 *     and the directory it sits in is root's alone (as MS_WALK_ROOT_DIRS
 *     checks a directory: only root can have put it there or change it,
 *     e.g. a merged /usr's /lib -> usr/lib); any other refuses the walk
 *     with -ELOOP and MS_WALK_WHY_USER_LINK (a mapping's name, lookup.h:
 *     the kernel's names hold no symlink, so one on the way was planted
 *     or the name is another namespace's).
 *
 * Errors are values: a negative errno, and *why set to a static sentence
 * when the walk refused on purpose, NULL when the kernel's error says it
 * all (ENOENT, ENOTDIR, EACCES...).  A refused mount is -EREMOTE, with one
 * sentence per cause, so a reason never claims more than is known:
 *   - MS_WALK_WHY_SERVED: the mount is in the table, of a daemon-served
 *     type (fstype.h);
 *   - MS_WALK_WHY_UNLISTED (a walk) or MS_WALK_WHY_LINK_UNLISTED (a magic
 *     link): the table does not know the mount, even read again: a mount
 *     of another mount namespace (a file another process opened there), or
 *     one of the kernel's own that no table lists (the shm mount of a memfd
 *     or SysV segment); its type is not known, so it is refused the same;
 *   - MS_WALK_WHY_MOVED: the table puts that mount ID at another place (a
 *     mount moved, or a freed ID reused);
 *   - the table could not be read (again).
 * Nothing here prints.
 */
#ifndef MAPSCOPE_UNTRUSTED_WALK_H
#define MAPSCOPE_UNTRUSTED_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/error.h"

#define MS_WALK_WHY_SERVED "the path crosses a daemon-served mount"
/* One object, so a caller can tell this refusal by its address. */
extern const char ms_walk_why_user_link[];
#define MS_WALK_WHY_USER_LINK ms_walk_why_user_link
#define MS_WALK_WHY_UNLISTED "the path crosses a mount that is not in the mount table"
#define MS_WALK_WHY_LINK_UNLISTED \
	"the file is on a mount that is not in the mount table: another mount namespace's, or the kernel's own"
#define MS_WALK_WHY_MOVED "a mount on the path is not where the mount table puts it"

#define MS_WALK_MAX_SYMLINKS 40
#define MS_WALK_MAX_STEPS 4096
#define MS_WALK_MAX_DEPTH 256
#define MS_WALK_MAX_REREADS 3
#define MS_WALK_CACHE_DIRS 32

enum ms_walk_flags {
	MS_WALK_NO_SYMLINKS = 1u << 0,
	MS_WALK_ROOT_DIRS = 1u << 1,
	MS_WALK_FOLLOW_LAST = 1u << 2,
	MS_WALK_ROOT_SYMLINKS = 1u << 3,
};

/* The mount table of one root: refused mount points and mount IDs. */
struct ms_walk_mounts;

/*
 * procdirfd: the /proc/PID directory of a process whose root the walk
 * starts from (its mountinfo prints mount points relative to that root),
 * or -1 for our own root.  The descriptor is duplicated, for re-reads.
 */
int ms_walk_mounts_load(int procdirfd, struct ms_walk_mounts **out, struct ms_error *err);
/* From mountinfo text (tests); never read again, so an unknown mount is refused. */
int ms_walk_mounts_from_text(const char *text, size_t len, struct ms_walk_mounts **out,
			     struct ms_error *err);
void ms_walk_mounts_free(struct ms_walk_mounts *m);

/* mounts must be the table of the root fd stands for (its paths are relative to it). */
struct ms_walk_root {
	int fd;                        /* the directory "/" stands for */
	struct ms_walk_mounts *mounts; /* NULL: nothing is known safe, every walk is refused */
	/*
	 * fd's mount ID, when the caller read it before (ms_walk_mnt_id): an
	 * open file's mount cannot change, so a caller that keeps fd open
	 * reads it once, not at every walk.  false: read at each use.
	 */
	bool mnt_known;
	uint64_t mnt;
	struct ms_walk_dircache *dirs; /* NULL: every walk starts at the root */
};

/*
 * Our own root, ready for walks: "/" open O_PATH, its mount table, its
 * mount ID (when it can be read) and a directory cache (when memory allows).  0, or -errno with root->fd -1 (then
 * every walk is refused).  Release what it holds with ms_walk_root_release.
 */
int ms_walk_root_ours(struct ms_walk_root *root);
void ms_walk_root_release(struct ms_walk_root *root);

struct ms_walk_dircache;
/* NULL when out of memory (walks then start at the root). */
struct ms_walk_dircache *ms_walk_dircache_new(void);
/* Close what it keeps (the end of a run); it stays usable. */
void ms_walk_dircache_clear(struct ms_walk_dircache *c);
void ms_walk_dircache_free(struct ms_walk_dircache *c);

/*
 * path: absolute (leading slashes are the root), NUL-terminated.  An
 * O_PATH | O_CLOEXEC descriptor (>= 0) with *st filled, or -errno with *why
 * as above.
 */
int ms_walk_open(const struct ms_walk_root *root, const char *path, unsigned flags,
		 struct stat *st, const char **why);

/*
 * ms_walk_open, and the mount ID of where it ended (*mnt_known true): of
 * what it opened, or, when the path ends in nothing (-ENOENT, -ENOTDIR),
 * of the deepest directory it reached.  The walk knows each step's mount
 * already (it checked it), so this costs no read.
 */
int ms_walk_open_mnt(const struct ms_walk_root *root, const char *path, unsigned flags,
		     struct stat *st, uint64_t *mnt, bool *mnt_known, const char **why);

/* Test seam: called between the checks and the opens that follow them. */
enum ms_walk_step {
	MS_WALK_BEFORE_OPEN,   /* the walk for reading comes next */
	MS_WALK_BEFORE_REOPEN, /* the O_PATH descriptor is checked; the reopen comes next */
};
typedef void (*ms_walk_race_fn)(void *arg, enum ms_walk_step step, const char *path);

/*
 * The file at path, open O_RDONLY | O_NONBLOCK | O_CLOEXEC, or -1 with *why
 * always set (static text).  expect (may be NULL): its st_dev and st_ino
 * must be the file's.  st (may be NULL) gets the opened file's stat.
 */
int ms_walk_open_read(const struct ms_walk_root *root, const char *path, unsigned flags,
		      const struct stat *expect, ms_walk_race_fn race, void *race_arg,
		      struct stat *st, const char **why);

/*
 * The regular file an O_PATH descriptor from ms_walk_open names (pathfd,
 * closed here; pst its stat), opened for reading as ms_walk_open_read
 * opens it: through /proc/self/fd/N, checked again to be the same inode.
 * For a caller that looks at the stat first (to refuse a file too large
 * before it is opened).  A descriptor, or -1 with *why set (static text).
 */
int ms_walk_reopen_read(int pathfd, const struct stat *pst, struct stat *st, const char **why);

/*
 * The directory at path, open O_RDONLY | O_DIRECTORY | O_NONBLOCK |
 * O_CLOEXEC for listing (fdopendir), walked as ms_walk_open does and
 * reopened through /proc/self/fd/N as ms_walk_open_read reopens a file:
 * the reopened one must be the same directory.  -1 with *why always set
 * (static text).
 */
int ms_walk_open_dir(const struct ms_walk_root *root, const char *path, unsigned flags,
		     const char **why);

/*
 * fstat of what a /proc magic link (a process's exe, cwd...) leads to,
 * name below dirfd, only once its mount is known to root's table as
 * kernel-served (anywhere: the link's target has no path in that root), or
 * is the mount of our own root that a chroot hides from our mountinfo (as
 * for walks).  0, or -errno with *why set when refused on purpose
 * (-EREMOTE: MS_WALK_WHY_SERVED or MS_WALK_WHY_LINK_UNLISTED, as above).
 */
int ms_walk_stat_link(int dirfd, const char *name, const struct ms_walk_root *root, struct stat *st,
		      const char **why);
/* The same, with the mount ID of what the link leads to (mnt may be NULL). */
int ms_walk_stat_link_mnt(int dirfd, const char *name, const struct ms_walk_root *root, struct stat *st,
			  uint64_t *mnt, const char **why);

/*
 * The file a /proc magic link (a process's map_files/START-END) leads to,
 * open O_RDONLY | O_NONBLOCK | O_CLOEXEC, with the same mount check as
 * ms_walk_stat_link before anything reaches the file's file system: fstat
 * on the O_PATH descriptor, a regular file only, then a reopen through
 * /proc/self/fd/N, checked again to be the same inode.  st gets its stat.
 * A descriptor (>= 0), or -errno: the kernel's from opening the link
 * (*why NULL), -EREMOTE (*why as ms_walk_stat_link's), or another with *why
 * set (static text).
 */
int ms_walk_open_link_read(int dirfd, const char *name, const struct ms_walk_root *root,
			   struct stat *st, const char **why);

/*
 * stat(2) of a path given to mapscope (absolute, or relative to the
 * working directory), through the walk from our own root, symlinks
 * followed: a path into a daemon-served mount is refused, never looked up.
 * 0, or -errno with *why as ms_walk_open's.
 */
int ms_walk_stat_ours(const char *path, struct stat *st, const char **why);

/* The mount ID of any descriptor (O_PATH too), from /proc/self/fdinfo; -errno. */
int ms_walk_mnt_id(int fd, uint64_t *id);
/*
 * The same for a descriptor known to be no directory (what a magic link
 * such as map_files or exe leads to): by one name_to_handle_at that asks
 * for no handle, which reaches no file system's daemon (walk_mounts.c),
 * else from fdinfo; -errno.
 */
int ms_walk_file_mnt_id(int fd, uint64_t *id);

#endif
