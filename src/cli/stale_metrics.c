#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/stale_metrics.h"
#include "core/base/safewrite.h"
#include "core/proc/container.h"
#include "core/proc/unit.h"

/* A label value after escaping: at most four bytes per raw byte, and a suffix. */
#define LABEL_MAX (4 * MS_UNIT_MAX + 32)
#define FAMILY_LABELS 2
/* Between the values of a series' labels in its key: escaped text never holds it raw. */
#define LABEL_SEP '\x1f'

/* One label of a grouped metric: its value for a stale process ("" for none). */
struct label {
	const char *name;
	void (*value_of)(const struct ms_stale_proc *p, unsigned esc, char *out, size_t size);
};

/* One grouped metric: a series per distinct set of label values.  A label is one line. */
struct family {
	const char *name;
	const char *help;
	struct label labels[FAMILY_LABELS + 1]; /* ends with a NULL name */
};

static void unit_of(const struct ms_stale_proc *p, unsigned esc, char *out, size_t size)
{
	out[0] = '\0';
	if (p->has_unit)
		ms_unit_describe(&p->unit, esc, out, size);
}

/* Empty on the host (our own root), as the CONTAINER column. */
static void container_of(const struct ms_stale_proc *p, unsigned esc, char *out, size_t size)
{
	out[0] = '\0';
	if (p->has_container)
		ms_container_describe(&p->container, esc, out, size);
	else if (p->other_root)
		snprintf(out, size, "other root");
}

static const struct family families[] = {
	{ "mapscope_stale_unit_processes",
	  "Processes with deleted or replaced files, by systemd unit and container.",
	  { { "unit", unit_of }, { "container", container_of }, { NULL, NULL } } },
	{ "mapscope_stale_container_processes",
	  "Processes with deleted or replaced files, by container (empty: the host).",
	  { { "container", container_of }, { NULL, NULL } } },
};

struct series {
	char *label;
	size_t procs;
};

/* An open-addressing table of series by label; slots is a power of two. */
struct group {
	struct series *slot;
	size_t slots;
	size_t used;
};

static uint64_t hash_label(const char *s)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int group_add(struct group *g, const char *label)
{
	size_t i = (size_t)hash_label(label) & (g->slots - 1);

	while (g->slot[i].label && strcmp(g->slot[i].label, label))
		i = (i + 1) & (g->slots - 1);
	if (!g->slot[i].label) {
		g->slot[i].label = strdup(label);
		if (!g->slot[i].label)
			return -1;
		g->used++;
	}
	g->slot[i].procs++;
	return 0;
}

/* Most processes first, then by label, so the series kept do not flap. */
static int series_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	if (!x->label || !y->label)
		return !x->label - !y->label;
	if (x->procs != y->procs)
		return x->procs > y->procs ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* An OpenMetrics label value: text already escaped, quoted once more. */
static void put_label_value(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' || s[i] == '"')
			fputc('\\', out);
		fputc(s[i], out);
	}
}

/* The key of p's series: its label values, LABEL_SEP between them. */
static void series_key(const struct family *fam, const struct ms_stale_proc *p, unsigned esc,
		       char *key, size_t size)
{
	size_t n = 0;

	for (const struct label *l = fam->labels; l->name && n + 1 < size; l++) {
		if (l != fam->labels)
			key[n++] = LABEL_SEP;
		l->value_of(p, esc, key + n, size - n);
		n += strlen(key + n);
	}
	key[n] = '\0';
}

/* One series: each label with its part of key. */
static void put_series(FILE *out, const struct family *fam, const char *key, size_t procs)
{
	fprintf(out, "%s{", fam->name);
	for (const struct label *l = fam->labels; l->name; l++) {
		const char *end = strchr(key, LABEL_SEP);
		size_t len = end ? (size_t)(end - key) : strlen(key);

		fprintf(out, "%s%s=\"", l == fam->labels ? "" : ",", l->name);
		put_label_value(out, key, len);
		fputc('"', out);
		key += end ? len + 1 : len;
	}
	fprintf(out, "} %zu\n", procs);
}

/* The series past the bound, summed: every label empty, and overflow="true". */
static void put_overflow(FILE *out, const struct family *fam, size_t procs)
{
	fprintf(out, "%s{", fam->name);
	for (const struct label *l = fam->labels; l->name; l++)
		fprintf(out, "%s=\"\",", l->name);
	fprintf(out, "overflow=\"true\"} %zu\n", procs);
}

