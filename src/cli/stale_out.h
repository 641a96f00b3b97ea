/*
 * stale_out.h - what `mapscope stale` found, and its three renderings:
 * a libsmartcols tree by process (files below each), the same tree by file
 * (processes below each), and OpenMetrics text for node_exporter's textfile
 * collector.  Everything read from processes is escaped here, at the edge.
 */
#ifndef MAPSCOPE_CLI_STALE_OUT_H
#define MAPSCOPE_CLI_STALE_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "cli/procscan.h"
#include "core/stale.h"
#include "core/unit.h"

enum {
	STALECOL_NAME,
	STALECOL_PID,
	STALECOL_UNIT,
	STALECOL_VERDICT,
	STALECOL_WHY,
	STALECOL_MAPS,
	STALECOL_EXE,
	STALECOL_DEV,
	STALECOL_INODE,
	STALECOL_BUILDID,
	STALECOL_COUNT,
};

extern const struct cli_column stalecols[STALECOL_COUNT];

struct stale_proc {
	pid_t pid;
	char comm[64];            /* raw */
	bool has_unit;
	struct ms_unit unit;      /* raw */
	struct ms_stale_list files; /* only the files to show */
	size_t stale_files;       /* deleted or replaced, shown or not */
};

struct stale_report {
	struct stale_proc *procs;
	size_t count;
	size_t capacity;
	struct ms_stale_counts totals; /* every file of every scanned process */
	size_t stale_procs;            /* processes with a deleted or replaced file */
};

/* A new, empty entry at the end; NULL when out of memory. */
struct stale_proc *stale_report_push(struct stale_report *r);
void stale_report_free(struct stale_report *r);

int stale_print_tree(const struct stale_report *r, const struct cli_opts *o,
		     const int *selected, size_t nselected, bool by_file);

int stale_print_openmetrics(const struct stale_report *r, const struct procscan *ps,
			    unsigned escape_flags);

#endif
