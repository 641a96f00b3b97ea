/*
 * buildid.h - the GNU build ID of a file on disk.
 *
 * The kernel reports the build ID of a mapped file with PROCMAP_QUERY; to
 * tell a reinstall of identical bytes from a real upgrade, the stale verdicts
 * compare it with the build ID of the file now at the mapping's path.  This
 * module reads that one with libelf (elfutils), the way the kernel reads it
 * (lib/buildid.c): from the PT_NOTE segments of the program headers, a note
 * named "GNU" of type NT_GNU_BUILD_ID, at most MS_BUILD_ID_MAX bytes.
 *
 * The file is untrusted: it is read with pread (never mmap, so a file
 * truncated under us cannot raise SIGBUS), and note segments larger than
 * MS_BUILDID_NOTES_MAX are skipped.
 *
 * Returns 0 with *len > 0, MS_END when the file is not ELF or has no build
 * ID (a normal answer, not a failure), or MS_ERR_IO / MS_ERR_NOMEM with err
 * filled.
 */
#ifndef MAPSCOPE_BUILDID_H
#define MAPSCOPE_BUILDID_H

#include <stddef.h>

#include "error.h"
#include "mapping.h"

#define MS_BUILDID_NOTES_MAX (1u << 20)

int ms_buildid_read_fd(int fd, unsigned char out[MS_BUILD_ID_MAX], size_t *len,
		       struct ms_error *err);

/* Lower-case hex of len bytes into out (2 * len + 1 bytes). */
void ms_buildid_hex(const unsigned char *id, size_t len, char *out);

#endif
