/*
 * sbom.h - what a runtime SBOM says, as a model: the components of the
 * files mapped now (a libtable.h table, its packages looked up), for a
 * front end to write as CycloneDX (cli/libs_cdx.h).  It describes memory,
 * not disk: a component's version is the version of the copy that runs.
 *
 * Components:
 *   - one per package version that runs: the kept rows whose owner was
 *     found, grouped by database, name, architecture and version.  A row
 *     counts for the version of its copy: the installed one for a copy
 *     still at its path (pkg.h, INSTALLED), running for a replaced or
 *     deleted copy whose version is known (KNOWN).  A package with an
 *     old copy running and the new one mapped too is two components.  A
 *     copy whose version cannot be known (UNKNOWN) counts for each of its
 *     candidates (running, running_alt): one component per candidate,
 *     with a lower confidence (MS_SBOM_CONF_*), unless another row makes
 *     that version sure;
 *   - with opts.installed (--installed), for a package with an old copy
 *     running, its installed version when no row maps it: a component
 *     with no rows and no processes (MS_SBOM_NOT_RUNNING);
 *   - one per kept row no package owns, or whose package could not be
 *     asked (pkg_why: a process under another root, a name that is not a
 *     path): a file component, with its SHA-256 (below);
 *   - one per kept row whose package is known but not the version of its
 *     copy: UNKNOWN without a candidate, or a source that names no
 *     version.  It is a file component too (unknown_pkg names the
 *     package), hashed like the others.  A version "unknown" or a purl
 *     without a version would be matched by no scanner, or worse, by a
 *     range that claims every version; the hash of the very copy that runs
 *     is what can be said of it, and the package stays a property.
 * Every library component has a version and a purl (purl.h, os-release's
 * ID as vendor; NULL only when the purl cannot be made: deb or rpm
 * without a known distribution).
 * Each component lists its rows (indexes in t->rows, in name order) and
 * the processes that map any of them (indexes in t->procs, by PID); the
 * document lists, for each process, the components it maps (proc_items
 * from proc_start[i] to proc_start[i + 1], in component order), a
 * process that maps none having none.
 * Package components come first, sorted by name then version; file
 * components after, by name.
 *
 * Hashes: a file component's SHA-256 is of the very file mapped, found
 * again after the walk through the process whose mapping named its row
 * (libtable.h: map_proc, map_start, map_end) and opened as the SONAME is
 * (mapfiles.h, ms_mapfiles_open_mapped: the file at its path when it is
 * the mapped inode, never on a daemon-served file system, else the
 * running copy through map_files, root only); a process that exited
 * since, a mapping gone, a file that is not the row's inode any more, or
 * memory the kernel names like a file (a memfd: not a file on disk) gives
 * no hash and says why.  Only file components are hashed (a package
 * version is named by its purl, so its files cost the budget nothing; a
 * copy of unknown version is a file component, and is hashed).
 * The hash is libcrypto's (digest.h), over bounded reads of the opened
 * file; where libcrypto.so.3 is not available no file is hashed and each
 * says so ("libcrypto.so.3 is not available: ..."), never a hash of our own.
 *
 * The budget, which a user cannot raise and cannot spend for root: a file
 * over MS_SBOM_HASH_FILE_MAX bytes is not read, and one run hashes at most
 * MS_SBOM_HASH_FILES files and MS_SBOM_HASH_TOTAL_MAX bytes.  Who gets it
 * is decided before anything is hashed (ms_sbom_budget_plan), from each
 * file's owner (st_uid of the file opened as above, one open per file
 * component, each process opened once): root's files first, in name order;
 * then the rest is shared per owning uid, round robin over the uids (one
 * file each per round, in name order; in a round, the uids that want
 * fewer bytes first, then by uid), each uid's bytes held to an equal share
 * of what root left (what a uid does not need goes to the others).  So a
 * user who maps 65,000 files gets one share, and root's files and other
 * users' keep theirs.  The second open, to hash, must find the same owner
 * and size.  A file past the budget has hash_why MS_SBOM_WHY_FILES or
 * MS_SBOM_WHY_BYTES; the document counts the files without a hash
 * (unhashed_files) and those the budget left out (budget_skipped).
 * Linear in the file components, but for sorts.
 *
 * Nothing prints; names are raw bytes.  ms_sbom_build returns 0 or
 * MS_ERR_NOMEM.  Memory: one entry per row and candidate, linear.
 */
#ifndef MAPSCOPE_SBOM_H
#define MAPSCOPE_SBOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/digest.h"
#include "files/libtable.h"
#include "pkg/osrelease.h"
#include "pkg/purl.h"

