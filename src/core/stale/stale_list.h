/*
 * stale_list.h - the lists of files ms_stale_scan fills (stale.h): one
 * struct ms_stale_file per (device, inode, name), found through the
 * group index (stale_group.h), each with its own copy of the name.
 *
 * A plain list allocates each name and frees it when cleared.  A scratch
 * list (struct ms_stale_scratch, pool below) keeps every slot's name
 * buffer, with its size, when cleared: the next scan writes a name into
 * the slot's buffer when it fits, and reallocates it when not, so a walk
 * of process after process allocates once per slot rather than once per
 * file.  Only the scan's own functions here add to a list; a list a caller
 * filled itself is a plain list (pool NULL).
 *
 * Errors: NULL or MS_ERR_NOMEM when out of memory; the list stays valid
 * and is freed as usual.
 */
#ifndef MAPSCOPE_STALE_LIST_H
#define MAPSCOPE_STALE_LIST_H

#include "stale/stale.h"
#include "stale/stale_group.h"

/* Empty list for the next scan; pool (may be NULL) is the scratch list it belongs to. */
void ms_stale_list_clear(struct ms_stale_list *list, struct ms_stale_scratch *pool);
/* Append m as a new file, with a copy of its name, and index it in g. */
struct ms_stale_file *ms_stale_list_add(struct ms_stale_list *list, struct ms_stale_scratch *pool,
					struct ms_stale_group *g, const struct ms_mapping *m);
/* Count m in its file, which is appended first if new.  0 or MS_ERR_NOMEM. */
int ms_stale_list_group(struct ms_stale_list *list, struct ms_stale_scratch *pool, struct ms_stale_group *g,
			const struct ms_mapping *m);

#endif
