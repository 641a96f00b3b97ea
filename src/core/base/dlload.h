/*
 * dlload.h - an optional library, loaded with dlopen the first time it is
 * needed rather than linked, so that what only one feature uses costs
 * nothing at every start of mapscope (libproc2, libdw, libdebuginfod).
 *
 * ms_dl_load tries once per struct ms_dl: it opens soname (RTLD_NOW,
 * RTLD_LOCAL), resolves every symbol into its slot, and says whether all
 * of them were found; later calls only repeat that answer.  A library
 * that lacks one symbol is closed again and counts as absent.  The handle
 * of a loaded library stays open for the program's life.  ms_dl_forget
 * makes the next ms_dl_load try again (tests pointing it at another
 * soname).  Not thread-safe: mapscope loads from its one thread.
 */
#ifndef MAPSCOPE_DLLOAD_H
#define MAPSCOPE_DLLOAD_H

#include <stdbool.h>
#include <stddef.h>

struct ms_dl {
	bool tried;
	bool loaded;
};

/* A symbol to resolve: its name, and the function pointer to fill (cast). */
struct ms_dl_sym {
	const char *name;
	void **slot;
};

bool ms_dl_load(struct ms_dl *dl, const char *soname, const struct ms_dl_sym *syms, size_t n);
void ms_dl_forget(struct ms_dl *dl);

#endif