#define MS_SBOM_HASH_FILE_MAX (64u << 20)
#define MS_SBOM_HASH_TOTAL_MAX (512u << 20)
#define MS_SBOM_HASH_FILES 4096u
#define MS_SBOM_WHY_FILES "hash budget: 4096 files per run, root's files first, then shared per owner"
#define MS_SBOM_WHY_BYTES "hash budget: 512 MiB per run, root's files first, then shared per owner"

/* What a package component's rows say of its version (mapscope:running in the document). */
enum ms_sbom_running {
	MS_SBOM_INSTALLED,   /* every row is a copy of the installed version */
	MS_SBOM_REPLACED,    /* some row is a replaced or deleted copy, its version known (KNOWN) */
	MS_SBOM_CANDIDATE,   /* every row is a copy this version may be (UNKNOWN, a candidate) */
	MS_SBOM_NOT_RUNNING, /* opts.installed: the version installed, which no process maps */
};

/*
 * How sure the version is (evidence.identity's confidence): a database's
 * answer for the installed copy, or its history for a replaced one, is
 * sure; a candidate of two is a coin toss; the one candidate left is
 * likelier, but the history could not prove it.
 */
#define MS_SBOM_CONF_SURE 1.0
#define MS_SBOM_CONF_ONE_CANDIDATE 0.7
#define MS_SBOM_CONF_TWO_CANDIDATES 0.5

struct ms_sbom_component {
	const struct ms_pkg *pkg;   /* a package component's (its first row's); NULL: a file */
	const char *version;        /* the version that runs (or, NOT_RUNNING, is installed); NULL for a file */
	enum ms_sbom_running running;
	double confidence;          /* MS_SBOM_CONF_* */
	size_t known_row;           /* the first row of a KNOWN copy (index in t->rows), or SIZE_MAX */
	size_t candidate_row;       /* the first row of a candidate (CANDIDATE), or SIZE_MAX */
	const struct ms_pkg *unknown_pkg; /* a file component: its package, whose copy's version is unknown */
	char *purl;                 /* NULL when there is none */
	size_t *rows;               /* indexes in t->rows */
	size_t nrows;
	size_t *procs;              /* indexes in t->procs, by PID */
	size_t nprocs;
	bool hashed;                /* file components: sha256 holds the hash */
	char sha256[MS_SHA256_HEX_LEN + 1];
	char *hash_why;             /* not hashed: why (NULL when out of memory) */
};

struct ms_sbom {
	struct ms_sbom_component *items;
	size_t count;
	size_t npackages;           /* items[0, npackages) are packages */
	struct ms_osrelease os;
	bool os_known;
	uint64_t hashed_bytes;
	size_t hashed_files;
	size_t unhashed_files;      /* file components without a hash, for any reason */
	size_t budget_skipped;      /* of those, left out by the budget */
	size_t *proc_start;         /* t->nprocs + 1 offsets in proc_items */
	size_t *proc_items;         /* indexes in items */
};

struct ms_sbom_opts {
	bool installed;             /* a component for the installed version of a package with an old copy running */
};

/* 0 or MS_ERR_NOMEM.  os: the distribution (osrelease.h), or NULL: unknown.  opts may be NULL. */
int ms_sbom_build(struct ms_libtable *t, const struct ms_osrelease *os, const struct ms_sbom_opts *opts,
		  struct ms_sbom *out, struct ms_error *err);
void ms_sbom_free(struct ms_sbom *s);

/* Every file component's hash or why not, within the budget (sbom_hash.c).  0 or MS_ERR_NOMEM. */
int ms_sbom_hash_files(struct ms_libtable *t, struct ms_sbom *s);

/*
 * One file component in the budget (sbom_budget.c): its owner and size as
 * the open before hashing found them.  plan, in: MS_SBOM_PLAN_NONE (not a
 * candidate: it could not be read) or any other value (a candidate); out,
 * for each candidate: HASH, or FILES or BYTES (past that budget).
 */
enum ms_sbom_plan {
	MS_SBOM_PLAN_NONE,
	MS_SBOM_PLAN_HASH,
	MS_SBOM_PLAN_FILES,
	MS_SBOM_PLAN_BYTES,
};

struct ms_sbom_cand {
	size_t item;                /* index in s->items: the order within one owner */
	uid_t uid;
	uint64_t size;              /* at most MS_SBOM_HASH_FILE_MAX */
	enum ms_sbom_plan plan;
};

/*
 * Decides which candidates of c (n) are hashed within max_files and
 * max_bytes: root's (uid 0) first, in item order; then round robin per
 * uid (one file each per round, in item order; in a round, the uids that
 * want fewer bytes first, then by uid), each uid's bytes held to an equal
 * share of what root left (what a uid does not need goes to the others).
 * O(n log n) time, O(n) memory.  0 or MS_ERR_NOMEM (then nothing is planned).
 */
int ms_sbom_budget_plan(struct ms_sbom_cand *c, size_t n, size_t max_files, uint64_t max_bytes);

#endif
