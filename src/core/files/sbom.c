/* sbom.c - the components of a runtime SBOM: see sbom.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "files/sbom.h"

/* One row counted for one version: a package component is a run of entries of one version. */
enum entry_kind {
	ENTRY_SURE,        /* the installed copy, or an old one of a KNOWN version */
	ENTRY_CANDIDATE,   /* an old copy that may be this version */
	ENTRY_NOT_RUNNING, /* the installed version of a package with an old copy running (opts.installed) */
};

struct entry {
	size_t row;
	const char *version;
	enum entry_kind kind;
	double confidence;
};

struct build {
	struct ms_libtable *t;
	struct ms_sbom *s;
	struct entry *entries;
	size_t nentries;
	size_t *files;      /* rows that are file components */
	size_t nfiles;
	size_t *mark;       /* per process: the last component that took it, + 1 */
};

static bool is_package(const struct ms_libtable_row *r)
{
	return r->kept && r->pkg && r->pkg->found;
}

static const struct ms_pkg *pkg_of(const struct build *b, const struct entry *e)
{
	return b->t->rows[e->row].pkg;
}

static void add_entry(struct build *b, size_t row, const char *version, enum entry_kind kind, double confidence)
{
	b->entries[b->nentries++] = (struct entry){ .row = row, .version = version, .kind = kind,
						   .confidence = confidence };
}

/*
 * The entries of one package row: its copy's version, or its candidates;
 * false when no version can be named (the row is then a file component).
 */
static bool add_package_row(struct build *b, size_t row, bool installed)
{
	const struct ms_pkg *p = b->t->rows[row].pkg;
	bool two = p->running[0] && p->running_alt[0] && strcmp(p->running, p->running_alt);
	bool named = false;

	switch (p->running_state) {
	case MS_PKG_RUNNING_INSTALLED:
		if ((named = p->version[0]))
			add_entry(b, row, p->version, ENTRY_SURE, MS_SBOM_CONF_SURE);
		break;
	case MS_PKG_RUNNING_KNOWN:
		if ((named = p->running[0]))
			add_entry(b, row, p->running, ENTRY_SURE, MS_SBOM_CONF_SURE);
		break;
	case MS_PKG_RUNNING_UNKNOWN:
		if (p->running[0])
			add_entry(b, row, p->running, ENTRY_CANDIDATE,
				  two ? MS_SBOM_CONF_TWO_CANDIDATES : MS_SBOM_CONF_ONE_CANDIDATE);
		if (two || (!p->running[0] && p->running_alt[0]))
			add_entry(b, row, p->running_alt, ENTRY_CANDIDATE,
				  two ? MS_SBOM_CONF_TWO_CANDIDATES : MS_SBOM_CONF_ONE_CANDIDATE);
		named = p->running[0] || p->running_alt[0];
		break;
	}
	/* Only a component no other entry makes: sorted after the running ones of its version. */
	if (installed && p->running_state != MS_PKG_RUNNING_INSTALLED && p->version[0])
		add_entry(b, row, p->version, ENTRY_NOT_RUNNING, MS_SBOM_CONF_SURE);
	return named;
}

/* Same package (database, name, architecture) and version. */
static int cmp_key(const struct build *b, const struct entry *ea, const struct entry *eb)
{
	const struct ms_pkg *a = pkg_of(b, ea), *p = pkg_of(b, eb);
	int c;

	if ((c = strcmp(a->name, p->name)) || (c = (int)a->source - (int)p->source) || (c = strcmp(a->arch, p->arch)))
		return c;
	return strcmp(ea->version, eb->version);
}

/* By package and version, then the row's name, then the entry's kind. */
static int cmp_entries(const void *pa, const void *pb, void *arg)
{
	const struct build *b = arg;
	const struct entry *ea = pa, *eb = pb;
	int c = cmp_key(b, ea, eb);

	if (c)
		return c;
	if ((c = strcmp(b->t->rows[ea->row].name, b->t->rows[eb->row].name)))
		return c;
	return (ea->row > eb->row) - (ea->row < eb->row) ?: (int)ea->kind - (int)eb->kind;
}

