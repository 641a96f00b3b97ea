/*
 * The OpenMetrics document of a libs table, from tables built here:
 * a package version's series counts each process once however many of its
 * files it maps; the running version is `version` and the installed one
 * `installed` (an undated old copy: version="unknown"); files no package
 * owns, and those nobody asked about, are counted by owner and never named;
 * the series are capped at LIBS_METRICS_MAX_SERIES, the biggest kept, with
 * an overflow series counting the left-out processes once and a dropped
 * counter; a hostile Python distribution's name and version are escaped once, so
 * the document still parses; the document ends in the scan lines and
 * "# EOF".
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/libs_metrics.h"
#include "testutil.h"

#define SERIES "mapscope_library_processes{"

/* A table of nprocs processes and room for nrows rows. */
static void table(struct ms_libtable *t, size_t nrows, size_t nprocs)
{
	memset(t, 0, sizeof(*t));
	t->rows = calloc(nrows, sizeof(*t->rows));
	t->procs = calloc(nprocs, sizeof(*t->procs));
	assert_non_null(t->rows);
	assert_non_null(t->procs);
	t->capacity = nrows;
	t->nprocs = t->procs_cap = nprocs;
	for (size_t i = 0; i < nprocs; i++)
		t->procs[i].pid = (pid_t)(100 + i);
}

/* A kept row mapped by processes procs[0..n), on the host. */
static struct ms_libtable_row *row(struct ms_libtable *t, const char *name, const size_t *procs, size_t n)
{
	struct ms_libtable_row *r = &t->rows[t->count++];

	r->name = strdup(name);
	r->why = strdup("");
	assert_non_null(r->name);
	r->name_len = strlen(name);
	r->inode = t->count;
	r->kept = true;
	r->host = true;
	r->uses = calloc(n ? n : 1, sizeof(*r->uses));
	assert_non_null(r->uses);
	for (size_t i = 0; i < n; i++)
		r->uses[r->nuses++] = (struct ms_libtable_use){ .proc = procs[i], .mappings = 1 };
	t->kept++;
	return r;
}

/* The row's package, as ms_libtable_packages leaves it. */
static struct ms_pkg *owned(struct ms_libtable_row *r, enum ms_pkg_source source, const char *name,
			    const char *arch, const char *installed)
{
	r->pkg_known = true;
	r->pkg = calloc(1, sizeof(*r->pkg));
	assert_non_null(r->pkg);
	r->pkg->found = true;
	r->pkg->source = source;
	snprintf(r->pkg->name, sizeof(r->pkg->name), "%s", name);
	snprintf(r->pkg->arch, sizeof(r->pkg->arch), "%s", arch);
	snprintf(r->pkg->version, sizeof(r->pkg->version), "%s", installed);
	return r->pkg;
}

static char *render(const struct ms_libtable *t)
{
	struct cli_opts o;
	struct procscan ps;
	char *doc = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);

	cli_opts_init(&o);
	/* As `libs -J --openmetrics`: -J must not turn "unknown" into an empty label. */
	o.json = true;
	memset(&ps, 0, sizeof(ps));
	ps.fleet.scanned = 7;
	assert_non_null(mem);
	assert_int_equal(libs_metrics_write(mem, t, &ps, &o), 0);
	assert_int_equal(fclose(mem), 0);
	return doc;
}

static void assert_has(const char *doc, const char *line)
{
	if (!strstr(doc, line))
		fail_msg("no line %s in:\n%s", line, doc);
}

/*
 * libc6 2.36-9+deb12u14: libc.so.6 mapped by 0,1,2 and libm.so.6 by 1,2,3;
 * an old libc.so.6 that ran 2.36-9+deb12u13 (replaced) by 4, and an undated
 * deleted copy by 5; a wheel's library by 2; two unpackaged files by 3 and
 * 4; a file under another root (not asked) by 6; an unpackaged row the
 * patterns did not keep by 7.
 */
