/*
 * nameproof.h - is a mapping's name a path, in the root its process's
 * names resolve against, to the file it maps?  The one proof every fact
 * that starts from a name rests on (DESIGN.md, "A mapping's name is a
 * claim"): the stale verdict asks it, and the package, running version,
 * SONAME, hash, `who`, `libs`, SBOM and metrics take the verdict's word
 * (stale.h, path_ours) before they use the name as a path.
 *
 * Why: the kernel prints a name as the mapper's mount namespace sees it
 * (fs/d_path.c: a mount unreachable from the reader's root comes out
 * relative to its own namespace's root, and a detached one as "/").  A
 * user can so make a mapping of root's file carry a path of theirs, or a
 * mapping of their file carry the path of root's, and can plant symlinks
 * along any path they own.
 *
 * The rule, for mapping m under root (lookup.h: walks follow no symlink
 * but root's in root's directories, never step into a mount of a
 * daemon-served type, end on a mount the root's table knows):
 *   - MS_NAME_SAME: the name (as given, then less the kernel's
 *     " (deleted)") leads to m's device and inode;
 *   - MS_NAME_OTHER: the kernel marks the name " (deleted)" and the path
 *     holds another regular file: a replacement (stale.h judges it);
 *   - MS_NAME_GONE: marked " (deleted)", and nothing is at the path;
 *   - MS_NAME_FUZZY: unmarked, another inode is at the path, on a file
 *     system whose device numbers do not identify files (btrfs,
 *     overlayfs): only build IDs can tell (stale.h);
 *   - MS_NAME_NOT_OURS: "not a path in our root" (or the process's): a
 *     symlink a user could plant is on the way; or the kernel does not
 *     mark the file unlinked yet the path holds another file or nothing
 *     (the name is another namespace's, or a detached mount's "/").
 *     recheck is true where a replacement between reading the name and
 *     looking it up would look the same: ask the kernel for the name
 *     again and prove that;
 *   - MS_NAME_UNKNOWN: the lookup was refused on purpose (a daemon-served
 *     mount) or failed (why says so, else err), or a marked name's path
 *     now holds something that is not a regular file (MS_NAME_WHY_NOT_REG):
 *     not a replacement, as nothing there can be compared.
 * OTHER, GONE and FUZZY hold only when the mapped file itself, seen
 * through /proc/PID/map_files (root only; unchecked, as unchecked says,
 * without it), lies on a mount the root's table knows, the very mount the
 * walk ended on: else the name is NOT_OURS (a detached mount, an
 * open_tree clone or another namespace's mount carries names of the
 * user's choosing, a file there may really be named "x (deleted)", and
 * overlayfs or btrfs device numbers do not say which file it is).
 * Only SAME, OTHER, GONE and FUZZY make the name a path here.
 *
 * Nothing here reads a file, only walks and stats (cached per root and
 * path, lookup.h).  0, or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_NAMEPROOF_H
#define MAPSCOPE_NAMEPROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "maps/mapping.h"
#include "proc/proc.h"
#include "untrusted/lookup.h"

enum ms_name_kind {
	MS_NAME_SAME,
	MS_NAME_OTHER,
	MS_NAME_GONE,
	MS_NAME_FUZZY,
	MS_NAME_NOT_OURS,
	MS_NAME_UNKNOWN,
};

#define MS_NAME_WHY_NOT_OURS "not a path in our root"
#define MS_NAME_WHY_NOT_THEIRS "not a path in the process's root"
#define MS_NAME_WHY_NOT_REG "unlinked, and the path now holds something that is not a regular file"

struct ms_name_proof {
	enum ms_name_kind kind;
	bool marked;            /* the kernel's " (deleted)" ends the name */
	bool relinked;          /* SAME, found only less the mark */
	bool recheck;           /* NOT_OURS: a replacement under us would look so */
	bool unchecked;         /* OTHER, GONE, FUZZY: the mapped file could not be looked at (not root) */
	size_t len;             /* the path's length: the name less the mark, when marked and not SAME as given */
	struct ms_lookup *l;    /* the cache's record of the path (lookup.h), NULL when not looked up */
	const char *why;        /* NOT_OURS and UNKNOWN: static text; else NULL */
	char detail[96];        /* NOT_OURS: what the path holds instead, or "" */
	int err;                /* UNKNOWN without why: the errno */
	/*
	 * OTHER, GONE, FUZZY checked: the mapped file's st_ctime, read through
	 * map_files.  For an unlinked file it is the moment of its unlinking
	 * (the upgrade that replaced it: pkg.h, struct ms_copy).  {0, 0}: not read.
	 */
	struct timespec unlinked;
};

/* True for the kinds that make the name a path in the root. */
bool ms_name_is_path(enum ms_name_kind kind);

/*
 * proc: m's process, whose map_files shows the mapped file itself; NULL
 * (tests of the walk alone): OTHER, GONE and FUZZY go unchecked.
 */
int ms_name_prove(struct ms_lookup_cache *c, const struct ms_lookup_root *root, const struct ms_proc *proc,
		  const struct ms_mapping *m, struct ms_name_proof *out);

#endif
