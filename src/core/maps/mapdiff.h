/*
 * mapdiff.h - what changed between two listings of one address space.
 *
 * Both lists must be sorted by address and free of overlaps, as every
 * listing the engine or a snapshot produces is.  Mappings are matched by
 * their exact range [start, end):
 *   - a range only in the new list is ADDED;
 *   - a range only in the old list is REMOVED;
 *   - a range in both whose permissions, offset, device, inode, name or
 *     build ID differ is CHANGED, with the differing fields in `changed`.
 *     Build IDs are compared only when both sides have one (the text backend
 *     has none).
 * A mapping that grew or shrank is therefore a removal plus an addition.
 *
 * The explorer's live highlighting and `mapscope record` use this one walk:
 * there `+` and `-` mean a range came or went.  `mapscope diff` matches by
 * what a mapping is instead (mapmatch.h), and keeps this meaning behind
 * --addresses.  Entries are delivered in address order through a
 * callback; the pointers are valid only during the call.
 */
#ifndef MAPSCOPE_MAPDIFF_H
#define MAPSCOPE_MAPDIFF_H

#include <stddef.h>

#include "maps/mapping.h"

enum ms_diff_kind {
	MS_DIFF_ADDED,
	MS_DIFF_REMOVED,
	MS_DIFF_CHANGED,
};

#define MS_DIFF_F_PERMS 0x01u
#define MS_DIFF_F_OFFSET 0x02u
#define MS_DIFF_F_DEV 0x04u
#define MS_DIFF_F_INODE 0x08u
#define MS_DIFF_F_NAME 0x10u
#define MS_DIFF_F_BUILDID 0x20u
/* Set by the walk of mapmatch.h only: the pair's sizes differ. */
#define MS_DIFF_F_SIZE 0x40u

struct ms_diff_entry {
	enum ms_diff_kind kind;
	const struct ms_mapping *old_map; /* NULL when ADDED */
	const struct ms_mapping *new_map; /* NULL when REMOVED */
	unsigned changed;                 /* MS_DIFF_F_* when CHANGED */
};

struct ms_diff_summary {
	size_t added;
	size_t removed;
	size_t changed;
	size_t unchanged;
	size_t moved; /* mapmatch.h: pairs at another address, changed or not */
};

/* Which MS_DIFF_F_* fields (up to BUILDID) differ between a and b, the range aside. */
unsigned ms_mapping_differences(const struct ms_mapping *a, const struct ms_mapping *b);

/* Return non-zero from the callback to stop the walk; that value is returned. */
typedef int (*ms_diff_fn)(void *ctx, const struct ms_diff_entry *entry);

/* Walk the differences; fn may be NULL to count only.  summary may be NULL. */
int ms_maplist_diff(const struct ms_maplist *old_list, const struct ms_maplist *new_list,
		    ms_diff_fn fn, void *ctx, struct ms_diff_summary *summary);

#endif
