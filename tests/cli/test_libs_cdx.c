/*
 * The CycloneDX writer (cli/libs_cdx.h) over a table made by hand
 * (core/files/sbom.h groups it), for the package states real processes
 * cannot be put in on demand:
 *   - one package in four states at once: the installed copy, a replaced
 *     copy whose version dpkg's log gave, a replaced copy with two
 *     candidates (one of them that known version), and a replaced copy
 *     whose version cannot be known: a component per version, each with
 *     its occurrences (file, PIDs, what copy), its identity's confidence
 *     (1 when sure, 0.5 for one of two candidates) and how it was found;
 *     the unknown copy a file component, never a version-less library;
 *   - packages whose old copy alone runs, with two candidates and with
 *     one (0.7), and with --installed the version on disk beside them,
 *     with no occurrence and only the host depending on it;
 *   - a component per process (its command, escaped once; "pid N"
 *     without one), each depending on the components it maps;
 *   - a Python distribution's vendored file;
 *   - a file no package owns whose process is gone: no hash, and why,
 *     counted in the metadata (none of it the hash budget's doing);
 *   - names with a newline, a quote, a backslash, DEL, a bidi override and
 *     invalid UTF-8, a Python distribution's among them: escaped once, by
 *     JSON's rules, so the parsed document holds the names themselves (a
 *     byte that is not UTF-8 as U+FFFD), and the document is ASCII.
 * The document is validated against the CycloneDX 1.6 schema as
 * tests/test_sbom.sh validates (tests/sbom_check.py), and by the clients
 * tests/cdx_validate.sh runs.
 */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "cli/libs_cdx.h"
#include "core/pkg/osrelease.h"
#include "testutil.h"

static struct ms_libtable_row *row(struct ms_libtable *t, const char *name, uint64_t inode,
				   enum ms_pkg_source src, const char *pkgname, const char *running,
				   enum ms_pkg_running state, const char *installed)
{
	struct ms_libtable_row *r = &t->rows[t->count++];

	memset(r, 0, sizeof(*r));
	r->name = strdup(name);
	r->name_len = strlen(name);
	r->inode = inode;
	r->kept = r->host = r->pkg_known = true;
	r->verdict = state == MS_PKG_RUNNING_INSTALLED ? MS_STALE_OK : MS_STALE_DELETED;
	r->map_proc = SIZE_MAX;
	r->uses = calloc(2, sizeof(*r->uses));
	r->uses[0].proc = 1;
	r->uses[1].proc = 0;
	r->nuses = 2;
	if (src != MS_PKG_SOURCE_NONE) {
		r->pkg = calloc(1, sizeof(*r->pkg));
		r->pkg->found = true;
		r->pkg->source = src;
		r->pkg->running_state = state;
		strcpy(r->pkg->name, pkgname);
		strcpy(r->pkg->arch, src == MS_PKG_SOURCE_DPKG ? "amd64" : "");
		strcpy(r->pkg->version, installed);
		strcpy(r->pkg->running, running);
	}
	return r;
}

static json_t *component_named(json_t *doc, const char *name, const char *version)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(doc, "components"), i, c) {
		json_t *v = json_object_get(c, "version");

		if (!strcmp(json_string_value(json_object_get(c, "name")), name) &&
		    (version ? v && !strcmp(json_string_value(v), version) : !v))
			return c;
	}
	fail_msg("no component %s %s", name, version ? version : "(no version)");
	return NULL;
}

/* How many components are named name, whatever their version. */
static size_t components_named(json_t *doc, const char *name)
{
	size_t i, n = 0;
	json_t *c;

	json_array_foreach(json_object_get(doc, "components"), i, c)
		n += !strcmp(json_string_value(json_object_get(c, "name")), name);
	return n;
}

static const char *prop(json_t *c, const char *name)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(c, "properties"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "name")), name))
			return json_string_value(json_object_get(p, "value"));
	return NULL;
}

static const char *str(json_t *c, const char *key)
{
	json_t *v = json_object_get(c, key);

	return v ? json_string_value(v) : NULL;
}

/* The additionalContext of c's occurrence at location, or NULL when it has none there. */
static const char *occurrence(json_t *c, const char *location)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(json_object_get(c, "evidence"), "occurrences"), i, o)
		if (!strcmp(str(o, "location"), location))
			return str(o, "additionalContext");
	return NULL;
}

static size_t noccurrences(json_t *c)
{
	return json_array_size(json_object_get(json_object_get(c, "evidence"), "occurrences"));
}

