/*
 * status_index.h - the installed versions from the few stanzas of dpkg's
 * status file that the index (pkgindex.h) says the packages asked about
 * have, instead of reading the file (800 KB on a usual server) up to the
 * last of them.
 *
 * Both functions open DIR/status as saferead.h does (O_PATH, a regular
 * file, reopened non-blocking) and go on only when fstat says the very
 * file the pins name: its st_ino, st_size and st_mtim (dpkg replaces the
 * file at every run, so the places of its stanzas hold while those do).
 *
 * ms_status_index_collect, for an index about to be written (root's):
 * the file read whole (at most MS_PKGDB_STATUS_MAX bytes, and below
 * 4 GiB, the offsets being 32-bit) and the place of every stanza, keyed
 * by its package's name hashed (ms_pkg_status_stanzas,
 * ms_pkg_index_hash).  Another file, a file over the bounds or a read cut
 * short: none (0 with *n 0).  0 or MS_ERR_NOMEM.
 *
 * ms_status_index_versions: for each package found without a version,
 * every stanza of its key in the index, read by pread in the order of
 * their offsets, each ended by a blank line, then ms_pkg_status_versions
 * over them.  A stanza not asked about, or another package's under the
 * same key, is read for nothing and answers nothing, so the answers are
 * those of the whole file (pkg_status.h).  Returns 1 when it answered, 0
 * when the caller must read the file itself (no stanzas in the index,
 * another file, a read cut short), or MS_ERR_NOMEM.  It prints nothing.
 */
#ifndef MAPSCOPE_PKG_STATUS_INDEX_H
#define MAPSCOPE_PKG_STATUS_INDEX_H

#include <stddef.h>

#include "pkg/pkg.h"
#include "pkg/pkgindex.h"

int ms_status_index_collect(const char *dir, const struct ms_pkg_index_pins *pins, struct ms_pkg_index_stanza **out,
			    size_t *n);
int ms_status_index_versions(const char *dir, const struct ms_pkg_index *ix, const struct ms_pkg_index_pins *pins,
			     struct ms_pkg *out, size_t n);

#endif
