/* owner.c - the table of package sources, asked in rank order: see owner.h. */
#include "config.h"

#include "pkg/owner.h"
#include "pkg/owner_source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rank order: a source answers only the paths the ones before it did not. */
static const struct ms_owner_source *const sources[] = {
	&ms_owner_source_dpkg,
	&ms_owner_source_rpm,
	&ms_owner_source_note,
	&ms_owner_source_python,
	&ms_owner_source_npm,
};

#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

struct ms_owner {
	void *state[NSOURCES]; /* NULL: the source is absent here */
	bool open[NSOURCES];
	size_t asked; /* paths handed to the sources */
	size_t dated; /* copies handed to their histories */
};

int ms_owner_open(const struct ms_owner_opts *opts, struct ms_owner **out, struct ms_error *err)
{
	struct ms_owner_opts dflt = { .index_path = MS_PKGDB_INDEX };
	struct ms_owner *o;

	*out = NULL;
	if (!opts)
		opts = &dflt;
	o = calloc(1, sizeof(*o));
	if (!o)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "packages: out of memory");
	for (size_t i = 0; i < NSOURCES; i++) {
		struct ms_error why = { 0 };
		int rc = sources[i]->open(opts, &o->state[i], &why);

		if (rc == MS_ERR_NOMEM) {
			*err = why;
			ms_owner_close(o);
			return rc;
		}
		o->open[i] = rc == 0;
	}
	*out = o;
	return 0;
}

void ms_owner_read_ahead(struct ms_owner *o)
{
	for (size_t i = 0; o && i < NSOURCES; i++)
		if (o->open[i] && sources[i]->read_ahead)
			sources[i]->read_ahead(o->state[i]);
}

bool ms_owner_has_db(const struct ms_owner *o)
{
	for (size_t i = 0; o && i < NSOURCES; i++)
		if (o->open[i] && sources[i]->system_db)
			return true;
	return false;
}

/* Every source, in rank order, over the n questions as given. */
static int find_all(struct ms_owner *o, const char *const *paths, const size_t *lens, const bool *gone,
		    size_t n, struct ms_pkg *out, struct ms_error *err)
{
	o->asked += n;
	for (size_t i = 0; i < n; i++)
		out[i] = (struct ms_pkg){ .found = false };
	for (size_t i = 0; i < NSOURCES; i++)
		if (o->open[i] && sources[i]->find(o->state[i], paths, lens, gone, n, out, err) == MS_ERR_NOMEM)
			return MS_ERR_NOMEM;
	return 0;
}

/* One question of a batch: a path, and whether nothing was at it. */
struct ask {
	const char *path;
	size_t len;
	bool gone;
	size_t i; /* where the batch asks it */
};

static int ask_cmp(const void *a, const void *b)
{
	const struct ask *x = a, *y = b;
	int c;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if ((c = memcmp(x->path, y->path, x->len)))
		return c;
	if (x->gone != y->gone)
		return x->gone ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static bool same_ask(const struct ask *x, const struct ask *y)
{
	return x->len == y->len && x->gone == y->gone && !memcmp(x->path, y->path, x->len);
}

/*
 * The distinct questions, each asked once: after an upgrade every worker
 * of a server asks about the same path, and the package note is read from
 * the file itself.  Short of memory for the bookkeeping, all are asked.
 */
int ms_owner_find_seen(struct ms_owner *o, const char *const *paths, const size_t *lens, const bool *gone,
		       size_t n, struct ms_pkg *out, struct ms_error *err)
{
	struct ask *asks = n > 1 ? malloc(n * sizeof(*asks)) : NULL;
	size_t *of = NULL, *ulens = NULL, u = 0;
	const char **upaths = NULL;
	struct ms_pkg *uout = NULL;
	bool *ugone = NULL;
	int rc;

	if (!asks)
		return find_all(o, paths, lens, gone, n, out, err);
	for (size_t i = 0; i < n; i++)
		asks[i] = (struct ask){ paths[i], lens[i], gone && gone[i], i };
	qsort(asks, n, sizeof(*asks), ask_cmp);
	for (size_t k = 0; k < n; k++)
		u += k == 0 || !same_ask(&asks[k - 1], &asks[k]);
	if (u < n) {
		of = malloc(n * sizeof(*of));
		upaths = malloc(u * sizeof(*upaths));
		ulens = malloc(u * sizeof(*ulens));
		ugone = malloc(u * sizeof(*ugone));
		uout = malloc(u * sizeof(*uout));
	}
	if (!of || !upaths || !ulens || !ugone || !uout) {
		rc = find_all(o, paths, lens, gone, n, out, err);
	} else {
		u = 0;
		for (size_t k = 0; k < n; k++) {
			if (k == 0 || !same_ask(&asks[k - 1], &asks[k])) {
				upaths[u] = asks[k].path;
				ulens[u] = asks[k].len;
				ugone[u++] = asks[k].gone;
			}
			of[asks[k].i] = u - 1;
		}
		rc = find_all(o, upaths, ulens, gone ? ugone : NULL, u, uout, err);
		for (size_t i = 0; rc == 0 && i < n; i++)
			out[i] = uout[of[i]];
	}
	free(asks);
	free(of);
	free(upaths);
	free(ulens);
	free(ugone);
	free(uout);
	return rc;
}

int ms_owner_find(struct ms_owner *o, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err)
{
	return ms_owner_find_seen(o, paths, lens, NULL, n, out, err);
}

/* Every source's history over the n copies as given. */
static int running_all(struct ms_owner *o, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		       struct ms_error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!pkgs[i].found)
			continue;
		o->dated++;
		ms_pkg_running_unknown(&pkgs[i], "%s keeps no history of the versions it replaced",
				       ms_pkg_source_name(pkgs[i].source));
	}
	for (size_t i = 0; i < NSOURCES; i++)
		if (o->open[i] && sources[i]->running &&
		    sources[i]->running(o->state[i], pkgs, copies, n, err) == MS_ERR_NOMEM)
			return MS_ERR_NOMEM;
	return 0;
}