/* c's one evidence.identity: its field is purl, its concluded value c's purl; returns its confidence. */
static double confidence(json_t *c)
{
	json_t *ids = json_object_get(json_object_get(c, "evidence"), "identity"), *id = json_array_get(ids, 0);

	assert_int_equal(json_array_size(ids), 1);
	assert_string_equal(str(id, "field"), "purl");
	assert_string_equal(str(id, "concludedValue"), str(c, "purl"));
	return json_real_value(json_object_get(id, "confidence"));
}

/* The technique and value of c's identity's method n, each checked for a word. */
static void method(json_t *c, size_t n, const char *technique, const char *in_value)
{
	json_t *id = json_array_get(json_object_get(json_object_get(c, "evidence"), "identity"), 0);
	json_t *m = json_array_get(json_object_get(id, "methods"), n);

	assert_non_null(m);
	assert_string_equal(str(m, "technique"), technique);
	if (!strstr(str(m, "value"), in_value))
		fail_msg("method %zu of %s: value \"%s\" without \"%s\"", n, str(c, "purl"), str(m, "value"), in_value);
}

/* Does ref's dependency entry list on? */
static bool depends(json_t *doc, const char *ref, json_t *on)
{
	size_t i, k;
	json_t *d, *r;

	json_array_foreach(json_object_get(doc, "dependencies"), i, d) {
		if (strcmp(str(d, "ref"), ref))
			continue;
		json_array_foreach(json_object_get(d, "dependsOn"), k, r)
			if (!strcmp(json_string_value(r), str(on, "bom-ref")))
				return true;
	}
	return false;
}

/*
 * The deb purl expected: the vendor is this machine's os-release ID, the
 * distro ID-VERSION_ID (ID-VERSION_CODENAME without one) after rest's arch.
 */
static const char *deb(const char *rest)
{
	static char out[512];
	struct ms_osrelease os;
	struct ms_error err;
	const char *release;

	assert_int_equal(ms_osrelease_read(NULL, &os, &err), 0);
	release = os.version_id[0] ? os.version_id : os.version_codename;
	snprintf(out, sizeof(out), "pkg:deb/%s/%s%s%s%s", os.id, rest, release[0] ? "&distro=" : "",
		 release[0] ? os.id : "", release[0] ? "-" : "");
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s", release);
	return out;
}

/* The document of t into path (with --installed when installed), validated as test_sbom.sh does; parsed. */
static json_t *document(struct ms_libtable *t, const char *path, bool installed)
{
	char cmd[8192];
	json_error_t jerr;
	json_t *doc;
	size_t len;
	char *text;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved;

	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(libs_cdx_print(t, NULL, installed), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	doc = json_load_file(path, 0, &jerr);
	assert_non_null(doc);
	text = tu_slurp(path, &len);
	assert_non_null(text);
	for (size_t i = 0; i < len; i++)
		assert_true(text[i] == '\n' || (text[i] >= 0x20 && text[i] < 0x7f));
	free(text);
	if (access("/usr/bin/python3", X_OK) == 0 && system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") == 0) {
		snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -W ignore %s/tests/sbom_check.py %s/tests/data/cyclonedx '%s'",
			 SRCDIR, SRCDIR, path);
		assert_int_equal(system(cmd), 0);
	} else {
		fail_msg("needs /usr/bin/python3 with jsonschema (setup.sh installs python3-jsonschema)");
	}
	/* And by the clients a consumer reads it with (a failure when missing). */
	snprintf(cmd, sizeof(cmd), "MS_SRCDIR='%s' sh -c '. \"$MS_SRCDIR/tests/cdx_validate.sh\" && cdx_validate \"$1\"' sh '%s'",
		 SRCDIR, path);
	assert_int_equal(system(cmd), 0);
	return doc;
}

static void candidates(struct ms_libtable_row *r, const char *alt, const char *why)
{
	strcpy(r->pkg->running_alt, alt);
	strcpy(r->pkg->running_why, why);
}

