/*
 * filediff.h - which files two snapshots map, and what changed about each:
 * the question after an upgrade, or between two machines.
 *
 * A file is a mapping whose name is a path (it starts with '/'), known by
 * that path without the " (deleted)" the kernel appends; all the mappings
 * of one path are one file.  Files only one side maps are ADDED or
 * REMOVED.  A file both sides map is CHANGED when, each a bit of
 * `changed`:
 *   - MS_FILEDIFF_F_FILE: its device or inode differ (another file was put
 *     at the path), compared only when ms_snapshot_same_boot says the
 *     numbers of both sides name the same files;
 *   - MS_FILEDIFF_F_BUILDID: both have a build ID and they differ;
 *   - MS_FILEDIFF_F_PACKAGE: both sides looked packages up (snap->pkgs) and
 *     the owners differ (a package, another package or none);
 *   - MS_FILEDIFF_F_VERSION: both know the owner's version, and it differs;
 *   - MS_FILEDIFF_F_DELETED: the " (deleted)" mark came or went.
 * Where it is mapped, how often and how big it is are not compared: two
 * runs of one program under ASLR map the same files.  A side's facts are
 * those of its first mapping of the file (the lowest address), its build ID
 * the first one any of its mappings has.
 *
 * Entries come in the byte order of the paths; pointers are valid during
 * the callback only.  Grouping sorts each side once: n log n in the
 * mappings, about 48 bytes each.  Returns 0, the callback's non-zero value,
 * or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_FILEDIFF_H
#define MAPSCOPE_FILEDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/mapdiff.h"
#include "snap/snapshot.h"

#define MS_FILEDIFF_F_FILE 0x01u
#define MS_FILEDIFF_F_BUILDID 0x02u
#define MS_FILEDIFF_F_PACKAGE 0x04u
#define MS_FILEDIFF_F_VERSION 0x08u
#define MS_FILEDIFF_F_DELETED 0x10u

struct ms_filediff_side {
	const struct ms_mapping *map;      /* its first mapping; NULL: not on this side */
	const struct ms_mapping *build_id; /* its first mapping with a build ID, or NULL */
	const struct ms_snapshot_pkg *pkg; /* NULL: not looked up; !found: not packaged */
	size_t mappings;
	uint64_t size;                     /* bytes mapped, all its mappings together */
	bool deleted;
};

struct ms_filediff_entry {
	enum ms_diff_kind kind;
	const char *path; /* raw bytes: escape before display */
	size_t path_len;
	struct ms_filediff_side old_side, new_side;
	unsigned changed; /* MS_FILEDIFF_F_* */
};

typedef int (*ms_filediff_fn)(void *ctx, const struct ms_filediff_entry *entry);

/*
 * Do the device and inode numbers of a and b name the same files: false
 * only when both headers name their boot and the boots differ.
 */
bool ms_snapshot_same_boot(const struct ms_snapshot *a, const struct ms_snapshot *b);

/* Walk the files; fn may be NULL to count only.  summary may be NULL (moved stays 0). */
int ms_snapshot_diff_files(const struct ms_snapshot *old_snap, const struct ms_snapshot *new_snap,
			   ms_filediff_fn fn, void *ctx, struct ms_diff_summary *summary);

#endif
