/*
 * The packages of a snapshot's files: looked up once when it is taken, kept
 * in the document (snapshot.h, "Packages"), and read back.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maps/mapping.h"
#include "proc/proc.h"
#include "pkg/owner.h"
#include "snap/snapshot.h"
#include "stale/stale.h"
#include "maps/maps.h"

/* What package names and versions use (dpkg, rpm, Python), within our bound. */
/* "@" and "/" for npm's "@SCOPE/NAME". */
static const char pkg_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-~:^!@/";

static bool storable(const char *text)
{
	size_t n = strnlen(text, MS_SNAPSHOT_PKG_TEXT_MAX + 1);

	return n <= MS_SNAPSHOT_PKG_TEXT_MAX && strspn(text, pkg_chars) == n;
}

static bool is_file(const struct ms_mapping *m)
{
	return m->name_len && m->name[0] == '/' && !m->name_ambiguous;
}

/*
 * The one call to the package databases.  Mappings of one file sit side by
 * side, so a path is asked once per run of them.  *has_db: whether a
 * system database answered at all.
 */
/*
 * The versions of the deleted copies among found (paths[i] is deleted when
 * its name goes on past lens[i]), from the database's log (owner.h), for a
 * process started at start_time (ticks since boot).  Only those are asked,
 * so a process that maps no deleted file costs no read of the log; left
 * unknown when the boot time cannot be read.
 */
static int running_versions(struct ms_owner *owner, const char *const *paths, const size_t *lens,
			    size_t n, struct ms_pkg *found, const struct ms_copy *dates,
			    unsigned long long start_time, struct ms_error *err)
{
	struct ms_pkg *copies = calloc(n ? n : 1, sizeof(*copies));
	size_t *from = calloc(n ? n : 1, sizeof(*from)), k = 0;
	struct ms_copy *when = calloc(n ? n : 1, sizeof(*when));
	struct ms_error ignored;
	time_t btime;
	int rc = copies && from && when ? 0 : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");

	if (ms_boot_time(&btime, &ignored) < 0)
		btime = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (found[i].found && paths[i][lens[i]] != '\0') {
			from[k] = i;
			when[k] = dates[i];
			when[k].start = btime ? ms_proc_started_at(start_time, btime) : 0;
			copies[k++] = found[i];
		}
	if (rc == 0 && k) {
		rc = ms_owner_running(owner, copies, when, k, err);
		for (size_t i = 0; rc == 0 && i < k; i++)
			found[from[i]] = copies[i];
	}
	free(copies);
	free(from);
	free(when);
	return rc;
}

static int lookup(const struct ms_snapshot *snap, const bool *ours, const struct ms_copy *dates,
		  struct ms_pkg *out, bool *has_db, struct ms_error *err)
{
	const struct ms_maplist *maps = &snap->maps;
	const struct ms_mapping *prev = NULL; /* the mapping whose name is paths[n - 1] */
	size_t n = 0, count = maps->count ? maps->count : 1;
	const char **paths = calloc(count, sizeof(*paths));
	size_t *lens = calloc(count, sizeof(*lens)), *which = calloc(count, sizeof(*which));
	struct ms_pkg *found = calloc(count, sizeof(*found));
	struct ms_copy *when = calloc(count, sizeof(*when));
	struct ms_owner *owner = NULL;
	int rc = paths && lens && which && found && when ? 0
							 : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");

