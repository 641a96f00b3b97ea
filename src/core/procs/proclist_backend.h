/*
 * proclist_backend.h - what a process-list source implements (internal to
 * proclist*.c).  A source appends rows with pid, uid, user, kthread and cmd
 * filled, in any order; proclist.c sorts them and counts mappings.
 * Each row also gets its state, start time and statm (ms_proclist_set_stat).
 */
#ifndef MAPSCOPE_PROCLIST_BACKEND_H
#define MAPSCOPE_PROCLIST_BACKEND_H

#include "procs/proclist.h"

struct ms_proclist_ops {
	const char *name;
	int (*scan)(struct ms_proclist *list, struct ms_error *err);
};

extern const struct ms_proclist_ops ms_proclist_procfs_ops;
#ifdef HAVE_LIBPROC2
extern const struct ms_proclist_ops ms_proclist_libproc2_ops;
/* Loads libproc2 on the first call; false when it cannot be loaded. */
bool ms_proclist_libproc2_available(void);
#endif

/*
 * Append a row; cmdline holds len raw bytes of /proc/PID/cmdline (NULs
 * between arguments), comm the short name used when it is empty.  user may
 * be NULL (looked up, or the number).  0 or MS_ERR_NOMEM.
 */
int ms_proclist_append(struct ms_proclist *list, pid_t pid, uid_t uid, const char *user,
		       bool kthread, const char *cmdline, size_t len, const char *comm,
		       struct ms_error *err);

/* What a row takes from /proc/PID/statm, in pages. */
struct ms_proclist_statm {
	bool read;
	uint64_t size, resident, text, data;
};

/* Set a row's state letter, start time and statm numbers. */
void ms_proclist_set_stat(struct ms_procrow *row, char state, unsigned long long start_time,
			  const struct ms_proclist_statm *statm);

#endif
