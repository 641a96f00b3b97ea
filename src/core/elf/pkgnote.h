/*
 * pkgnote.h - the ELF package note of a file: the build a file says it
 * came from.
 *
 * What: distributions that follow the package metadata spec for
 * executable files (systemd's, read by systemd-coredump; Fedora builds
 * every binary so) link into each ELF file a note named "FDO" of type
 * MS_PKGNOTE_TYPE (0xcafe1a7e) whose descriptor is a NUL-terminated JSON
 * object: {"type":"rpm","name":"curl","version":"8.6.0-7.fc40",
 * "architecture":"x86_64","osCpe":"cpe:/o:fedoraproject:fedora:40"}.
 * This module reads the keys mapscope uses (type, name, version,
 * architecture, osCpe) into fixed fields; any other key is skipped.
 *
 * Where: in the PT_NOTE program headers, through the note walk that the
 * build ID uses (elfnote.h: bounded, overflow-checked, extended numbering
 * refused).  The note is an allocated one (the spec), so a linked file
 * carries it in a loaded segment; section headers are read only for a
 * file without program headers.  The first FDO note of that type is the
 * answer, well-formed or not.
 *
 * The JSON: our own small parser, in-process because it allocates nothing
 * and reads only the descriptor's bytes (at most MS_PKGNOTE_READ_MAX).
 * The text ends at the descriptor's first NUL, which must be there; it
 * must be one object, valid JSON (RFC 8259) and valid UTF-8.  String
 * escapes are decoded (\" \\ \/ \b \f \n \r \t, \uXXXX with surrogate
 * pairs joined into one code point, written as UTF-8); a lone surrogate
 * and \u0000 are refused.  Values of other keys are checked and skipped,
 * nested at most MS_PKGNOTE_DEPTH_MAX deep.  The keys we read must have
 * string values; a key of ours given twice refuses the note (parsers
 * disagree on which wins, so none does here).  A value longer than its
 * field refuses the note rather than cutting a version short.  "name" is
 * required; the others may be absent (then "").
 *
 * Trust: the note is written by whoever built or last wrote the file, a
 * user for a file in their home, so it never outranks a package database
 * (owner_source.h).  Its fields are raw bytes (an escaped ESC or a bidi
 * override decodes into them): escape before display.
 *
 * Returns:
 *   - 0 with *out filled;
 *   - MS_END: not ELF, or no package note (a normal answer);
 *   - MS_ERR_LIMIT: refused by a bound (extended numbering, notes beyond
 *     the first MS_PKGNOTE_READ_MAX bytes, nesting too deep, a value too
 *     long for its field);
 *   - MS_ERR_PROTO: a malformed note (not JSON, not an object, bad
 *     escape or UTF-8, a value of ours that is not a string, a key of
 *     ours twice, no name);
 *   - ms_pkgnote_read_fd also MS_ERR_IO and MS_ERR_NOMEM.
 * Every non-zero return fills err (when not NULL) with a short reason
 * that holds no byte of the file ("package note: \"version\" is not a
 * string").
 *
 * Cost: ms_pkgnote_read_fd reads the first MS_PKGNOTE_FIRST_READ bytes
 * (headers and notes of every linked file we have seen), and the first
 * MS_PKGNOTE_READ_MAX only when a note table or segment lies beyond them;
 * its answer is always ms_pkgnote_parse's on the file's first
 * MS_PKGNOTE_READ_MAX bytes.
 */
#ifndef MAPSCOPE_PKGNOTE_H
#define MAPSCOPE_PKGNOTE_H

#include <stddef.h>

#include "base/error.h"

#define MS_PKGNOTE_OWNER "FDO"
#define MS_PKGNOTE_TYPE 0xcafe1a7eu
#define MS_PKGNOTE_READ_MAX (64u * 1024u)
#define MS_PKGNOTE_FIRST_READ 4096u
#define MS_PKGNOTE_DEPTH_MAX 32

/* Sized as struct ms_pkg's fields (pkg.h), which notepkg.c asserts. */
#define MS_PKGNOTE_NAME_MAX 128
#define MS_PKGNOTE_VERSION_MAX 128
#define MS_PKGNOTE_ARCH_MAX 32

struct ms_pkgnote {
	char type[32]; /* "rpm", "deb", ... (the packaging type) */
	char name[MS_PKGNOTE_NAME_MAX];
	char version[MS_PKGNOTE_VERSION_MAX];
	char architecture[MS_PKGNOTE_ARCH_MAX];
	char os_cpe[256];
};

/* The note of a file whose first bytes are buf (size clamped to MS_PKGNOTE_READ_MAX). */
int ms_pkgnote_parse(const unsigned char *buf, size_t size, struct ms_pkgnote *out, struct ms_error *err);
/* The note of the file open at fd (pread from offset 0, never mmap). */
int ms_pkgnote_read_fd(int fd, struct ms_pkgnote *out, struct ms_error *err);
/* The descriptor alone: len bytes, the JSON up to its first NUL. */
int ms_pkgnote_desc(const unsigned char *desc, size_t len, struct ms_pkgnote *out, struct ms_error *err);

#endif
