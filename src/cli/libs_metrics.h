/*
 * libs_metrics.h - the table of `mapscope libs` (core/files/libtable.h)
 * as OpenMetrics text, for node_exporter's textfile collector, on stdout
 * or in a file (openmetrics.h: the same bounds, quoting and atomic write
 * as `stale --openmetrics`).  Only the rows the table keeps count (its
 * PATTERNs apply).
 *
 * The document holds, in this order:
 *   - mapscope_library_processes{package,version,installed,source,arch}:
 *     per package version mapped, how many processes map at least one of
 *     its files.  version is the version of the copy mapped, as the
 *     VERSION column ("unknown" where a replaced or deleted copy cannot be
 *     dated), installed the version installed now (the two differ when a
 *     process still runs the copy an upgrade replaced), source the
 *     database (dpkg, rpm, python), arch the package's architecture (empty
 *     where it has none).  A Python distribution's name and version come
 *     from a file its user wrote: like every label value they are escaped,
 *     then quoted.  At most OM_MAX_SERIES series, those with the most
 *     processes (ties by labels); past it, one series with every label
 *     empty and overflow="true" counts the processes that map a package
 *     version left out, once each;
 *   - mapscope_library_series_dropped: how many package versions the
 *     bound left out (0 when none);
 *   - mapscope_library_files{owner}: the distinct files mapped (by device
 *     and inode), owner="package" when a database owns them, "none" when
 *     none does, "unknown" when none was asked (a file only processes
 *     under another root map, a name that is not a path) or the table's
 *     bound (MS_LIBTABLE_ROWS_MAX) left it out.  Files no package owns are
 *     counted, never named: their paths are chosen by users (each would be
 *     a series, and a path is not written into a file everyone may read);
 *     `mapscope libs` lists them;
 *   - mapscope_library_unpackaged_processes: processes that map at least
 *     one file no package owns;
 *   - mapscope_libs_scan_processes{outcome} and
 *     mapscope_libs_scan_timestamp_seconds (names of their own, so the
 *     stale and libs documents can sit in one textfile directory), then
 *     "# EOF".
 *
 * Counting is by hash and by sorting (package version, process) pairs:
 * linear in the table's uses, whatever a user maps.
 */
#ifndef MAPSCOPE_CLI_LIBS_METRICS_H
#define MAPSCOPE_CLI_LIBS_METRICS_H

#include <stdio.h>

#include "cli/cli.h"
#include "cli/openmetrics.h"
#include "cli/procscan.h"
#include "core/files/libtable.h"

#define LIBS_METRICS_MAX_SERIES OM_MAX_SERIES

/* The document, to out (o: escaping).  0, or -1 when out of memory or out failed. */
int libs_metrics_write(FILE *out, const struct ms_libtable *t, const struct procscan *ps,
		       const struct cli_opts *o);

/* To stdout (path NULL) or atomically to path.  A CLI exit status; errors are reported. */
int libs_print_openmetrics(const struct ms_libtable *t, const struct procscan *ps,
			   const struct cli_opts *o, const char *path);

#endif
