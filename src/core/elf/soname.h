/*
 * soname.h - the SONAME an ELF shared object gives itself, and the version
 * its file name carries.
 *
 * The files view shows which version of a library a process runs.  Two
 * cheap answers here (the library's own version is verdef.h's):
 *   - the SONAME (DT_SONAME in the dynamic section: "libc.so.6");
 *   - the version the file name carries after ".so." (FILEVER:
 *     "libz.so.1.2.13" gives "1.2.13", but "libc.so.6" only "6"), from
 *     the mapping's name alone, no read.
 *
 * The SONAME is read with the bounded reader of the dynamic section
 * (elfdyn.h: no allocation, every offset checked against the file), the
 * name itself at most MS_SONAME_MAX bytes up to its NUL.
 *
 * ms_soname_read_fd returns:
 *   - 0 with the SONAME in out (NUL-terminated raw bytes: escape them
 *     before display);
 *   - MS_END: a normal "none": not ELF, no PT_DYNAMIC (an executable built
 *     static), no DT_SONAME (most executables);
 *   - MS_ERR_LIMIT: unknown, the file was refused (a piece points out of
 *     the file, a bound was hit);
 *   - MS_ERR_IO: a read failed.
 * Every non-zero return fills err (when not NULL) with a short reason fit
 * to follow "SONAME unknown: " ("dynamic section past the end of the file").
 * ms_soname_parse is the same reader over bytes in memory (the fuzz
 * target's entry point), and ms_soname_of the same over a file the caller
 * opened with elfdyn.h (to read the version definitions from it too).
 * None opens anything: callers open the file the safe way (lookup.h) and
 * never on a file system served by someone else.
 *
 * ms_version_from_name writes the digits-and-dots after the last ".so." of
 * the name's last component (a " (deleted)" suffix ignored) and returns
 * their length, or 0 with out "" when the name carries none.
 */
#ifndef MAPSCOPE_SONAME_H
#define MAPSCOPE_SONAME_H

#include <stddef.h>

#include "base/error.h"
#include "elf/elfdyn.h"

#define MS_SONAME_MAX 256
#define MS_VERSION_MAX 64

int ms_soname_read_fd(int fd, char out[MS_SONAME_MAX + 1], struct ms_error *err);
int ms_soname_parse(const unsigned char *buf, size_t size, char out[MS_SONAME_MAX + 1],
		    struct ms_error *err);
int ms_soname_of(struct ms_elfdyn *e, char out[MS_SONAME_MAX + 1], struct ms_error *err);

size_t ms_version_from_name(const char *name, size_t len, char out[MS_VERSION_MAX + 1]);

#endif
