/*
 * owner_sources.c - dpkg, rpm and Python as owner sources
 * (owner_source.h): each hook hands over to its database's module
 * (dpkg's and rpm's history: dpkglog.h, rpmlog.h).
 */
#include "config.h"

#include "pkg/dpkglog.h"
#include "pkg/owner.h"
#include "pkg/owner_source.h"
#include "pkg/pydist.h"
#include "pkg/rpmdb.h"
#include "pkg/rpmlog.h"

#include <errno.h>
#include <stdlib.h>

struct dpkg_state {
	struct ms_pkgdb *db;
	const char *log_dir;
};

static int dpkg_open(const struct ms_owner_opts *opts, void **state, struct ms_error *err)
{
	struct dpkg_state *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "packages: out of memory");
	rc = ms_pkgdb_open(opts->dpkg_dir ? opts->dpkg_dir : MS_PKGDB_DIR,
			   &(struct ms_pkgdb_opts){ .index_path = opts->index_path, .read_ahead = opts->read_ahead },
			   &s->db, err);
	if (rc < 0) {
		free(s);
		return rc;
	}
	s->log_dir = opts->dpkg_log_dir;
	*state = s;
	return 0;
}

static void dpkg_read_ahead(void *state)
{
	ms_pkgdb_read_ahead(((struct dpkg_state *)state)->db);
}

static int dpkg_find(void *state, const char *const *paths, const size_t *lens, const bool *gone, size_t n,
		     struct ms_pkg *out,
		     struct ms_error *err)
{
	(void)gone;
	return ms_pkgdb_find(((struct dpkg_state *)state)->db, paths, lens, n, out, err);
}

static int dpkg_running(void *state, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
			struct ms_error *err)
{
	return ms_dpkglog_running(&(struct ms_dpkglog_opts){ .dir = ((struct dpkg_state *)state)->log_dir }, pkgs,
				  copies, n, NULL, err);
}

static void dpkg_close(void *state)
{
	struct dpkg_state *s = state;

	if (s)
		ms_pkgdb_close(s->db);
	free(s);
}

const struct ms_owner_source ms_owner_source_dpkg = {
	.name = "dpkg",
	.source = MS_PKG_SOURCE_DPKG,
	.system_db = true,
	.open = dpkg_open,
	.read_ahead = dpkg_read_ahead,
	.find = dpkg_find,
	.running = dpkg_running,
	.close = dpkg_close,
};

struct rpm_state {
	struct ms_rpmdb *db;
	const char *log_dir;
};

static int rpm_open(const struct ms_owner_opts *opts, void **state, struct ms_error *err)
{
	struct rpm_state *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "packages: out of memory");
	rc = ms_rpmdb_open(&(struct ms_rpmdb_opts){ .root = opts->rpm_root }, &s->db, err);
	if (rc < 0) {
		free(s);
		return rc;
	}
	s->log_dir = opts->rpm_log_dir;
	*state = s;
	return 0;
}

static int rpm_find(void *state, const char *const *paths, const size_t *lens, const bool *gone, size_t n,
		    struct ms_pkg *out,
		    struct ms_error *err)
{
	(void)gone;
	return ms_rpmdb_find(((struct rpm_state *)state)->db, paths, lens, n, out, err);
}

static int rpm_running(void *state, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		       struct ms_error *err)
{
	return ms_rpmlog_running(&(struct ms_rpmlog_opts){ .dir = ((struct rpm_state *)state)->log_dir }, pkgs,
				 copies, n, NULL, err);
}

static void rpm_close(void *state)
{
	struct rpm_state *s = state;

	if (s)
		ms_rpmdb_close(s->db);
	free(s);
}

const struct ms_owner_source ms_owner_source_rpm = {
	.name = "rpm",
	.source = MS_PKG_SOURCE_RPM,
	.system_db = true,
	.open = rpm_open,
	.find = rpm_find,
	.running = rpm_running,
	.close = rpm_close,
};

static int python_open(const struct ms_owner_opts *opts, void **state, struct ms_error *err)
{
	(void)opts;
	return ms_pydist_open((struct ms_pydist **)state, err);
}

static int python_find(void *state, const char *const *paths, const size_t *lens, const bool *gone, size_t n,
		       struct ms_pkg *out, struct ms_error *err)
{
	(void)gone;
	return ms_pydist_find(state, paths, lens, n, out, err);
}

static void python_close(void *state)
{
	ms_pydist_close(state);
}

const struct ms_owner_source ms_owner_source_python = {
	.name = "python",
	.source = MS_PKG_SOURCE_PYTHON,
	.open = python_open,
	.find = python_find,
	.close = python_close,
};
