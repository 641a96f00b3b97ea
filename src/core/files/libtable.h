/*
 * libtable.h - the machine's mapped files, one row per file: which
 * processes map each library, in which version, from which copy.  The core
 * of `mapscope libs`; a libraries view and an SBOM (sbom.h) render the same
 * rows.
 *
 * Rows.  ms_libtable_add takes one open process (from the fleet walk,
 * fleet.h, or a view that spreads its walk over ticks), judges its mapped
 * files once (ms_stale_scan: executable file mappings, or every file
 * mapping with MS_STALE_ALL_MAPPINGS), and adds each file to the row of its
 * (device, inode), found by hash.  So a replaced file's old copy and the
 * new one are two rows, and one file seen under two names (a hard link, a
 * renamed path, a bind mount) is one row, under the first name seen from a
 * process in our root that is proven a path to it (nameproof.h), else the
 * first name seen.  A name that is not proven gets no package: a user's
 * name for root's file (through their own mount namespace or a symlink
 * they planted) never labels the row.  A row keeps the
 * processes that map it (uses: the process, its mappings of the file, their
 * RSS and PSS); processes are recorded once each (procs: the PID; with
 * MS_LIBTABLE_PROCS the command name and where the process lives, a
 * container named as `stale` names it, container.h).  Whether a process
 * lives under another root is otherwise asked only while a row it maps is
 * not known to be mapped from our root, so a walk where every process maps
 * the same libraries asks it of few processes.
 *
 * Facts, each computed once per row, when the row is first seen, from the
 * process that showed it (a later process never reads the file again):
 *   - the stale verdict, ms_stale_scan's for that process (the row keeps
 *     it; a view that shows another process's verdict judges it itself);
 *   - the SONAME and LIBVER (MS_LIBTABLE_SONAME, or a pattern that needs it), read
 *     from the very file mapped as the files view reads it (fileinfo.h:
 *     the file at the path under the process's root when it is the mapped
 *     inode, never on a daemon-served file system; else the running copy
 *     through map_files, root only; soname_why says why not), for at
 *     most MS_LIBTABLE_SONAME_READS files: a user's process that maps
 *     65,000 files costs no more than that, and past it a SONAME is
 *     unknown with the reason;
 *   - the build ID (MS_LIBTABLE_BUILD_ID), from the kernel
 *     (ms_maps_build_id_of), which never reads a file on a daemon-served
 *     file system;
 *   - the package (ms_libtable_packages, after the walk): ONE lookup of
 *     every database (owner.h) for the distinct paths of the rows that a
 *     process in our root maps under a proven name.  A row only processes under another root
 *     map gets none: pkg_why says so, and where says where it lives.
 * RSS (MS_LIBTABLE_RSS) and PSS (MS_LIBTABLE_PSS) are per process and
 * summed per row: one residency query (residency.h: PAGEMAP_SCAN, or
 * smaps) over the process's mappings of the rows kept; PSS reads smaps
 * text, so it is asked only when wanted.  Every mapping of a row's file
 * counts, its code and its data (as smem -m sums a library), whichever
 * mappings listed the file; MS_LIBTABLE_CODE_ONLY counts only the
 * mappings the scan looked at (the executable ones, unless
 * MS_STALE_ALL_MAPPINGS).
 *
 * Patterns: opts.match (filematch.h, the matcher `who` uses: a path, a
 * base name or a SONAME, with globs) keeps only the rows it matches, tested
 * on the file's first mapping in the process that shows it first.  A row
 * it does not match is remembered, so it is never looked at again, but it
 * is not kept (kept = false), gets no fact beyond its verdict, and takes no
 * residency query and no package lookup.  A matcher that searches packages
 * too (ms_filematch_substrings) keeps a row its names do not match as a
 * candidate (match_pending) until ms_libtable_packages, whose one lookup
 * then keeps it when its package or source package matches, and drops it
 * otherwise; without plain patterns nothing waits.  match_exact: the row
 * matched a whole name (filematch.h), which ms_libtable_row_cmp puts first.
 *
 * A table only grows: processes that exit keep their uses.  A view that
 * refreshes builds a new table over one whole walk (spread over ticks, one
 * ms_libtable_add at a time, with ms_stale_ctx_forget between walks so
 * verdicts see the disk as it is) and swaps it in when the walk ends.
 *
 * Bounds: at most MS_LIBTABLE_ROWS_MAX rows (files past it are counted in
 * dropped, never added); everything is linear in the mappings read.
 * Nothing here prints; names, SONAMEs and packages are raw bytes: escape
 * before display.
 *
 * Errors: ms_libtable_add returns MS_ERR_NOMEM, or the scan's error for a
 * process that went away or cannot be read (the caller counts it, as the
 * fleet walk does: ms_fleet_note_error; what was added stays).
 */