/* One copy to date with the package that owns its path. */
struct date {
	const struct ms_pkg *pkg;
	const struct ms_copy *copy;
	size_t i;
};

/* The same question: one copy (device, inode, its dates), one answer from the lookup. */
static int date_key_cmp(const struct date *x, const struct date *y)
{
	const struct ms_copy *a = x->copy, *b = y->copy;

	if (a->dev_major != b->dev_major)
		return a->dev_major < b->dev_major ? -1 : 1;
	if (a->dev_minor != b->dev_minor)
		return a->dev_minor < b->dev_minor ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->unlinked.tv_sec != b->unlinked.tv_sec)
		return a->unlinked.tv_sec < b->unlinked.tv_sec ? -1 : 1;
	if (a->unlinked.tv_nsec != b->unlinked.tv_nsec)
		return a->unlinked.tv_nsec < b->unlinked.tv_nsec ? -1 : 1;
	return memcmp(x->pkg, y->pkg, sizeof(*x->pkg));
}

static int date_cmp(const void *a, const void *b)
{
	const struct date *x = a, *y = b;
	int c = date_key_cmp(x, y);

	return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

/*
 * Each distinct copy dated once (the package note reads the copy through
 * one of its mappings, so one with a mapping stands for the others).
 * Short of memory for the bookkeeping, every copy is dated.
 */
int ms_owner_running(struct ms_owner *o, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		     struct ms_error *err)
{
	struct date *dates = n > 1 ? malloc(n * sizeof(*dates)) : NULL;
	struct ms_copy *ucopies = NULL;
	struct ms_pkg *upkgs = NULL;
	size_t *of = NULL, m = 0, u = 0;
	int rc;

	if (!dates)
		return running_all(o, pkgs, copies, n, err);
	for (size_t i = 0; i < n; i++)
		if (pkgs[i].found)
			dates[m++] = (struct date){ &pkgs[i], &copies[i], i };
	qsort(dates, m, sizeof(*dates), date_cmp);
	for (size_t k = 0; k < m; k++)
		u += k == 0 || date_key_cmp(&dates[k - 1], &dates[k]) != 0;
	if (u < m) {
		of = malloc(m * sizeof(*of));
		upkgs = malloc(u * sizeof(*upkgs));
		ucopies = malloc(u * sizeof(*ucopies));
	}
	if (!of || !upkgs || !ucopies) {
		rc = running_all(o, pkgs, copies, n, err);
	} else {
		u = 0;
		for (size_t k = 0; k < m; k++) {
			if (k == 0 || date_key_cmp(&dates[k - 1], &dates[k]) != 0) {
				upkgs[u] = *dates[k].pkg;
				ucopies[u++] = *dates[k].copy;
			} else if (!ucopies[u - 1].pid) {
				ucopies[u - 1] = *dates[k].copy; /* one with a mapping */
			}
			of[k] = u - 1;
		}
		rc = running_all(o, upkgs, ucopies, u, err);
		for (size_t k = 0; rc == 0 && k < m; k++)
			pkgs[dates[k].i] = upkgs[of[k]];
	}
	free(dates);
	free(of);
	free(upkgs);
	free(ucopies);
	return rc;
}

void ms_owner_counts(const struct ms_owner *o, size_t *asked, size_t *dated)
{
	*asked = o->asked;
	*dated = o->dated;
}

void ms_owner_close(struct ms_owner *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < NSOURCES; i++)
		if (o->open[i])
			sources[i]->close(o->state[i]);
	free(o);
}

int ms_owner_lookup(const char *const *paths, const size_t *lens, size_t n, struct ms_pkg *out,
		    struct ms_error *err)
{
	struct ms_owner *o;
	int rc = ms_owner_open(NULL, &o, err);

	if (rc < 0)
		return rc;
	rc = ms_owner_find(o, paths, lens, n, out, err);
	ms_owner_close(o);
	return rc;
}
