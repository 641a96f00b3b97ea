/*
 * fstype_shared.h - the mount tables of a walk over many processes, one per
 * mount namespace.
 *
 * Before it asks the kernel for a build ID, the engine checks that the
 * mapping's device is one the kernel reads itself (fstype.h).  Loading that
 * table costs two reads of mountinfo (about 30 us each for a 20-line table
 * on a 2-core VM), once per process handle.  After an upgrade, when
 * hundreds of processes map a replaced library, those reads took a third
 * of `mapscope stale`.  Processes in one mount namespace see the same
 * mounts, so a walk (fleet.h) keeps the table of the first process it asks
 * about in each namespace, named by the inode number of its ns/mnt link
 * (proc.h), and answers the others from it.
 *
 * It answers only for real block devices (major number not 0).  Such a
 * number names one device while the device exists, and what is mounted
 * from it changes only by a privileged mount.  An anonymous number (major
 * 0: tmpfs, FUSE, NFS...) is handed out again once its superblock is gone
 * (fs/super.c, get_anon_bdev: an IDA), so a table kept across processes
 * could call a user's new FUSE mount by its predecessor's type.  For those
 * ms_fstypes_shared_refuse says it does not know, and the caller loads the
 * process's own table as it did before.  It does not know either when the
 * namespace or its table cannot be read, past MS_FSTYPES_SHARED_MAX
 * namespaces, or once the tables kept hold MS_FSTYPES_SHARED_ENTRIES
 * entries (a process chooses how many mounts its namespace has).
 *
 * The tables live as long as the set: one walk, never the explorer's
 * lifetime.  Not thread-safe; nothing here prints.
 */
#ifndef MAPSCOPE_FSTYPE_SHARED_H
#define MAPSCOPE_FSTYPE_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/fstype.h"
#include "proc/proc.h"

#define MS_FSTYPES_SHARED_MAX 64
#define MS_FSTYPES_SHARED_ENTRIES (2 * (size_t)MS_FSTYPES_LINES_MAX)

struct ms_fstypes_shared;

/* An empty set: *out, or NULL when out of memory (the walk then shares nothing). */
struct ms_fstypes_shared *ms_fstypes_shared_new(void);
void ms_fstypes_shared_free(struct ms_fstypes_shared *s);

/*
 * The table of proc's mount namespace, loaded at the first ask for that
 * namespace; NULL when there is none to share (s NULL, the namespace or
 * its table unreadable, past the bounds).  It lives as long as s: a
 * process handle asks once and keeps it.
 */
const struct ms_fstypes *ms_fstypes_shared_table(struct ms_fstypes_shared *s, const struct ms_proc *proc);

/*
 * True when a shared table t (may be NULL: false) answers for device
 * major:minor: *why is then what ms_fstypes_refuse says (NULL: safe to
 * read).  False for every anonymous device (major 0): ask the process's
 * own table.
 */
bool ms_fstypes_shared_refuse(const struct ms_fstypes *t, uint32_t major, uint32_t minor, const char **why);

/* How many tables the set has loaded (one per namespace asked about). */
size_t ms_fstypes_shared_loaded(const struct ms_fstypes_shared *s);

#endif
