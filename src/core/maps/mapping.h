/*
 * mapping.h - one memory mapping as mapscope sees it, and lists of them.
 *
 * A struct ms_mapping is filled by either backend (ioctl or text) with the
 * same meaning:
 *   - start/end: the half-open range [start, end);
 *   - perms: MS_PERM_* bits; MS_PERM_SHARED is VM_MAYSHARE (the 's' in text);
 *   - offset: the file offset in bytes, 0 for anonymous mappings;
 *   - dev_major/dev_minor/inode: 0 for anonymous mappings;
 *   - page_size: the kernel page size of the mapping (hugetlb shows here with
 *     the ioctl; the text backend can only report the base page size);
 *   - name: raw bytes as the kernel gave them, NUL-terminated for
 *     convenience, length name_len (without the NUL).  It may contain any
 *     byte, including newlines and escape sequences: escape before display.
 *     NULL with name_len 0 means unnamed;
 *   - build_id: the GNU build ID, build_id_len bytes (ioctl backend only);
 *   - name_ambiguous: the text backend read "\012" in the name, which is
 *     either a newline the kernel escaped or those four bytes in the file
 *     name (the kernel escapes nothing else, not even the backslash), and
 *     PROCMAP_QUERY could not say which.  The name holds the newline
 *     reading; it must never be looked up as a path.
 *
 * The record owns its name.  ms_mapping_copy duplicates, ms_mapping_reset
 * frees.  name_cap is the size of the buffer at name when a setter knows it
 * (0: exactly name_len + 1, the safe reading): ms_mapping_set_name, and so
 * the engine's queries, write a new name into that buffer when it fits, so
 * a record passed back query after query allocates only for a longer name.
 * Whoever points name at another buffer sets name_cap with it (0 will do).  A struct ms_maplist is a growable array of records that owns them.
 *
 * Filters (MS_FILTER_*) use the kernel's semantics: every bit set must hold
 * (AND); there is no OR and no negation.
 */
#ifndef MAPSCOPE_MAPPING_H
#define MAPSCOPE_MAPPING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MS_PERM_READ 0x1u
#define MS_PERM_WRITE 0x2u
#define MS_PERM_EXEC 0x4u
#define MS_PERM_SHARED 0x8u

/* Query filters; the permission bits equal MS_PERM_* on purpose. */
#define MS_FILTER_READABLE 0x01u
#define MS_FILTER_WRITABLE 0x02u
#define MS_FILTER_EXECUTABLE 0x04u
#define MS_FILTER_SHARED 0x08u
#define MS_FILTER_FILE_BACKED 0x20u
#define MS_FILTER_ALL (MS_FILTER_READABLE | MS_FILTER_WRITABLE | \
		       MS_FILTER_EXECUTABLE | MS_FILTER_SHARED | \
		       MS_FILTER_FILE_BACKED)

/* The kernel's BUILD_ID_SIZE_MAX is 20; never pass a smaller buffer. */
#define MS_BUILD_ID_MAX 20

struct ms_mapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t page_size;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	unsigned perms;
	bool name_truncated; /* the kernel could not give the name within PATH_MAX */
	bool name_ambiguous; /* text only: "\012" may be a newline or four bytes */
	size_t name_len;
	char *name;
	size_t name_cap; /* bytes at name, 0 when only name_len + 1 is known */
	uint32_t build_id_len;
	unsigned char build_id[MS_BUILD_ID_MAX];
	/* Set when a build ID was asked for but not read, and why (static text, fstype.h). */
	const char *build_id_skipped;
};

struct ms_maplist {
	struct ms_mapping *items;
	size_t count;
	size_t capacity;
};

static inline uint64_t ms_mapping_size(const struct ms_mapping *m)
{
	return m->end - m->start;
}

bool ms_mapping_is_file_backed(const struct ms_mapping *m);

/* Does m satisfy every bit of filter? */
bool ms_mapping_matches(const struct ms_mapping *m, unsigned filter);

/*
 * The same mapping: range, perms, offset and file (device, inode).  The
 * name is not compared: it comes with the file.
 */
bool ms_mapping_same_identity(const struct ms_mapping *a, const struct ms_mapping *b);

/* Four characters and a NUL, as in /proc/PID/maps: "r-xp". */
void ms_perms_format(unsigned perms, char out[5]);

/*
 * Parse a permission filter such as "rx", "r-x" or "ws" into MS_FILTER_*
 * bits.  Returns 0, or -1 with *bad set to the offending character.
 */
int ms_filter_parse(const char *s, unsigned *filter, char *bad);

/*
 * The length of name without the " (deleted)" the kernel appends to an
 * unlinked file's name (d_path); len when it does not end so.  A file may
 * really be named that: look the full name up first.
 */
size_t ms_mapping_name_undeleted(const char *name, size_t len);

/*
 * Memory on no file system that the kernel names like a file: a memfd
 * ("/memfd:NAME (deleted)"), SysV shared memory ("/SYSV..."), shared
 * anonymous memory ("/dev/zero (deleted)"), an AIO ring, anonymous huge
 * pages, GPU and DMA buffers.  Each lives on a mount of the kernel's own
 * that no mount table lists, on a device of major 0 (the only check of
 * the device: a real file on a disk cannot pass for one).  NULL for any
 * other mapping, else why it is no file to look up, read or hash ("a memfd,
 * by its name: not a file on disk"); "by its name" since a user may name
 * a real file so in a mount namespace of their own.
 */
const char *ms_mapping_not_a_file(const struct ms_mapping *m);

/*
 * Set the name (copied), into m's own buffer when name_cap says it fits,
 * else a new one; returns 0 or MS_ERR_NOMEM (m unchanged then).
 */
int ms_mapping_set_name(struct ms_mapping *m, const char *name, size_t len);
int ms_mapping_copy(struct ms_mapping *dst, const struct ms_mapping *src);
void ms_mapping_reset(struct ms_mapping *m);

/* Takes ownership of *m's name; *m is left empty.  0 or MS_ERR_NOMEM. */
int ms_maplist_push(struct ms_maplist *list, struct ms_mapping *m);
void ms_maplist_clear(struct ms_maplist *list);
void ms_maplist_free(struct ms_maplist *list);

/* Index of the mapping covering addr, or of the first one after it; count if none. */
size_t ms_maplist_lower_bound(const struct ms_maplist *list, uint64_t addr);

#endif
