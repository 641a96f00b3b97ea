/* libs_metrics.c - `mapscope libs` as OpenMetrics: see libs_metrics.h. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/libs_metrics.h"

/* The largest label value (a package's name or version: 128 raw bytes), escaped for OpenMetrics. */
#define FIELD_MAX OM_LABEL_BOUND(sizeof(((struct ms_pkg *)0)->name))
#define KEY_LABELS 5

static const struct om_family processes_family = {
	"mapscope_library_processes",
	"Processes that map files of a package, by package and the version mapped (version), "
	"with the version installed now.",
	{ "package", "version", "installed", "source", "arch", NULL },
};

enum owner_state { OWNER_PACKAGE, OWNER_NONE, OWNER_UNKNOWN, OWNER_STATES };

static const char *const owner_names[OWNER_STATES] = { "package", "none", "unknown" };

static enum owner_state owner_of(const struct ms_libtable_row *r)
{
	if (!r->pkg_known || r->pkg_why)
		return OWNER_UNKNOWN;
	return r->pkg && r->pkg->found ? OWNER_PACKAGE : OWNER_NONE;
}

/* A process mapping a file of a package version: the unit the series count, once each. */
struct pair {
	size_t series; /* om_series.id */
	size_t proc;   /* index in the table's procs */
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

struct tally {
	struct om_group g;
	struct pair *pairs;
	size_t npairs;
	size_t files[OWNER_STATES];
	size_t unpackaged_procs;
	size_t dropped_procs;  /* processes of the package versions past the bound */
	struct om_dropped dropped;
};

static bool counted(const struct ms_libtable_row *r)
{
	return r->kept && r->nuses;
}

/* Appends a raw field to key, escaped for OpenMetrics, and a separator unless it is the last. */
static int key_add(char *key, size_t size, size_t *n, const char *field, size_t len, bool last)
{
	char label[FIELD_MAX];
	size_t llen = om_label_escape(field, len, label, sizeof(label));

	if (*n + llen + 2 > size)
		return -1;
	memcpy(key + *n, label, llen);
	*n += llen;
	if (!last)
		key[(*n)++] = OM_LABEL_SEP;
	key[*n] = '\0';
	return 0;
}

/* The key of a packaged row's series: its label values, escaped once, in the family's order. */
static int row_key(const struct ms_pkg *pkg, const struct cli_opts *o, char *key, size_t size)
{
	static const enum ms_fact cells[] = { MS_FACT_PACKAGE, MS_FACT_VERSION, MS_FACT_INSTALLED, MS_FACT_PKGSRC };
	struct ms_fact_src src = { .pkg_known = true, .pkg = pkg->found ? pkg : NULL };
	char buf[MS_FACT_TEXT_MAX];
	size_t n = 0, len;
	int rc = 0;

	key[0] = '\0';
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]) && rc == 0; i++) {
		const char *raw = ms_fact_text(cells[i], &src, 0, buf, sizeof(buf), &len);

		rc = key_add(key, size, &n, raw, len, false);
	}
	return rc == 0 ? key_add(key, size, &n, pkg->arch, strnlen(pkg->arch, sizeof(pkg->arch)), true) : rc;
}

/* Every counted row into its series (packaged) or the other counts; the pairs gathered. */
static int gather(struct tally *ta, const struct ms_libtable *t, const struct cli_opts *o)
{
	char key[KEY_LABELS * (FIELD_MAX + 1)];
	size_t npairs = 0;

	for (size_t i = 0; i < t->count; i++)
		if (counted(&t->rows[i]) && owner_of(&t->rows[i]) == OWNER_PACKAGE)
			npairs += t->rows[i].nuses;
	ta->pairs = calloc(npairs ? npairs : 1, sizeof(*ta->pairs));
	if (!ta->pairs)
		return -1;
	for (size_t i = 0; i < t->count; i++) {
		const struct ms_libtable_row *r = &t->rows[i];
		enum owner_state state = owner_of(r);
		struct om_series *s;

		if (!counted(r))
			continue;
		ta->files[state]++;
		if (state != OWNER_PACKAGE)
			continue;
		if (row_key(r->pkg, o, key, sizeof(key)) < 0)
			return -1;
		s = om_group_add(&ta->g, key);
		if (!s)
			return -1;
		for (size_t u = 0; u < r->nuses; u++)
			ta->pairs[ta->npairs++] = (struct pair){ s->id, r->uses[u].proc };
	}
	ta->files[OWNER_UNKNOWN] += t->dropped;
	return 0;
}

