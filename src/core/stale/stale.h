/*
 * stale.h - is the code a process runs still the code on disk?
 *
 * For each file-backed mapping, a verdict with a one-line explanation:
 *   - ok:         the file at the mapping's path is the mapped file (same
 *                 device and inode);
 *   - deleted:    the kernel marked the name " (deleted)" and no file is at
 *                 the path now;
 *   - replaced:   another file is at the path (other device or inode), and
 *                 its build ID differs or cannot be compared;
 *   - same-build: another file is at the path, with the mapping's GNU build
 *                 ID: a reinstall of identical code, no restart needed;
 *   - unknown:    mapscope cannot tell (no access to /proc/PID/root, a failed
 *                 lookup, a name that is not a path in our root (nameproof.h:
 *                 a user's symlink on the way, another namespace's name, a
 *                 detached mount's "/"), a filesystem whose device numbers do not identify
 *                 files (btrfs subvolumes, overlayfs) and no build ID to
 *                 decide, a name longer than PATH_MAX);
 *   - ignored:    the ignore list (ignore.h) or the name says it is not a
 *                 program file: memfd, SysV shm, devices, temp files, names
 *                 that are not paths (anon_inode:...).
 * deleted and replaced are "stale": the process should be restarted.
 *
 * Paths: the kernel names a mapping relative to the *reader's* root
 * (fs/d_path.c: d_path uses current->fs->root), and a path that is
 * unreachable from it comes out relative to the root of the mount namespace
 * it lives in.  So a process in our mount namespace (chrooted or not) is
 * resolved against our own root, and one in another mount namespace (a
 * container) under /proc/PID/root.  Resolution is untrusted_walk.h's, so
 * absolute symlinks and ".." stay inside that root, and a path that
 * crosses a daemon-served mount, or one the mount table does not know, is
 * not looked up: unknown, with the walk's reason for it ("the path crosses
 * a daemon-served mount", "... a mount that is not in the mount table").
 * Device numbers from PROCMAP_QUERY are MAJOR/MINOR of the superblock's
 * s_dev (fs/proc/task_mmu.c), the same encoding major()/minor() decode from
 * stat's st_dev.
 *
 * Grouping is by hash (stale_group.h), so a process with many files costs
 * linear time, never quadratic.
 *
 * Cost: a struct ms_stale_ctx caches one lookup (stat, and the build ID
 * when it was needed) per distinct (root, path) until ms_stale_ctx_forget,
 * so a system-wide scan stats each library once and reads build IDs only of
 * files that were replaced, once each.
 *
 * One verdict function: ms_stale_judge is the only place a verdict is made,
 * whoever asks (stale, the process list's STALE count, the explorer's maps,
 * files and stale views, list --by-file, who), so they all agree.  It asks
 * for what it needs: a mapping read without its build ID (most are: the
 * kernel reads the file's ELF headers for one) gets it from the kernel
 * through the engine (ms_maps_build_id_of: PROCMAP_QUERY, also under the
 * text backend) only when another file is at the path, where the build IDs
 * decide between replaced and same-build.  So no verdict says "no build ID"
 * about a mapping whose build ID the kernel would give.
 *
 * Calls for a front end:
 *   - ms_stale_judge: the verdict of one mapping (the explorer's maps view,
 *     the files view and list --by-file, who);
 *   - ms_stale_scan: the distinct files of one process (grouped by device,
 *     inode and name) with their verdicts, plus the main executable
 *     (/proc/PID/exe);
 *   - ms_stale_count: how many files of a process have each verdict (the
 *     explorer's STALE column).
 * Errors: an inaccessible root or a failed lookup is a verdict (unknown),
 * never an error.  The scan returns the engine's errors (MS_ERR_EXITED,
 * MS_ERR_NOMM for kernel threads, MS_ERR_NOACCESS, ...) and MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_STALE_H
#define MAPSCOPE_STALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/error.h"
#include "pkg/pkg.h"
#include "stale/ignore.h"
#include "maps/mapping.h"
#include "maps/maps.h"
#include "proc/proc.h"

enum ms_stale_verdict {
	MS_STALE_OK,
	MS_STALE_SAME_BUILD,
	MS_STALE_IGNORED,
	MS_STALE_UNKNOWN,
	MS_STALE_REPLACED,
	MS_STALE_DELETED,
	MS_STALE_VERDICT_COUNT,
};

#define MS_STALE_WHY_MAX 192

struct ms_stale_result {
	enum ms_stale_verdict verdict;
	char why[MS_STALE_WHY_MAX]; /* one line; may quote an ignore rule's reason */
	/*
	 * The name is proven a path in the process's root (nameproof.h): only
	 * then may a fact rest on what is at it (a package, the version that
	 * runs).  False for unknown verdicts that say "not a path in our root",
	 * refused or failed lookups, and ignored names.
	 */
	bool path_ours;
	/*
	 * A replaced or deleted file looked at through map_files (root): its
	 * st_ctime, the moment it was unlinked (nameproof.h); {0, 0}: not read.
	 */
	struct timespec unlinked;
};

