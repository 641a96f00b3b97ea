/*
 * elfcheck.h - may this ELF file be handed to libelf and libdw?
 *
 * Symbols and source lines come from elfutils (symbols.h), which trusts
 * the sizes a file states: a section size becomes an allocation when the
 * section is compressed, an xz-packed .gnu_debugdata is inflated to
 * whatever it says, and extended numbering moves the real counts where
 * crafted files have made libelf allocate gigabytes.  Any user can put
 * such a file behind a mapping, so every file is checked here first, from
 * a few bounded reads of its headers, before libelf sees it:
 *   - a native ELF file (64-bit, the host's byte order), with headers of
 *     the sizes <elf.h> gives; extended numbering (PN_XNUM, e_shnum 0 with
 *     a section table, SHN_XINDEX) is refused;
 *   - at most MS_ELFCHECK_SECTIONS_MAX sections, the program and section
 *     header tables inside the file, and every section that has bytes in
 *     the file (all but SHT_NOBITS) inside it too;
 *   - a compressed section (SHF_COMPRESSED, or a ".zdebug" one), of any
 *     type, inflates to at most MS_ELFCHECK_INFLATE_MAX bytes, and all of
 *     a file's compressed sections together to at most
 *     MS_ELFCHECK_INFLATE_TOTAL_MAX: libdw inflates each debug section it
 *     reads, so many sections under the first bound would still add up;
 *   - symbol tables of whole Elf64_Sym entries, at most
 *     MS_ELFCHECK_SYMBOLS_MAX of them (counted in the inflated size of a
 *     compressed table, which is what libelf allocates), linked to a
 *     string table;
 *   - an untrusted file (one a user other than root could have written)
 *     carries no .gnu_debugdata: an xz stream says nothing of its size
 *     before it is inflated.
 * Every offset and size is checked without overflow against the file's
 * size, which the caller gives (fstat, or the length of bytes in memory).
 *
 * Returns 0 (hand it over), MS_END (not ELF), MS_ERR_LIMIT (refused; err
 * says why, fit to follow "symbols not read: ") or MS_ERR_IO (a read
 * failed).  Nothing is allocated beyond MS_ELFCHECK_TABLE_MAX bytes for
 * the header and name tables.
 */
#ifndef MAPSCOPE_ELFCHECK_H
#define MAPSCOPE_ELFCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define MS_ELFCHECK_SECTIONS_MAX 4096u
#define MS_ELFCHECK_SYMBOLS_MAX (8u << 20)
#define MS_ELFCHECK_INFLATE_TOTAL_MAX (64u << 20)
#define MS_ELFCHECK_INFLATE_MAX MS_ELFCHECK_INFLATE_TOTAL_MAX
#define MS_ELFCHECK_TABLE_MAX (1u << 20)

int ms_elfcheck_fd(int fd, uint64_t file_size, bool trusted, struct ms_error *err);
int ms_elfcheck_mem(const unsigned char *buf, size_t size, bool trusted, struct ms_error *err);

#endif
