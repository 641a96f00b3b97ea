/*
 * snapshot.h - a process's memory map kept in a file, and read back.
 *
 * A snapshot is one JSON document (jansson reads and writes it):
 *
 *   { "mapscope": "snapshot", "version": 1,
 *     "header": { "time", "kernel", "backend", "pid", "start_time",
 *                 "cmdline", "cmdline_truncated", "exe", "boot_id" },
 *     "mappings": [ { "start", "end", "perms", "offset", "dev_major",
 *                     "dev_minor", "inode", "page_size", "name",
 *                     "name_truncated", "build_id" }, ... ] }
 *
 * Every field of struct ms_mapping is kept, losslessly:
 *   - start, end and offset are hex strings (a 64-bit address does not fit
 *     a JSON integer, which jansson reads as signed);
 *   - inode and page_size are integers, or decimal strings past 2^63-1;
 *   - perms is the four letters of /proc/PID/maps ("r-xp");
 *   - name is the kernel's bytes through ms_escape (escape.h): valid UTF-8,
 *     readable, and exactly reversible with ms_unescape; null when unnamed;
 *   - build_id is hex, "" when there is none.
 * The header's cmdline is the whole of /proc/PID/cmdline, NUL separators
 * included, through ms_escape too (so "a\x00b\x00"); exe is the escaped
 * target of /proc/PID/exe, or null when it cannot be read.  time is UTC in
 * RFC 3339 form, start_time the clock ticks since boot of stat field 22
 * (with pid, it names one process: PIDs are reused, start times are not).
 * boot_id, written when known (since version 3's mapscope; an older
 * reader skips it), is /proc/sys/kernel/random/boot_id: two sides of one
 * boot share device and inode numbers, two machines or boots do not, which
 * is how diff knows whether comparing them means anything.
 *
 * Residency (version 2).  A snapshot taken with residency
 * (ms_snapshot_add_residency, `snapshot --residency`) is written as
 * "version": 2 with a root member "residency": { "backend": "pagemap" or
 * "smaps" } and, in every mapping, "rss", "swap" and "huge": bytes as
 * integers, meaning what residency.h says.  The numbers are taken just
 * after the mappings, by one more walk: not atomic with them.  A snapshot
 * without residency is still written as version 1, so an older mapscope
 * reads it; reading accepts both, and restores the residency of a version
 * 2 document into snap->res.
 *
 * Packages (version 3, snapshot_pkg.c).  A snapshot taken with the owners
 * of its files (ms_snapshot_add_packages, what `snapshot` does unless
 * --no-packages) is written as "version": 3 with a root member
 * "packages": {} (the files were looked up) and, in each file mapping
 * whose file a package owns, "package", "package_version" (the version
 * installed when the snapshot was taken; for a deleted file, whose copy
 * may be older than what is installed, the copy's version where the
 * database's log tells it (owner.h, ms_owner_running), else "") and
 * "package_source" ("dpkg", "rpm", "python" or "npm": which source said so,
 * owner.h).  A file mapping without "package" is one no package owned.
 * Name and version are at most MS_SNAPSHOT_PKG_TEXT_MAX bytes of the
 * characters package names and versions use (letters, digits, ". _ + - ~ :
 * ^ ! @ /"); a longer or stranger answer is not kept (unknown), so the bounds
 * below hold.  Packages are kept only where a system database (dpkg or
 * rpm) exists and the process is in our root: elsewhere our databases do
 * not describe its files, and the snapshot has none.  A
 * version 3 document may also hold residency; the version is the lowest
 * that describes what is in the file (3 with packages, else 2 with
 * residency, else 1).
 *
 * A recording (record.h) starts with the same header under
 * "mapscope": "recording", which is why the header has its own encoder.
 *
 * Reading is strict and bounded: the document must be a mapscope snapshot
 * of a known version, every field of the right type, the mappings in
 * address order without overlap (what ms_maplist_diff needs).  JSON syntax
 * errors name the line and column; other errors name the mapping and the
 * field.  Nothing here prints.
 *
 * Memory (snapshot_read.c).  jansson builds a tree of all it parses, about
 * 77 times the text for a file of "{}" items, so it never sees the whole
 * document: a scanner walks the root object, and jansson decodes one member
 * or one mapping at a time.  A file is refused (MS_ERR_LIMIT) past what
 * mapscope writes (snapshot_write.h): MS_SNAPSHOT_FILE_MAX bytes,
 * MS_SNAPSHOT_MAPPINGS_MAX mappings, MS_SNAPSHOT_NAMES_MAX bytes of names,
 * a mapping of more than 64 KiB or 64 values, the root's other members
 * together over 2 MiB.  Reading any accepted file holds the text, the
 * mappings and one small tree: under 100 MB (the largest snapshot the
 * writer accepts, 44 MB, is read in about 70 MB).
 */
