#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "untrusted/mapfiles.h"

#ifndef BTRFS_SUPER_MAGIC
#define BTRFS_SUPER_MAGIC 0x9123683e
#endif
#ifndef OVERLAYFS_SUPER_MAGIC
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#endif

/*
 * btrfs reports a subvolume's anonymous device in st_dev, and overlayfs
 * its own, while PROCMAP_QUERY gives the superblock's s_dev of the inode
 * that is mapped: there only the inode can be compared.  fstatfs is safe
 * here: the mount is known to be kernel-served.
 */
static bool dev_unreliable(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && ((unsigned long)sfs.f_type == (unsigned long)BTRFS_SUPER_MAGIC ||
					  (unsigned long)sfs.f_type == (unsigned long)OVERLAYFS_SUPER_MAGIC);
}

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
	    ((major(fst.st_dev) != m->dev_major || minor(fst.st_dev) != m->dev_minor) && !dev_unreliable(fd))) {
		close(fd);
		*why = "the running copy is not the mapped file";
		return -1;
	}
	if (st)
		*st = fst;
	return fd;
}
