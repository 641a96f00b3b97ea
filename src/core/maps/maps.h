/*
 * maps.h - the mapping engine: queries over one process's memory map.
 *
 * ms_maps_open opens /proc/PID/maps relative to a process handle.  That open
 * is where the kernel checks ptrace read access (same user or
 * CAP_SYS_PTRACE); later queries on the descriptor need no further checks.
 *
 * Two backends answer the same queries with the same meaning:
 *   - ioctl: PROCMAP_QUERY (Linux 6.11) returns one binary record per call
 *     and filters in the kernel;
 *   - text: the same descriptor's text, parsed into the same records, with
 *     the kernel's filter semantics applied in user space.
 * MS_BACKEND_AUTO probes the ioctl once, at open; ENOTTY switches that handle
 * to text for good.  The choice is a run-time value, so tests can force
 * either and can replace the ioctl call itself through ms_maps_opts.
 *
 * Queries:
 *   - ms_maps_next: the first mapping ending above addr that matches filter
 *     (the kernel's COVERING_OR_NEXT).  Iterate by passing the previous end.
 *   - ms_maps_at: the mapping covering addr exactly, or MS_END.
 *   - ms_maps_window: up to max matching mappings from addr, appended to a
 *     list; a view fetches only what it shows.
 *   - ms_maps_collect: every matching mapping.
 * None of them is atomic: the kernel gives no consistency between calls.
 *
 * Errors come back as values (error.h).  MS_END ends an iteration.  When the
 * address space disappears mid-walk, the engine tells apart a process that
 * exited (MS_ERR_EXITED), one that exec'd (MS_ERR_EXECED: call
 * ms_maps_reopen to follow the new image) and one that never had user memory
 * (MS_ERR_NOMM: a kernel thread or a zombie).  Lists keep what was read
 * before an error.  EINTR is retried.
 */
#ifndef MAPSCOPE_MAPS_H
#define MAPSCOPE_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "proc/proc.h"

enum ms_backend {
	MS_BACKEND_AUTO,
	MS_BACKEND_IOCTL,
	MS_BACKEND_TEXT,
};

/* The seam that fault-injection tests use in place of ioctl(2). */
typedef int (*ms_ioctl_fn)(int fd, unsigned long request, void *arg);

struct ms_fstypes_shared;

struct ms_maps_opts {
	enum ms_backend backend;
	ms_ioctl_fn ioctl_fn; /* NULL: the real ioctl */
	/*
	 * PROCMAP_QUERY already answered on this kernel (a walk over many
	 * processes knows after the first): no probe at open.  The first query
	 * then reports what the probe would have (ESRCH: exited, exec'd).
	 */
	bool ioctl_known;
	/*
	 * The walk's mount tables (fstype_shared.h), asked before this
	 * handle loads its own for a build ID; NULL: none.  Not owned.
	 */
	struct ms_fstypes_shared *fstypes_shared;
};

/* Counters a caller may show ("3 malformed lines skipped"). */
struct ms_maps_stats {
	size_t queries;           /* backend queries made */
	size_t text_reads;        /* whole-file text reads (text backend) */
	size_t text_read_ahead;   /* of which the rest was read ahead on a second thread */
	size_t malformed_lines;   /* text lines skipped as malformed, last read */
	size_t names_truncated;   /* names the kernel could not fit in PATH_MAX */
	size_t names_confirmed;   /* text names with "\\012" confirmed through the ioctl */
	size_t build_ids_skipped; /* build IDs not asked for: file served by someone else */
};

struct ms_maps;

/*
 * What the ioctl backend asks the kernel for besides the range, flags,
 * offset, device and inode.  A build ID costs the kernel a read of the
 * mapped file's ELF headers on every query, and a name a d_path walk, so a
 * caller that does not show them can leave them out.  Names are on by
 * default, build IDs only when asked for: on a file system served by
 * someone else (FUSE, NFS, ...) that read can block forever, so the engine
 * never asks for those files (fstype.h) and sets the mapping's
 * build_id_skipped instead.  The text backend always has names and never
 * build IDs.
 */
