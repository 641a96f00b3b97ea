#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/openmetrics.h"
#include "cli/stale_metrics.h"
#include "core/proc/container.h"
#include "core/proc/unit.h"

/* A label value: the raw text (a unit or container and a suffix), escaped for OpenMetrics. */
#define RAW_MAX (MS_UNIT_MAX + 32)
#define LABEL_MAX OM_LABEL_BOUND(RAW_MAX)
#define FAMILY_LABELS 2

/* A label's raw value for a stale process ("" for none). */
typedef void label_value_fn(const struct ms_stale_proc *p, char *out, size_t size);

/* One grouped metric: a series per distinct set of label values. */
struct family {
	struct om_family om;
	label_value_fn *value_of[FAMILY_LABELS + 1]; /* one per om.labels */
};

static void unit_of(const struct ms_stale_proc *p, char *out, size_t size)
{
	out[0] = '\0';
	if (p->has_unit)
		ms_unit_describe_raw(&p->unit, out, size);
}

/* Empty on the host (our own root), as the CONTAINER column. */
static void container_of(const struct ms_stale_proc *p, char *out, size_t size)
{
	out[0] = '\0';
	if (p->has_container)
		ms_container_describe_raw(&p->container, out, size);
	else if (p->other_root)
		snprintf(out, size, "other root");
}

static const struct family families[] = {
	{ { "mapscope_stale_unit_processes",
	    "Processes with deleted or replaced files, by systemd unit and container.",
	    { "unit", "container", NULL } },
	  { unit_of, container_of, NULL } },
	{ { "mapscope_stale_container_processes",
	    "Processes with deleted or replaced files, by container (empty: the host).",
	    { "container", NULL } },
	  { container_of, NULL } },
};

/* The key of p's series: its label values, escaped once, OM_LABEL_SEP between them. */
static void series_key(const struct family *fam, const struct ms_stale_proc *p, char *key, size_t size)
{
	char raw[RAW_MAX];
	size_t n = 0;

	for (size_t l = 0; fam->value_of[l] && n + 1 < size; l++) {
		if (l)
			key[n++] = OM_LABEL_SEP;
		fam->value_of[l](p, raw, sizeof(raw));
		n += om_label_escape(raw, strlen(raw), key + n, size - n);
	}
	key[n] = '\0';
}

static int print_family(FILE *out, const struct family *fam, const struct ms_stale_report *r)
{
	char key[FAMILY_LABELS * (LABEL_MAX + 1)];
	struct om_dropped dropped;
	struct om_group g;
	int rc = 0;

	if (om_group_init(&g) < 0)
		return -1;
	for (size_t i = 0; i < r->count && rc == 0; i++) {
		struct om_series *s;

		if (!r->procs[i].stale_files)
			continue;
		series_key(fam, &r->procs[i], key, sizeof(key));
		s = om_group_add(&g, key);
		if (s)
			s->value++;
		else
			rc = -1;
	}
	dropped = om_family_print(out, &fam->om, &g);
	if (dropped.value)
		om_put_overflow(out, &fam->om, dropped.value);
	om_group_free(&g);
	return rc;
}

int stale_metrics_write(FILE *out, const struct ms_stale_report *r, const struct procscan *ps)
{
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
		if (print_family(out, &families[i], r) < 0)
			return -1;
	return om_put_scan_end(out, ps, "mapscope_scan_processes", "mapscope_stale_scan_timestamp_seconds");
}

struct stale_doc {
	const struct ms_stale_report *r;
	const struct procscan *ps;
};

static int write_doc(FILE *out, const void *ctx)
{
	const struct stale_doc *d = ctx;

	return stale_metrics_write(out, d->r, d->ps);
}

int stale_print_openmetrics(const struct ms_stale_report *r, const struct procscan *ps, const char *path)
{
	const struct stale_doc d = { r, ps };

	return om_print("stale", path, write_doc, &d);
}
