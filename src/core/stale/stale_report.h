/*
 * stale_report.h - which processes run deleted or replaced files: the one
 * stale walk that every front end renders (`mapscope stale`, the
 * explorer's stale view).
 *
 * ms_stale_report_walk takes each process of a fleet walk (core/fleet.h),
 * judges its mapped files once (ms_stale_scan), and keeps one record per
 * process that has something to show: its PID, command name, optionally its
 * command line, the systemd unit to restart, and the files whose verdict
 * is among opts->show.  The totals count every file of every process
 * judged, shown or not.  A process whose files were all kept out is not
 * recorded unless it has a stale file.
 *
 * A process under another root than ours (a container, a chroot) says where
 * it lives: the container engine and ID, or the machine, named from its
 * cgroup path (container.h).
 *
 * Per process it does only what the record needs: the cgroup is read once,
 * for a process that is kept and either has something stale (its unit) or
 * lives under another root (its container); the command line only when
 * asked, for a process that is kept.  Everything in a
 * record is raw bytes from the process or the kernel: escape before
 * display.
 */
#ifndef MAPSCOPE_STALE_REPORT_H
#define MAPSCOPE_STALE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "maps/ancestry.h"
#include "maps/fleet.h"
#include "stale/stale.h"
#include "proc/container.h"
#include "pkg/owner.h"
#include "proc/unit.h"

/* Parents climbed to find who mapped a stale copy first (ms_stale_report_packages). */
#define MS_STALE_ANCESTORS_MAX MS_ANCESTRY_MAX

/* Command lines are cut here: a process chooses the length of its own. */
#define MS_STALE_CMDLINE_MAX 4096

struct ms_stale_proc {
	pid_t pid;
	/*
	 * Clock ticks since boot (stat's field 22) of the process's start;
	 * ms_stale_report_packages moves it back to a parent's that maps one
	 * of its stale copies.
	 */
	unsigned long long start_time;
	int ppid;
	char comm[64];              /* raw, from stat */
	char *cmd;                  /* raw command line, NULs as spaces; NULL unless asked */
	size_t cmd_len;
	bool has_unit;
	struct ms_unit unit;        /* raw */
	bool other_root;            /* lives under another root than ours */
	bool has_container;         /* other_root, and its engine is known */
	struct ms_container container; /* raw */
	struct ms_stale_list files; /* only the files to show */
	struct ms_pkg *pkgs;        /* one per file once looked up, else NULL: in the report's pkgs */
	size_t stale_files;         /* deleted or replaced, shown or not */
};

struct ms_stale_report {
	struct ms_stale_proc *procs;
	size_t count;
	size_t capacity;
	struct ms_stale_counts totals; /* every file of every judged process */
	size_t stale_procs;            /* processes with a deleted or replaced file */
	struct ms_pkg *pkgs;           /* every process's answers, in order (ms_stale_report_packages) */
};

struct ms_stale_report_opts {
	unsigned scan_flags; /* MS_STALE_* for ms_stale_scan */
	unsigned show;       /* verdicts kept: a bit (1u << verdict) each */
	bool cmdline;        /* read the command line of each process kept */
	struct ms_owner *owner; /* may be NULL: dpkg reads ahead once a file is stale */
	/*
	 * Walk the processes on a second thread while this one judges
	 * (stale_prefetch.h), where two CPUs may run and no build ID is asked
	 * for: `mapscope stale`.  The fleet is the thread's until the walk
	 * returns.
	 */
	bool walk_ahead;
};

/*
 * Every process of the fleet walk.  A named PID that cannot be read is
 * passed to named_failed (may be NULL) and the walk goes on.  0, or
 * MS_ERR_NOMEM.
 */
int ms_stale_report_walk(struct ms_stale_report *r, struct ms_stale_ctx *ctx,
			 struct ms_fleet *fleet, const struct ms_stale_report_opts *opts,
			 void (*named_failed)(void *arg, const struct ms_error *err), void *arg,
			 struct ms_error *err);

/*
 * The package that owns each deleted or replaced file of every process with
 * our root, from the open package databases (owner.h; NULL: none), in
 * one pass and only when something is stale, with the version of the copy
 * mapped (ms_owner_running).  That version belongs to the copy, not to the
 * process, and the copy was mapped at the latest when the first of its
 * holders did: every process mapping the same device and inode is
 * answered for the earliest start among them, and among their parents,
 * grandparents... that map it too (it climbs at most
 * MS_STALE_ANCESTORS_MAX, by PID, for a process with a stale copy dpkg
 * owns; a parent that started later than the child is another process), so a worker a server forked after an upgrade
 * is answered for its parent's start and not its own.
 * 0 (also when nothing was asked or there is no system database: *why
 * then says so), or MS_ERR_NOMEM.
 */
int ms_stale_report_packages(struct ms_stale_report *r, struct ms_owner *db,
			     const char **why, struct ms_error *err);

void ms_stale_report_free(struct ms_stale_report *r);

#endif