#ifndef MAPSCOPE_LIBTABLE_H
#define MAPSCOPE_LIBTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "elf/soname.h"
#include "maps/maps.h"
#include "pkg/owner.h"
#include "proc/container.h"
#include "stale/stale.h"

#define MS_LIBTABLE_ROWS_MAX (1u << 20)
#define MS_LIBTABLE_WHY_CONFLICT "its names belong to different packages"
/* SONAMEs read in one table's life (each a lookup and a few reads). */
#define MS_LIBTABLE_SONAME_READS 8192u

struct ms_filematch;
struct ms_lookup_cache;

/* What to find out (opts.what). */
#define MS_LIBTABLE_SONAME 0x1u
#define MS_LIBTABLE_BUILD_ID 0x2u
#define MS_LIBTABLE_RSS 0x4u
#define MS_LIBTABLE_PSS 0x8u /* from smaps: RSS then comes from smaps too */
/*
 * Each process's command name and where it lives: a read of its stat and
 * a stat of its root, per process.  Without it a process record has its
 * PID, and where it lives only when a row needed to know (root_known).
 */
#define MS_LIBTABLE_PROCS 0x10u
/* Memory of the scanned mappings only (code), not every mapping of the file. */
#define MS_LIBTABLE_CODE_ONLY 0x20u

struct ms_libtable_proc {
	pid_t pid;
	char comm[64];       /* raw, from stat, with MS_LIBTABLE_PROCS; else "" */
	bool root_known;     /* other_root was asked (always with MS_LIBTABLE_PROCS) */
	bool other_root;     /* lives under another root than ours */
	bool has_container;  /* other_root, and its engine is known */
	struct ms_container container;
};

/* One process's use of a row's file. */
struct ms_libtable_use {
	size_t proc;         /* index in procs */
	size_t mappings;
	bool res_known;      /* rss (and pss, uss and dirty when asked) were read */
	uint64_t rss;        /* bytes */
	uint64_t pss;
	uint64_t uss;        /* pages no other process maps (smaps' Private_*) */
	uint64_t dirty;      /* written pages, private or shared */
};

struct ms_libtable_row {
	char *name;          /* raw kernel name, NUL-terminated */
	size_t name_len;
	bool name_ambiguous; /* text backend: not an exact path */
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	bool kept;           /* matched the patterns (all rows when there are none) */
	bool match_pending;  /* kept until its package is known (see Patterns) */
	bool match_exact;    /* a whole name, SONAME or package name matched */
	bool host;           /* a process in our root maps it */
	size_t where_proc;   /* !host: the first process that maps it (its container) */
	enum ms_stale_verdict verdict;
	char *why;           /* the verdict's one line */
	/*
	 * name is proven a path to the file (stale.h, path_ours).  A row
	 * first seen under a name that is not takes the first proven name a
	 * later process in our root gives it, with that process's verdict:
	 * one user's name never decides for the processes that follow.
	 */
	bool path_ours;
	/*
	 * Another proven name a process in our root gives the file (a hard
	 * link, a bind mount), the first one seen, or NULL: its package is
	 * asked too.  dpkg's and rpm's answers outrank a Python RECORD's
	 * (a user can write those); two answers of one rank that differ are
	 * a conflict, and the row then names no package (pkg_why says so).
	 */
	char *alt_name;
	size_t alt_len;
	char *soname;        /* NULL: none or unknown (soname_rc) */
	int soname_rc;       /* 0, MS_END (none), an error (soname_why), or 1: not asked */
	char *soname_why;
	char *libver;        /* LIBVER: the highest version definition (verdef.h), read with the SONAME */
	int libver_rc;       /* as soname_rc; an error's reason is soname_why's when both failed */
	uint32_t build_id_len;
	unsigned char build_id[MS_BUILD_ID_MAX];
	const char *build_id_why; /* static text when there is none */
	bool pkg_known;
	struct ms_pkg *pkg;  /* the owner; NULL with pkg_known and no pkg_why: not packaged */
	bool since_known;    /* a replaced or deleted copy: since is the earliest start of a process that maps it */
	unsigned long long since; /* clock ticks since boot, as stat's start_time */
	struct timespec unlinked; /* an old copy's unlink time, where a verdict read it (stale.h); {0, 0}: not */
	const char *pkg_why; /* static text when it could not be asked */
	/*
	 * Where to find the file again after the walk (sbom.h hashes it): the
	 * process whose mapping gave the row its name, and that mapping.
	 */
	size_t map_proc;     /* index in procs */
	uint64_t map_start;
	uint64_t map_end;
	struct ms_libtable_use *uses;
	size_t nuses;
	size_t uses_cap;
	uint64_t rss;        /* summed over uses */
	uint64_t pss;
	uint64_t uss;
	uint64_t dirty;
};