#define MS_FIELD_NAME 0x1u
#define MS_FIELD_BUILD_ID 0x2u
/* The page size of hugetlb mappings, which the text does not say. */
#define MS_FIELD_PAGE_SIZE 0x4u
#define MS_FIELDS_ALL (MS_FIELD_NAME | MS_FIELD_BUILD_ID | MS_FIELD_PAGE_SIZE)

int ms_maps_open(struct ms_proc *proc, const struct ms_maps_opts *opts,
		 struct ms_maps **out, struct ms_error *err);
void ms_maps_close(struct ms_maps *maps);

/* After MS_ERR_EXECED: open maps again, for the new program image. */
int ms_maps_reopen(struct ms_maps *maps, struct ms_error *err);

/* Choose MS_FIELD_* for the following queries; returns the previous set. */
unsigned ms_maps_set_fields(struct ms_maps *maps, unsigned fields);

/*
 * Whether a whole-text read of more than one chunk (64 KiB, about 800
 * mappings) reads the rest ahead on a second thread while this one parses
 * (text_reader.h): on by default, which saves wall time on a large process
 * (a third at 60,000 mappings) for a little more CPU.  A caller that walks
 * many processes in the background for its CPU budget turns it off.
 * Returns the previous setting.
 */
bool ms_maps_set_read_ahead(struct ms_maps *maps, bool on);

/* The backend in use (never AUTO once open succeeded). */
enum ms_backend ms_maps_backend(const struct ms_maps *maps);
const char *ms_backend_name(enum ms_backend backend);
/* "auto", "ioctl" or "text" -> value; -1 if unknown. */
int ms_backend_parse(const char *s, enum ms_backend *out);

struct ms_proc *ms_maps_proc(const struct ms_maps *maps);
const struct ms_maps_stats *ms_maps_stats(const struct ms_maps *maps);

int ms_maps_next(struct ms_maps *maps, uint64_t addr, unsigned filter,
		 struct ms_mapping *out, struct ms_error *err);
int ms_maps_at(struct ms_maps *maps, uint64_t addr, struct ms_mapping *out,
	       struct ms_error *err);
int ms_maps_window(struct ms_maps *maps, uint64_t addr, unsigned filter,
		   size_t max, struct ms_maplist *list, struct ms_error *err);
int ms_maps_collect(struct ms_maps *maps, unsigned filter,
		    struct ms_maplist *list, struct ms_error *err);

/*
 * Fill m's build ID (m as read through this handle, with any fields) from
 * the kernel, when m has neither a build ID nor a reason it was skipped:
 * one PROCMAP_QUERY with a build-ID buffer at m->start, whatever the
 * backend (the text backend falls back on the ioctl here as it does to
 * confirm names), and only for a file the kernel reads itself (else
 * build_id_skipped says why, as for MS_FIELD_BUILD_ID).  m is left as it
 * was when another mapping is at m->start now, or the file has no build
 * ID.  0, MS_ERR_NOTSUP without PROCMAP_QUERY (a kernel before 6.11), or
 * the engine's errors (MS_ERR_EXITED ...).
 */
int ms_maps_build_id_of(struct ms_maps *maps, struct ms_mapping *m, struct ms_error *err);

/*
 * Every matching mapping from addr on, handed to fn one at a time in
 * address order and not kept: fn returns 0 to go on, 1 to stop there, or a
 * negative MS_ERR_* (having set the error it was given through ctx) to stop
 * with it.  fn may take the mapping's name (ms_maplist_push moves it).
 *
 * For a listing of everything: a walk from 0 without a filter, on a handle
 * opened with MS_BACKEND_AUTO whose fields ask for no build ID and no page
 * size, reads the text instead of making one PROCMAP_QUERY per mapping (the
 * kernel writes the text in about half the time).  The records are still
 * the ioctl's: a name the text cannot say exactly ("\012", a trailing
 * " (deleted)") is asked again through PROCMAP_QUERY at its address, and
 * the gate area ([vsyscall]), which the ioctl never returns, is left out.
 * Queries, windows and filtered walks always use the ioctl.
 */
typedef int (*ms_maps_walk_fn)(void *ctx, struct ms_mapping *m);
int ms_maps_walk(struct ms_maps *maps, uint64_t addr, unsigned filter,
		 ms_maps_walk_fn fn, void *ctx, struct ms_error *err);

#endif