static void test_states(void **state)
{
	struct ms_libtable t;
	struct ms_error err;
	char *dir = tu_tmpdir(), path[4096], cmd[8192];
	json_t *doc, *c, *p17;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(ms_libtable_init(&t, NULL, &err), 0);
	t.rows = calloc(12, sizeof(*t.rows));
	t.procs = calloc(2, sizeof(*t.procs));
	t.procs[0].pid = 4242;
	t.procs[1].pid = 17;
	strcpy(t.procs[1].comm, "wor\x1bker");
	t.nprocs = 2;
	row(&t, "/usr/lib/libssl.so.3", 1, MS_PKG_SOURCE_DPKG, "libssl3", "", MS_PKG_RUNNING_INSTALLED, "3.0.22-1");
	row(&t, "/usr/lib/libcrypto.so.3", 2, MS_PKG_SOURCE_DPKG, "libssl3", "", MS_PKG_RUNNING_INSTALLED, "3.0.22-1");
	strcpy(row(&t, "/usr/lib/libssl.so.3 (deleted)", 3, MS_PKG_SOURCE_DPKG, "libssl3", "1:3.0.19-1+b1",
		   MS_PKG_RUNNING_KNOWN, "3.0.22-1")->pkg->running_why, "the copy's unlink time matches dpkg's upgrade");
	row(&t, "/usr/lib/libssl.so.3 (deleted)", 4, MS_PKG_SOURCE_DPKG, "libssl3", "", MS_PKG_RUNNING_UNKNOWN,
	    "3.0.22-1");
	/* Two candidates, one of them the version another copy is known to be. */
	candidates(row(&t, "/usr/lib/libcrypto.so.3 (deleted)", 8, MS_PKG_SOURCE_DPKG, "libssl3", "1:3.0.19-1+b1",
		       MS_PKG_RUNNING_UNKNOWN, "3.0.22-1"), "3.0.20-1", "upgraded more than once");
	candidates(row(&t, "/usr/lib/libfoo.so.1 (deleted)", 9, MS_PKG_SOURCE_DPKG, "libfoo", "2.0-1",
		       MS_PKG_RUNNING_UNKNOWN, "3.0-1"), "2.1-1", "upgraded more than once since its holders started");
	candidates(row(&t, "/usr/lib/libbar.so.1 (deleted)", 10, MS_PKG_SOURCE_DPKG, "libbar", "1.5-1",
		       MS_PKG_RUNNING_UNKNOWN, "1.6-1"), "", "only one upgrade since");
	row(&t, "/v/site-packages/numpy.libs/libopenblas.so", 5, MS_PKG_SOURCE_PYTHON, "NumPy_X", "", MS_PKG_RUNNING_INSTALLED,
	    "1.26.0")->pkg->vendored = true;
	row(&t, "/tmp/ev\"il\n\xff\x7f\xe2\x80\xae\\.so", 6, MS_PKG_SOURCE_NONE, "", "", MS_PKG_RUNNING_INSTALLED, "");
	row(&t, "/v/site-packages/evil/_x.so", 7, MS_PKG_SOURCE_PYTHON, "ev\"il}\\pkg", "", MS_PKG_RUNNING_INSTALLED,
	    "1\\0");

	snprintf(path, sizeof(path), "%s/sbom.json", dir);
	doc = document(&t, path, false);
	p17 = component_named(doc, "wor\x1bker", NULL);
	assert_string_equal(str(p17, "type"), "application");
	assert_string_equal(str(p17, "bom-ref"), "process-17");
	assert_string_equal(prop(p17, "mapscope:pid"), "17");
	assert_string_equal(str(component_named(doc, "pid 4242", NULL), "bom-ref"), "process-4242");
	assert_true(depends(doc, "host", p17));

	/* Installed: one component for both files, each an occurrence with both processes, by PID. */
	c = component_named(doc, "libssl3", "3.0.22-1");
	assert_string_equal(str(c, "purl"), deb("libssl3@3.0.22-1?arch=amd64"));
	assert_true(confidence(c) == 1.0);
	method(c, 0, "manifest-analysis", "dpkg");
	assert_string_equal(prop(c, "mapscope:running"), "installed");
	assert_null(prop(c, "mapscope:installed-version"));
	assert_null(prop(c, "mapscope:pids"));
	assert_int_equal(noccurrences(c), 2);
	assert_string_equal(occurrence(c, "/usr/lib/libcrypto.so.3"), "pids 17 4242");
	assert_string_equal(occurrence(c, "/usr/lib/libssl.so.3"), "pids 17 4242");
	assert_true(depends(doc, "process-17", c) && depends(doc, "process-4242", c));
	/* Replaced, its version known: the running one, the installed one beside; and a candidate of that version. */
	c = component_named(doc, "libssl3", "1:3.0.19-1+b1");
	assert_string_equal(str(c, "purl"), deb("libssl3@1:3.0.19-1+b1?arch=amd64"));
	assert_string_equal(prop(c, "mapscope:running"), "replaced");
	assert_string_equal(prop(c, "mapscope:installed-version"), "3.0.22-1");
	assert_string_equal(prop(c, "mapscope:verdict"), "deleted");
	assert_true(confidence(c) == 1.0);
	method(c, 1, "other", "unlink time matches dpkg's upgrade");
	assert_int_equal(noccurrences(c), 2);
	assert_string_equal(occurrence(c, "/usr/lib/libssl.so.3 (deleted)"),
			    "pids 17 4242; verdict deleted; a replaced or deleted copy of 1:3.0.19-1+b1, 3.0.22-1 installed now");
	assert_non_null(strstr(occurrence(c, "/usr/lib/libcrypto.so.3 (deleted)"), "one of two candidates"));
	assert_true(depends(doc, "process-4242", c));
	/* The other candidate of that copy: a component of its own, half sure. */
	c = component_named(doc, "libssl3", "3.0.20-1");
	assert_string_equal(prop(c, "mapscope:running"), "candidate");
	assert_true(confidence(c) == 0.5);
	method(c, 1, "other", "upgraded more than once; it is 1:3.0.19-1+b1 or 3.0.20-1");
	assert_int_equal(noccurrences(c), 1);
	/* Replaced, its version unknown and no candidate: no version to claim, so a file, hashed as files are. */
	c = component_named(doc, "/usr/lib/libssl.so.3 (deleted)", NULL);
	assert_string_equal(str(c, "type"), "file");
	assert_null(str(c, "purl"));
	assert_string_equal(prop(c, "mapscope:package"), "libssl3");
	assert_string_equal(prop(c, "mapscope:running"), "unknown");
	assert_string_equal(prop(c, "mapscope:installed-version"), "3.0.22-1");
	assert_string_equal(prop(c, "mapscope:hash-skipped"), "the process that mapped it went away");
	assert_int_equal(components_named(doc, "libssl3"), 3);
	/* Two candidates: two components, half sure each; one candidate: likelier. */
	c = component_named(doc, "libfoo", "2.0-1");
	assert_true(confidence(c) == 0.5);
	assert_string_equal(prop(c, "mapscope:installed-version"), "3.0-1");
	assert_true(confidence(component_named(doc, "libfoo", "2.1-1")) == 0.5);
	assert_int_equal(components_named(doc, "libfoo"), 2);
	c = component_named(doc, "libbar", "1.5-1");
	assert_true(confidence(c) == 0.7);
	method(c, 1, "other", "only one upgrade since; it may be 1.5-1");
	assert_int_equal(components_named(doc, "libbar"), 1);
	/* Vendored in a wheel. */
	c = component_named(doc, "NumPy_X", "1.26.0");
	assert_string_equal(str(c, "purl"), "pkg:pypi/numpy-x@1.26.0");
	assert_string_equal(prop(c, "mapscope:vendored"), "true");
	/* No package, and no process left to read it through: no hash, and why. */
	c = component_named(doc, "/tmp/ev\"il\n\xef\xbf\xbd\x7f\xe2\x80\xae\\.so", NULL);
	assert_string_equal(str(c, "type"), "file");
	assert_null(json_object_get(c, "hashes"));
	assert_string_equal(occurrence(c, "/tmp/ev\"il\n\xef\xbf\xbd\x7f\xe2\x80\xae\\.so"), "pids 17 4242");
	assert_string_equal(prop(c, "mapscope:hash-skipped"), "the process that mapped it went away");
	assert_string_equal(prop(c, "mapscope:package"), "not packaged");
	assert_true(depends(doc, "process-17", c));
	assert_string_equal(prop(json_object_get(doc, "metadata"), "mapscope:unhashed-files"), "2");
	assert_string_equal(prop(json_object_get(doc, "metadata"), "mapscope:hash-budget-skipped"), "0");
	/* A hostile Python distribution: its own name, and a purl encoded once. */
	c = component_named(doc, "ev\"il}\\pkg", "1\\0");
	assert_string_equal(str(c, "purl"), "pkg:pypi/ev%22il%7D%5Cpkg@1%5C0");
	/* 8 package versions, 2 files, 2 processes. */
	assert_int_equal(json_array_size(json_object_get(doc, "components")), 12);
	json_decref(doc);

	/* --installed: the version on disk of each package whose old copy runs, when none of its copies runs. */
	doc = document(&t, path, true);
	assert_int_equal(json_array_size(json_object_get(doc, "components")), 14);
	assert_int_equal(components_named(doc, "libssl3"), 3);
	c = component_named(doc, "libfoo", "3.0-1");
	assert_string_equal(str(c, "purl"), deb("libfoo@3.0-1?arch=amd64"));
	assert_string_equal(prop(c, "mapscope:running"), "installed-not-running");
	assert_null(prop(c, "mapscope:installed-version"));
	assert_int_equal(noccurrences(c), 0);
	assert_true(confidence(c) == 1.0);
	assert_true(depends(doc, "host", c));
	assert_false(depends(doc, "process-17", c) || depends(doc, "process-4242", c));
	assert_string_equal(prop(component_named(doc, "libbar", "1.6-1"), "mapscope:running"), "installed-not-running");
	json_decref(doc);

	ms_libtable_free(&t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