/* Each series' value: its distinct processes. */
static int count_series(struct tally *ta)
{
	size_t *procs = calloc(ta->g.used ? ta->g.used : 1, sizeof(*procs));

	if (!procs)
		return -1;
	qsort(ta->pairs, ta->npairs, sizeof(*ta->pairs), pair_cmp);
	for (size_t i = 0; i < ta->npairs; i++)
		if (!i || pair_cmp(&ta->pairs[i - 1], &ta->pairs[i]))
			procs[ta->pairs[i].series]++;
	for (size_t i = 0; i < ta->g.slots; i++)
		if (ta->g.slot[i].key)
			ta->g.slot[i].value = procs[ta->g.slot[i].id];
	free(procs);
	return 0;
}

/* How many processes seen marks. */
static size_t distinct(bool *seen, size_t nprocs)
{
	size_t n = 0;

	for (size_t i = 0; i < nprocs; i++)
		n += seen[i];
	return n;
}

/*
 * Once the family is printed (and so sorted): the processes of the package
 * versions past the bound, and those of files no package owns.
 */
static int count_others(struct tally *ta, const struct ms_libtable *t)
{
	bool *left_out = calloc(ta->g.used ? ta->g.used : 1, sizeof(*left_out));
	bool *seen = calloc(t->nprocs ? t->nprocs : 1, sizeof(*seen));
	int rc = left_out && seen ? 0 : -1;

	for (size_t i = OM_MAX_SERIES; rc == 0 && i < ta->g.used; i++)
		left_out[ta->g.slot[i].id] = true;
	for (size_t i = 0; rc == 0 && i < ta->npairs; i++)
		if (left_out[ta->pairs[i].series])
			seen[ta->pairs[i].proc] = true;
	if (rc == 0)
		ta->dropped_procs = distinct(seen, t->nprocs);
	if (seen)
		memset(seen, 0, (t->nprocs ? t->nprocs : 1) * sizeof(*seen));
	for (size_t i = 0; rc == 0 && i < t->count; i++) {
		const struct ms_libtable_row *r = &t->rows[i];

		if (counted(r) && owner_of(r) == OWNER_NONE)
			for (size_t u = 0; u < r->nuses; u++)
				seen[r->uses[u].proc] = true;
	}
	if (rc == 0)
		ta->unpackaged_procs = distinct(seen, t->nprocs);
	free(left_out);
	free(seen);
	return rc;
}

int libs_metrics_write(FILE *out, const struct ms_libtable *t, const struct procscan *ps,
		       const struct cli_opts *o)
{
	struct cli_opts text = *o;
	struct tally ta;
	int rc;

	/* The cells as in a table, not JSON: an undated copy's version is "unknown". */
	text.json = false;
	memset(&ta, 0, sizeof(ta));
	rc = om_group_init(&ta.g);
	if (rc == 0)
		rc = gather(&ta, t, &text);
	if (rc == 0)
		rc = count_series(&ta);
	if (rc == 0)
		ta.dropped = om_family_print(out, &processes_family, &ta.g);
	if (rc == 0)
		rc = count_others(&ta, t);
	if (rc == 0) {
		if (ta.dropped.series)
			om_put_overflow(out, &processes_family, ta.dropped_procs);
		fprintf(out, "# HELP mapscope_library_series_dropped Package versions left out of "
			"mapscope_library_processes past its %d series.\n"
			"# TYPE mapscope_library_series_dropped gauge\n"
			"mapscope_library_series_dropped %zu\n", LIBS_METRICS_MAX_SERIES, ta.dropped.series);
		fprintf(out, "# HELP mapscope_library_files Mapped files (by device and inode), by whether a "
			"package owns them (unknown: not asked).\n"
			"# TYPE mapscope_library_files gauge\n");
		for (int s = 0; s < OWNER_STATES; s++)
			fprintf(out, "mapscope_library_files{owner=\"%s\"} %zu\n", owner_names[s], ta.files[s]);
		fprintf(out, "# HELP mapscope_library_unpackaged_processes Processes that map a file no package owns.\n"
			"# TYPE mapscope_library_unpackaged_processes gauge\n"
			"mapscope_library_unpackaged_processes %zu\n", ta.unpackaged_procs);
		rc = om_put_scan_end(out, ps, "mapscope_libs_scan_processes", "mapscope_libs_scan_timestamp_seconds");
	}
	om_group_free(&ta.g);
	free(ta.pairs);
	return rc;
}

struct libs_doc {
	const struct ms_libtable *t;
	const struct procscan *ps;
	const struct cli_opts *o;
};

static int write_doc(FILE *out, const void *ctx)
{
	const struct libs_doc *d = ctx;

	return libs_metrics_write(out, d->t, d->ps, d->o);
}

int libs_print_openmetrics(const struct ms_libtable *t, const struct procscan *ps,
			   const struct cli_opts *o, const char *path)
{
	const struct libs_doc d = { t, ps, o };

	return om_print("libs", path, write_doc, &d);
}