/*
 * "ok", "same-build", "ignored", "unknown", "replaced", "deleted": one word
 * each, the same in tables, JSON, --show and metric labels.
 */
const char *ms_stale_verdict_name(enum ms_stale_verdict v);
/* The name, or with '_' or ' ' for the '-' ("same_build", as older versions took); -1 if unknown. */
int ms_stale_verdict_parse(const char *s, enum ms_stale_verdict *out);
bool ms_stale_verdict_is_stale(enum ms_stale_verdict v);

struct ms_stale_ctx;

/* ignore is borrowed and must outlive the context; NULL ignores nothing. */
int ms_stale_ctx_new(const struct ms_ignore *ignore, struct ms_stale_ctx **out,
		     struct ms_error *err);
void ms_stale_ctx_free(struct ms_stale_ctx *ctx);
/* Drop cached lookups, so the next verdicts see the disk as it is now. */
void ms_stale_ctx_forget(struct ms_stale_ctx *ctx);

/*
 * A name an ignore rule matches is still proven a path (path_ours, for a
 * package under /tmp, say), at the cost of a lookup per file; a caller that
 * asks nothing of ignored files (stale's report, the STALE counts) turns
 * that off here.
 */
void ms_stale_ctx_no_ignored_proof(struct ms_stale_ctx *ctx);

/*
 * Does proc live under another root than ours: another mount namespace, or
 * a chroot in ours?  False where that cannot be told.
 */
bool ms_stale_ctx_other_root(struct ms_stale_ctx *ctx, const struct ms_proc *proc);

/*
 * The lookup cache the verdicts walk through, and the root (settled) they
 * look proc's names up under, for a caller that looks up the same names:
 * the files facts read a file's SONAME through them, so the walk that
 * opens the file is the one its verdict's proof then finds cached.  Both
 * stay the context's; the root is replaced when another process is
 * judged, and both are dropped by ms_stale_ctx_forget.
 */
struct ms_lookup_cache *ms_stale_ctx_lookups(struct ms_stale_ctx *ctx);
const struct ms_lookup_root *ms_stale_ctx_root(struct ms_stale_ctx *ctx, const struct ms_proc *proc);

/*
 * Hash slots compared while grouping the last scan's mappings into files
 * (stale_group.h): linear in the mappings, whatever their names.  For the
 * tests and `make bench`.
 */
size_t ms_stale_ctx_group_probes(const struct ms_stale_ctx *ctx);
/*
 * Verdicts taken from the memo of files already found current under our
 * root (stale_memo.h) since the context was made.  For the tests.
 */
size_t ms_stale_ctx_memo_hits(const struct ms_stale_ctx *ctx);

/*
 * 0, or MS_ERR_NOMEM.  m is a mapping of maps's process, read through maps
 * with any fields; its build ID is asked through maps when the verdict
 * needs it and m has none (m itself is not changed).
 */
int ms_stale_judge(struct ms_stale_ctx *ctx, struct ms_maps *maps,
		   const struct ms_mapping *m, struct ms_stale_result *out);

