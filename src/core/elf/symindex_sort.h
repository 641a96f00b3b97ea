/*
 * symindex_sort.h - the entries of a symbol index (symindex.h) sorted by
 * address.  Internal to symindex.h.
 *
 * A module's index sorts every symbol that takes part, tens of thousands
 * for an unstripped library, each time the module is first asked about.
 * Ties keep the order the entries came in, which is table order: the
 * index's rules (symindex.h) look at symbols at one address in that order.
 * ms_symindex_sort sorts by value only, a least-significant-digit radix
 * sort, one pass per byte in which the values differ (a module's
 * addresses share their upper bytes: three passes for most), each pass
 * stable; an array already in order costs one read.  It never compares
 * two entries, so no table can make it slower than its passes.
 */
#ifndef MAPSCOPE_SYMINDEX_SORT_H
#define MAPSCOPE_SYMINDEX_SORT_H

#include <stddef.h>
#include <stdint.h>

struct ms_symindex_entry {
	uint64_t value;
	uint64_t size;
	uint64_t reach;   /* the highest end (saturated) of this entry and all below it */
	uint32_t ndx;     /* in dwfl_module_getsym_info's numbering: table order */
	uint32_t bind;    /* higher binds more strongly */
};

/*
 * Sort e's n entries by value, stably, with tmp (room for n entries) as
 * scratch.  Returns the one of e and tmp that holds the sorted entries.
 */
struct ms_symindex_entry *ms_symindex_sort(struct ms_symindex_entry *e, struct ms_symindex_entry *tmp,
					   size_t n);

#endif