	for (size_t i = 0; rc == 0 && i < maps->count; i++) {
		const struct ms_mapping *m = &maps->items[i];
		size_t len = is_file(m) && ours[i] ? ms_mapping_name_undeleted(m->name, m->name_len) : 0;

		which[i] = SIZE_MAX;
		if (!len)
			continue;
		/* The whole name: a deleted copy and the file now at its path are two answers. */
		if (n && lens[n - 1] == len && prev->name_len == m->name_len &&
		    !memcmp(paths[n - 1], m->name, m->name_len)) {
			which[i] = n - 1;
			continue;
		}
		paths[n] = m->name;
		lens[n] = len;
		when[n] = dates[i];
		which[i] = n++;
		prev = m;
	}
	if (rc == 0)
		rc = ms_owner_open(NULL, &owner, err);
	*has_db = rc == 0 && ms_owner_has_db(owner);
	if (rc == 0 && *has_db)
		rc = ms_owner_find(owner, paths, lens, n, found, err);
	if (rc == 0 && *has_db)
		rc = running_versions(owner, paths, lens, n, found, when, snap->hdr.start_time, err);
	for (size_t i = 0; rc == 0 && i < maps->count; i++)
		if (which[i] != SIZE_MAX)
			out[i] = found[which[i]];
	ms_owner_close(owner);
	free(paths);
	free(lens);
	free(which);
	free(found);
	free(when);
	return rc;
}

/* What a snapshot keeps of one answer; unknown (not found) when it cannot be kept. */
static struct ms_snapshot_pkg keep(const struct ms_mapping *m, const struct ms_pkg *p)
{
	struct ms_snapshot_pkg k = { 0 };

	if (!p->found || !storable(p->name))
		return k;
	k.found = true;
	k.source = p->source;
	snprintf(k.name, sizeof(k.name), "%s", p->name);
	/* What is installed at the path is not the deleted copy that is mapped. */
	if (ms_mapping_name_undeleted(m->name, m->name_len) == m->name_len && storable(p->version))
		snprintf(k.version, sizeof(k.version), "%s", p->version);
	else if (p->running_state == MS_PKG_RUNNING_KNOWN && storable(p->running))
		snprintf(k.version, sizeof(k.version), "%s", p->running);
	return k;
}

/*
 * Our databases describe the files of a process under our root only, and
 * only by names proven paths to them (nameproof.h): ours[i] for each
 * mapping, judged once per run of mappings of one file.  *other: the
 * process lives under another root (nothing is looked up).
 */
static int proven_names(const struct ms_snapshot *snap, struct ms_maps *maps, bool *ours,
			struct ms_copy *dates, bool *other, struct ms_error *err)
{
	const struct ms_maplist *list = &snap->maps;
	struct ms_stale_ctx *ctx = NULL;
	struct ms_stale_result v;
	int rc = ms_stale_ctx_new(NULL, &ctx, err);

	*other = rc == 0 && ms_stale_ctx_other_root(ctx, ms_maps_proc(maps));
	for (size_t i = 0; rc == 0 && !*other && i < list->count; i++) {
		const struct ms_mapping *m = &list->items[i], *p = i ? &list->items[i - 1] : NULL;

		if (!is_file(m))
			continue;
		if (p && is_file(p) && p->inode == m->inode && p->dev_major == m->dev_major &&
		    p->dev_minor == m->dev_minor && p->name_len == m->name_len && !memcmp(p->name, m->name, m->name_len)) {
			ours[i] = ours[i - 1];
			dates[i] = dates[i - 1];
			continue;
		}
		if ((rc = ms_stale_judge(ctx, maps, m, &v)) < 0)
			ms_error_set(err, rc, ENOMEM, "out of memory");
		ours[i] = rc == 0 && v.path_ours;
		dates[i] = (struct ms_copy){ .unlinked = rc == 0 ? v.unlinked : (struct timespec){ 0, 0 },
					     .pid = snap->hdr.pid, .addr = m->start, .end = m->end, .ino = m->inode,
					     .dev_major = m->dev_major, .dev_minor = m->dev_minor };
	}
	ms_stale_ctx_free(ctx);
	return rc;
}

