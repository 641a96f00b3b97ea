/*
 * stale_memo.h - the "ok" verdicts already made under our own root, so a
 * fleet of processes mapping the same libraries has each of them judged
 * once per run rather than once per process.
 *
 * What is kept: a verdict ms_stale_judge made for a file under our root
 * (the cache's own root, with no second root to try) from the name's proof
 * alone, the path holding the mapped device and inode (nameproof.h
 * MS_NAME_SAME).  That proof rests only on the lookup the stale context's
 * cache keeps for the path until ms_stale_ctx_forget, and on the mapping's
 * device, inode and name: any process of the run mapping that device and
 * inode under that name in our root gets the same proof from the same
 * cached lookup, so the same verdict.  Nothing that turns on the process
 * (a name proven again from a fresh read, a build ID, a settled chroot) is
 * kept.  The caller clears the memo whenever the cache forgets.
 *
 * Keys are (device, inode, name), compared byte for byte; the hash is
 * seeded per run (hash.h), so a process cannot choose colliding names.
 * Bounds: at most MS_STALE_MEMO_MAX entries in a fixed table of twice as
 * many slots; once full, or when memory is short, a verdict is simply not
 * kept and is made again the next time (never an error).  A name is copied
 * once per entry, and names longer than PATH_MAX are not kept.
 */
#ifndef MAPSCOPE_STALE_MEMO_H
#define MAPSCOPE_STALE_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "stale/stale.h"

#define MS_STALE_MEMO_MAX 1024u
/* Positions in a process's list of files that remember their last entry. */
#define MS_STALE_MEMO_HINTS 32u

struct ms_stale_memo_entry {
	uint64_t hash;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	char *name;
	size_t name_len;
	struct ms_stale_result result;
};

struct ms_stale_memo {
	struct ms_stale_memo_entry *entries; /* MS_STALE_MEMO_MAX, allocated at the first add */
	uint16_t *slots;                     /* entry index + 1; 0 is empty */
	size_t count;
	uint64_t seed;
	/*
	 * The entry last found or added for the file at each position of a
	 * process's list (index + 1): the processes of a fleet list the same
	 * files in the same order, so the entry there is compared first,
	 * whole key, before the name is hashed.  Only ever a shortcut.
	 */
	uint16_t hints[MS_STALE_MEMO_HINTS];
};

/*
 * The verdict kept for m's device, inode and name, or NULL.  pos is m's
 * position in its process's list of files (SIZE_MAX: none).
 */
const struct ms_stale_result *ms_stale_memo_find(struct ms_stale_memo *memo, const struct ms_mapping *m,
						 size_t pos);
/* Keep r for m's device, inode and name, if there is room. */
void ms_stale_memo_add(struct ms_stale_memo *memo, const struct ms_mapping *m, const struct ms_stale_result *r,
		       size_t pos);
/* Drop every entry, keeping the tables. */
void ms_stale_memo_clear(struct ms_stale_memo *memo);
void ms_stale_memo_free(struct ms_stale_memo *memo);

#endif
