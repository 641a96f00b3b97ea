/*
 * symbols_dw.h - the symbols of a set of modules, through elfutils'
 * libdwfl.  Internal to symbols.h; runs only in the isolated child
 * (untrusted_child.h, symbols_child.h), or in a fuzz target on bytes it
 * was given.
 *
 * A session holds one Dwfl and modules by number (the parent's file
 * number, below MS_DW_FILES_MAX).  ms_dw_add reports a module from a
 * descriptor the parent opened and checked: a trusted file (root owns it
 * and only root can write it) is given to libelf as the descriptor; any
 * other is read whole into memory first, at most MS_DW_UNTRUSTED_MAX bytes
 * per file and MS_DW_UNTRUSTED_TOTAL in all, and the bytes read are what
 * elfcheck.h checks and libelf parses, so rewriting the file meanwhile
 * cannot slip past the check.  Either way elfcheck.h decides whether
 * libelf sees it at all.  The module spans [low, high) and is named path
 * (where debug links are relative to; nothing is opened by it).
 *
 * Debug files are asked of debug(arg, number, build ID, debuglink name),
 * which returns a descriptor (the session takes it) or -1; a module
 * without a build ID gets none.  libdw also looks for alternate debug
 * files (.gnu_debugaltlink) by itself, with open(): in the child that
 * open fails (the system call filter), and the lookup goes on without.
 *
 * Identical copies are read once.  A process may map many copies of one
 * library (the same file copied under many names, or one per container
 * layer); each would be parsed and indexed again.  So a file whose
 * build ID, size, trust and span length are those of a file given before
 * (one libelf accepted) is not handed to libelf: its lookups go to that
 * file's module, at the same offset into its span, and its descriptor is
 * closed (an untrusted copy's bytes are freed and given back to the
 * budget).  This trusts nothing new under the attacker model: the
 * debug-file lookup already takes a file's claimed build ID at its word
 * (/usr/lib/debug/.build-id/NN/REST.debug is chosen by it), and sharing
 * by build ID gives a file no more than that does.  Trust never crosses:
 * a trusted file is shared only with a trusted one (root wrote both), and
 * an untrusted one only with an untrusted one of the same bytes (compared
 * whole, since another user may have written it), so no user can choose
 * the names shown for a file that user could not write.  A file without
 * a build ID is never shared.  The build ID is read by buildid.h's bounded
 * reader, never by libelf.  The bounds stay: a copy holds no index, no
 * bytes and no descriptor, and the search for an earlier copy compares at
 * most 64 files.
 *
 * Symbols are named through a per-module index (symindex.h) built on
 * first use, MS_SYMBOLS_INDEX_MAX symbols in all, then libdw's scan.
 * ms_dw_lookup fills out as ms_symbols_lookup does (mapping is left
 * alone); its strings live until the session is freed.  why and the
 * *why of ms_dw_add are static text.
 */
#ifndef MAPSCOPE_SYMBOLS_DW_H
#define MAPSCOPE_SYMBOLS_DW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "elf/symbols.h"

#define MS_DW_FILES_MAX 65536u
#define MS_DW_UNTRUSTED_MAX (64u << 20)
#define MS_DW_UNTRUSTED_TOTAL (64u << 20)

typedef int (*ms_dw_debug_fn)(void *arg, uint32_t file, const unsigned char *id, size_t len,
			      const char *debuglink);

struct ms_dw;

/* debug may be NULL (no debug files).  0, or MS_ERR_NOMEM / MS_ERR_NOTSUP. */
int ms_dw_new(ms_dw_debug_fn debug, void *arg, struct ms_dw **out);
/*
 * Report file number file; fd is taken (closed or kept by libelf).  0, or
 * -1 with *why set (the file gives no symbols), or MS_ERR_NOMEM.
 */
int ms_dw_add(struct ms_dw *dw, uint32_t file, int fd, bool trusted, const char *path, uint64_t low,
	      uint64_t high, const char **why);
/* Report an image in memory (copied) as file number file: for fuzz targets. */
int ms_dw_add_image(struct ms_dw *dw, uint32_t file, const unsigned char *buf, size_t len,
		    uint64_t low, uint64_t high, const char **why, struct ms_error *err);
/* 0 (out filled; out->name NULL with why when no symbol), or MS_ERR_NOMEM. */
int ms_dw_lookup(struct ms_dw *dw, uint32_t file, uint64_t addr, unsigned what, struct ms_symbol *out);
/* The fuzz target's comparison of a module's index with libdw (symindex.h). */
int ms_dw_check(struct ms_dw *dw, uint32_t file, struct ms_error *err);
void ms_dw_free(struct ms_dw *dw);

#endif
