/*
 * ancestry.h - since when a process has held a copy of a file: its own
 * start, or the start of the parent, grandparent... that maps the same
 * copy too.
 *
 * A worker a server forked holds the copies its parent mapped before the
 * worker started: the version of such a copy is the one installed when the
 * ancestor started, not when the worker did.  ms_ancestry_mapped_since
 * climbs from ppid while each ancestor started no later than the start so
 * far and maps a copy the caller's holds callback accepts (one walk of its
 * file mappings, by device and inode), at most MS_ANCESTRY_MAX levels; a
 * parent that cannot be read, or holds none of them, ends the climb (init,
 * PID 1, is never climbed to).  Returns the earliest start found, in clock
 * ticks since boot, as /proc/PID/stat gives it.
 *
 * A walk over many processes climbs to the same parents again and again
 * (after an upgrade, every worker of one server).  With a memo
 * (ms_ancestry_new, one per pass), each ancestor's stat and the files it
 * maps (device and inode, at most MS_ANCESTRY_HELD_MAX, and
 * MS_ANCESTRY_HELD_TOTAL over the memo) are read once and asked from
 * memory after that; past MS_ANCESTRY_MEMO_MAX ancestors, or for one
 * whose files did not all fit, it reads as without a memo.  What it
 * remembers is as of its first read: a PID reused within the pass is taken
 * for the process it was.
 */
#ifndef MAPSCOPE_ANCESTRY_H
#define MAPSCOPE_ANCESTRY_H

#include <stdbool.h>

#include "maps/mapping.h"

#define MS_ANCESTRY_MAX 16
#define MS_ANCESTRY_MEMO_MAX 4096
#define MS_ANCESTRY_HELD_MAX 4096
#define MS_ANCESTRY_HELD_TOTAL 65536

/* Does mapping m hold one of the caller's copies? */
typedef bool (*ms_ancestry_holds_fn)(void *arg, const struct ms_mapping *m);

unsigned long long ms_ancestry_mapped_since(unsigned long long start, int ppid, ms_ancestry_holds_fn holds,
					    void *arg);

struct ms_ancestry;

/* An empty memo; NULL when out of memory (then pass NULL: no memo). */
struct ms_ancestry *ms_ancestry_new(void);
void ms_ancestry_free(struct ms_ancestry *a);
/* ms_ancestry_mapped_since, with memo (may be NULL). */
unsigned long long ms_ancestry_mapped_since_in(struct ms_ancestry *memo, unsigned long long start, int ppid,
					       ms_ancestry_holds_fn holds, void *arg);

#endif
