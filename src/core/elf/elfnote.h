/*
 * elfnote.h - the ELF notes of one owner name and type in a bounded
 * buffer: the walk that the build-ID reader (buildid.h) and the package
 * note reader (pkgnote.h) share.
 *
 * Where: the notes are looked for first in the PT_NOTE program headers,
 * then in the SHT_NOTE section headers, as the kernel's build_id_parse
 * does; each note's name and descriptor are padded to 4 or 8 bytes (gABI:
 * the segment's or section's alignment).
 *
 * Bounds: the buffer holds the first bytes of a file an attacker may have
 * crafted.  Only header tables and notes that lie wholly inside it are
 * looked at; every offset and size is checked without overflow; nothing
 * is allocated.  Extended numbering (e_phnum == PN_XNUM, e_shnum == 0
 * with a section table, e_shstrndx == SHN_XINDEX) moves the real counts
 * into section 0, which is how crafted files made libelf allocate
 * gigabytes: it is refused.
 *
 * ms_elfnote_find calls want->take for each note named want->name (namesz
 * bytes, its NUL included) of type want->type, with its descriptor inside
 * buf, until take returns true.  Returns:
 *   - 0: take accepted a note;
 *   - MS_END: not ELF, or no note accepted (err: "no " want->what);
 *   - MS_ERR_LIMIT: refused (extended numbering), or a note table or
 *     segment lay past the buffer, so the answer is unknown
 *     ("notes beyond the first N KiB", N from want->limit).
 * Every non-zero return fills err (when not NULL) with a short reason.
 * Section headers out of reach leave the answer unknown only when there
 * are no program headers (relocatable objects): they usually sit at the
 * end of the file.
 *
 * ms_elfnote_pread reads fd from offset 0 into buf, at most cap bytes
 * (pread, never mmap: a file truncated under us cannot raise SIGBUS):
 * 0 with *have set, or MS_ERR_IO.
 */
#ifndef MAPSCOPE_ELFNOTE_H
#define MAPSCOPE_ELFNOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct ms_elfnote_want {
	const char *name;
	size_t namesz;    /* with its NUL, as the note's n_namesz */
	uint32_t type;
	const char *what; /* for "no WHAT": "GNU build-ID note" */
	size_t limit;     /* the most a caller reads, for the reason */
	bool (*take)(void *arg, const unsigned char *desc, size_t descsz);
	void *arg;
	/* Section headers only for a file without program headers (an allocated note). */
	bool loaded_only;
	/*
	 * Answer MS_ERR_LIMIT at the first table or segment past the buffer,
	 * before any note after it is taken: a caller that read a first part
	 * of a file reads more then, and gets the whole-buffer answer.
	 */
	bool halt_out_of_reach;
};

int ms_elfnote_find(const unsigned char *buf, size_t size, const struct ms_elfnote_want *want,
		    struct ms_error *err);

int ms_elfnote_pread(int fd, unsigned char *buf, size_t cap, size_t *have, struct ms_error *err);

#endif