#ifndef MAPSCOPE_SNAPSHOT_H
#define MAPSCOPE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "maps/maps.h"
#include "resid/residency.h"
#include "base/safewrite.h"
#include "pkg/pkgdb.h"

#define MS_SNAPSHOT_VERSION 1
/* The version of a snapshot that carries residency. */
#define MS_SNAPSHOT_VERSION_RESIDENCY 2
/* The version of a snapshot that carries the packages of its files. */
#define MS_SNAPSHOT_VERSION_PACKAGES 3
#define MS_SNAPSHOT_PKG_TEXT_MAX 64

/* What a snapshot keeps of a file's package. */
struct ms_snapshot_pkg {
	bool found; /* false: no package owns the file */
	enum ms_pkg_source source;
	char name[MS_SNAPSHOT_PKG_TEXT_MAX + 1];
	char version[MS_SNAPSHOT_PKG_TEXT_MAX + 1]; /* "": unknown */
};

/*
 * Bounds on what a file may make us hold, and on what we write
 * (snapshot_write.h): every snapshot written stays readable.  65,536
 * mappings is above the kernel's default vm.max_map_count (65,530).
 */
#define MS_SNAPSHOT_FILE_MAX (64u * 1024 * 1024)
#define MS_SNAPSHOT_MAPPINGS_MAX 65536u
#define MS_SNAPSHOT_NAMES_MAX (16u * 1024 * 1024)
#define MS_SNAPSHOT_CMDLINE_MAX (128u * 1024)

struct ms_snapshot_header {
	int version;
	char time[40];           /* RFC 3339, UTC */
	char kernel[65];         /* uname release */
	enum ms_backend backend;
	pid_t pid;
	unsigned long long start_time;
	char *cmdline;           /* raw bytes, NULs included; NULL if unknown */
	size_t cmdline_len;
	bool cmdline_truncated;
	char *exe;               /* raw bytes; NULL if unknown */
	size_t exe_len;
	char boot_id[40];        /* "" if unknown */
};

struct ms_snapshot {
	struct ms_snapshot_header hdr;
	struct ms_maplist maps;
	struct ms_resinfo *res;          /* one per mapping; NULL: no residency */
	enum ms_res_backend res_backend; /* which backend measured res */
	struct ms_snapshot_pkg *pkgs;    /* one per mapping; NULL: packages not looked up */
};

/* The time now, RFC 3339 in UTC with nanoseconds, into out (40 bytes). */
void ms_snapshot_time_now(char out[40]);

/* This boot's ID (/proc/sys/kernel/random/boot_id), "" when it cannot be read. */
void ms_snapshot_boot_id(char out[40]);

/* Fill the header from an open process (time now, uname, cmdline, exe). */
int ms_snapshot_header_fill(struct ms_maps *maps, struct ms_snapshot_header *hdr,
			    struct ms_error *err);
void ms_snapshot_header_free(struct ms_snapshot_header *hdr);

/* The header as a JSON object (new reference), NULL when out of memory. */
json_t *ms_snapshot_header_to_json(const struct ms_snapshot_header *hdr);
/* Parse a header object; what names the document in messages. */
int ms_snapshot_header_from_json(json_t *obj, const char *what,
				 struct ms_snapshot_header *hdr, struct ms_error *err);

/* One mapping as a JSON object (new reference), and back. */
json_t *ms_mapping_to_json(const struct ms_mapping *m);
int ms_mapping_from_json(json_t *obj, const char *what, size_t index,
			 struct ms_mapping *m, struct ms_error *err);


/*
 * jansson's error text without the input bytes it quotes ("near '...'"), so
 * no message shows the contents of a file that may not be ours; escaped.
 * Returns out.
 */
#define MS_JSON_WHY_MAX (4 * JSON_ERROR_TEXT_LENGTH + 1)
const char *ms_json_why(const json_error_t *jerr, char out[MS_JSON_WHY_MAX]);

