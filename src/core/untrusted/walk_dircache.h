/*
 * walk_dircache.h - the directories untrusted_walk.h keeps between the
 * walks of one run, inside the untrusted room only.  What is kept, when a
 * walk may start below a kept directory, the race that leaves and the
 * bounds are the contract in untrusted_walk.h ("Directories kept"); the
 * public calls (ms_walk_dircache_new, _clear, _free) are declared there.
 * This header is for the walk's own files.
 *
 * A cache is a set of at most MS_WALK_CACHE_DIRS entries, each a directory
 * by its path from the root (the walk's canonical form: "/a/b", no "." or
 * ".." and no symlink), its O_PATH descriptor (the cache's: closed when the
 * entry goes), its mount ID and whether it is root's alone.  Nothing here
 * opens, stats or checks anything: the walk checked each directory before
 * it hands it over, and decides what a found entry may be used for.
 */
#ifndef MAPSCOPE_WALK_DIRCACHE_H
#define MAPSCOPE_WALK_DIRCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "untrusted/untrusted_walk.h"

struct ms_walk_kept {
	int fd;
	uint64_t mnt;
	bool roots; /* root's alone when it was kept */
};

/*
 * A walk from root begins: a cache that served another root (descriptor or
 * mount table) is emptied first.  Entries found or kept until the next
 * begin are this walk's, never made room from.
 */
void ms_walk_dircache_begin(struct ms_walk_dircache *c, const struct ms_walk_root *root);

/*
 * Whether the root is root's alone, once a walk has looked (its fstat):
 * true with *roots set, false when no walk has yet.
 */
bool ms_walk_dircache_root_known(const struct ms_walk_dircache *c, bool *roots);
void ms_walk_dircache_root_set(struct ms_walk_dircache *c, bool roots);

/* The directory kept at path (len bytes), or NULL.  Valid until the next keep or clear. */
const struct ms_walk_kept *ms_walk_dircache_find(struct ms_walk_dircache *c, const char *path, size_t len);

/*
 * Keep the directory at path (len bytes): on true the cache owns fd; on
 * false (that path is kept already, no room that another walk is not
 * using, out of memory) the caller still does.
 */
bool ms_walk_dircache_keep(struct ms_walk_dircache *c, const char *path, size_t len,
			   const struct ms_walk_kept *dir);

#endif
