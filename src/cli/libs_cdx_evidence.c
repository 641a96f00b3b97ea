/*
 * libs_cdx_evidence.c - one component of the CycloneDX document
 * (libs_cdx.h): a package version or a file, with its evidence (how it was
 * identified, where it was found) and the mapscope: properties for what
 * CycloneDX has no field for.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/libs_cdx_json.h"
#include "cli/libs_out.h"
#include "core/elf/buildid.h"
#include "core/stale/stale.h"

/* How a source names a file's package: evidence.identity's technique, and what it read. */
static void source_method(enum ms_pkg_source src, const char **technique, const char **value)
{
	*technique = "manifest-analysis";
	switch (src) {
	case MS_PKG_SOURCE_DPKG: *value = "dpkg's database lists the mapped file"; break;
	case MS_PKG_SOURCE_RPM: *value = "rpm's database lists the mapped file"; break;
	case MS_PKG_SOURCE_PYTHON: *value = "a Python distribution's RECORD lists the mapped file"; break;
	case MS_PKG_SOURCE_NPM: *value = "the package.json of the node_modules folder holding the mapped file"; break;
	case MS_PKG_SOURCE_NOTE:
		*technique = "binary-analysis";
		*value = "the mapped file's ELF .note.package";
		break;
	case MS_PKG_SOURCE_NONE:
	default:
		*technique = "other";
		*value = "unknown";
		break;
	}
}

static int method(json_t *methods, const char *technique, double confidence, json_t *value)
{
	json_t *m = value ? json_pack("{s:s, s:f, s:o}", "technique", technique, "confidence", confidence, "value", value)
			  : NULL;

	return m ? json_array_append_new(methods, m) : -1;
}

/* How the version of a replaced copy was found, or why it is only a candidate. */
static json_t *version_why(const struct ms_pkg *p)
{
	char why[2 * MS_PKG_WHY_MAX + 2 * MS_PKG_VERSION_MAX];

	ms_pkg_running_why(p, why, sizeof(why));
	return cdx_raw_string(why, strlen(why));
}

