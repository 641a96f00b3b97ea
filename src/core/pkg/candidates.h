/*
 * candidates.h - the package names a path suggests, for looking in a few
 * of dpkg's lists before all of them (pkgdb.h).
 *
 * ms_pkg_prefixes writes into out the prefixes of package names that the
 * path suggests, lower-case, NUL-terminated, at most MS_PKG_PREFIXES, and
 * returns their number.  Package names hold no '_' ("libgcc_s.so.1" is
 * libgcc-s1's), so '_' becomes '-'.  From the base name:
 *   - its stem, before ".so" when a version or the end follows
 *     ("libssl.so.3" -> "libssl", "libpython3.11.so.1.0" ->
 *     "libpython3.11"), or the whole name ("python3.11");
 *   - the stem without its trailing version ("libfoo-2.0" -> "libfoo"),
 *     when what is left has three characters or more;
 *   - the soname's package name: the stem and the major version, with a
 *     '-' between when the stem ends in a digit ("libc.so.6" -> "libc6",
 *     "libgtk-3.so.0" -> "libgtk-3-0");
 *   - "libX" turned round ("libz.so.1" -> "zlib");
 *   - for a few directories whose files' names suggest nothing, the
 *     package that has most of them (/usr/lib/locale: libc-bin, locales;
 *     /usr/bin: coreutils, procps);
 * and from each directory of the path below the usual ones (usr, lib,
 * share, bin, a multiarch triplet...): the directory's name and "lib"
 * before it ("python3.11" -> "python3.11", "libpython3.11"), deepest
 * first.  A prefix is a guess to look in first, never an answer: the
 * lookup confirms the path in the list.  Pure: no I/O, no allocation.
 */
#ifndef MAPSCOPE_PKG_CANDIDATES_H
#define MAPSCOPE_PKG_CANDIDATES_H

#include <stddef.h>

#define MS_PKG_PREFIXES 8
#define MS_PKG_PREFIX_MAX 64
/* A prefix more lists share than this says too little: pkgdb passes it over. */
#define MS_PKG_CANDIDATES_MAX 32

size_t ms_pkg_prefixes(const char *path, size_t len, char out[][MS_PKG_PREFIX_MAX]);

#endif
