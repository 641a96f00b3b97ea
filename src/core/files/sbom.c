/* sbom.c - the components of a runtime SBOM: see sbom.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "files/sbom.h"

static bool is_package(const struct ms_libtable_row *r)
{
	return r->kept && r->pkg && r->pkg->found;
}

/* The version that runs, or NULL when it cannot be known. */
static const char *running_version(const struct ms_pkg *p)
{
	if (p->running_state == MS_PKG_RUNNING_UNKNOWN)
		return NULL;
	return p->running_state == MS_PKG_RUNNING_KNOWN ? p->running : p->version;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") ?: (a == NULL) - (b == NULL);
}

/* Package rows: by name, source, architecture, running version; file rows after, by name. */
static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct ms_libtable *t = arg;
	const struct ms_libtable_row *a = &t->rows[*(const size_t *)pa], *b = &t->rows[*(const size_t *)pb];
	int c;

	if (is_package(a) != is_package(b))
		return is_package(a) ? -1 : 1;
	if (!is_package(a))
		return strcmp(a->name, b->name);
	if ((c = strcmp(a->pkg->name, b->pkg->name)) || (c = (int)a->pkg->source - (int)b->pkg->source) ||
	    (c = strcmp(a->pkg->arch, b->pkg->arch)) ||
	    (c = cmp_str(running_version(a->pkg), running_version(b->pkg))))
		return c;
	return strcmp(a->name, b->name);
}

static bool same_component(const struct ms_libtable *t, size_t ia, size_t ib)
{
	const struct ms_libtable_row *a = &t->rows[ia], *b = &t->rows[ib];

	return is_package(a) && is_package(b) && !strcmp(a->pkg->name, b->pkg->name) &&
	       a->pkg->source == b->pkg->source && !strcmp(a->pkg->arch, b->pkg->arch) &&
	       !cmp_str(running_version(a->pkg), running_version(b->pkg));
}

static int cmp_pid(const void *pa, const void *pb, void *arg)
{
	const struct ms_libtable *t = arg;
	pid_t a = t->procs[*(const size_t *)pa].pid, b = t->procs[*(const size_t *)pb].pid;

	return (a > b) - (a < b);
}

/* The processes that map any row of c, each once: mark[] holds the last component that took each. */
static int component_procs(const struct ms_libtable *t, struct ms_sbom_component *c, size_t id, size_t *mark)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nrows; i++)
		n += t->rows[c->rows[i]].nuses;
	c->procs = malloc((n ? n : 1) * sizeof(*c->procs));
	if (!c->procs)
		return -1;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct ms_libtable_row *r = &t->rows[c->rows[i]];

		for (size_t u = 0; u < r->nuses; u++)
			if (mark[r->uses[u].proc] != id + 1) {
				mark[r->uses[u].proc] = id + 1;
				c->procs[c->nprocs++] = r->uses[u].proc;
			}
	}
	qsort_r(c->procs, c->nprocs, sizeof(*c->procs), cmp_pid, (void *)t);
	return 0;
}

static int describe(struct ms_libtable *t, struct ms_sbom *s, struct ms_sbom_component *c)
{
	const struct ms_libtable_row *first = &t->rows[c->rows[0]];

	if (!is_package(first))
		return 0; /* hashed once all are known: ms_sbom_hash_files */
	c->pkg = first->pkg;
	c->version = running_version(c->pkg);
	c->running_unknown = !c->version;
	for (size_t i = 0; i < c->nrows; i++)
		c->replaced |= t->rows[c->rows[i]].pkg->running_state != MS_PKG_RUNNING_INSTALLED;
	c->purl = malloc(MS_PURL_MAX);
	if (!c->purl)
		return -1;
	if (!ms_purl_of(c->pkg, c->version, s->os_known ? &s->os : NULL, c->purl, MS_PURL_MAX)) {
		free(c->purl);
		c->purl = NULL;
	}
	return 0;
}

int ms_sbom_build(struct ms_libtable *t, const struct ms_osrelease *os, struct ms_sbom *out,
		  struct ms_error *err)
{
	size_t *order = NULL, *mark = NULL, n = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (os) {
		out->os = *os;
		out->os_known = true;
	}
	for (size_t i = 0; i < t->count; i++)
		n += t->rows[i].kept && t->rows[i].nuses;
	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	mark = calloc(t->nprocs ? t->nprocs : 1, sizeof(*mark));
	out->items = calloc(n, sizeof(*out->items));
	if (!order || !mark || !out->items)
		goto nomem;
	n = 0;
	for (size_t i = 0; i < t->count; i++)
		if (t->rows[i].kept && t->rows[i].nuses)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_rows, t);
	for (size_t i = 0; i < n;) {
		struct ms_sbom_component *c = &out->items[out->count];
		size_t j = i + 1;

		while (j < n && same_component(t, order[i], order[j]))
			j++;
		c->rows = malloc((j - i) * sizeof(*c->rows));
		if (!c->rows)
			goto nomem;
		memcpy(c->rows, order + i, (j - i) * sizeof(*c->rows));
		c->nrows = j - i;
		out->count++;
		out->npackages += is_package(&t->rows[order[i]]);
		if (component_procs(t, c, out->count - 1, mark) < 0 || describe(t, out, c) < 0)
			goto nomem;
		i = j;
	}
	if (ms_sbom_hash_files(t, out) < 0)
		goto nomem;
	goto done;
nomem:
	rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	ms_sbom_free(out);
done:
	free(order);
	free(mark);
	return rc;
}

void ms_sbom_free(struct ms_sbom *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free(s->items[i].rows);
		free(s->items[i].procs);
		free(s->items[i].purl);
		free(s->items[i].hash_why);
	}
	free(s->items);
	memset(s, 0, sizeof(*s));
}