static void test_processes_per_package_version(void **state)
{
	static const size_t p0123[] = { 0, 1, 2, 3 };
	struct ms_libtable t;
	struct ms_libtable_row *unmatched;
	struct ms_pkg *pkg;
	char *doc;

	(void)state;
	table(&t, 16, 8);
	owned(row(&t, "/usr/lib/libc.so.6", p0123, 3), MS_PKG_SOURCE_DPKG, "libc6", "amd64", "2.36-9+deb12u14");
	owned(row(&t, "/usr/lib/libm.so.6", p0123 + 1, 3), MS_PKG_SOURCE_DPKG, "libc6", "amd64", "2.36-9+deb12u14");
	pkg = owned(row(&t, "/usr/lib/libc.so.6 (deleted)", (const size_t[]){ 4 }, 1), MS_PKG_SOURCE_DPKG,
		    "libc6", "amd64", "2.36-9+deb12u14");
	pkg->running_state = MS_PKG_RUNNING_KNOWN;
	snprintf(pkg->running, sizeof(pkg->running), "2.36-9+deb12u13");
	pkg = owned(row(&t, "/usr/lib/libc.so.6 (deleted)", (const size_t[]){ 5 }, 1), MS_PKG_SOURCE_DPKG,
		    "libc6", "amd64", "2.36-9+deb12u14");
	pkg->running_state = MS_PKG_RUNNING_UNKNOWN;
	owned(row(&t, "/venv/numpy.libs/libgfortran.so", (const size_t[]){ 2 }, 1), MS_PKG_SOURCE_PYTHON,
	      "numpy", "", "2.1.0");
	row(&t, "/home/u/a.out", (const size_t[]){ 3 }, 1)->pkg_known = true;
	row(&t, "/home/u/b.so", (const size_t[]){ 3, 4 }, 2)->pkg_known = true;
	row(&t, "/srv/c/lib.so", (const size_t[]){ 6 }, 1)->pkg_why = "the processes live under another root";
	unmatched = row(&t, "/usr/lib/unmatched.so", (const size_t[]){ 7 }, 1);
	unmatched->kept = false;
	unmatched->pkg_known = true;
	t.kept--;
	doc = render(&t);
	assert_has(doc, "\n" SERIES "package=\"libc6\",version=\"2.36-9+deb12u14\",installed=\"2.36-9+deb12u14\","
			"source=\"dpkg\",arch=\"amd64\"} 4\n");
	assert_has(doc, "\n" SERIES "package=\"libc6\",version=\"2.36-9+deb12u13\",installed=\"2.36-9+deb12u14\","
			"source=\"dpkg\",arch=\"amd64\"} 1\n");
	assert_has(doc, "\n" SERIES "package=\"libc6\",version=\"unknown\",installed=\"2.36-9+deb12u14\","
			"source=\"dpkg\",arch=\"amd64\"} 1\n");
	assert_has(doc, "\n" SERIES "package=\"numpy\",version=\"2.1.0\",installed=\"2.1.0\",source=\"python\",arch=\"\"} 1\n");
	assert_int_equal(tu_count_lines(doc, SERIES), 4);
	/* Counted, never named; the row not kept is not counted at all. */
	assert_null(strstr(doc, "/home/u"));
	assert_null(strstr(doc, "unmatched"));
	assert_has(doc, "\nmapscope_library_files{owner=\"package\"} 5\n");
	assert_has(doc, "\nmapscope_library_files{owner=\"none\"} 2\n");
	assert_has(doc, "\nmapscope_library_files{owner=\"unknown\"} 1\n");
	assert_has(doc, "\nmapscope_library_unpackaged_processes 2\n");
	assert_has(doc, "\nmapscope_library_series_dropped 0\n");
	assert_null(strstr(doc, "overflow"));
	assert_has(doc, "\nmapscope_libs_scan_processes{outcome=\"scanned\"} 7\n");
	free(doc);
	ms_libtable_free(&t);
}