static int cmp_file_rows(const void *pa, const void *pb, void *arg)
{
	const struct ms_libtable *t = arg;

	return strcmp(t->rows[*(const size_t *)pa].name, t->rows[*(const size_t *)pb].name);
}

static int cmp_pid(const void *pa, const void *pb, void *arg)
{
	const struct ms_libtable *t = arg;
	pid_t a = t->procs[*(const size_t *)pa].pid, b = t->procs[*(const size_t *)pb].pid;

	return (a > b) - (a < b);
}

/* The processes that map any row of c, each once. */
static int component_procs(const struct build *b, struct ms_sbom_component *c, size_t id)
{
	const struct ms_libtable *t = b->t;
	size_t n = 0;

	for (size_t i = 0; i < c->nrows; i++)
		n += t->rows[c->rows[i]].nuses;
	c->procs = malloc((n ? n : 1) * sizeof(*c->procs));
	if (!c->procs)
		return -1;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct ms_libtable_row *r = &t->rows[c->rows[i]];

		for (size_t u = 0; u < r->nuses; u++)
			if (b->mark[r->uses[u].proc] != id + 1) {
				b->mark[r->uses[u].proc] = id + 1;
				c->procs[c->nprocs++] = r->uses[u].proc;
			}
	}
	qsort_r(c->procs, c->nprocs, sizeof(*c->procs), cmp_pid, (void *)t);
	return 0;
}

/* The one place a component's purl is made. */
static int component_purl(const struct ms_sbom *s, struct ms_sbom_component *c)
{
	c->purl = malloc(MS_PURL_MAX);
	if (!c->purl)
		return -1;
	if (!ms_purl_of(c->pkg, c->version, s->os_known ? &s->os : NULL, c->purl, MS_PURL_MAX)) {
		free(c->purl);
		c->purl = NULL;
	}
	return 0;
}

/* The package component of entries [first, end): one version of one package. */
static int package_component(struct build *b, const struct entry *first, const struct entry *end)
{
	struct ms_sbom_component *c = &b->s->items[b->s->count];
	bool sure = false, replaced = false, candidate = false;

	c->rows = malloc((size_t)(end - first) * sizeof(*c->rows));
	if (!c->rows)
		return -1;
	c->known_row = c->candidate_row = SIZE_MAX;
	c->confidence = 0;
	for (const struct entry *e = first; e < end; e++) {
		const struct ms_pkg *p = pkg_of(b, e);

		if (e->kind == ENTRY_NOT_RUNNING)
			continue;
		if (c->nrows && c->rows[c->nrows - 1] == e->row)
			continue; /* a reinstalled version: the row once */
		c->rows[c->nrows++] = e->row;
		sure |= e->kind == ENTRY_SURE;
		candidate |= e->kind == ENTRY_CANDIDATE;
		if (e->kind == ENTRY_SURE && p->running_state == MS_PKG_RUNNING_KNOWN) {
			replaced = true;
			if (c->known_row == SIZE_MAX)
				c->known_row = e->row;
		}
		if (e->kind == ENTRY_CANDIDATE && c->candidate_row == SIZE_MAX)
			c->candidate_row = e->row;
		if (e->confidence > c->confidence)
			c->confidence = e->confidence;
	}
	c->running = sure ? (replaced ? MS_SBOM_REPLACED : MS_SBOM_INSTALLED)
			  : candidate ? MS_SBOM_CANDIDATE : MS_SBOM_NOT_RUNNING;
	if (c->running == MS_SBOM_NOT_RUNNING)
		c->confidence = MS_SBOM_CONF_SURE;
	c->pkg = pkg_of(b, first);
	c->version = first->version;
	b->s->count++;
	b->s->npackages++;
	return component_procs(b, c, b->s->count - 1) < 0 ? -1 : component_purl(b->s, c);
}

