/* nameproof.c - a mapping's name proven a path to its file, or not: see nameproof.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "untrusted/nameproof.h"
#include "untrusted/untrusted_walk.h"

bool ms_name_is_path(enum ms_name_kind kind)
{
	return kind == MS_NAME_SAME || kind == MS_NAME_OTHER || kind == MS_NAME_GONE || kind == MS_NAME_FUZZY;
}

static bool same_file(const struct ms_lookup *l, const struct ms_mapping *m)
{
	return l->err == 0 && l->inode == m->inode && l->dev_major == m->dev_major && l->dev_minor == m->dev_minor;
}

static int not_ours(const struct ms_lookup_root *root, struct ms_name_proof *out, bool recheck,
		    const char *detail)
{
	out->kind = MS_NAME_NOT_OURS;
	out->why = root->ours ? MS_NAME_WHY_NOT_OURS : MS_NAME_WHY_NOT_THEIRS;
	out->recheck = recheck;
	snprintf(out->detail, sizeof(out->detail), "%s", detail);
	return 0;
}

static const char *what_is(mode_t mode)
{
	if (S_ISDIR(mode))
		return "the path holds a directory";
	if (S_ISLNK(mode))
		return "the path holds a symlink";
	return "the path holds something that is not a regular file";
}

static int unknown(struct ms_name_proof *out, const char *why)
{
	out->kind = MS_NAME_UNKNOWN;
	out->why = why;
	return 0;
}

/*
 * A name that is not the mapped file's own path (another file, or
 * nothing, at it) stands for the mapped file only if the mapped file is
 * where the name says: the kernel marks it unlinked only by text, which a
 * file may really end in, and a mount of the user's own (another
 * namespace's, a detached one) prints paths of their choosing.  So the
 * mapped file itself, through map_files (root only: without it the name is
 * judged as before, unchecked), must lie on a mount this root's table
 * knows, the very mount the walk ended on (the path's directory's for
 * nothing at it).  Its link count says nothing: a file unlinked from this
 * name may keep another (a hard link), and a file really named "x
 * (deleted)" on a mount of ours is found by the name as given.
 */
static int check_mapped(const struct ms_lookup_root *root, const struct ms_proc *proc,
			const struct ms_mapping *m, struct ms_name_proof *out)
{
	struct ms_walk_root wr = ms_lookup_walk_root(root);
	const char *why = NULL;
	char name[64];
	struct stat st;
	uint64_t mnt;
	int rc;

	if (!proc || m->start >= m->end || !root->mounts)
		return 0;
	snprintf(name, sizeof(name), "map_files/%" PRIx64 "-%" PRIx64, m->start, m->end);
	rc = ms_walk_stat_link_mnt(ms_proc_dirfd(proc), name, &wr, &st, &mnt, &why);
	if (rc == -EPERM || rc == -EACCES) {
		out->unchecked = true;
		return 0;
	}
	if (rc == -EREMOTE && !(why && !strcmp(why, MS_WALK_WHY_SERVED)))
		return not_ours(root, out, false, "the mapped file is on a mount that is not in the mount table");
	if (rc < 0)
		return unknown(out, why ? why : rc == -ENOENT ? "the mapping changed since it was read"
						     : "the mapped file cannot be looked at");
	if ((uint64_t)st.st_ino != m->inode)
		return unknown(out, "the mapping changed since it was read");
	if (!out->l->mnt_known || out->l->mnt != mnt)
		return not_ours(root, out, false, "the mapped file is on another mount than the path");
	out->unlinked = st.st_ctim;
	return 0;
}

int ms_name_prove(struct ms_lookup_cache *c, const struct ms_lookup_root *root, const struct ms_proc *proc,
		  const struct ms_mapping *m, struct ms_name_proof *out)
{
	struct ms_lookup *l;
	size_t len;

	memset(out, 0, sizeof(*out));
	out->len = m->name_len;
	/* First the name as given: a file may really be called "x (deleted)". */
	if (ms_lookup_path(c, root, m->name, m->name_len, &l) < 0)
		return MS_ERR_NOMEM;
	out->l = l;
	if (same_file(l, m)) {
		out->kind = MS_NAME_SAME;
		return 0;
	}
	len = ms_mapping_name_undeleted(m->name, m->name_len);
	out->marked = len != m->name_len;
	if (out->marked) {
		if (ms_lookup_path(c, root, m->name, len, &l) < 0)
			return MS_ERR_NOMEM;
		out->l = l;
		out->len = len;
		if (same_file(l, m)) {
			out->kind = MS_NAME_SAME;
			out->relinked = true;
			return 0;
		}
	}
	if (l->err && l->why == MS_WALK_WHY_USER_LINK)
		return not_ours(root, out, false, l->why);
	if (l->err && l->why) {
		out->kind = MS_NAME_UNKNOWN;
		out->why = l->why;
		return 0;
	}
	if (l->err == ENOENT || l->err == ENOTDIR) {
		if (out->marked) {
			out->kind = MS_NAME_GONE;
			return check_mapped(root, proc, m, out);
		}
		/*
		 * d_path marks every unlinked dentry (fs/d_path.c, d_unlinked),
		 * so the file still has this name, somewhere else than here.
		 */
		return not_ours(root, out, true, "nothing is at it, though the kernel does not mark the file deleted");
	}
	if (l->err) {
		out->kind = MS_NAME_UNKNOWN;
		out->err = l->err;
		return 0;
	}
	if (!out->marked) {
		/* btrfs and overlayfs: stat's device is not the mapping's; build IDs decide. */
		if (l->unreliable_fs && S_ISREG(l->mode)) {
			out->kind = MS_NAME_FUZZY;
			return check_mapped(root, proc, m, out);
		}
		if (S_ISREG(l->mode))
			return not_ours(root, out, true,
					"the path holds another file, though the kernel does not mark the mapped one deleted");
		return not_ours(root, out, false, what_is(l->mode));
	}
	if (!S_ISREG(l->mode)) {
		/* A path of ours, unlinked, but nothing a package or a build ID could be asked of now. */
		out->kind = MS_NAME_UNKNOWN;
		out->why = MS_NAME_WHY_NOT_REG;
		return 0;
	}
	out->kind = MS_NAME_OTHER;
	return check_mapped(root, proc, m, out);
}
