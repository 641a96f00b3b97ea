/*
 * stale_prefetch.h - a fleet walk's processes opened and their file
 * mappings read on a second thread, while the caller judges the ones
 * before.
 *
 * Why: `stale` over 500 processes spends most of its time in the kernel,
 * opening each process and asking PROCMAP_QUERY for its file mappings;
 * judging them (lookups, the name proofs, the report) is the rest.  One
 * after the other, the two add up; on two CPUs one thread can walk while
 * the other judges, and the walk, the larger part, is shared: the caller
 * walks too whenever the next process it must judge is not ready.
 *
 * Threads, written down first:
 *   - The fleet (fleet.h) is shared under the prefetch's lock from start to
 *     stop: a walker (the thread, or the caller) takes the fleet's next
 *     index there (next++), opens and walks that process outside the lock
 *     (ms_fleet_open_at reads only what ms_fleet_init set), then settles it
 *     under the lock (ms_fleet_settle, ms_fleet_note_error), so the
 *     counters and ioctl_known are only ever written there.  The caller
 *     reads the counters only after ms_stale_prefetch_stop.
 *   - Process i's walk goes to slot i % 32, never more than 32 ahead of the
 *     caller, and the caller takes the slots in the fleet's order: who
 *     walked a process changes nothing in what is handed over, or when.
 *   - Each process's handles (ms_proc, ms_maps) are made and walked by one
 *     walker; a slot is the walker's until settled, then the caller's; the
 *     caller alone closes handles it took.  The thread never keeps a handle
 *     it settled.
 *   - The thread asks for names only, never build IDs, so it never reaches
 *     the walk's shared mount tables (fstypes_shared.h, which the caller's
 *     build ID questions load); a scan that wants every build ID
 *     (MS_STALE_BUILD_IDS) does not take this path.
 *   - The thread blocks every signal, prints nothing and calls back into
 *     nothing of the caller's.
 *
 * Contract:
 *   - ms_stale_prefetch_start(fleet, filter) starts the thread; NULL when
 *     no thread could be made or only one CPU may run this thread
 *     (base/cpus.h: the two are kept on different CPUs), and the caller
 *     walks the fleet itself.
 *   - ms_stale_prefetch_next hands over the processes in the fleet's order,
 *     as ms_fleet_next would: MS_FLEET_OPEN with *proc, *maps and the
 *     mappings the kernel gave for filter (raw names, in address order)
 *     moved to *mappings (cleared first), and *walk_rc 0; or *walk_rc the
 *     walk's error with err filled and no handles (closed already, the
 *     error counted, ms_fleet_note_error), *named set when a named
 *     PID's error must be reported; MS_FLEET_NAMED_FAILED with err;
 *     MS_FLEET_DONE at the end.  A walk that met an exec was followed once (ms_maps_reopen).
 *     MS_ERR_NOMEM when a walk ran out of memory.
 *   - ms_stale_prefetch_walked_here: how many processes the caller walked
 *     itself so far.
 *   - ms_stale_prefetch_stop stops the thread (after at most the process
 *     it is on), joins it, closes every process not handed over and frees
 *     everything; safe at any point, with NULL too.  It must be called by
 *     the thread that started it.
 * Nothing here prints.
 */
#ifndef MAPSCOPE_STALE_PREFETCH_H
#define MAPSCOPE_STALE_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "maps/fleet.h"
#include "maps/mapping.h"

struct ms_stale_prefetch;

struct ms_stale_prefetch *ms_stale_prefetch_start(struct ms_fleet *fleet, unsigned filter);
int ms_stale_prefetch_next(struct ms_stale_prefetch *p, struct ms_proc **proc, struct ms_maps **maps,
			   struct ms_maplist *mappings, int *walk_rc, bool *named, struct ms_error *err);
size_t ms_stale_prefetch_walked_here(const struct ms_stale_prefetch *p);
void ms_stale_prefetch_stop(struct ms_stale_prefetch *p);

#endif
