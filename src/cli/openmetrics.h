/*
 * openmetrics.h - what every OpenMetrics document mapscope writes shares
 * (stale_metrics.h, libs_metrics.h): bounded families of series, quoted
 * label values, the scan's closing lines, and the way out (stdout, or a
 * file replaced atomically for node_exporter's textfile collector).
 *
 * A family groups what it counts by its label values, by hash (never
 * quadratic).  The key of a series is its label values, already escaped
 * for OpenMetrics (om_label_escape, so no control byte is left in them),
 * with OM_LABEL_SEP between them.  Label values come from users (unit
 * names, package names from a Python distribution's METADATA), and every
 * series costs the Prometheus server memory for weeks: a family prints at
 * most OM_MAX_SERIES series, those with the largest values (ties by key,
 * so the series kept do not flap from one scan to the next), and says what
 * it left out, so its caller can write one summing series labelled
 * overflow="true" (om_put_overflow).
 *
 * Label values are escaped once, by OpenMetrics' own rules, from their raw
 * bytes: '\' and '"' get a backslash and a newline is "\n", so a scraper
 * reads back the name itself.  The format has no escape for anything else
 * a terminal or a dashboard should not get raw (another control byte, a
 * C1, bidi or invisible character: escape.h's hidden ones) nor for a byte
 * that is not UTF-8 (which would fail the whole scrape): each of those
 * becomes U+FFFD.
 *
 * om_print builds the document through a writer callback.  With a path,
 * the document is built in memory and written through safewrite's atomic
 * mode (a scrape sees the previous document or this one, whole), mode 0644
 * less the umask: node_exporter runs as another user, and the documents
 * hold counts and names, never an address or a path.
 */
#ifndef MAPSCOPE_CLI_OPENMETRICS_H
#define MAPSCOPE_CLI_OPENMETRICS_H

#include <stddef.h>
#include <stdio.h>

#include "cli/procscan.h"

#define OM_MAX_SERIES 1000
#define OM_MAX_LABELS 8
/* Between the label values in a key: escaped text never holds it raw. */
#define OM_LABEL_SEP '\x1f'

struct om_family {
	const char *name;
	const char *help;
	const char *labels[OM_MAX_LABELS + 1]; /* ends with NULL */
};

struct om_series {
	char *key;
	size_t id;    /* 0, 1, ... in the order first added */
	size_t value;
};

/* An open-addressing table of series by key; slots is a power of two. */
struct om_group {
	struct om_series *slot;
	size_t slots;
	size_t used;
};

/* What om_family_print left out past OM_MAX_SERIES. */
struct om_dropped {
	size_t series;
	size_t value; /* their values, summed */
};

/* 0, or -1 when out of memory. */
int om_group_init(struct om_group *g);
void om_group_free(struct om_group *g);

/* The series of key, added with value 0 if new; NULL when out of memory.  Valid until the next add. */
struct om_series *om_group_add(struct om_group *g, const char *key);

/* HELP and TYPE (gauge) of f, then its first OM_MAX_SERIES series by value.  Sorts g. */
struct om_dropped om_family_print(FILE *out, const struct om_family *f, struct om_group *g);

/* The series summing what the bound left out: every label empty, and overflow="true". */
void om_put_overflow(FILE *out, const struct om_family *f, size_t value);

/* The most bytes om_label_escape writes for len raw bytes, the NUL included: U+FFFD for one. */
#define OM_LABEL_BOUND(len) (3 * (len) + 1)

/*
 * len raw bytes as a label value (without the quotes around it) into out
 * (size bytes, cut at a whole escape when short, always NUL-terminated);
 * its length.
 */
size_t om_label_escape(const char *s, size_t len, char *out, size_t size);

/*
 * The closing lines: PROCESSES{outcome} (scanned, vanished, denied,
 * failed), TIMESTAMP (now, in seconds since the epoch) and "# EOF".
 * 0, or -1 when out failed.
 */
int om_put_scan_end(FILE *out, const struct procscan *ps, const char *processes, const char *timestamp);

/*
 * The document write_doc writes, to stdout (path NULL) or atomically to
 * path.  write_doc returns 0 or -1 (out of memory, or out failed).  A CLI
 * exit status; errors are reported, as "CMD: ...".
 */
int om_print(const char *cmd, const char *path, int (*write_doc)(FILE *out, const void *ctx),
	     const void *ctx);

#endif
