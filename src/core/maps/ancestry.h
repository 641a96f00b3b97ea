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
 */
#ifndef MAPSCOPE_ANCESTRY_H
#define MAPSCOPE_ANCESTRY_H

#include <stdbool.h>

#include "maps/mapping.h"

#define MS_ANCESTRY_MAX 16

/* Does mapping m hold one of the caller's copies? */
typedef bool (*ms_ancestry_holds_fn)(void *arg, const struct ms_mapping *m);

unsigned long long ms_ancestry_mapped_since(unsigned long long start, int ppid, ms_ancestry_holds_fn holds,
					    void *arg);

#endif
