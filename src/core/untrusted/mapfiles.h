/*
 * mapfiles.h - the very file a process maps, whatever is at its path now:
 * /proc/PID/map_files/START-END.
 *
 * What: ms_mapfiles_open opens, for reading, the file behind one file
 * mapping of a process through its map_files link, even after the file was
 * deleted or another was put at its path (an upgrade).  Readers of a
 * deleted or replaced file's contents (the symbols, elf/symbols.h) come
 * here; the file at the path is untrusted_walk.h's.
 *
 * Kernel rules (fs/proc/base.c):
 *   - the entry's name is START-END in lower-case hex without leading zeros
 *     (dname_to_vma_addr refuses them), and it names exactly one VMA
 *     (find_exact_vma): a mapping merged or split since it was read is
 *     ENOENT, as is one unmapped;
 *   - looking the entry up needs ptrace read access to the process
 *     (proc_map_files_lookup: PTRACE_MODE_READ_FSCREDS), else EACCES;
 *   - following the link needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE in
 *     the initial user namespace (proc_map_files_get_link:
 *     checkpoint_restore_ns_capable(&init_user_ns), since Linux 5.9; only
 *     CAP_SYS_ADMIN before), else EPERM: root inside a user namespace of
 *     its own, a container's root included, is refused too;
 *   - the link leads to the VMA's file itself (its f_path), as /proc/PID/fd
 *     links do, with no lookup by name.
 *
 * Attacker model: the mapping's file system may be served by its owner
 * (FUSE).  Nothing here reaches a file system before its mount is known to
 * be kernel-served: the mapping's device is refused first by fstypes
 * (fstype.h, may be NULL), then the link is opened O_PATH and its mount ID
 * (from /proc/self/fdinfo) checked against the root's mount table
 * (untrusted_walk.h, ms_walk_open_link_read), and only then fstat'ed and
 * reopened for reading.  The opened file must be a regular file with the
 * mapping's inode, and its device, except on btrfs and overlayfs, whose
 * st_dev is not the device PROCMAP_QUERY reports.
 *
 * Returns a descriptor (O_RDONLY | O_NONBLOCK | O_CLOEXEC; st, when not
 * NULL, gets its stat), or -1 with *why set to a static sentence:
 * MS_MAPFILES_WHY_PRIV when the kernel refused to follow the link (not
 * root), MS_MAPFILES_WHY_PTRACE, MS_MAPFILES_WHY_GONE, the walk's reason
 * for a mount it refuses (untrusted_walk.h: MS_WALK_WHY_SERVED for a
 * daemon-served one, MS_WALK_WHY_LINK_UNLISTED for one the mount table
 * does not know) or fstype.h's reason for a daemon-served file system, or
 * another reason.
 *
 * ms_mapfiles_open_mapped is what a reader of a mapped file's contents
 * calls (the symbols, the files view's SONAME, the SBOM's hash).  Memory
 * the kernel names like a file (a memfd, SysV shm: mapping.h,
 * ms_mapping_not_a_file) is refused first, with that reason, before any
 * lookup.  Otherwise it opens the file at m's name under
 * root (lookup.h, cached in c) when it is the mapped one (the same inode,
 * and device except where device numbers do not name files), looked up as
 * given and then less the kernel's " (deleted)" (a file may really be
 * named that), opened the checked way (ms_lookup_open_kept: a path looked
 * up now is walked once, its O_PATH descriptor reopened); otherwise the
 * running copy (ms_mapfiles_open).  A descriptor, or -1 with why (size
 * bytes) saying why not, and *other (may be NULL) true when that is
 * because the path does not hold the mapped file: then why names both
 * facts ("the file at the path is not the mapped one (replaced); reading
 * the running copy needs root", "the mapped file was deleted; ..." when the
 * kernel marks the name deleted, "no file is at the path; ..." when not:
 * the name may be a path of another mount namespace).
 * MS_ERR_NOMEM when the lookup cache could not grow.
 */
#ifndef MAPSCOPE_MAPFILES_H
#define MAPSCOPE_MAPFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "maps/mapping.h"
#include "proc/fstype.h"
#include "proc/proc.h"
#include "untrusted/lookup.h"
#include "untrusted/untrusted_walk.h"

#define MS_MAPFILES_WHY_PRIV "reading the running copy needs root"
#define MS_MAPFILES_WHY_PTRACE "the process's mapped files cannot be opened (no ptrace access)"
#define MS_MAPFILES_WHY_GONE "the mapping changed since it was read"

int ms_mapfiles_open(const struct ms_proc *proc, const struct ms_mapping *m,
		     const struct ms_fstypes *fstypes, const struct ms_walk_root *root,
		     struct stat *st, const char **why);
int ms_mapfiles_open_mapped(struct ms_lookup_cache *c, const struct ms_lookup_root *root,
			    const struct ms_proc *proc, const struct ms_mapping *m,
			    const struct ms_fstypes *fstypes, char *why, size_t size, bool *other);

#endif
