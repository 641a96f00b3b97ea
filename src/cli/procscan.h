/*
 * procscan.h - walk every process (or the PIDs given) for a batch command
 * that looks at many of them (`stale`, `who`).
 *
 * procscan_next opens each process and its maps in turn and hands back the
 * pair.  Processes that vanish, deny access or are kernel threads are not
 * errors: they are counted (and skipped) so the command can print one
 * summary line.  PIDs named on the command line are different: a problem
 * with one is reported at once, and procscan_failed says the command should
 * exit 2.  Our own process is skipped in a system-wide walk.
 */
#ifndef MAPSCOPE_CLI_PROCSCAN_H
#define MAPSCOPE_CLI_PROCSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/cli.h"

struct procscan {
	pid_t *pids;
	size_t count;
	size_t next;
	bool explicit;   /* PIDs came from the command line */
	size_t scanned;  /* handed out and not later reported failed */
	size_t vanished; /* exited or exec'd away while we looked */
	size_t denied;   /* no ptrace read access */
	size_t failed;   /* other errors */
	bool named_failed;
};

/* operands: PIDs, or none for all.  Returns -1 (exit status set in *status) or 0. */
int procscan_init(struct procscan *ps, int argc, char **argv, int *status);
void procscan_free(struct procscan *ps);

/* 1 with *proc and *maps open (caller closes both), 0 when done. */
int procscan_next(struct procscan *ps, const struct cli_opts *o, struct ms_proc **proc,
		  struct ms_maps **maps);

/* Classify an error that came up while reading a process handed out by next. */
void procscan_note_error(struct procscan *ps, const struct ms_error *err);

/* True when a PID named on the command line could not be read. */
bool procscan_failed(const struct procscan *ps);

/* "mapscope: CMD: N processes scanned; ..." on stderr, when some were skipped. */
void procscan_summary(const struct procscan *ps, const char *cmd);

#endif