/* Is root {"mapscope": kind, "version": MS_SNAPSHOT_VERSION, ...}? */
int ms_snapshot_check_kind(json_t *root, const char *kind, const char *what,
			   struct ms_error *err);
/* The same for versions 1 to max; *version says which. */
int ms_snapshot_check_kind_upto(json_t *root, const char *kind, const char *what, int max,
				int *version, struct ms_error *err);

/* Header and every mapping of an open process, within the bounds of snapshot_write.h. */
int ms_snapshot_take(struct ms_maps *maps, struct ms_snapshot *snap, struct ms_error *err);

/*
 * Measure the residency of every mapping of snap (taken from proc just
 * before) into snap->res.  Errors as ms_residency_query.
 */
int ms_snapshot_add_residency(struct ms_snapshot *snap, struct ms_proc *proc,
			      struct ms_error *err);

/*
 * Residency in a document: the root's "residency" member (a new
 * reference, NULL when out of memory), one mapping's "rss", "swap" and
 * "huge" added to its object (-1 when out of memory); and back: the root's
 * member for a document of the given version into snap->res_backend, and
 * one mapping's numbers.
 */
json_t *ms_snapshot_res_meta(const struct ms_snapshot *snap);
int ms_snapshot_res_encode_one(const struct ms_resinfo *res, json_t *m);
int ms_snapshot_res_decode_meta(json_t *meta, int version, const char *what,
				struct ms_snapshot *snap, struct ms_error *err);
int ms_snapshot_res_decode_one(json_t *m, const char *what, size_t index,
			       struct ms_resinfo *out, struct ms_error *err);

/*
 * The owner of every file mapping of snap (taken through maps) into
 * snap->pkgs, from the package databases (owner.h): the one place diff and
 * snapshot ask.  A process under another root than ours (a container, a
 * chroot; stale.h) is not asked about, nor is a name not proven a path in
 * our root (nameproof.h: judged through maps, once per file).  0, with
 * snap->pkgs left NULL where nothing was asked or there is no system
 * database; MS_ERR_NOMEM.
 */
struct ms_maps;
int ms_snapshot_add_packages(struct ms_snapshot *snap, struct ms_maps *maps, struct ms_error *err);

/* Packages in a document, as residency above: the root member and one mapping's keys. */
json_t *ms_snapshot_pkg_meta(const struct ms_snapshot *snap);
int ms_snapshot_pkg_encode_one(const struct ms_snapshot_pkg *pkg, json_t *m);
int ms_snapshot_pkg_decode_meta(json_t *meta, int version, const char *what, struct ms_error *err);
int ms_snapshot_pkg_decode_one(json_t *m, const char *what, size_t index,
			       struct ms_snapshot_pkg *out, struct ms_error *err);

/* The version a document of snap is written as. */
int ms_snapshot_version_of(const struct ms_snapshot *snap);

/* Set obj[key] to v, stolen; a NULL v (out of memory) gives -1. */
int ms_snapshot_put(json_t *obj, const char *key, json_t *v);

/*
 * The document as text ending in a newline; *text is malloc'd.  Streamed
 * (snapshot_write.h), so bounded like every written snapshot.
 */
int ms_snapshot_dump(const struct ms_snapshot *snap, char **text, size_t *len,
		     struct ms_error *err);

/* Parse a document; name is used in messages ("FILE:LINE:COL: ..."). */
int ms_snapshot_parse(const char *text, size_t len, const char *name,
		      struct ms_snapshot *snap, struct ms_error *err);

/* Read and parse a file ("-" is not special here). */
int ms_snapshot_load(const char *path, struct ms_snapshot *snap, struct ms_error *err);

/*
 * Take a snapshot of an open process and write it to path through
 * safewrite (opts may be NULL).  *created says "created" or "overwrote".
 * This is the call behind the explorer's S key; like `mapscope snapshot`
 * it keeps the packages of the files (ms_snapshot_add_packages).
 */
int ms_snapshot_save(struct ms_maps *maps, const char *path,
		     const struct ms_safewrite_opts *opts, bool *created,
		     struct ms_error *err);

/* Write an already taken snapshot to path through safewrite, as above. */
int ms_snapshot_write(const struct ms_snapshot *snap, const char *path,
		      const struct ms_safewrite_opts *opts, bool *created,
		      struct ms_error *err);

void ms_snapshot_free(struct ms_snapshot *snap);

#endif