struct ms_stale_file {
	char *name;           /* raw kernel name (escape before display) */
	size_t name_len;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t build_id_len;
	unsigned char build_id[MS_BUILD_ID_MAX];
	const char *build_id_skipped; /* why the kernel was not asked for it (mapping.h) */
	size_t mappings;      /* how many of the scanned mappings map it */
	uint64_t first_addr;  /* start of the first of them (when mappings > 0) */
	uint64_t first_end;   /* and its end */
	bool is_exe;          /* it is /proc/PID/exe */
	bool name_ambiguous;  /* text backend: the path is not known exactly */
	struct ms_stale_result result;
};

/*
 * The copy f maps, as a package source's history asks about it (pkg.h):
 * its unlink time (from the verdict), one mapping of it in process pid,
 * its device and inode; start 0 (the caller knows it).
 */
struct ms_copy ms_stale_file_copy(const struct ms_stale_file *f, pid_t pid);

struct ms_stale_list {
	struct ms_stale_file *items;
	size_t count;
	size_t capacity;
};

void ms_stale_list_free(struct ms_stale_list *list);

/*
 * A list scanned process after process (ms_stale_scan_scratch): its items
 * and name buffers are reused from one scan to the next, so a walk of a
 * fleet allocates a name only when it is longer than the slot's last.
 * Zero it before the first scan; the list is read as any other, but is
 * freed with ms_stale_scratch_free.
 */
struct ms_stale_scratch {
	struct ms_stale_list list;
	size_t *name_caps; /* each slot's name buffer size */
	size_t names_kept; /* slots that own a buffer, beyond list.count too */
};

void ms_stale_scratch_free(struct ms_stale_scratch *s);

/* Scan flags. */
#define MS_STALE_ALL_MAPPINGS 0x1u /* data files too, not only executable mappings */
/*
 * Fill every file's build ID.  Without it a scan asks the kernel for build
 * IDs only of files that need one for their verdict (replaced on disk:
 * ms_stale_judge asks), which makes a system-wide scan several times
 * cheaper.
 */
#define MS_STALE_BUILD_IDS 0x2u
/*
 * Mark the executable (/proc/PID/exe, is_exe) on every process.  Without
 * it, a scan looks at the executable only for a process with a file that
 * is neither current nor ignored, or with no file mapping at all: the mark
 * is shown only with such files, and a running executable is mapped, so
 * its verdict comes with its mappings.  That spares a readlink per process
 * in a fleet walk.  The one executable missed is one a process unmapped
 * itself (a self-unpacking program) that was then deleted, in a process
 * whose every mapped file is current.
 */
#define MS_STALE_MARK_EXE 0x4u

/* The kernel-side filter a scan uses for these flags. */
unsigned ms_stale_filter(unsigned flags);

/*
 * The files of maps's process, each judged once, appended to list (cleared
 * first).  An exec mid-scan is followed once (ms_maps_reopen).
 */
int ms_stale_scan(struct ms_stale_ctx *ctx, struct ms_maps *maps, unsigned flags,
		  struct ms_stale_list *list, struct ms_error *err);
/*
 * The same into s->list, reusing its buffers.  walked, when not NULL, holds
 * the mappings of maps's process already walked for ms_stale_filter(flags)
 * with their names (stale_prefetch.h), which the scan then groups instead
 * of walking again (flags must not ask for MS_STALE_BUILD_IDS).
 */
int ms_stale_scan_scratch(struct ms_stale_ctx *ctx, struct ms_maps *maps, unsigned flags,
			  const struct ms_maplist *walked, struct ms_stale_scratch *s, struct ms_error *err);

struct ms_stale_counts {
	size_t files[MS_STALE_VERDICT_COUNT]; /* files per verdict */
	size_t stale;                         /* deleted + replaced */
	/*
	 * Ignored by a rule, yet a deleted file (its name marked so; not
	 * memory that only looks like a file, ms_mapping_not_a_file): what a
	 * user would want to hear was left out (a library under /tmp).
	 */
	size_t ignored_deleted;
};

void ms_stale_counts_add(struct ms_stale_counts *c, const struct ms_stale_list *list);

int ms_stale_count(struct ms_stale_ctx *ctx, struct ms_maps *maps, unsigned flags,
		   struct ms_stale_counts *out, struct ms_error *err);

#endif
