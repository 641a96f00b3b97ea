/* owner.c - the table of package sources, asked in rank order: see owner.h. */
#include "config.h"

#include "pkg/owner.h"
#include "pkg/owner_source.h"

#include <errno.h>
#include <stdlib.h>

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

int ms_owner_find_seen(struct ms_owner *o, const char *const *paths, const size_t *lens, const bool *gone,
		       size_t n, struct ms_pkg *out, struct ms_error *err)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (struct ms_pkg){ .found = false };
	for (size_t i = 0; i < NSOURCES; i++)
		if (o->open[i] && sources[i]->find(o->state[i], paths, lens, gone, n, out, err) == MS_ERR_NOMEM)
			return MS_ERR_NOMEM;
	return 0;
}

int ms_owner_find(struct ms_owner *o, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err)
{
	return ms_owner_find_seen(o, paths, lens, NULL, n, out, err);
}

int ms_owner_running(struct ms_owner *o, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		     struct ms_error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!pkgs[i].found)
			continue;
		ms_pkg_running_unknown(&pkgs[i], "%s keeps no history of the versions it replaced",
				       ms_pkg_source_name(pkgs[i].source));
	}
	for (size_t i = 0; i < NSOURCES; i++)
		if (o->open[i] && sources[i]->running &&
		    sources[i]->running(o->state[i], pkgs, copies, n, err) == MS_ERR_NOMEM)
			return MS_ERR_NOMEM;
	return 0;
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
