/*
 * stale_metrics.h - a stale report (core/stale_report.h) as OpenMetrics
 * text, for node_exporter's textfile collector, on stdout or in a file.
 *
 * The document holds, in this order: files by verdict, stale processes,
 * the grouped metrics of the family table in stale_metrics.c (stale
 * processes by systemd unit and container, and by container alone; the
 * container label is empty on the host, as the CONTAINER column),
 * processes looked at by outcome, and
 * mapscope_stale_scan_timestamp_seconds, then "# EOF".
 *
 * Units and cgroups are chosen by users (a hostile process can start
 * thousands of transient units), and every series costs the Prometheus
 * server memory for weeks.  So each grouped metric has at most
 * STALE_METRICS_MAX_SERIES series, those with the most processes (ties by
 * labels); the rest are summed into one more series, labelled
 * overflow="true" with its other labels empty.  Grouping is by hash
 * (openmetrics.h, shared with `libs --openmetrics`).
 *
 * Label values are escaped once, by OpenMetrics' rules (openmetrics.h),
 * from the raw unit and container names.  No address and no path is ever written: only counts,
 * unit names and verdicts, which is why the file may be readable by
 * everyone (0644, less the umask) where other output files are 0600.
 *
 * With path, the document is built in memory and written through safewrite's
 * atomic mode: a scrape sees the previous document or this one, whole.
 */
#ifndef MAPSCOPE_CLI_STALE_METRICS_H
#define MAPSCOPE_CLI_STALE_METRICS_H

#include <stdio.h>

#include "cli/openmetrics.h"
#include "cli/procscan.h"
#include "core/stale/stale_report.h"

#define STALE_METRICS_MAX_SERIES OM_MAX_SERIES

/* The document, to out.  0, or -1 when out of memory or out failed. */
int stale_metrics_write(FILE *out, const struct ms_stale_report *r, const struct procscan *ps);

/* To stdout (path NULL) or atomically to path.  A CLI exit status; errors are reported. */
int stale_print_openmetrics(const struct ms_stale_report *r, const struct procscan *ps, const char *path);

#endif