/* evidence.identity: the purl (or, without one, the name), how sure, and how it was found. */
static json_t *identity(const struct ms_libtable *t, const struct ms_sbom_component *c)
{
	const char *technique, *value;
	json_t *methods = json_array(), *id;
	char text[160];
	int rc = methods ? 0 : -1;

	source_method(c->pkg->source, &technique, &value);
	snprintf(text, sizeof(text), "%s%s", value,
		 c->running == MS_SBOM_NOT_RUNNING ? "; the version installed now, which no process maps" : "");
	rc = rc ?: method(methods, technique, MS_SBOM_CONF_SURE, json_string(text));
	if (rc == 0 && c->known_row != SIZE_MAX)
		rc = method(methods, c->pkg->source == MS_PKG_SOURCE_NOTE ? "binary-analysis" : "other",
			    MS_SBOM_CONF_SURE, version_why(t->rows[c->known_row].pkg));
	if (rc == 0 && c->running == MS_SBOM_CANDIDATE)
		rc = method(methods, "other", c->confidence, version_why(t->rows[c->candidate_row].pkg));
	id = rc == 0 ? json_pack("{s:s, s:f, s:o, s:O}", "field", c->purl ? "purl" : "name", "confidence", c->confidence,
				 "concludedValue",
				 c->purl ? json_string(c->purl)
					 : cdx_raw_string(c->pkg->name, strnlen(c->pkg->name, sizeof(c->pkg->name))),
				 "methods", methods)
		    : NULL;
	json_decref(methods);
	return id ? json_pack("[o]", id) : NULL;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * An occurrence's additionalContext: the processes that map the file,
 * then what its copy is ("pids 12 345; verdict replaced; a replaced or
 * deleted copy of 1.0, 2.0 installed now").
 */
static json_t *occurrence_context(const struct ms_libtable *t, const struct ms_libtable_row *r)
{
	const struct ms_pkg *p = r->pkg && r->pkg->found ? r->pkg : NULL;
	char *buf = NULL, hex[2 * MS_BUILD_ID_MAX + 1];
	size_t len = 0;
	pid_t *pids = malloc((r->nuses ? r->nuses : 1) * sizeof(*pids));
	FILE *f = pids ? open_memstream(&buf, &len) : NULL;
	json_t *j;

	if (!f) {
		free(pids);
		return NULL;
	}
	for (size_t u = 0; u < r->nuses; u++)
		pids[u] = t->procs[r->uses[u].proc].pid;
	qsort(pids, r->nuses, sizeof(*pids), cmp_pid);
	fputs("pids", f);
	for (size_t u = 0; u < r->nuses; u++)
		fprintf(f, " %d", (int)pids[u]);
	free(pids);
	if (r->verdict != MS_STALE_OK)
		fprintf(f, "; verdict %s", ms_stale_verdict_name(r->verdict));
	if (p && p->running_state == MS_PKG_RUNNING_KNOWN)
		fprintf(f, "; a replaced or deleted copy of %.*s", (int)strnlen(p->running, sizeof(p->running)), p->running);
	else if (p && p->running_state == MS_PKG_RUNNING_UNKNOWN)
		fprintf(f, "; a replaced or deleted copy, its version unknown (%s)",
			p->running[0] && p->running_alt[0] ? "one of two candidates" : p->running[0] ? "one candidate" : "no candidate");
	if (p && p->running_state != MS_PKG_RUNNING_INSTALLED && p->version[0])
		fprintf(f, ", %.*s installed now", (int)strnlen(p->version, sizeof(p->version)), p->version);
	if (r->build_id_len) {
		ms_buildid_hex(r->build_id, r->build_id_len, hex);
		fprintf(f, "; build ID %s", hex);
	}
	if (!r->host) {
		char *w = libs_where_raw(&t->procs[r->where_proc]);

		fprintf(f, "; mapped under another root: %s", w ? w : "?");
		free(w);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	j = cdx_raw_string(buf, len);
	free(buf);
	return j;
}

/* evidence.occurrences: each file of c where it is mapped, and by whom. */
static json_t *occurrences(const struct ms_libtable *t, const struct ms_sbom_component *c)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < c->nrows; i++) {
		const struct ms_libtable_row *r = &t->rows[c->rows[i]];
		json_t *o = json_pack("{s:o, s:o}", "location", cdx_raw_string(r->name, r->name_len), "additionalContext",
				      occurrence_context(t, r));

		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static int evidence(const struct ms_libtable *t, const struct ms_sbom_component *c, json_t *j)
{
	json_t *e = json_object();
	int rc = e ? 0 : -1;

	if (rc == 0 && c->pkg)
		rc = json_object_set_new(e, "identity", identity(t, c));
	if (rc == 0 && c->nrows)
		rc = json_object_set_new(e, "occurrences", occurrences(t, c));
	rc = rc ?: json_object_set(j, "evidence", e);
	json_decref(e);
	return rc;
}

/* mapscope:verdict (each verdict of c's files once, in the order of the verdicts) and mapscope:vendored. */
static int file_facts(const struct ms_libtable *t, const struct ms_sbom_component *c, json_t *props)
{
	bool seen[MS_STALE_VERDICT_COUNT] = { false }, vendored = false;
	char verdicts[128] = "";
	int rc;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct ms_libtable_row *r = &t->rows[c->rows[i]];

		if (r->verdict < MS_STALE_VERDICT_COUNT)
			seen[r->verdict] = true;
		vendored |= r->pkg && r->pkg->found && r->pkg->vendored;
	}
	for (int v = 0; v < MS_STALE_VERDICT_COUNT; v++)
		if (seen[v]) {
			size_t at = strlen(verdicts);

			snprintf(verdicts + at, sizeof(verdicts) - at, "%s%s", at ? " " : "",
				 ms_stale_verdict_name((enum ms_stale_verdict)v));
		}
	rc = verdicts[0] ? cdx_prop_text(props, "mapscope:verdict", verdicts) : 0;
	if (rc == 0 && vendored)
		rc = cdx_prop_text(props, "mapscope:vendored", "true");
	return rc;
}

static const char *running_name(enum ms_sbom_running running)
{
	switch (running) {
	case MS_SBOM_REPLACED: return "replaced";
	case MS_SBOM_CANDIDATE: return "candidate";
	case MS_SBOM_NOT_RUNNING: return "installed-not-running";
	case MS_SBOM_INSTALLED:
	default: return "installed";
	}
}

/* The package facts CycloneDX has no field for; with unknown_pkg, of a file whose copy's version is unknown. */
static int package_props(const struct ms_pkg *p, const char *running, json_t *props)
{
	int rc = cdx_prop_text(props, "mapscope:package-source", ms_pkg_source_name(p->source));

	rc = rc ?: cdx_prop_text(props, "mapscope:running", running);
	if (rc == 0 && strcmp(running, "installed") && strcmp(running, "installed-not-running") && p->version[0])
		rc = cdx_prop_raw(props, "mapscope:installed-version", p->version, sizeof(p->version));
	return rc;
}

static int package_fields(const struct ms_sbom_component *c, json_t *j, json_t *props)
{
	const struct ms_pkg *p = c->pkg;
	int rc = json_object_set_new(j, "name", cdx_raw_string(p->name, strnlen(p->name, sizeof(p->name))));

	rc = rc ?: json_object_set_new(j, "version", cdx_raw_string(c->version, strlen(c->version)));
	if (rc == 0 && c->purl)
		rc = json_object_set_new(j, "purl", json_string(c->purl));
	return rc ?: package_props(p, running_name(c->running), props);
}

static int file_fields(const struct ms_libtable *t, const struct ms_sbom_component *c, json_t *j, json_t *props)
{
	const struct ms_libtable_row *r = &t->rows[c->rows[0]];
	const struct ms_pkg *p = c->unknown_pkg;
	int rc = json_object_set_new(j, "name", cdx_raw_string(r->name, r->name_len));

	if (rc == 0 && c->hashed)
		rc = json_object_set_new(j, "hashes", json_pack("[{s:s, s:s}]", "alg", "SHA-256", "content", c->sha256));
	if (rc == 0 && !c->hashed)
		rc = cdx_prop_text(props, "mapscope:hash-skipped", c->hash_why ? c->hash_why : "out of memory");
	if (rc || !p)
		return rc ?: cdx_prop_text(props, "mapscope:package", r->pkg_why ? r->pkg_why : "not packaged");
	rc = cdx_prop_raw(props, "mapscope:package", p->name, sizeof(p->name));
	rc = rc ?: package_props(p, "unknown", props);
	return rc ?: cdx_prop(props, "mapscope:version-why", version_why(p));
}

json_t *cdx_component(const struct ms_libtable *t, const struct ms_sbom_component *c, size_t id)
{
	char ref[32];
	json_t *props = json_array();
	json_t *j = json_object();
	int rc = props && j ? 0 : -1;

	snprintf(ref, sizeof(ref), "component-%zu", id + 1);
	rc = rc ?: json_object_set_new(j, "type", json_string(c->pkg ? "library" : "file"));
	rc = rc ?: json_object_set_new(j, "bom-ref", json_string(ref));
	rc = rc ?: c->pkg ? package_fields(c, j, props) : file_fields(t, c, j, props);
	rc = rc ?: evidence(t, c, j);
	rc = rc ?: file_facts(t, c, props);
	return cdx_finish(j, props, rc);
}
