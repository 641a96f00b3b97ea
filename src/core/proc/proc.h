/*
 * proc.h - a handle on one process under /proc.
 *
 * ms_proc_open opens /proc/PID once, as a directory, and every later file of
 * that process (maps, pagemap, stat, cmdline, ...) is opened relative to that
 * descriptor with openat.  The descriptor pins the kernel's struct pid: if the
 * process dies and its PID is reused, files opened through the old descriptor
 * fail instead of silently describing the new process.  The start time (field
 * 22 of stat) is recorded at open so a caller holding only a PID can detect
 * reuse too.  ms_proc_open_dir defers reading stat to the first
 * ms_proc_stat_at_open: a walk over many processes that needs stat for few
 * of them saves a read per process, and what it reads later still comes
 * through the pinned directory.
 *
 * Permission to read a process's memory map is checked by the kernel once,
 * when maps is opened (see maps.h), not here: opening the directory needs no
 * privilege.
 *
 * Reads of /proc files are capped (ms_proc_read_file): a process controls the
 * size of its command line and environment, so nothing is read unbounded.
 */
#ifndef MAPSCOPE_PROC_H
#define MAPSCOPE_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "base/error.h"

/* From include/linux/sched.h; stable since 2.6. */
#define MS_PF_KTHREAD 0x00200000u
/* PF_EXITING (include/linux/sched.h): past exit_signals, its address space about to go. */
#define MS_PF_EXITING 0x00000004u

struct ms_proc_stat {
	char state;                  /* R, S, D, Z, X, ... */
	int ppid;
	unsigned flags;              /* field 9: PF_* */
	unsigned long long start_time; /* field 22, clock ticks since boot */
	char comm[64];               /* raw bytes between the first '(' and last ')' */
};

enum ms_proc_liveness {
	MS_PROC_ALIVE,
	MS_PROC_ZOMBIE,
	MS_PROC_GONE,   /* exited and reaped, or the PID now names another process */
};

struct ms_proc;

int ms_proc_open(pid_t pid, struct ms_proc **out, struct ms_error *err);
/* The directory only; stat is read at the first ms_proc_stat_at_open. */
int ms_proc_open_dir(pid_t pid, struct ms_proc **out, struct ms_error *err);
void ms_proc_close(struct ms_proc *proc);

pid_t ms_proc_pid(const struct ms_proc *proc);
int ms_proc_dirfd(const struct ms_proc *proc);
/*
 * The inode number of the mount namespace that the link name (relative to
 * dirfd: "ns/mnt" under a /proc/PID directory) names, with *err 0; else 0
 * with *err an errno (EPROTO: not a namespace link's text).
 */
uint64_t ms_proc_mntns_at(int dirfd, const char *name, int *err);
/*
 * Stat as first read for this handle (at open, or at the first call after
 * ms_proc_open_dir).  A process gone before that first read has a zeroed
 * stat with state 'X'.
 */
const struct ms_proc_stat *ms_proc_stat_at_open(const struct ms_proc *proc);
/* A number no other handle of this run has had: tells one open from the next. */
unsigned long long ms_proc_serial(const struct ms_proc *proc);

/*
 * Parse the text of /proc/PID/stat.  The command name may contain spaces and
 * parentheses, so fields are counted from the last ')'.  0 or MS_ERR_PROTO.
 */
int ms_proc_stat_parse(const char *buf, size_t len, struct ms_proc_stat *st);

/* Is the process still the one we opened, and still running? */
enum ms_proc_liveness ms_proc_liveness(const struct ms_proc *proc);
/* The same, with the stat it read in *now (valid unless MS_PROC_GONE). */
enum ms_proc_liveness ms_proc_liveness_now(const struct ms_proc *proc, struct ms_proc_stat *now);

bool ms_proc_is_kernel_thread(const struct ms_proc_stat *st);
/* Is it exiting (not yet a zombie)? */
bool ms_proc_is_exiting(const struct ms_proc_stat *st);

/*
 * Read a whole file below the process directory, up to cap bytes.  *buf is
 * malloc'd and NUL-terminated; *truncated says whether cap cut it short.
 */
int ms_proc_read_file(const struct ms_proc *proc, const char *name, size_t cap,
		      char **buf, size_t *len, bool *truncated,
		      struct ms_error *err);
/*
 * The same for a file the kernel prints in one piece (seq_file's
 * single_open: stat, statm, status, cgroup, comm, fdinfo): a read that
 * returns less than it asked for has the whole file, and the read that
 * would return 0 is not made.  Not for files printed record by record
 * (maps, mountinfo), where a short read only ends a page.
 */
int ms_proc_read_piece(const struct ms_proc *proc, const char *name, size_t cap,
		       char **buf, size_t *len, bool *truncated,
		       struct ms_error *err);

/*
 * /proc/PID/statm, in pages.  size (every mapping), text and data (private
 * writable mappings and the stack) move when mappings appear, vanish, grow
 * or change between writable and not: a cheap sign that the map changed,
 * read before deciding to walk it.  resident moves with every page touched.
 */
struct ms_statm {
	unsigned long long size, resident, text, data;
};

/* Parse statm's text (NUL-terminated).  0 or MS_ERR_PROTO. */
int ms_statm_parse(const char *buf, struct ms_statm *out);
/* Read and parse it; 0, or ms_proc_read_file's errors and MS_ERR_PROTO. */
int ms_proc_statm(const struct ms_proc *proc, struct ms_statm *out, struct ms_error *err);

/*
 * The numeric entries of /proc (every process, threads not listed), sorted.
 * *pids is malloc'd.  0, or MS_ERR_IO / MS_ERR_NOMEM with err filled.
 */
int ms_pid_list(pid_t **pids, size_t *count, struct ms_error *err);

/*
 * When the machine booted, in seconds since the epoch: btime of /proc/stat
 * (whole seconds, taken from the wall clock as it reads now).  0, or
 * MS_ERR_IO / MS_ERR_PROTO with err filled.
 */
int ms_boot_time(time_t *btime, struct ms_error *err);
/* A process's start (stat's start_time, in clock ticks since boot) in seconds since the epoch. */
time_t ms_proc_started_at(unsigned long long start_time, time_t btime);

/* Same, for any directory fd (used by the process list). */
int ms_read_file_at(int dirfd, const char *name, size_t cap, char **buf,
		    size_t *len, bool *truncated);
/* Same, for a file printed in one piece (ms_proc_read_piece). */
int ms_read_piece_at(int dirfd, const char *name, size_t cap, char **buf,
		     size_t *len, bool *truncated);

#endif
