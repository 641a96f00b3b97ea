/*
 * buildid.h - the GNU build ID of a file on disk, read from a bounded buffer.
 *
 * The kernel reports the build ID of a mapped file with PROCMAP_QUERY; to
 * tell a reinstall of identical bytes from a real upgrade, the stale verdicts
 * compare it with the build ID of the file now at the mapping's path.  This
 * module reads that one the way the kernel does (lib/buildid.c,
 * build_id_parse -> get_build_id_32/64 -> parse_build_id): a note named
 * "GNU" of type NT_GNU_BUILD_ID whose descriptor is 1 to MS_BUILD_ID_MAX
 * bytes, found first in the PT_NOTE program headers, then in SHT_NOTE
 * sections (the note walk is elfnote.h's, shared with the package note).
 *
 * The file is untrusted (any user can put a crafted ELF at a mapped path),
 * so it is never handed to a library that allocates by what the file says:
 * at most MS_BUILDID_READ_MAX bytes are read with pread from offset 0 (never
 * mmap, so a file truncated under us cannot raise SIGBUS) into one buffer,
 * and only headers and notes that lie wholly inside it
 * are looked at.  Every offset and size is checked without overflow.
 * Extended numbering (e_phnum == PN_XNUM, e_shnum == 0 with a section
 * table, e_shstrndx == SHN_XINDEX) moves the real counts into section 0,
 * which is how crafted files made libelf allocate gigabytes: it is refused.
 *
 * ms_buildid_read_fd returns:
 *   - 0 with *len in 1..MS_BUILD_ID_MAX and the ID in out;
 *   - MS_END: not ELF, or no build-ID note (a normal answer);
 *   - MS_ERR_LIMIT: the answer is unknown because the file was refused
 *     (extended numbering, notes beyond the first MS_BUILDID_READ_MAX bytes);
 *   - MS_ERR_IO: pread failed; MS_ERR_NOMEM: no memory for the buffer.
 * Every non-zero return fills err (when not NULL) with a short reason fit to
 * follow "build ID not read: " ("extended ELF numbering refused").
 *
 * ms_buildid_parse is the same reader on bytes already in memory (the fuzz
 * target's entry point); size is clamped to MS_BUILDID_READ_MAX.
 */
#ifndef MAPSCOPE_BUILDID_H
#define MAPSCOPE_BUILDID_H

#include <stddef.h>

#include "base/error.h"
#include "maps/mapping.h"

#define MS_BUILDID_READ_MAX (64u * 1024u)

int ms_buildid_read_fd(int fd, unsigned char out[MS_BUILD_ID_MAX], size_t *len,
		       struct ms_error *err);
int ms_buildid_parse(const unsigned char *buf, size_t size, unsigned char out[MS_BUILD_ID_MAX],
		     size_t *len, struct ms_error *err);

/* Lower-case hex of len bytes into out (2 * len + 1 bytes). */
void ms_buildid_hex(const unsigned char *id, size_t len, char *out);

#endif
