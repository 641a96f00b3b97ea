/*
 * stale_out.h - the two tables of a stale report (core/stale_report.h): a
 * libsmartcols tree by process (files below each), and the same tree by
 * file (processes below each).  PACKAGE is one line for people
 * ("libssl3 3.0.19-1 (now 3.0.22-1)", ms_pkg_describe) in a table, and the
 * package's bare name in JSON, where VERSION (the copy mapped), INSTALLED
 * and PKGSRC are fields of their own, named as list --by-file names them.  The OpenMetrics rendering is
 * stale_metrics.h.  Everything read from processes is escaped here, at the
 * edge.
 */
#ifndef MAPSCOPE_CLI_STALE_OUT_H
#define MAPSCOPE_CLI_STALE_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "core/stale/stale.h"
#include "core/stale/stale_report.h"
#include "core/proc/unit.h"

enum {
	STALECOL_NAME,
	STALECOL_PID,
	STALECOL_UNIT,
	STALECOL_CONTAINER,
	STALECOL_VERDICT,
	STALECOL_PACKAGE,
	STALECOL_VERSION,
	STALECOL_INSTALLED,
	STALECOL_PKGSRC,
	STALECOL_VERWHY,
	STALECOL_PKGNOTE,
	STALECOL_WHY,
	STALECOL_MAPS,
	STALECOL_EXE,
	STALECOL_DEV,
	STALECOL_INODE,
	STALECOL_BUILDID,
	STALECOL_COUNT,
};

extern const struct cli_column stalecols[STALECOL_COUNT];

int stale_print_tree(const struct ms_stale_report *r, const struct cli_opts *o,
		     const int *selected, size_t nselected, bool by_file);

#endif
