/*
 * fleet.h - one walk over many processes: every process, or a list of PIDs.
 *
 * Everything that looks at many processes (stale, who, the explorer's stale
 * view and process list) walks them through here.  ms_fleet_next opens each
 * process in turn the safe way (/proc/PID as a directory, maps opened
 * relative to it with the caller's backend) and hands back the pair; the
 * caller closes both.  Its stat is read only when something asks for it
 * (proc.h, ms_proc_open_dir): most processes of a walk never need it.
 * The handles share the walk's mount tables (fstype_shared.h): close each
 * before ms_fleet_free.
 *
 * Processes that vanish, deny access or have no address space are not
 * errors: they are counted by kind, so a front end can print one summary.
 * Kernel threads are skipped silently.  With named PIDs (the user typed
 * them) a problem is not only counted: ms_fleet_next answers
 * MS_FLEET_NAMED_FAILED with err filled, for the front end to report at once,
 * and ms_fleet_failed stays true.  A walk of every process skips our own.
 * Nothing here prints.
 */
#ifndef MAPSCOPE_FLEET_H
#define MAPSCOPE_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "maps/maps.h"
#include "proc/proc.h"

struct ms_fleet {
	pid_t *pids;
	size_t count;
	size_t next;
	bool named;          /* the PIDs were named by the user */
	enum ms_backend backend;
	pid_t self;
	size_t scanned;      /* handed out and not later reported failed */
	size_t vanished;     /* exited or exec'd away while we looked */
	size_t denied;       /* no ptrace read access */
	size_t failed;       /* other errors */
	bool named_failed;
	bool ioctl_known;    /* PROCMAP_QUERY answered once: later opens skip the probe */
	struct ms_fstypes_shared *fstypes; /* one mount table per namespace, for every handle; may be NULL */
};

enum {
	MS_FLEET_DONE = 0,
	MS_FLEET_OPEN = 1,         /* *proc and *maps are open */
	MS_FLEET_NAMED_FAILED = 2, /* a named PID could not be opened: err says why */
	MS_FLEET_SKIP = 3,         /* ms_fleet_open_at / ms_fleet_settle only: nothing to hand out */
};

/*
 * pids NULL: every process in /proc now.  Otherwise the n PIDs given
 * (copied), named by the user when named.  0, or MS_ERR_NOMEM / MS_ERR_IO.
 */
int ms_fleet_init(struct ms_fleet *f, const pid_t *pids, size_t n, bool named,
		  enum ms_backend backend, struct ms_error *err);
void ms_fleet_free(struct ms_fleet *f);

int ms_fleet_next(struct ms_fleet *f, struct ms_proc **proc, struct ms_maps **maps,
		  struct ms_error *err);

/*
 * ms_fleet_next in two steps, for walkers that share one fleet under a
 * lock of their own: each takes an index (f->next++) under the lock, opens
 * it outside with ms_fleet_open_at, which reads only what init set, then
 * settles it under the lock with ms_fleet_settle, which counts.
 *   - ms_fleet_open_at: MS_FLEET_OPEN with *proc and *maps open;
 *     MS_FLEET_SKIP for our own process in a walk of every process; or the
 *     error code, err filled and nothing open.  *ioctl_known as for
 *     ms_fleet_open_one: the caller's copy of f->ioctl_known, or NULL.
 *   - ms_fleet_settle(rc, err) with what open_at answered: MS_FLEET_OPEN,
 *     MS_FLEET_NAMED_FAILED, or MS_FLEET_SKIP (nothing to hand out: our
 *     own process, or a failure counted and not to be said).
 */
int ms_fleet_open_at(const struct ms_fleet *f, size_t i, bool *ioctl_known, struct ms_proc **proc,
		     struct ms_maps **maps, struct ms_error *err);
int ms_fleet_settle(struct ms_fleet *f, int rc, const struct ms_error *err);

/*
 * An error while reading a process that ms_fleet_next handed out: counted.
 * True when the front end should report it (a named PID).
 */
bool ms_fleet_note_error(struct ms_fleet *f, const struct ms_error *err);

/* A named PID could not be read: the command should fail. */
bool ms_fleet_failed(const struct ms_fleet *f);

/* Some processes were skipped (none of them named): worth a summary. */
bool ms_fleet_skipped_any(const struct ms_fleet *f);

/*
 * Open one process and its maps with backend, the one way every walk does.
 * A kernel thread answers MS_ERR_NOMM here when the ioctl is probed (or
 * the maps text read), else at its first query (PROCMAP_QUERY's ESRCH,
 * told apart by ms_maps from stat then).  0, or an error
 * with err filled and nothing left open.  *ioctl_known (may be NULL) says
 * PROCMAP_QUERY has answered before, so maps are opened without a probe;
 * it is set once an open finds the ioctl working.
 */
int ms_fleet_open_one(pid_t pid, enum ms_backend backend, struct ms_proc **proc,
		      struct ms_maps **maps, bool *ioctl_known, struct ms_error *err);

#endif
