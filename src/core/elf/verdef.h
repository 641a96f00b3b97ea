/*
 * verdef.h - the library's own version, where its ELF states one: the
 * highest of its version definitions (.gnu.version_d, found through
 * DT_VERDEF): "GLIBC_2.36" for libc.so.6, "OPENSSL_3.0.9" for
 * libcrypto.so.3.  The LIBVER column.
 *
 * Which definitions count:
 *   - not the base one (VER_FLG_BASE), which names the file (its SONAME);
 *   - only names that are a name, '_', then a dotted number:
 *     NAME_N[.N...], NAME of letters, digits and '_' with a letter in it
 *     ("GLIBC_2.2.5", "NCURSES6_TINFO_6.2.20211010", "ELFUTILS_0"); not
 *     "GLIBC_PRIVATE" nor "libjansson.so.4".
 * "Highest" compares the numbers part by part, as numbers (2.36 > 2.4,
 * 2.3.2 > 2.3), whatever the prefix: libstdc++'s GLIBCXX_3.4.30 wins over
 * its CXXABI_1.3.13.  Between equal numbers under different prefixes
 * (libffi's LIBFFI_BASE_8.0 and LIBFFI_CLOSURE_8.0) the first defined
 * wins.  The numbers are compared as digit strings: any length, no
 * overflow.
 *
 * The walk reads with elfdyn.h's bounded reader, never allocating:
 *   - DT_VERDEF becomes a file offset through its PT_LOAD;
 *   - at most MS_VERDEF_DEFS_MAX definitions: a larger DT_VERDEFNUM is
 *     refused, and without one the chain stops there;
 *   - vd_next only moves forward (it is unsigned and added in 64 bits:
 *     no wrap back to an earlier entry), 0 ends the chain, and every entry
 *     must lie inside the file;
 *   - each definition's own name is its first auxiliary entry (vd_aux);
 *     the others, reached through vda_next, are its parents and are never
 *     followed;
 *   - each name at most MS_VERDEF_NAME_MAX bytes, through the string
 *     table checks of elfdyn.h.
 *
 * ms_verdef_read_fd, ms_verdef_parse (bytes in memory: the fuzz target)
 * and ms_verdef_of (a file opened with elfdyn.h, as for the SONAME) return:
 *   - 0 with the name in out ("GLIBC_2.36": raw bytes, escape them before
 *     display; they are letters, digits, '_' and '.' only);
 *   - MS_END: none stated: what elfdyn.h calls none (not ELF...), no
 *     DT_VERDEF, or no definition of that form;
 *   - MS_ERR_LIMIT: the file was refused (a piece out of the file, a bound
 *     hit, an unknown vd_version);
 *   - MS_ERR_IO: a read failed.
 * Every non-zero return fills err (when not NULL) with a short reason fit
 * to follow "LIBVER unknown: ".
 *
 * ms_verdef_cmp orders two such names by their numbers (<0, 0, >0); a name
 * not of the form sorts below every one that is.
 */
#ifndef MAPSCOPE_VERDEF_H
#define MAPSCOPE_VERDEF_H

#include <stddef.h>

#include "base/error.h"
#include "elf/elfdyn.h"

#define MS_VERDEF_DEFS_MAX 1024u
#define MS_VERDEF_NAME_MAX 128

int ms_verdef_of(struct ms_elfdyn *e, char out[MS_VERDEF_NAME_MAX + 1], struct ms_error *err);
int ms_verdef_read_fd(int fd, char out[MS_VERDEF_NAME_MAX + 1], struct ms_error *err);
int ms_verdef_parse(const unsigned char *buf, size_t size, char out[MS_VERDEF_NAME_MAX + 1],
		    struct ms_error *err);

int ms_verdef_cmp(const char *a, const char *b);

#endif