static int file_component(struct build *b, size_t row)
{
	struct ms_sbom_component *c = &b->s->items[b->s->count];
	const struct ms_libtable_row *r = &b->t->rows[row];

	c->rows = malloc(sizeof(*c->rows));
	if (!c->rows)
		return -1;
	c->rows[0] = row;
	c->nrows = 1;
	c->known_row = c->candidate_row = SIZE_MAX;
	if (is_package(r))
		c->unknown_pkg = r->pkg;
	b->s->count++;
	return component_procs(b, c, b->s->count - 1);
}

static int components(struct build *b, bool installed)
{
	struct ms_libtable *t = b->t;

	for (size_t i = 0; i < t->count; i++) {
		const struct ms_libtable_row *r = &t->rows[i];

		if (!r->kept || !r->nuses)
			continue;
		if (!is_package(r) || !add_package_row(b, i, installed))
			b->files[b->nfiles++] = i;
	}
	qsort_r(b->entries, b->nentries, sizeof(*b->entries), cmp_entries, b);
	qsort_r(b->files, b->nfiles, sizeof(*b->files), cmp_file_rows, t);
	b->s->items = calloc(b->nentries + b->nfiles + 1, sizeof(*b->s->items));
	if (!b->s->items)
		return -1;
	for (size_t i = 0; i < b->nentries;) {
		size_t j = i + 1;

		while (j < b->nentries && !cmp_key(b, &b->entries[i], &b->entries[j]))
			j++;
		if (package_component(b, &b->entries[i], &b->entries[j]) < 0)
			return -1;
		i = j;
	}
	for (size_t i = 0; i < b->nfiles; i++)
		if (file_component(b, b->files[i]) < 0)
			return -1;
	return 0;
}

/* Each process's components, from each component's processes. */
static int proc_index(const struct ms_libtable *t, struct ms_sbom *s)
{
	size_t total = 0, *at;

	s->proc_start = calloc(t->nprocs + 1, sizeof(*s->proc_start));
	for (size_t i = 0; i < s->count; i++)
		total += s->items[i].nprocs;
	s->proc_items = malloc((total ? total : 1) * sizeof(*s->proc_items));
	at = calloc(t->nprocs + 1, sizeof(*at));
	if (!s->proc_start || !s->proc_items || !at) {
		free(at);
		return -1;
	}
	for (size_t i = 0; i < s->count; i++)
		for (size_t k = 0; k < s->items[i].nprocs; k++)
			s->proc_start[s->items[i].procs[k] + 1]++;
	for (size_t p = 0; p < t->nprocs; p++) {
		s->proc_start[p + 1] += s->proc_start[p];
		at[p] = s->proc_start[p];
	}
	for (size_t i = 0; i < s->count; i++)
		for (size_t k = 0; k < s->items[i].nprocs; k++)
			s->proc_items[at[s->items[i].procs[k]]++] = i;
	free(at);
	return 0;
}

int ms_sbom_build(struct ms_libtable *t, const struct ms_osrelease *os, const struct ms_sbom_opts *opts,
		  struct ms_sbom *out, struct ms_error *err)
{
	struct build b = { .t = t, .s = out };
	size_t n = 0;
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
	/* At most two candidates and the installed version per row. */
	b.entries = malloc(3 * n * sizeof(*b.entries));
	b.files = malloc(n * sizeof(*b.files));
	b.mark = calloc(t->nprocs ? t->nprocs : 1, sizeof(*b.mark));
	if (!b.entries || !b.files || !b.mark || components(&b, opts && opts->installed) < 0 ||
	    proc_index(t, out) < 0 || ms_sbom_hash_files(t, out) < 0) {
		rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
		ms_sbom_free(out);
	}
	free(b.entries);
	free(b.files);
	free(b.mark);
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
	free(s->proc_start);
	free(s->proc_items);
	memset(s, 0, sizeof(*s));
}
