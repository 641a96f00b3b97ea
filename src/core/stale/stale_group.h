/*
 * stale_group.h - find a process's file in a stale list by hash, not by a
 * linear walk.
 *
 * ms_stale_scan groups a process's mappings into one struct ms_stale_file
 * per (device, inode, name), and looks /proc/PID/exe up by (device, inode)
 * alone, taking the first file added with that identity.  A linear search
 * made that quadratic: one process with 65,000 distinct mapped files kept
 * `stale` busy for 4 s.  This index answers both questions in expected
 * constant time, with the same answers as the linear search:
 *   - by (device, inode, name): the one file with that key;
 *   - by (device, inode): the earliest added of the files with that
 *     identity (hard links give one inode many names).
 *
 * A list of up to 16 files is searched in order, with no table: most
 * processes map fewer distinct files than that, and two tables allocated,
 * hashed into and freed per process cost more than a few comparisons.  Past
 * 16, every file is indexed, in the order added, and the tables answer.
 *
 * Two open-addressing tables of indices into the list, one per question;
 * the second keeps only the first index for each identity, so thousands of
 * hard links to one inode never make a long chain there, and in the first
 * their names tell them apart.  The hash is seeded at random per run
 * (hash.h), so a process cannot choose names that collide for every run.
 * Bounds: each table holds at most twice as many slots as rounded up from
 * the files added (never fewer than 16), and there is one file per
 * distinct mapping at most, so a hostile process cannot raise the size
 * beyond what its mapping count (vm.max_map_count) allows.
 *
 * probes counts the occupied slots (or, searched in order, the files)
 * compared, over the index's life: the tests and `make bench` check it
 * stays linear in the files added.
 * Errors: ms_stale_group_add returns 0 or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_STALE_GROUP_H
#define MAPSCOPE_STALE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "stale/stale.h"

struct ms_stale_group_table {
	uint32_t *slots; /* list index + 1; 0 is empty */
	size_t mask;     /* slots - 1; slots is a power of two */
	size_t used;
};

struct ms_stale_group {
	struct ms_stale_group_table by_name;
	struct ms_stale_group_table by_inode;
	uint64_t seed;
	size_t probes;
};

void ms_stale_group_init(struct ms_stale_group *g);
void ms_stale_group_free(struct ms_stale_group *g);

/* The file with this device, inode and name in list, or NULL. */
struct ms_stale_file *ms_stale_group_find(struct ms_stale_group *g, struct ms_stale_list *list,
					  uint32_t maj, uint32_t min, uint64_t inode,
					  const char *name, size_t len);
/* The first file added with this device and inode, whatever its name, or NULL. */
struct ms_stale_file *ms_stale_group_find_inode(struct ms_stale_group *g,
						struct ms_stale_list *list, uint32_t maj,
						uint32_t min, uint64_t inode);
/* Index list->items[index], just appended. */
int ms_stale_group_add(struct ms_stale_group *g, struct ms_stale_list *list, size_t index);

#endif
