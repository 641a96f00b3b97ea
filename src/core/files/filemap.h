/*
 * filemap.h - one process's mappings grouped into files: which libraries,
 * how many mappings of each, how big.
 *
 * ms_filemap_build groups a maplist (address order, as the engine returns
 * it) into rows:
 *   - a file: every mapping with the same device and inode, whatever the
 *     names say (a file mapped under two names is one file; the row keeps
 *     the first mapping's name);
 *   - without a device and inode, by kind: [heap], [stack], anonymous
 *     (unnamed), each named anonymous region ([anon:NAME]) by its name,
 *     and each other bracketed name ([vdso], [vvar], ...) as its own kind.
 * A row counts its mappings, sums their sizes, unites their permissions,
 * keeps the distinct permission sets its mappings have (perm_sets: a
 * union like "rwx" would read as a writable and executable mapping where
 * there is none) and remembers its first mapping (lowest address), whose index in the
 * list row_of[] maps back from every mapping.  Grouping is by hash: linear
 * in the mappings whatever their names (probes counts the slots compared,
 * for the tests).  Rows come out in the order of their first mapping.
 *
 * Everything beyond the grouping (RSS, build ID, verdict, SONAME, LIBVER) is
 * filled by fileinfo.h, only for the rows a front end shows.  A previous
 * map handed to ms_filemap_build lends those details to the rows of the
 * same file, so a refresh does not read them again.
 *
 * Errors: MS_ERR_NOMEM (the map is then empty).  Names are raw kernel
 * bytes: escape them before display.
 */
#ifndef MAPSCOPE_FILEMAP_H
#define MAPSCOPE_FILEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "elf/soname.h"
#include "elf/verdef.h"
#include "pkg/pkgdb.h"
#include "stale/stale.h"

enum ms_filekind {
	MS_FILEKIND_FILE,
	MS_FILEKIND_HEAP,
	MS_FILEKIND_STACK,
	MS_FILEKIND_ANON,       /* unnamed anonymous memory */
	MS_FILEKIND_ANON_NAMED, /* [anon:NAME] */
	MS_FILEKIND_SPECIAL,    /* another bracketed name: [vdso], [vvar], ... */
};

/* "file", "heap", "stack", "anon", "anon-named", "special". */
const char *ms_filekind_name(enum ms_filekind kind);

/* What fileinfo.h found out about a row; each part says whether it was asked. */
struct ms_fileinfo {
	bool described;          /* the parts in asked were looked at */
	unsigned asked;          /* MS_FILEINFO_* (fileinfo.h) described */
	uint32_t build_id_len;
	unsigned char build_id[MS_BUILD_ID_MAX];
	const char *build_id_why; /* static text when there is none, or NULL */
	bool verdict_known;
	struct ms_stale_result verdict;
	int soname_rc;           /* 0, MS_END (none) or an error: soname_why says */
	char soname[MS_SONAME_MAX + 1];
	char soname_why[160];
	int libver_rc;           /* as soname_rc, for the highest version definition (verdef.h) */
	char libver[MS_VERDEF_NAME_MAX + 1];
	char libver_why[160];
	char filever[MS_VERSION_MAX + 1]; /* the version the name carries; "" when none */
	bool rss_known;
	uint64_t rss;
	/*
	 * With PACKAGE and SONAME: the file the SONAME came from is the one at
	 * the path under our root, and it holds no package note, so the note
	 * source need not walk there again (filepkg.h).
	 */
	bool no_pkgnote;
	bool pkg_known;          /* filepkg.h looked the package up */
	struct ms_pkg pkg;       /* found = false: not packaged (or pkg_why) */
	const char *pkg_why;     /* static text when it could not be asked, or NULL */
};

struct ms_filerow {
	enum ms_filekind kind;
	char *name;           /* raw bytes, NUL-terminated; NULL for unnamed anonymous */
	size_t name_len;
	bool name_ambiguous;  /* text backend: the first mapping's name is not exact */
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	size_t mappings;
	uint64_t size;
	unsigned perms;       /* MS_PERM_* of every mapping, united */
	uint16_t perm_sets;   /* bit p: some mapping has exactly the MS_PERM_* bits p */
	size_t first;         /* index of the first mapping in the list */
	uint64_t first_addr;
	uint64_t first_end;    /* and its end */
	struct ms_fileinfo info;
};

struct ms_filemap {
	struct ms_filerow *rows;
	size_t count;
	size_t *row_of;       /* row index of each mapping of the list grouped */
	size_t nmaps;
	size_t probes;        /* hash slots compared by the last build */
	size_t *slots;        /* the hash: row index + 1, 0 empty */
	size_t nslots;        /* a power of two, over twice count */
};

int ms_filemap_build(struct ms_filemap *fm, const struct ms_maplist *list,
		     const struct ms_filemap *prev, struct ms_error *err);
void ms_filemap_free(struct ms_filemap *fm);

/* The kind of row a mapping goes to (a file, heap, stack, ...). */
enum ms_filekind ms_filekind_of(const struct ms_mapping *m);

/*
 * The distinct permission sets of perm_sets as text, in ASCII order:
 * "r--,r-x,rw-".  A shared set has a fourth letter ("rw-s"); a set that is
 * writable and executable at once is followed by '!' ("rwx!").  "" for
 * none.  MS_PERMSETS_MAX bytes always suffice.
 */
#define MS_PERMSETS_MAX 100
void ms_permsets_format(uint16_t perm_sets, char *buf, size_t size);
/* Some mapping is writable and executable at once (a W^X breach). */
bool ms_permsets_wx(uint16_t perm_sets);

/* The row's name for display (raw bytes): its name, or "[anonymous]" for unnamed memory. */
const char *ms_filerow_name(const struct ms_filerow *row, size_t *len);

/* The SONAME cell: the name (raw bytes), "" when there is none, "?" when unknown. */
const char *ms_fileinfo_soname_text(const struct ms_fileinfo *info);
/* The LIBVER cell, the same way: "GLIBC_2.36", "" or "?". */
const char *ms_fileinfo_libver_text(const struct ms_fileinfo *info);

/* The row of the same file or kind as row in fm, or NULL. */
const struct ms_filerow *ms_filemap_find(const struct ms_filemap *fm, const struct ms_filerow *row);

/* How rows may be sorted; NAME sorts anonymous kinds after files. */
enum ms_filesort {
	MS_FILESORT_ADDR,  /* first mapping's address: the build order */
	MS_FILESORT_SIZE,
	MS_FILESORT_RSS,
	MS_FILESORT_MAPS,
	MS_FILESORT_NAME,
	MS_FILESORT_COUNT,
};

const char *ms_filesort_name(enum ms_filesort key);
/* Sort rows (row_of follows).  Sizes sort largest first unless reverse. */
int ms_filemap_sort(struct ms_filemap *fm, enum ms_filesort key, bool reverse);

#endif
