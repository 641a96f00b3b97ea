#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "untrusted/mapfiles.h"

int ms_mapfiles_open(const struct ms_proc *proc, const struct ms_mapping *m,
		     const struct ms_fstypes *fstypes, const struct ms_walk_root *root,
		     struct stat *st, const char **why)
{
	char name[64];
	struct stat fst;
	int fd;

	*why = NULL;
	if (!m->inode) {
		*why = "not a file mapping";
		return -1;
	}
	if (fstypes && (*why = ms_fstypes_refuse(fstypes, m->dev_major, m->dev_minor)))
		return -1;
	if (!root->mounts) {
		*why = "the mount table could not be read: nothing is known safe";
		return -1;
	}
	snprintf(name, sizeof(name), "map_files/%" PRIx64 "-%" PRIx64, m->start, m->end);
	fd = ms_walk_open_link_read(ms_proc_dirfd(proc), name, root, &fst, why);
	if (fd < 0) {
		if (!*why)
			*why = fd == -EPERM ? MS_MAPFILES_WHY_PRIV :
			       fd == -EACCES ? MS_MAPFILES_WHY_PTRACE :
			       fd == -ENOENT ? MS_MAPFILES_WHY_GONE : "the running copy cannot be opened";
		return -1;
	}
	if (fst.st_ino != m->inode ||
	    ((major(fst.st_dev) != m->dev_major || minor(fst.st_dev) != m->dev_minor) && !ms_lookup_unreliable_fs(fd))) {
		close(fd);
		*why = "the running copy is not the mapped file";
		return -1;
	}
	if (st)
		*st = fst;
	return fd;
}

/* Device numbers of btrfs subvolumes and overlayfs do not name the file. */
static bool path_holds(const struct ms_lookup *l, const struct ms_mapping *m)
{
	return !l->err && l->inode == m->inode &&
	       (l->unreliable_fs || (l->dev_major == m->dev_major && l->dev_minor == m->dev_minor));
}

int ms_mapfiles_open_mapped(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
			    const struct ms_proc *proc, const struct ms_mapping *m,
			    const struct ms_fstypes *fstypes, char *why, size_t size, bool *other)
{
	struct ms_walk_root wr = ms_lookup_walk_root(root);
	const char *at_path, *because;
	struct ms_lookup_kept kept;
	struct ms_lookup *l;
	size_t len = m->name_len;
	bool marked;
	int fd;

	if (other)
		*other = false;
	/* Memory the kernel names like a file: nothing on disk to look up, and map_files would refuse its mount. */
	if ((because = ms_mapping_not_a_file(m))) {
		snprintf(why, size, "%s", because);
		return -1;
	}
	marked = ms_mapping_name_undeleted(m->name, m->name_len) != m->name_len;
	/* A path looked up now is walked once: its descriptor is kept for the open. */
	if (ms_lookup_path_kept(c, root, m->name, len, &l, &kept) < 0)
		return MS_ERR_NOMEM;
	if (!path_holds(l, m) && (len = ms_mapping_name_undeleted(m->name, m->name_len)) != m->name_len) {
		if (kept.fd >= 0)
			close(kept.fd);
		if (ms_lookup_path_kept(c, root, m->name, len, &l, &kept) < 0)
			return MS_ERR_NOMEM;
	}
	if (path_holds(l, m)) {
		fd = ms_lookup_open_kept(root, m->name, len, l, &kept, &because);
		if (fd < 0)
			snprintf(why, size, "%s", because);
		return fd;
	}
	if (kept.fd >= 0)
		close(kept.fd);
	fd = ms_mapfiles_open(proc, m, fstypes, &wr, NULL, &because);
	if (fd >= 0)
		return fd;
	if (!l->err)
		at_path = "the file at the path is not the mapped one (replaced)";
	else if (l->why)
		at_path = l->why;
	else if (l->err == ENOENT || l->err == ENOTDIR)
		/* Only the kernel's " (deleted)" says so: else the name may be a path of another mount namespace. */
		at_path = marked ? "the mapped file was deleted" : "no file is at the path";
	else
		at_path = "the path cannot be looked up";
	snprintf(why, size, "%s; %s", at_path, because);
	if (other)
		*other = true;
	return -1;
}
