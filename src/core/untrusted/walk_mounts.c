/* walk_mounts.c - the mount table a walk checks, and mount IDs: see walk_mounts.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/fstype.h"
#include "untrusted/untrusted_walk.h"
#include "untrusted/walk_mounts.h"

const char ms_walk_why_no_table[] = "the mount table could not be read: nothing is known safe";
const char ms_walk_why_mnt_id[] = "the mount of a path component cannot be told";

static int mounts_read(struct ms_walk_mounts *m, struct ms_error *err)
{
	struct ms_fstypes *t;
	int rc = ms_fstypes_load_root(m->procdirfd, &t, err);

	if (rc < 0)
		return rc;
	ms_fstypes_free(m->table);
	m->table = t;
	return 0;
}

int ms_walk_mounts_load(int procdirfd, struct ms_walk_mounts **out, struct ms_error *err)
{
	struct ms_walk_mounts *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	m->procdirfd = -1;
	if (procdirfd >= 0 && (m->procdirfd = fcntl(procdirfd, F_DUPFD_CLOEXEC, 0)) < 0) {
		rc = ms_error_set(err, MS_ERR_IO, errno, "cannot keep the process directory: %s",
				  strerror(errno));
		free(m);
		return rc;
	}
	rc = mounts_read(m, err);
	if (rc < 0) {
		ms_walk_mounts_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int ms_walk_mounts_from_text(const char *text, size_t len, struct ms_walk_mounts **out,
			     struct ms_error *err)
{
	struct ms_walk_mounts *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	m->procdirfd = -2;
	rc = ms_fstypes_parse(text, len, &m->table, err);
	if (rc < 0) {
		free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void ms_walk_mounts_free(struct ms_walk_mounts *m)
{
	if (!m)
		return;
	if (m->procdirfd >= 0)
		close(m->procdirfd);
	ms_fstypes_free(m->table);
	free(m);
}

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200 /* include/uapi/linux/fcntl.h, Linux 6.5 */
#endif

/* 0: the kernel answers name_to_handle_at for mount IDs; 1: it does not (fdinfo only). */
static int handle_refused;

/*
 * name_to_handle_at with AT_HANDLE_FID and room for no handle bytes: in
 * fs/fhandle.c, do_sys_name_to_handle asks the file system to encode into
 * no room, turns that into EOVERFLOW, and copies real_mount(...)->mnt_id
 * out before it returns, the ID fdinfo prints.  One system call, where
 * fdinfo takes an open of a /proc/self path, a read and a close.  Only
 * for a file that is no directory: encode_fh then reads the in-memory
 * inode alone (fuse_encode_fh in fs/fuse/export.c returns FILEID_INVALID
 * at once, sending the daemon nothing; overlayfs encodes its real inode's
 * handle), while for a directory overlayfs with nfs_export may copy an
 * ancestor up first (ovl_check_encode_origin, fs/overlayfs/export.c),
 * which reads the lower layer.  Kernels before 6.5 refuse the flag
 * (EINVAL), a seccomp filter may refuse the call, a file system may
 * encode no handles (EOPNOTSUPP): fdinfo then.
 */
static bool handle_mnt_id(int fd, uint64_t *id)
{
	struct file_handle fh = { .handle_bytes = 0 };
	int mnt = -1;

	if (__atomic_load_n(&handle_refused, __ATOMIC_RELAXED))
		return false;
	if (name_to_handle_at(fd, "", &fh, &mnt, AT_EMPTY_PATH | AT_HANDLE_FID) < 0 && errno != EOVERFLOW) {
		if (errno == EINVAL || errno == ENOSYS || errno == EPERM)
			__atomic_store_n(&handle_refused, 1, __ATOMIC_RELAXED);
		return false;
	}
	if (mnt < 0)
		return false;
	*id = (uint64_t)mnt;
	return true;
}

/*
 * fs/proc/fd.c, seq_show prints "mnt_id:" for every open file, O_PATH ones
 * included, from the struct file alone: reading fdinfo never calls into the
 * file's own file system, unlike fstat, fstatfs or statx, which can send
 * GETATTR or STATFS to a FUSE daemon.
 */
static int fdinfo_mnt_id(int fd, uint64_t *id)
{
	char name[64], buf[1024];
	const char *p;
	uint64_t v = 0;
	ssize_t n;
	int info;

	snprintf(name, sizeof(name), "/proc/self/fdinfo/%d", fd);
	info = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (info < 0)
		return -errno;
	n = read(info, buf, sizeof(buf) - 1);
	close(info);
	if (n <= 0)
		return n < 0 ? -errno : -EPROTO;
	buf[n] = '\0';
	p = strstr(buf, "\nmnt_id:");
	if (!p)
		return -EPROTO;
	p += 8;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -EPROTO;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EPROTO;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*id = v;
	return 0;
}

int ms_walk_mnt_id(int fd, uint64_t *id)
{
	return fdinfo_mnt_id(fd, id);
}

int ms_walk_file_mnt_id(int fd, uint64_t *id)
{
	return handle_mnt_id(fd, id) ? 0 : fdinfo_mnt_id(fd, id);
}

/* The root's mount ID: the caller's when it knows it, else from fdinfo. */
int ms_walk_root_mnt_id(const struct ms_walk_root *root, uint64_t *id)
{
	if (root->mnt_known) {
		*id = root->mnt;
		return 0;
	}
	return ms_walk_mnt_id(root->fd, id);
}

/*
 * NULL when the mount is known to be served by the kernel and is the one
 * mounted at path (len bytes, as the table's root sees it; NULL: anywhere).  A mount the
 * table lacks was made after the table was read, and one it names at
 * another place may be a new mount that got a freed mount's ID
 * (mnt_alloc_id in fs/namespace.c reuses them): read it again, a bounded
 * number of times per table (a user can make mounts faster than we read).
 * Else the reason for that cause (untrusted_walk.h); unlisted is the
 * caller's sentence for a mount the table never knew.
 */
const char *ms_walk_mount_refused(struct ms_walk_mounts *m, uint64_t id, const char *path, size_t len,
				 const char *unlisted)
{
	for (;;) {
		bool known;
		const char *why = ms_fstypes_refuse_mount(m->table, id, &known);

		if (known && why)
			return MS_WALK_WHY_SERVED;
		if (known && (!path || ms_fstypes_mount_is_at(m->table, id, path, len)))
			return NULL;
		if (m->procdirfd == -2 || m->rereads >= MS_WALK_MAX_REREADS)
			return known ? MS_WALK_WHY_MOVED : unlisted;
		m->rereads++;
		if (mounts_read(m, NULL) < 0)
			return ms_walk_why_no_table;
	}
}

/*
 * Run in a chroot, our mountinfo leaves out the mount our root sits in
 * (show_mountinfo skips what seq_path_root cannot print).  Our own root was
 * chosen by whoever ran us, not by a user: its mount is taken as it is.  A
 * process's root is not (a chroot inside a user's FUSE mount, in a user
 * namespace), so an unknown mount there is refused.
 */
bool ms_walk_own_root_unlisted(const struct ms_walk_mounts *m, uint64_t id)
{
	bool known;

	ms_fstypes_refuse_mount(m->table, id, &known);
	return m->procdirfd == -1 && !known;
}
