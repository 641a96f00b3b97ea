/*
 * libs_out.h - the table of `mapscope libs` (core/files/libtable.h): one
 * line per mapped file, sorted by name, and with --pids the processes that
 * map it as child lines (a libsmartcols tree, as `stale --by-file`).
 * Everything read from processes and files is escaped here, at the edge;
 * counts and sizes are JSON numbers with -J.
 */
#ifndef MAPSCOPE_CLI_LIBS_OUT_H
#define MAPSCOPE_CLI_LIBS_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "core/files/libtable.h"

enum {
	LIBCOL_NAME,
	LIBCOL_SONAME,
	LIBCOL_LIBVER,
	LIBCOL_PACKAGE,
	LIBCOL_VERSION,
	LIBCOL_INSTALLED,
	LIBCOL_PKGSOURCE,
	LIBCOL_VENDORED,
	LIBCOL_VERWHY,
	LIBCOL_PKGNOTE,
	LIBCOL_BUILDID,
	LIBCOL_PROCS,
	LIBCOL_PID,
	LIBCOL_MAPS,
	LIBCOL_RSS,
	LIBCOL_PSS,
	LIBCOL_USS,
	LIBCOL_DIRTY,
	LIBCOL_VERDICT,
	LIBCOL_WHY,
	LIBCOL_WHERE,
	LIBCOL_DEV,
	LIBCOL_INODE,
	LIBCOL_COUNT,
};

extern const struct cli_column libcols[LIBCOL_COUNT];

/* Where a process lives, for WHERE (malloc'd; NULL when out of memory): host, ENGINE:ID, machine:NAME or "other root". */
char *libs_where_text(const struct ms_libtable_proc *p, unsigned esc);
/* The same unescaped, for a format that escapes by its own rules (CycloneDX). */
char *libs_where_raw(const struct ms_libtable_proc *p);

int libs_print(const struct ms_libtable *t, const struct cli_opts *o, const int *selected,
	       size_t nselected, bool pids);

#endif