struct ms_libtable_opts {
	unsigned scan_flags;            /* MS_STALE_ALL_MAPPINGS */
	unsigned what;                  /* MS_LIBTABLE_* */
	struct ms_filematch *match;     /* borrowed; NULL: every row */
};

struct ms_libtable {
	struct ms_libtable_opts opts;
	struct ms_libtable_row *rows;   /* in the order first seen */
	size_t count;
	size_t capacity;
	size_t kept;                    /* rows with kept */
	struct ms_libtable_proc *procs;
	size_t nprocs;
	size_t procs_cap;
	size_t dropped;                 /* files past MS_LIBTABLE_ROWS_MAX */
	const char *res_why;            /* the first reason a residency query failed, or NULL */
	bool res_smaps;                 /* some RSS came from smaps (no PAGEMAP_SCAN) */
	size_t soname_reads;            /* files whose SONAME was read: once each */
	struct ms_elfdyn *elf;          /* the reader of those files, allocated once */
	size_t *slots;                  /* the hash: row index + 1, 0 empty */
	size_t nslots;
	struct ms_lookup_cache *lookups;
	struct ms_ancestry *ancestry;   /* the parents climbed to, read once a pass (ancestry.h); may be NULL */
};

/* opts is copied (its patterns borrowed).  0 or MS_ERR_NOMEM. */
int ms_libtable_init(struct ms_libtable *t, const struct ms_libtable_opts *opts, struct ms_error *err);
void ms_libtable_free(struct ms_libtable *t);

/* One process's files into the table (see above). */
int ms_libtable_add(struct ms_libtable *t, struct ms_stale_ctx *ctx, struct ms_proc *proc,
		    struct ms_maps *maps, struct ms_error *err);

/*
 * The package of every kept row a process in our root maps, in one lookup
 * of the open databases (db; NULL: none).  0 (*why, when not NULL, then
 * says "not a dpkg or rpm system" where none exists) or MS_ERR_NOMEM.
 * A replaced or deleted copy's package says which version ran (owner.h,
 * ms_owner_running), dated by the earliest start among the processes of
 * the walk that map it and their ancestors that map it too (ancestry.h):
 * a server's parent that mapped the copy before forking its workers
 * counts even when a PATTERN or a --pid list leaves it out of the walk.
 * Then the candidates of a package search are kept or dropped (above).
 */
int ms_libtable_packages(struct ms_libtable *t, struct ms_owner *db, const char **why,
			 struct ms_error *err);

/*
 * The row's facts for facts.h's texts; its sizes are the sums over its
 * processes, known when every one was read (t NULL: no sizes).  A use's
 * facts are its sizes alone.  PSS, USS and DIRTY come only from smaps
 * (MS_LIBTABLE_PSS).
 */
struct ms_fact_src;
void ms_libtable_row_facts(const struct ms_libtable *t, const struct ms_libtable_row *r, struct ms_fact_src *s);
void ms_libtable_use_facts(const struct ms_libtable *t, const struct ms_libtable_use *u, struct ms_fact_src *s);
/* Every process's residency of the row was read. */
bool ms_libtable_row_res_known(const struct ms_libtable_row *r);

/* The row of the file (device, inode), or NULL. */
struct ms_libtable_row *ms_libtable_find(const struct ms_libtable *t, uint32_t major, uint32_t minor,
					 uint64_t inode);

/*
 * Rows in the order `libs` prints them: exact matches of the patterns
 * first (match_exact), then by name (raw bytes, a shorter prefix first),
 * then device and inode.  <0, 0 or >0, as memcmp.
 */
int ms_libtable_row_cmp(const struct ms_libtable_row *x, const struct ms_libtable_row *y);

/* The process of use u. */
static inline const struct ms_libtable_proc *ms_libtable_proc_of(const struct ms_libtable *t,
								   const struct ms_libtable_use *u)
{
	return &t->procs[u->proc];
}

#endif
