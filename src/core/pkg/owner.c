/* owner.c - dpkg, then rpm, then Python distributions: see owner.h. */
#include "pkg/owner.h"
#include "pkg/rpmdb.h"

#include <errno.h>
#include <stdlib.h>

struct ms_owner {
	struct ms_pkgdb *dpkg; /* NULL: not a dpkg system */
	struct ms_rpmdb *rpm;  /* NULL: not an rpm system, or its database refused */
};

int ms_owner_open(const struct ms_owner_opts *opts, struct ms_owner **out, struct ms_error *err)
{
	struct ms_owner_opts dflt = { .index_path = MS_PKGDB_INDEX };
	struct ms_owner *o;
	int rc;

	*out = NULL;
	if (!opts)
		opts = &dflt;
	o = calloc(1, sizeof(*o));
	if (!o)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "packages: out of memory");
	rc = ms_pkgdb_open(opts->dpkg_dir ? opts->dpkg_dir : MS_PKGDB_DIR,
			   &(struct ms_pkgdb_opts){ .index_path = opts->index_path, .read_ahead = opts->read_ahead },
			   &o->dpkg, err);
	if (rc == MS_ERR_NOMEM) {
		free(o);
		return rc;
	}
	rc = ms_rpmdb_open(&(struct ms_rpmdb_opts){ .root = opts->rpm_root }, &o->rpm, err);
	if (rc == MS_ERR_NOMEM) {
		ms_owner_close(o);
		return rc;
	}
	*out = o;
	return 0;
}

void ms_owner_read_ahead(struct ms_owner *o)
{
	if (o && o->dpkg)
		ms_pkgdb_read_ahead(o->dpkg);
}

bool ms_owner_has_db(const struct ms_owner *o)
{
	return o && (o->dpkg || o->rpm);
}

int ms_owner_find(struct ms_owner *o, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct ms_pkg){ .found = false };
	if (o->dpkg)
		rc = ms_pkgdb_find(o->dpkg, paths, lens, n, out, err);
	if (o->rpm && rc != MS_ERR_NOMEM)
		rc = ms_rpmdb_find(o->rpm, paths, lens, n, out, err);
	return rc == MS_ERR_NOMEM ? rc : 0;
}

void ms_owner_close(struct ms_owner *o)
{
	if (!o)
		return;
	ms_pkgdb_close(o->dpkg);
	ms_rpmdb_close(o->rpm);
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

const char *ms_pkg_source_name(enum ms_pkg_source source)
{
	switch (source) {
	case MS_PKG_SOURCE_DPKG: return "dpkg";
	case MS_PKG_SOURCE_RPM: return "rpm";
	case MS_PKG_SOURCE_PYTHON: return "python";
	case MS_PKG_SOURCE_NONE: break;
	}
	return "none";
}