static int print_family(FILE *out, const struct family *fam, const struct ms_stale_report *r,
			unsigned esc)
{
	struct group g = { .slots = 16 };
	char key[FAMILY_LABELS * (LABEL_MAX + 1)];
	size_t other = 0;
	int rc = 0;

	while (g.slots < 2 * r->stale_procs)
		g.slots *= 2;
	g.slot = calloc(g.slots, sizeof(*g.slot));
	if (!g.slot)
		return -1;
	for (size_t i = 0; i < r->count && rc == 0; i++) {
		if (!r->procs[i].stale_files)
			continue;
		series_key(fam, &r->procs[i], esc, key, sizeof(key));
		rc = group_add(&g, key);
	}
	/* Sorting the table itself moves the empty slots to the end. */
	qsort(g.slot, g.slots, sizeof(*g.slot), series_cmp);
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", fam->name, fam->help, fam->name);
	for (size_t i = 0; i < g.used; i++) {
		if (i >= STALE_METRICS_MAX_SERIES)
			other += g.slot[i].procs;
		else
			put_series(out, fam, g.slot[i].label, g.slot[i].procs);
		free(g.slot[i].label);
	}
	if (other)
		put_overflow(out, fam, other);
	free(g.slot);
	return rc;
}

int stale_metrics_write(FILE *out, const struct ms_stale_report *r, const struct procscan *ps,
			unsigned escape_flags)
{
	struct timespec now;

	fprintf(out, "# HELP mapscope_stale_files Files mapped by the scanned processes (counted per process), by verdict.\n"
		"# TYPE mapscope_stale_files gauge\n");
	for (int v = 0; v < MS_STALE_VERDICT_COUNT; v++) {
		const char *name = ms_stale_verdict_name((enum ms_stale_verdict)v);

		fprintf(out, "mapscope_stale_files{verdict=\"%s\"} %zu\n", name, r->totals.files[v]);
	}
	fprintf(out, "# HELP mapscope_stale_processes Processes that map a deleted or replaced file.\n"
		"# TYPE mapscope_stale_processes gauge\n"
		"mapscope_stale_processes %zu\n", r->stale_procs);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (print_family(out, &families[i], r, escape_flags) < 0)
			return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	fprintf(out, "# HELP mapscope_scan_processes Processes looked at, by outcome.\n"
		"# TYPE mapscope_scan_processes gauge\n"
		"mapscope_scan_processes{outcome=\"scanned\"} %zu\n"
		"mapscope_scan_processes{outcome=\"vanished\"} %zu\n"
		"mapscope_scan_processes{outcome=\"denied\"} %zu\n"
		"mapscope_scan_processes{outcome=\"failed\"} %zu\n"
		"# HELP mapscope_stale_scan_timestamp_seconds When this scan finished, in seconds since the epoch.\n"
		"# TYPE mapscope_stale_scan_timestamp_seconds gauge\n"
		"mapscope_stale_scan_timestamp_seconds %lld.%03ld\n"
		"# EOF\n", ps->fleet.scanned, ps->fleet.vanished, ps->fleet.denied, ps->fleet.failed,
		(long long)now.tv_sec, now.tv_nsec / 1000000);
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}

static int write_file(const char *path, const struct ms_stale_report *r,
		      const struct procscan *ps, unsigned escape_flags)
{
	/* Readable by node_exporter: counts and unit names, no address, no path. */
	const struct ms_safewrite_opts so = { .atomic = true, .mode = 0644 };
	struct ms_error err;
	char *doc = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);
	int rc;

	if (!mem) {
		cli_error("stale: out of memory");
		return CLI_EXIT_USAGE;
	}
	rc = stale_metrics_write(mem, r, ps, escape_flags);
	if (fclose(mem) != 0)
		rc = -1;
	if (rc < 0) {
		free(doc);
		cli_error("stale: out of memory");
		return CLI_EXIT_USAGE;
	}
	rc = ms_safewrite_file(path, &so, doc, len, NULL, &err);
	free(doc);
	if (rc < 0) {
		cli_error("--metrics-file: %s", err.msg);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

int stale_print_openmetrics(const struct ms_stale_report *r, const struct procscan *ps,
			    unsigned escape_flags, const char *path)
{
	if (path)
		return write_file(path, r, ps, escape_flags);
	if (stale_metrics_write(stdout, r, ps, escape_flags) < 0) {
		cli_error("write error");
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}
