/*
 * symbols_fetch.h - debug files from debuginfod servers, bounded in time.
 * Internal to symbols.h.
 *
 * ms_symbols_fetch_new makes no fetcher (*out NULL, return 0) unless on is
 * set and ms_symbols_debuginfod_check (symbols.h) allows it: built with
 * the debuginfod client, DEBUGINFOD_URLS set and not empty, and as root a
 * cache only root may change, which DEBUGINFOD_CACHE_PATH then names before
 * the client is made; and when it makes none it removes DEBUGINFOD_URLS
 * from the environment, so that libdw, which reaches the servers on its
 * own from there, does not either.  A fetcher has seconds (0: the
 * default) for all its fetches together: the client's own timeout
 * (DEBUGINFOD_TIMEOUT) is set to what remains before each one, and its
 * progress function aborts a transfer past the deadline; progress(arg, ...)
 * is called from there.  Once the time is spent, nothing more is fetched.
 *
 * ms_symbols_fetch_debuginfo returns a descriptor of the debug file for
 * the build ID, checked like a local one (elfcheck.h, the same build ID),
 * or -1.
 */
#ifndef MAPSCOPE_SYMBOLS_FETCH_H
#define MAPSCOPE_SYMBOLS_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "elf/symbols.h"

struct ms_symbols_fetch;

int ms_symbols_fetch_new(bool on, unsigned seconds, ms_symbols_progress_fn progress, void *arg,
			 struct ms_symbols_fetch **out);
int ms_symbols_fetch_debuginfo(struct ms_symbols_fetch *f, const unsigned char *id, size_t len);
void ms_symbols_fetch_free(struct ms_symbols_fetch *f);

#endif
