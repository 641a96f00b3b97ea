/*
 * mapmatch.h - what changed between two maps, each mapping matched by what
 * it is rather than by where it sits.
 *
 * Two runs of one program under ASLR, or one process before and after its
 * heap grew, hold the same mappings at other addresses or with other
 * sizes.  Matched by exact range (mapdiff.h) they differ everywhere; here
 * each mapping has a key, and the mappings of one key are paired in address
 * order, the first old with the first new and so on:
 *   - a file (a name starting with '/'): the path without the " (deleted)"
 *     the kernel appends, the file offset, and private or shared;
 *   - anything else: its name ([heap], [stack], [vdso], [anon:NAME], or
 *     none) and its four permission letters, so the guard pages and the
 *     writable regions of many threads pair among their own kind.  Those
 *     pair first by their neighbourhood: the file mapping just below (its
 *     path and offset) and the distance from its end, as an unchanged
 *     region keeps them within one process.  So when a thread in the
 *     middle ends, its stack is the one removed, and a region that
 *     appears below others of its kind is the one added.  What is left
 *     of a kind (a program run twice, under ASLR) then pairs in address
 *     order.
 * What is left unpaired is ADDED or REMOVED.  A pair is CHANGED when one of
 * these differs, each a bit of `changed` (mapdiff.h):
 *   - MS_DIFF_F_SIZE: its size (the heap that grew is one change);
 *   - MS_DIFF_F_PERMS: r, w or x of a file mapping (mprotect);
 *   - MS_DIFF_F_DEV, MS_DIFF_F_INODE: another file at that path (replaced),
 *     compared only when opts->same_boot says device and inode numbers of
 *     both sides mean the same files (one machine, one boot);
 *   - MS_DIFF_F_NAME: the name, that is the " (deleted)" mark came or went;
 *   - MS_DIFF_F_BUILDID: both sides have a build ID and they differ.
 * An address alone is not a change: summary->moved counts the pairs whose
 * start differs, changed or not.
 *
 * With opts->by_address the key is the exact range, and a pair differs as
 * ms_maplist_diff says (offset, name, device and inode always compared):
 * the same entries in the same order as that walk, for `diff --addresses`.
 *
 * Entries come in the new list's address order, each REMOVED one just
 * before the first pair whose old mapping lies above it (by address, also
 * before the first ADDED one above it); with
 * opts->report_unchanged the unchanged pairs come too, as CHANGED with
 * `changed` 0 (for callers that compare more, such as residency), and are
 * counted as unchanged.  Pointers are valid only during the callback.
 *
 * Keys are hashed (hash.h, seeded per run): a process cannot make the
 * pairing quadratic with names that collide.  Memory is under 130 bytes a
 * mapping.  Returns 0, the callback's non-zero value, or
 * MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_MAPMATCH_H
#define MAPSCOPE_MAPMATCH_H

#include <stdbool.h>

#include "maps/mapdiff.h"

struct ms_match_opts {
	bool by_address;       /* match by exact range, as ms_maplist_diff */
	bool same_boot;        /* device and inode numbers are comparable */
	bool report_unchanged; /* deliver unchanged pairs too, with changed 0 */
};

int ms_maplist_match(const struct ms_maplist *old_list, const struct ms_maplist *new_list,
		     const struct ms_match_opts *opts, ms_diff_fn fn, void *ctx,
		     struct ms_diff_summary *summary);

#endif
