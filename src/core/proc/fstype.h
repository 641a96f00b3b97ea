/*
 * fstype.h - is a file served by the kernel itself, or by someone else?
 *
 * Asking PROCMAP_QUERY for a build ID makes the kernel read the mapped file
 * (fs/proc/task_mmu.c, do_procmap_query -> build_id_parse in lib/buildid.c,
 * through the page cache).  On a file system served by a user's daemon
 * (FUSE) or over the network (NFS, SMB, 9p, Ceph, ...), that read waits on
 * the server in uninterruptible sleep (a locked folio), for as long as the
 * server likes: kill -9 does not end it.  The same holds for mapscope's own
 * read of the file now at a mapping's path.  This module says which files
 * must never be read for that reason.
 *
 * By device: a mapping's device from PROCMAP_QUERY is its superblock's
 * s_dev (do_procmap_query), the same number /proc/PID/mountinfo prints in
 * its third field (fs/proc_namespace.c, show_mountinfo), and it names one
 * superblock system-wide.  ms_fstypes_load reads the target process's
 * mountinfo (the mounts it sees, in its mount namespace) and then ours (for
 * devices it cannot see, such as an overlayfs's lower layer, whose files
 * are what its mappings hold), each bounded to MS_FSTYPES_READ_MAX bytes
 * and MS_FSTYPES_LINES_MAX lines.  Callers load it once per process
 * handle.  ms_fstypes_refuse answers for one device:
 * NULL when the kernel reads that file system itself, else a short reason
 * ("file on a fuse file system").  A device the table does not list (a
 * mount hidden from the process, or past the bounds; in a chroot, every
 * mount above its root) is refused when it is anonymous (major 0, as every
 * network and FUSE file system is): its server is unknown.  An unlisted
 * real block device is read, as mapscope in a chroot must read its host's
 * disks.
 *
 * By statfs magic: ms_fstypes_refuse_magic answers the same from an f_type.
 * Beware that fstatfs on a FUSE file (allow_other mounts included) sends
 * FUSE_STATFS to its daemon: mapscope's own path lookups decide by mount
 * instead (untrusted_walk.h), before any call reaches the file system.
 *
 * By mount (for the one path walk, untrusted_walk.h): ms_fstypes_load_root
 * reads the mountinfo of the root a walk starts from (/proc/PID/mountinfo,
 * whose mount points are printed relative to that process's root, or
 * ours for ours) and keeps each refused mount point, unescaped from
 * mountinfo's \ooo escapes, and every mount ID with its state.
 * ms_fstypes_refuse_point answers for a path exactly as that table prints
 * it; ms_fstypes_refuse_mount for a mount ID, and says when the table does
 * not know it (a mount made after the read); ms_fstypes_mount_is_at whether
 * a mount ID is still the mount at a path.  ms_fstypes_parse keeps the
 * mount points of the text it is given.
 *
 * Served by someone else: fuse and every fuse.SUBTYPE (sshfs, glusterfs,
 * ...), fuseblk (a block device, but read by a user daemon such as
 * ntfs-3g), virtiofs, nfs, nfs4, cifs, smb3, smbfs, 9p, ceph, afs, coda,
 * lustre, orangefs, ncpfs, vboxsf.  Every other listed type is read.
 * Reasons are static strings (a FUSE subtype is chosen by the mounting user and is
 * never echoed).
 */
#ifndef MAPSCOPE_FSTYPE_H
#define MAPSCOPE_FSTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "proc/proc.h"

#define MS_FSTYPES_READ_MAX (8u << 20)
#define MS_FSTYPES_LINES_MAX 65536u

struct ms_fstypes;

/* 0 with *out set, or MS_ERR_IO / MS_ERR_NOMEM with err filled. */
int ms_fstypes_load(const struct ms_proc *proc, struct ms_fstypes **out, struct ms_error *err);
/* The same from mountinfo text already read (len bytes, any content). */
int ms_fstypes_parse(const char *text, size_t len, struct ms_fstypes **out, struct ms_error *err);
/* procdirfd: a /proc/PID directory, or -1 for our own root. */
int ms_fstypes_load_root(int procdirfd, struct ms_fstypes **out, struct ms_error *err);
void ms_fstypes_free(struct ms_fstypes *t);
/* How many devices, mounts and mount points t keeps (what it costs to keep). */
size_t ms_fstypes_entries(const struct ms_fstypes *t);

/* NULL: safe to read.  Else why not; t may be NULL (nothing is safe then). */
const char *ms_fstypes_refuse(const struct ms_fstypes *t, uint32_t major, uint32_t minor);
const char *ms_fstypes_refuse_magic(unsigned long f_type);
/* By mount ID: NULL with *known false when the table lacks it (refuse then). */
const char *ms_fstypes_refuse_mount(const struct ms_fstypes *t, uint64_t mnt_id, bool *known);
/*
 * Is mount mnt_id mounted at path (as the table's root sees it)?  Mount IDs
 * are reused once freed (fs/namespace.c, mnt_alloc_id: an IDA), so a table
 * read earlier may name another mount by the same ID.  True when the table
 * knows the ID but not its mount point (a mount only our table lists).
 */
bool ms_fstypes_mount_is_at(const struct ms_fstypes *t, uint64_t mnt_id, const char *path, size_t len);
/* Is path (len bytes, absolute, unescaped) a mount point of a refused type? */
const char *ms_fstypes_refuse_point(const struct ms_fstypes *t, const char *path, size_t len);

#endif
