/*
 * procscan.h - the command line's side of a walk over many processes
 * (`stale`, `who`): the walk itself is core/fleet.h.
 *
 * procscan_init turns the operands into PIDs (none: every process), and
 * procscan_next hands back each open process and its maps.  What the walk
 * counts is printed here: a PID named on the command line that cannot be
 * read is reported at once (and procscan_failed then says the command
 * should fail), the others are summed up in one line by procscan_summary.
 */
#ifndef MAPSCOPE_CLI_PROCSCAN_H
#define MAPSCOPE_CLI_PROCSCAN_H

#include <stdbool.h>

#include "cli/cli.h"
#include "core/maps/fleet.h"

struct procscan {
	struct ms_fleet fleet;
};

/* operands: PIDs, or none for all.  Returns -1 (exit status set in *status) or 0. */
int procscan_init(struct procscan *ps, int argc, char **argv, const struct cli_opts *o,
		  int *status);
void procscan_free(struct procscan *ps);

/* 1 with *proc and *maps open (caller closes both), 0 when done. */
int procscan_next(struct procscan *ps, struct ms_proc **proc, struct ms_maps **maps);

/* Count an error met while reading a process handed out by next; report a named one. */
void procscan_note_error(struct procscan *ps, const struct ms_error *err);

/* True when a PID named on the command line could not be read. */
bool procscan_failed(const struct procscan *ps);

/* "mapscope: CMD: N processes scanned; ..." on stderr, when some were skipped. */
void procscan_summary(const struct procscan *ps, const char *cmd);

#endif
