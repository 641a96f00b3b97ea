/*
 * The packages of a snapshot's files: looked up once when it is taken, kept
 * in the document (snapshot.h, "Packages"), and read back.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps/mapping.h"
#include "pkg/pkgdb.h"
#include "pkg/pkgindex.h"
#include "snap/snapshot.h"

#define PKG_SOURCE "dpkg"

/* What dpkg allows in a package name and a version, within our bound. */
static bool storable(const char *text, const char *allowed)
{
	size_t n = strnlen(text, MS_SNAPSHOT_PKG_TEXT_MAX + 1);

	return n <= MS_SNAPSHOT_PKG_TEXT_MAX && strspn(text, allowed) == n;
}

static const char pkg_name_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789+-.";
static const char pkg_version_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+-~:";

static bool is_file(const struct ms_mapping *m)
{
	return m->name_len && m->name[0] == '/' && !m->name_ambiguous;
}

/*
 * The one call to a package database.  Mappings of one file sit side by
 * side, so a path is asked once per run of them.
 */
static int lookup(const struct ms_maplist *maps, struct ms_pkg *out, struct ms_error *err)
{
	size_t n = 0, count = maps->count ? maps->count : 1;
	const char **paths = calloc(count, sizeof(*paths));
	size_t *lens = calloc(count, sizeof(*lens)), *which = calloc(count, sizeof(*which));
	struct ms_pkg *found = calloc(count, sizeof(*found));
	int rc = paths && lens && which && found ? 0 : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");

	for (size_t i = 0; rc == 0 && i < maps->count; i++) {
		const struct ms_mapping *m = &maps->items[i];
		size_t len = is_file(m) ? ms_mapping_name_undeleted(m->name, m->name_len) : 0;

		which[i] = SIZE_MAX;
		if (!len)
			continue;
		if (n && lens[n - 1] == len && !memcmp(paths[n - 1], m->name, len)) {
			which[i] = n - 1;
			continue;
		}
		paths[n] = m->name;
		lens[n] = len;
		which[i] = n++;
	}
	if (rc == 0)
		rc = ms_pkgdb_lookup_with(MS_PKGDB_DIR, &(struct ms_pkgdb_opts){ .index_path = MS_PKGDB_INDEX },
					  paths, lens, n, found, err);
	for (size_t i = 0; rc == 0 && i < maps->count; i++)
		if (which[i] != SIZE_MAX)
			out[i] = found[which[i]];
	free(paths);
	free(lens);
	free(which);
	free(found);
	return rc;
}

int ms_snapshot_add_packages(struct ms_snapshot *snap, struct ms_error *err)
{
	struct ms_pkg *pkgs = calloc(snap->maps.count ? snap->maps.count : 1, sizeof(*pkgs));
	int rc = pkgs ? lookup(&snap->maps, pkgs, err) : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");

	if (rc < 0) {
		free(pkgs);
		return rc == MS_ERR_NOTSUP ? 0 : rc;
	}
	for (size_t i = 0; i < snap->maps.count; i++) {
		const struct ms_mapping *m = &snap->maps.items[i];
		struct ms_pkg *p = &pkgs[i];

		if (!p->found)
			continue;
		/* What is installed at the path is not the deleted copy that is mapped. */
		if (ms_mapping_name_undeleted(m->name, m->name_len) != m->name_len ||
		    !storable(p->version, pkg_version_chars))
			p->version[0] = '\0';
		if (!storable(p->name, pkg_name_chars))
			*p = (struct ms_pkg){ 0 };
		else
			p->found = true;
	}
	free(snap->pkgs);
	snap->pkgs = pkgs;
	snprintf(snap->pkgs_source, sizeof(snap->pkgs_source), "%s", PKG_SOURCE);
	return 0;
}

int ms_snapshot_version_of(const struct ms_snapshot *snap)
{
	if (snap->pkgs)
		return MS_SNAPSHOT_VERSION_PACKAGES;
	return snap->res ? MS_SNAPSHOT_VERSION_RESIDENCY : MS_SNAPSHOT_VERSION;
}

json_t *ms_snapshot_pkg_meta(const struct ms_snapshot *snap)
{
	return json_pack("{s:s}", "source", snap->pkgs_source);
}

int ms_snapshot_pkg_encode_one(const struct ms_pkg *pkg, json_t *m)
{
	if (!pkg->found)
		return 0;
	return ms_snapshot_put(m, "package", json_string(pkg->name)) |
	       ms_snapshot_put(m, "package_version", json_string(pkg->version)) ? -1 : 0;
}

int ms_snapshot_pkg_decode_meta(json_t *meta, int version, const char *what,
				struct ms_snapshot *snap, struct ms_error *err)
{
	json_t *src = json_object_get(meta, "source");

	if (version < MS_SNAPSHOT_VERSION_PACKAGES)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: \"packages\" needs version %d", what,
				    MS_SNAPSHOT_VERSION_PACKAGES);
	if (!json_is_object(meta) || !json_is_string(src) || strcmp(json_string_value(src), PKG_SOURCE))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: \"packages\" must be an object with \"source\": \"dpkg\"", what);
	snprintf(snap->pkgs_source, sizeof(snap->pkgs_source), "%s", PKG_SOURCE);
	return 0;
}

static int get_text(json_t *m, const char *key, const char *allowed, const char *what, size_t index,
		    char *out, struct ms_error *err)
{
	json_t *v = json_object_get(m, key);

	if (json_is_string(v) && strlen(json_string_value(v)) == json_string_length(v) &&
	    storable(json_string_value(v), allowed)) {
		strcpy(out, json_string_value(v));
		return 0;
	}
	return ms_error_set(err, MS_ERR_INVAL, EINVAL,
			    "%s: mapping %zu: \"%s\" must be at most %d characters that dpkg allows",
			    what, index + 1, key, MS_SNAPSHOT_PKG_TEXT_MAX);
}

int ms_snapshot_pkg_decode_one(json_t *m, const char *what, size_t index, struct ms_pkg *out,
			       struct ms_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (!json_object_get(m, "package") && !json_object_get(m, "package_version"))
		return 0;
	rc = get_text(m, "package", pkg_name_chars, what, index, out->name, err);
	if (rc == 0)
		rc = get_text(m, "package_version", pkg_version_chars, what, index, out->version, err);
	if (rc == 0 && !out->name[0])
		rc = ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: mapping %zu: \"package\" is empty",
				  what, index + 1);
	out->found = rc == 0;
	return rc;
}
