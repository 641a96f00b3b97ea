/*
 * dwload.h - elfutils' libdw, loaded when symbols are first asked for.
 *
 * Linked, libdw and what it needs (libelf, libz, liblzma, libbz2) were
 * loaded at every start of mapscope, for every command, though only `at`'s
 * symbol columns and the explorer's g use them.  So mapscope does not link
 * them: dwload.c defines, under libdw's own names, the functions of libdw
 * and libelf that symbols.c and symindex.c call, and each one loads
 * DW_SONAME with dlopen on the first call and forwards to the real
 * function.  The executable does not export these definitions, so libdw's
 * own calls never come back here.
 *
 * ms_dw_available loads the library if it is not loaded yet and says
 * whether that worked; callers check it first, for a clear error, because
 * a forwarded call whose library could not be loaded fails as libdw itself
 * fails (NULL, -1), not with a reason.
 */
#ifndef MAPSCOPE_DWLOAD_H
#define MAPSCOPE_DWLOAD_H

#include <stdbool.h>

bool ms_dw_available(void);

#endif
