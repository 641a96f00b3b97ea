/*
 * libtable_res.h - RSS, PSS, USS and DIRTY of a libraries table's rows (libtable.h):
 * for one process, one residency query (residency.h) over its mappings of
 * the rows kept, summed into that process's use of each row and into the
 * row.  PAGEMAP_SCAN for RSS; smaps when PSS is asked (it is the only
 * source of Pss, and of the private and dirty counts that make USS and
 * DIRTY), which then gives RSS too.  Only the mappings the scan
 * looked at count (executable ones, or all with MS_STALE_ALL_MAPPINGS).
 *
 * A query that fails leaves that process's uses without numbers
 * (res_known false) and keeps the first reason in t->res_why; it is not an
 * error of the walk.  0 or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_LIBTABLE_RES_H
#define MAPSCOPE_LIBTABLE_RES_H

#include <stddef.h>

#include "base/error.h"
#include "files/libtable.h"
#include "maps/maps.h"
#include "proc/proc.h"

int ms_libtable_residency(struct ms_libtable *t, size_t proc_index, struct ms_proc *proc,
			  struct ms_maps *maps, struct ms_error *err);

#endif