int ms_snapshot_add_packages(struct ms_snapshot *snap, struct ms_maps *maps, struct ms_error *err)
{
	size_t count = snap->maps.count ? snap->maps.count : 1;
	struct ms_pkg *found = NULL;
	struct ms_snapshot_pkg *pkgs = NULL;
	bool has_db = false, other = false;
	bool *ours = calloc(count, sizeof(*ours));
	struct ms_copy *dates = calloc(count, sizeof(*dates));
	int rc = ours && dates ? proven_names(snap, maps, ours, dates, &other, err)
			       : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");

	if (rc < 0 || other) {
		free(ours);
		free(dates);
		return rc;
	}
	found = calloc(count, sizeof(*found));
	pkgs = calloc(count, sizeof(*pkgs));
	rc = found && pkgs ? lookup(snap, ours, dates, found, &has_db, err)
			   : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	free(ours);
	free(dates);
	for (size_t i = 0; rc == 0 && has_db && i < snap->maps.count; i++)
		pkgs[i] = keep(&snap->maps.items[i], &found[i]);
	free(found);
	if (rc < 0 || !has_db) {
		free(pkgs);
		return rc;
	}
	free(snap->pkgs);
	snap->pkgs = pkgs;
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
	(void)snap;
	return json_object();
}

int ms_snapshot_pkg_encode_one(const struct ms_snapshot_pkg *pkg, json_t *m)
{
	if (!pkg->found)
		return 0;
	return ms_snapshot_put(m, "package", json_string(pkg->name)) |
	       ms_snapshot_put(m, "package_version", json_string(pkg->version)) |
	       ms_snapshot_put(m, "package_source", json_string(ms_pkg_source_name(pkg->source))) ? -1 : 0;
}

int ms_snapshot_pkg_decode_meta(json_t *meta, int version, const char *what, struct ms_error *err)
{
	if (version < MS_SNAPSHOT_VERSION_PACKAGES)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: \"packages\" needs version %d", what,
				    MS_SNAPSHOT_VERSION_PACKAGES);
	if (!json_is_object(meta))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: \"packages\" must be an object", what);
	return 0;
}

static int bad(const char *what, size_t index, const char *key, struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_INVAL, EINVAL,
			    "%s: mapping %zu: \"%s\" must be at most %d characters of a package name or version",
			    what, index + 1, key, MS_SNAPSHOT_PKG_TEXT_MAX);
}

static int get_text(json_t *m, const char *key, const char *what, size_t index, char *out,
		    struct ms_error *err)
{
	json_t *v = json_object_get(m, key);

	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v) ||
	    !storable(json_string_value(v)))
		return bad(what, index, key, err);
	strcpy(out, json_string_value(v));
	return 0;
}

static int get_source(json_t *m, const char *what, size_t index, enum ms_pkg_source *out,
		      struct ms_error *err)
{
	static const enum ms_pkg_source known[] = { MS_PKG_SOURCE_DPKG, MS_PKG_SOURCE_RPM,
						    MS_PKG_SOURCE_PYTHON, MS_PKG_SOURCE_NPM };
	json_t *v = json_object_get(m, "package_source");

	for (size_t i = 0; json_is_string(v) && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(json_string_value(v), ms_pkg_source_name(known[i]))) {
			*out = known[i];
			return 0;
		}
	return ms_error_set(err, MS_ERR_INVAL, EINVAL,
			    "%s: mapping %zu: \"package_source\" must be dpkg, rpm, python or npm", what, index + 1);
}

int ms_snapshot_pkg_decode_one(json_t *m, const char *what, size_t index,
			       struct ms_snapshot_pkg *out, struct ms_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (!json_object_get(m, "package") && !json_object_get(m, "package_version") &&
	    !json_object_get(m, "package_source"))
		return 0;
	rc = get_text(m, "package", what, index, out->name, err);
	if (rc == 0)
		rc = get_text(m, "package_version", what, index, out->version, err);
	if (rc == 0)
		rc = get_source(m, what, index, &out->source, err);
	if (rc == 0 && !out->name[0])
		rc = bad(what, index, "package", err);
	out->found = rc == 0;
	return rc;
}
