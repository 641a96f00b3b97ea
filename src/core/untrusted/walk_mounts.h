/*
 * walk_mounts.h - the mount table a walk of untrusted_walk.h checks each
 * step against, inside the untrusted room only: the table's reading and
 * re-reading, mount IDs (fdinfo, or name_to_handle_at for files), and the
 * one test of a mount.  The public calls (ms_walk_mounts_load, ms_walk_mnt_id...)
 * are declared in untrusted_walk.h; this header is for the walk's own
 * files.
 *
 * ms_walk_mount_refused: NULL when mount id is known to the table as
 * served by the kernel and, with path (len bytes, as the table's root sees
 * it), mounted exactly there; else the reason (MS_WALK_WHY_SERVED,
 * MS_WALK_WHY_MOVED, ms_walk_why_no_table, or the caller's unlisted for a
 * mount the table never knew), after at most MS_WALK_MAX_REREADS re-reads
 * of the table (mount IDs are reused once freed, and a user can make
 * mounts faster than we read them).
 * ms_walk_own_root_unlisted: our own root's mount, left out of our
 * mountinfo in a chroot, and taken as it is (whoever ran us chose it).
 * ms_walk_root_mnt_id: the root's mount ID, the caller's when it knows it.
 */
#ifndef MAPSCOPE_WALK_MOUNTS_H
#define MAPSCOPE_WALK_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/fstype.h"
#include "untrusted/untrusted_walk.h"

struct ms_walk_mounts {
	struct ms_fstypes *table;
	int procdirfd; /* -1: ours; -2: from text, never read again */
	unsigned rereads;
};

extern const char ms_walk_why_no_table[];
extern const char ms_walk_why_mnt_id[];

int ms_walk_root_mnt_id(const struct ms_walk_root *root, uint64_t *id);
const char *ms_walk_mount_refused(struct ms_walk_mounts *m, uint64_t id, const char *path, size_t len,
				  const char *unlisted);
bool ms_walk_own_root_unlisted(const struct ms_walk_mounts *m, uint64_t id);

#endif
