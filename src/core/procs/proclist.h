/*
 * proclist.h - the list of processes the explorer starts from.
 *
 * ms_proclist_scan fills one row per process (threads are not listed):
 * PID, effective user, whether it is a kernel thread, its command line and,
 * when asked, how many mappings it has and their total size, counted through
 * the mapping engine (the PROCMAP_QUERY ioctl where the kernel has it).
 *
 * Where the rows come from is a run-time value, an ops table:
 *   - libproc2 (procps-ng 4, `procps_pids_*`), when configure found it and
 *     it loads (dlopen, at the first scan: linking it slowed every start);
 *   - a small /proc reader: stat parsed from the last ')', the effective
 *     UID from status, cmdline.
 * Both give the same rows: the command line is the raw bytes of cmdline with
 * the NULs between arguments turned into spaces, cut at MS_PROCLIST_CMD_MAX
 * bytes, or "[comm]" when cmdline is empty (kernel threads, zombies).  The
 * text is untrusted: escape it before display.
 *
 * A process that vanishes during the scan is dropped.  One whose maps cannot
 * be opened stays, with maps_err set (MS_ERR_NOACCESS, MS_ERR_NOMM...) and
 * its reason in maps_why, so a front end can show it dimmed.
 *
 * Counting is the costly part: it walks a process's mappings.  The explorer
 * counts only the rows on screen (ms_proclist_count), and a process is
 * walked again only when its mappings may have changed.  Each scan carries
 * the last counts over to the rows of processes it saw before (the same PID
 * and start time), so rows not counted this time show the last known value.
 * A counted process is walked again when
 *   - it has not been counted yet, or its PID now names another process; or
 *   - its statm size, text or data changed (read by the scan, one small
 *     read; every mmap, munmap, brk and most mprotects move one of them),
 *     or statm could not be read; or
 *   - it was walked rejudge_every counts ago (MS_PROCLIST_REJUDGE_EVERY by
 *     default), plus one count per 1,000 mappings it had, for the changes
 *     those fields miss (a walk costs in proportion to the mappings).
 * walked says how many processes the last count walked.
 *
 * Stale counts ride on the same walk.  Judging a process's files walks its
 * mappings with names and looks every file up, so a walked process is
 * judged again only when its file-backed executable mappings changed (the
 * counting walk, no names, folds each one's start, device and inode into a
 * fingerprint, with their count), or when it is due (rejudge_every, as a
 * verdict depends on the disk too: a file replaced under an unchanged
 * process shows within that many counts).  judged says how many processes
 * the last count judged.  The memory kept is one small record per listed
 * process.
 *
 * RSS comes with the scan, for every row: statm's resident pages times the
 * page size (stat's rss field is the kernel's approximate sum; statm's is
 * exact), from /proc or through libproc2.  A
 * zombie (state Z) has no mappings to count: maps_why says "zombie".
 *
 * Errors: MS_ERR_NOMEM, MS_ERR_IO (cannot list /proc), MS_ERR_NOTSUP (the
 * libproc2 backend asked for but not built in).
 */
#ifndef MAPSCOPE_PROCLIST_H
#define MAPSCOPE_PROCLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "proc/container.h"
#include "maps/maps.h"

#define MS_PROCLIST_CMD_MAX 4096
#define MS_PROCLIST_USER_MAX 33

enum ms_proclist_source {
	MS_PROCLIST_AUTO,      /* libproc2 when built in and it loads, else /proc */
	MS_PROCLIST_PROCFS,
	MS_PROCLIST_LIBPROC2,
};

/* Scan flags. */
#define MS_PROCLIST_COUNT_MAPS 0x1u

struct ms_stale_ctx;

struct ms_procrow {
	pid_t pid;
	uid_t uid;
	char user[MS_PROCLIST_USER_MAX]; /* the name, or the number when unknown */
	bool kthread;
	int maps_err;         /* 0, or the ms_errcode met opening/counting maps */
	const char *maps_why; /* short reason for maps_err ("no access"), static */
	char state;           /* stat's state letter: R, S, Z... */
	unsigned long long start_time; /* with pid, names the process */
	uint64_t rss;         /* resident bytes */
	bool statm_read;      /* statm holds what the scan read */
	uint64_t statm[3];    /* statm's size, text and data pages: they move with the mappings */
	bool counted;         /* nmaps and mapped hold a count, this one or a past one */
	size_t nmaps;
	uint64_t mapped;      /* bytes */
	bool stale_counted;   /* stale holds a count (ms_proclist_scan_stale) */
	size_t stale;         /* files deleted or replaced on disk */
	bool stale_judged;    /* this scan judged them (else reused the last count) */
	char *cmd;            /* raw, NUL-terminated, cmd_len bytes */
	size_t cmd_len;
	bool other_root;      /* counted with a stale context: under another root than ours */
	bool has_container;   /* ...and its cgroup names where (container.h) */
	struct ms_container container;
};

/* Counts between walking (and judging) a process whose statm did not move. */
#define MS_PROCLIST_REJUDGE_EVERY 5u

struct ms_proclist_memo; /* proclist.c: one process's last stale counts */

struct ms_proclist {
	struct ms_procrow *rows;
	size_t count;
	size_t capacity;
	unsigned rejudge_every; /* 0: MS_PROCLIST_REJUDGE_EVERY */
	enum ms_backend backend; /* how counting reads mappings (the user's --backend) */
	size_t judged;          /* processes judged by the last count */
	size_t walked;          /* processes whose mappings the last count walked */
	struct ms_proclist_memo *memo; /* memo[i] is rows[i]'s; carried across scans */
	size_t memo_count;
};

/*
 * Test seam: load libproc2 by this name from now on (NULL: the real one),
 * to see the fallback when it is missing.  Nothing in a build without it.
 */
void ms_proclist_libproc2_set_soname(const char *soname);

/*
 * The source that AUTO resolves to, and its name ("libproc2", "proc").
 * Asking loads libproc2 (dlopen) if it is built in and not loaded yet.
 */
enum ms_proclist_source ms_proclist_default_source(void);
const char *ms_proclist_source_name(enum ms_proclist_source src);

/*
 * Replace *list's rows with a fresh scan, with the last known counts of the
 * processes seen before.  MS_PROCLIST_COUNT_MAPS also counts every row
 * (ms_proclist_count over all of them).  0 or a negative ms_errcode.
 */
int ms_proclist_scan(enum ms_proclist_source src, unsigned flags,
		     struct ms_proclist *list, struct ms_error *err);

/*
 * The same, and with MS_PROCLIST_COUNT_MAPS and a stale context, also count
 * each process's stale files (ms_stale_count with the default kernel-side
 * filters: executable file-backed mappings and the main executable) while
 * its maps are open anyway.  The caller decides when the context forgets.
 */
int ms_proclist_scan_stale(enum ms_proclist_source src, unsigned flags,
			   struct ms_stale_ctx *stale, struct ms_proclist *list,
			   struct ms_error *err);

/*
 * Count the rows list->rows[which[0..n-1]] (the rows on screen), walking
 * only those that may have changed; with stale, also their stale files.
 * only_new: count only rows that hold no count yet (the screen scrolled,
 * no tick passed).  Sets walked and judged.
 */
void ms_proclist_count(struct ms_proclist *list, const size_t *which, size_t n,
		       struct ms_stale_ctx *stale, bool only_new);

void ms_proclist_free(struct ms_proclist *list);

/* Index of pid in a list sorted by pid, or list->count. */
size_t ms_proclist_find(const struct ms_proclist *list, pid_t pid);

#endif