/*
 * 1200 package versions of one process each (200 + i), and versions
 * 0..9 mapped by ten more processes each: the ten biggest kept, then by
 * labels.  Process 0 maps version 0 (kept) and, alone, versions 1100 and
 * 1101 (left out): the overflow counts it once, with the 198 others.
 */
static void test_bounded_series(void **state)
{
	struct ms_libtable t;
	char name[64], version[32];
	char *doc;

	(void)state;
	table(&t, 1200, 1500);
	for (size_t i = 0; i < 1200; i++) {
		size_t procs[12], n = 0;

		if (i != 1100 && i != 1101)
			procs[n++] = 200 + i;
		if (i < 10)
			for (size_t k = 0; k < 10; k++)
				procs[n++] = 1400 + 10 * i + k;
		if (i == 0 || i == 1100 || i == 1101)
			procs[n++] = 0;
		snprintf(name, sizeof(name), "/usr/lib/lib%04zu.so", i);
		snprintf(version, sizeof(version), "1.%04zu", i);
		owned(row(&t, name, procs, n), MS_PKG_SOURCE_DPKG, "libx", "amd64", version);
	}
	doc = render(&t);
	assert_int_equal(tu_count_lines(doc, SERIES), LIBS_METRICS_MAX_SERIES + 1);
	assert_has(doc, SERIES "package=\"libx\",version=\"1.0000\",installed=\"1.0000\",source=\"dpkg\",arch=\"amd64\"} 12\n");
	assert_has(doc, SERIES "package=\"libx\",version=\"1.0009\",installed=\"1.0009\",source=\"dpkg\",arch=\"amd64\"} 11\n");
	assert_has(doc, SERIES "package=\"libx\",version=\"1.0999\",installed=\"1.0999\",source=\"dpkg\",arch=\"amd64\"} 1\n");
	assert_null(strstr(doc, "\"1.1000\""));
	assert_null(strstr(doc, "\"1.1199\""));
	assert_has(doc, SERIES "package=\"\",version=\"\",installed=\"\",source=\"\",arch=\"\",overflow=\"true\"} 199\n");
	assert_has(doc, "\nmapscope_library_series_dropped 200\n");
	free(doc);
	ms_libtable_free(&t);
}

static void test_hostile_names_quoted(void **state)
{
	struct ms_libtable t;
	char *doc;

	(void)state;
	table(&t, 1, 1);
	owned(row(&t, "/venv/evil.libs/x.so", (const size_t[]){ 0 }, 1), MS_PKG_SOURCE_PYTHON,
	      "a\"b\\c\nd} 99\n# EOF\n", "", "1\"\n# EOF");
	doc = render(&t);
	assert_int_equal(tu_count_lines(doc, "# EOF"), 1);
	assert_string_equal(doc + strlen(doc) - 6, "# EOF\n");
	assert_int_equal(tu_count_lines(doc, SERIES), 1);
	/* Escaped once, by OpenMetrics' rules ('"' and a backslash get a backslash, a newline is \n): a scraper reads the name back. */
	assert_has(doc, SERIES "package=\"a\\\"b\\\\c\\nd} 99\\n# EOF\\n\",version=\"1\\\"\\n# EOF\"");
	free(doc);
	ms_libtable_free(&t);
}

static void test_empty_table_ends_in_eof(void **state)
{
	struct ms_libtable t;
	char *doc;

	(void)state;
	table(&t, 1, 1);
	doc = render(&t);
	assert_int_equal(tu_count_lines(doc, SERIES), 0);
	assert_int_equal(tu_count_lines(doc, "# TYPE mapscope_library_processes gauge"), 1);
	assert_has(doc, "\nmapscope_library_files{owner=\"package\"} 0\n");
	assert_has(doc, "\nmapscope_libs_scan_timestamp_seconds ");
	assert_string_equal(doc + strlen(doc) - 6, "# EOF\n");
	free(doc);
	ms_libtable_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processes_per_package_version),
		cmocka_unit_test(test_bounded_series),
		cmocka_unit_test(test_hostile_names_quoted),
		cmocka_unit_test(test_empty_table_ends_in_eof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
