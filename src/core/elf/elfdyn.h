/*
 * elfdyn.h - the bounded reader of an ELF file's dynamic section, which
 * the SONAME (soname.h) and the version definitions (verdef.h) share.
 *
 * The file is untrusted (any user can map a crafted ELF), so it is never
 * handed to a library that allocates by what it says (libelf did:
 * gigabytes for a crafted file).  The reader preads small bounded pieces
 * at the offsets the headers give, never mmap (a file truncated under us
 * cannot raise SIGBUS; small reads go through two 4 KiB windows), and
 * allocates nothing:
 *   - the ELF header, then the program headers (at most
 *     MS_ELFDYN_PHDRS_MAX bytes; extended numbering, PN_XNUM, is refused);
 *   - PT_DYNAMIC, at most MS_ELFDYN_DYN_MAX bytes, read whole, keeping the
 *     first DT_STRTAB, DT_STRSZ, DT_SONAME, DT_VERDEF and DT_VERDEFNUM;
 *   - an address (DT_STRTAB, DT_VERDEF) becomes a file offset through the
 *     PT_LOAD segment that holds it in its file part;
 *   - a string of the dynamic string table (ms_elfdyn_string): DT_STRSZ,
 *     when given, must hold its offset and lie inside the file; at most
 *     max bytes up to its NUL.
 * Every sum is checked against overflow and against the file's size.
 *
 * ms_elfdyn_open_fd (the size from fstat) and ms_elfdyn_open_mem (bytes in
 * memory: the fuzz targets) read the headers and the dynamic section into
 * e, and return:
 *   - 0;
 *   - MS_END: a normal "none": not ELF, no program headers, no PT_DYNAMIC
 *     (an executable built static);
 *   - MS_ERR_LIMIT: the file was refused (a piece points out of the file,
 *     a bound was hit);
 *   - MS_ERR_IO: a read failed.
 * Every non-zero return fills err (when not NULL) with a short reason fit
 * to follow "SONAME unknown: " ("dynamic section past the end of the
 * file").  Nothing here opens a file: callers open it the safe way
 * (lookup.h) and never on a file system served by someone else.
 *
 * e is large (the program headers are kept): give it static or heap
 * storage, or a main thread's stack.
 */
#ifndef MAPSCOPE_ELFDYN_H
#define MAPSCOPE_ELFDYN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define MS_ELFDYN_PHDRS_MAX (64u * 1024u)
#define MS_ELFDYN_DYN_MAX (64u * 1024u)
#define MS_ELFDYN_WINDOW 4096u

struct ms_elfdyn {
	/* Where the bytes come from: a descriptor (pread) or memory. */
	int fd;
	const unsigned char *buf;
	uint64_t size;
	bool big_endian;
	unsigned word; /* 4 or 8 */
	int io_errno;  /* of the first failed read */
	/*
	 * Two windows of the file, so that walking the version definitions
	 * and their names in the string table is two preads, not three a
	 * definition.
	 */
	unsigned char win[2][MS_ELFDYN_WINDOW];
	uint64_t win_off[2];
	size_t win_len[2];
	unsigned win_next;
	/* The program headers, as read. */
	unsigned char phdrs[MS_ELFDYN_PHDRS_MAX];
	size_t phnum, phentsize;
	bool is64;
	/* What the dynamic section says (the first of each tag). */
	uint64_t strtab, strsz, soname, verdef, verdefnum;
	bool have_strtab, have_strsz, have_soname, have_verdef, have_verdefnum;
};

int ms_elfdyn_open_fd(struct ms_elfdyn *e, int fd, struct ms_error *err);
int ms_elfdyn_open_mem(struct ms_elfdyn *e, const unsigned char *buf, size_t size,
		       struct ms_error *err);

/* Exactly len bytes at file offset off; false when they are not all in the file. */
bool ms_elfdyn_read(struct ms_elfdyn *e, uint64_t off, size_t len, unsigned char *out);
/* An unsigned field width bytes wide (2, 4 or 8) at p, in the file's byte order. */
uint64_t ms_elfdyn_get(const struct ms_elfdyn *e, const unsigned char *p, unsigned width);
/* The file offset of address addr, through the PT_LOAD that holds it in its file part. */
bool ms_elfdyn_offset(const struct ms_elfdyn *e, uint64_t addr, uint64_t *off);
/*
 * A failed ms_elfdyn_read as an error: MS_ERR_IO when a read failed,
 * else MS_ERR_LIMIT with why.
 */
int ms_elfdyn_refuse(const struct ms_elfdyn *e, struct ms_error *err, const char *why);

/*
 * The string at offset name of the dynamic string table into out (size
 * max + 1, NUL-terminated raw bytes), what naming it in a reason ("SONAME
 * past the end of the file").  0, or MS_ERR_LIMIT / MS_ERR_IO with out "".
 */
int ms_elfdyn_string(struct ms_elfdyn *e, uint64_t name, const char *what, char *out, size_t max,
		     struct ms_error *err);

/*
 * Open (as above) and, when that succeeds, answer with read (ms_soname_of,
 * ms_verdef_of): its code, or the open's with out "".
 */
typedef int (*ms_elfdyn_reader)(struct ms_elfdyn *e, char *out, struct ms_error *err);
int ms_elfdyn_read_fd_with(int fd, ms_elfdyn_reader read, char *out, struct ms_error *err);
int ms_elfdyn_parse_with(const unsigned char *buf, size_t size, ms_elfdyn_reader read, char *out,
			 struct ms_error *err);

#endif
