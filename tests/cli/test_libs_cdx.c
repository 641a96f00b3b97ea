/*
 * The CycloneDX writer (cli/libs_cdx.h) over a table made by hand
 * (core/files/sbom.h groups it), for the package states real processes
 * cannot be put in on demand:
 *   - one package in three versions at once: the installed copy, a
 *     replaced copy whose version dpkg's log gave, and a replaced copy
 *     whose version cannot be known: three components, the last with no
 *     version (in it or its purl) and "mapscope:running" unknown, the two
 *     old ones with the installed version as a property;
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

/* The deb purl expected: the vendor is this machine's os-release ID. */
static const char *deb(const char *rest)
{
	static char out[512];
	struct ms_osrelease os;
	struct ms_error err;

	assert_int_equal(ms_osrelease_read(NULL, &os, &err), 0);
	snprintf(out, sizeof(out), "pkg:deb/%s/%s", os.id, rest);
	return out;
}

static void test_states(void **state)
{
	struct ms_libtable t;
	struct ms_error err;
	char *dir = tu_tmpdir(), path[4096], cmd[8192];
	json_error_t jerr;
	json_t *doc, *c;
	int fd, saved;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(ms_libtable_init(&t, NULL, &err), 0);
	t.rows = calloc(8, sizeof(*t.rows));
	t.procs = calloc(2, sizeof(*t.procs));
	t.procs[0].pid = 4242;
	t.procs[1].pid = 17;
	t.nprocs = 2;
	row(&t, "/usr/lib/libssl.so.3", 1, MS_PKG_SOURCE_DPKG, "libssl3", "", MS_PKG_RUNNING_INSTALLED, "3.0.22-1");
	row(&t, "/usr/lib/libcrypto.so.3", 2, MS_PKG_SOURCE_DPKG, "libssl3", "", MS_PKG_RUNNING_INSTALLED, "3.0.22-1");
	row(&t, "/usr/lib/libssl.so.3 (deleted)", 3, MS_PKG_SOURCE_DPKG, "libssl3", "1:3.0.19-1+b1",
	    MS_PKG_RUNNING_KNOWN, "3.0.22-1");
	row(&t, "/usr/lib/libssl.so.3 (deleted)", 4, MS_PKG_SOURCE_DPKG, "libssl3", "", MS_PKG_RUNNING_UNKNOWN,
	    "3.0.22-1");
	row(&t, "/v/site-packages/numpy.libs/libopenblas.so", 5, MS_PKG_SOURCE_PYTHON, "NumPy_X", "", MS_PKG_RUNNING_INSTALLED,
	    "1.26.0")->pkg->vendored = true;
	row(&t, "/tmp/ev\"il\n\xff\x7f\xe2\x80\xae\\.so", 6, MS_PKG_SOURCE_NONE, "", "", MS_PKG_RUNNING_INSTALLED, "");
	row(&t, "/v/site-packages/evil/_x.so", 7, MS_PKG_SOURCE_PYTHON, "ev\"il}\\pkg", "", MS_PKG_RUNNING_INSTALLED,
	    "1\\0");

	snprintf(path, sizeof(path), "%s/sbom.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(libs_cdx_print(&t, NULL), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	doc = json_load_file(path, 0, &jerr);
	assert_non_null(doc);
	{
		size_t len;
		char *text = tu_slurp(path, &len);

		assert_non_null(text);
		for (size_t i = 0; i < len; i++)
			assert_true(text[i] == '\n' || (text[i] >= 0x20 && text[i] < 0x7f));
		free(text);
	}

	/* Installed: one component for both files, and both processes once each, by PID. */
	c = component_named(doc, "libssl3", "3.0.22-1");
	assert_string_equal(str(c, "purl"), deb("libssl3@3.0.22-1?arch=amd64"));
	assert_string_equal(prop(c, "mapscope:running"), "installed");
	assert_null(prop(c, "mapscope:installed-version"));
	assert_string_equal(prop(c, "mapscope:pids"), "17 4242");
	assert_string_equal(prop(c, "mapscope:processes"), "2");
	assert_string_equal(prop(c, "mapscope:file:0:path"), "/usr/lib/libcrypto.so.3");
	assert_string_equal(prop(c, "mapscope:file:1:path"), "/usr/lib/libssl.so.3");
	/* Replaced, its version known: the running one, the installed one beside. */
	c = component_named(doc, "libssl3", "1:3.0.19-1+b1");
	assert_string_equal(str(c, "purl"), deb("libssl3@1:3.0.19-1%2Bb1?arch=amd64"));
	assert_string_equal(prop(c, "mapscope:running"), "replaced");
	assert_string_equal(prop(c, "mapscope:installed-version"), "3.0.22-1");
	assert_string_equal(prop(c, "mapscope:file:0:verdict"), "deleted");
	/* Replaced, its version unknown: no version anywhere, and said so. */
	c = component_named(doc, "libssl3", NULL);
	assert_string_equal(str(c, "purl"), deb("libssl3?arch=amd64"));
	assert_string_equal(prop(c, "mapscope:running"), "unknown");
	assert_string_equal(prop(c, "mapscope:installed-version"), "3.0.22-1");
	/* Vendored in a wheel. */
	c = component_named(doc, "NumPy_X", "1.26.0");
	assert_string_equal(str(c, "purl"), "pkg:pypi/numpy-x@1.26.0");
	assert_string_equal(prop(c, "mapscope:file:0:vendored"), "true");
	/* No package, and no process left to read it through: no hash, and why. */
	c = component_named(doc, "/tmp/ev\"il\n\xef\xbf\xbd\x7f\xe2\x80\xae\\.so", NULL);
	assert_string_equal(str(c, "type"), "file");
	assert_null(json_object_get(c, "hashes"));
	assert_string_equal(prop(c, "mapscope:hash-skipped"), "the process that mapped it went away");
	assert_string_equal(prop(c, "mapscope:package"), "not packaged");
	assert_string_equal(prop(json_object_get(doc, "metadata"), "mapscope:unhashed-files"), "1");
	assert_string_equal(prop(json_object_get(doc, "metadata"), "mapscope:hash-budget-skipped"), "0");
	/* A hostile Python distribution: its own name, and a purl encoded once. */
	c = component_named(doc, "ev\"il}\\pkg", "1\\0");
	assert_string_equal(str(c, "purl"), "pkg:pypi/ev%22il%7D%5Cpkg@1%5C0");
	assert_int_equal(json_array_size(json_object_get(doc, "components")), 6);
	json_decref(doc);

	if (access("/usr/bin/python3", X_OK) == 0 && system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") == 0) {
		snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/tests/sbom_check.py %s/tests/data/cyclonedx '%s'", SRCDIR,
			 SRCDIR, path);
		assert_int_equal(system(cmd), 0);
	} else {
		fail_msg("needs /usr/bin/python3 with jsonschema (setup.sh installs python3-jsonschema)");
	}
	/* And by the clients a consumer reads it with (a failure when missing). */
	snprintf(cmd, sizeof(cmd), "MS_SRCDIR='%s' sh -c '. \"$MS_SRCDIR/tests/cdx_validate.sh\" && cdx_validate \"$1\"' sh '%s'",
		 SRCDIR, path);
	assert_int_equal(system(cmd), 0);
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
