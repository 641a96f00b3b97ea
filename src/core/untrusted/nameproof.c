/* nameproof.c - a mapping's name proven a path to its file, or not: see nameproof.h. */
#include "config.h"

#include <errno.h>
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

int ms_name_prove(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
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
			return 0;
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
			return 0;
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
	return 0;
}
