/*
 * The registry of file facts (facts.h): every fact has a name, a help line
 * and a text, and the wording of a package, an unknown version, a file no
 * source owns and a build ID comes from ms_fact_text alone.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/files/facts.h"

static char buf[MS_FACT_TEXT_MAX];

static void assert_fact(enum ms_fact f, const struct ms_fact_src *s, unsigned flags, const char *want)
{
	size_t len;
	const char *t = ms_fact_text(f, s, flags, buf, sizeof(buf), &len);

	if (len != strlen(want) || memcmp(t, want, len))
		fail_msg("%s: \"%.*s\", wanted \"%s\"", ms_fact_desc(f)->name, (int)len, t, want);
}

static void test_registry(void **state)
{
	(void)state;
	for (int f = 0; f < MS_FACT_COUNT; f++) {
		const struct ms_fact_desc *d = ms_fact_desc(f);

		assert_non_null(d->name);
		assert_true(d->help && strlen(d->help) > 10);
		assert_int_equal(ms_fact_by_name(d->name, strlen(d->name)), f);
		for (int g = 0; g < f; g++)
			assert_string_not_equal(ms_fact_desc(g)->name, d->name);
	}
	assert_int_equal(ms_fact_by_name("version", 7), MS_FACT_VERSION);
	assert_int_equal(ms_fact_by_name("VERSIONS", 8), -1);
	assert_int_equal(ms_fact_by_name("VERSIONS", 7), MS_FACT_VERSION);
	assert_true(ms_fact_desc(MS_FACT_RSS)->json == MS_FACT_JSON_NUMBER);
	assert_true(ms_fact_desc(MS_FACT_RSS)->needs & MS_NEED_SMAPS);
	assert_true(ms_fact_desc(MS_FACT_PACKAGE)->needs & MS_NEED_PKG);
}

static void test_package(void **state)
{
	struct ms_pkg p = { .found = true, .source = MS_PKG_SOURCE_DPKG, .running_state = MS_PKG_RUNNING_INSTALLED };
	struct ms_fact_src s = { .pkg_known = true, .pkg = &p };

	(void)state;
	strcpy(p.name, "libssl3");
	strcpy(p.version, "3.0.22-1~deb12u2");
	assert_fact(MS_FACT_PACKAGE, &s, 0, "libssl3");
	assert_fact(MS_FACT_VERSION, &s, 0, "3.0.22-1~deb12u2");
	assert_fact(MS_FACT_INSTALLED, &s, 0, "3.0.22-1~deb12u2");
	assert_fact(MS_FACT_PKGSRC, &s, 0, "dpkg");
	assert_fact(MS_FACT_VERWHY, &s, 0, "");
	assert_fact(MS_FACT_VENDORED, &s, 0, "");
	assert_fact(MS_FACT_PKGNOTE, &s, 0, "");

	p.running_state = MS_PKG_RUNNING_KNOWN;
	strcpy(p.running, "3.0.19-1~deb12u2");
	strcpy(p.running_why, "dated by the copy's inode");
	assert_fact(MS_FACT_VERSION, &s, 0, "3.0.19-1~deb12u2");
	assert_fact(MS_FACT_INSTALLED, &s, 0, "3.0.22-1~deb12u2");
	assert_fact(MS_FACT_VERWHY, &s, 0, "dated by the copy's inode");

	p.running_state = MS_PKG_RUNNING_UNKNOWN;
	p.running[0] = '\0';
	assert_fact(MS_FACT_VERSION, &s, 0, "unknown");
	assert_fact(MS_FACT_VERSION, &s, MS_FACT_JSON, "");

	p.note_differs = true;
	strcpy(p.note_name, "openssl");
	strcpy(p.note_version, "3.0.19");
	assert_fact(MS_FACT_PKGNOTE, &s, 0, "openssl 3.0.19");

	/* A file no source owns; a lookup that could not be made. */
	s.pkg = NULL;
	assert_fact(MS_FACT_PACKAGE, &s, 0, "not packaged");
	assert_fact(MS_FACT_VERSION, &s, 0, "");
	assert_fact(MS_FACT_PKGSRC, &s, 0, "none");
	s.pkg = &p;
	s.pkg_why = "another root";
	for (int f = MS_FACT_PACKAGE; f <= MS_FACT_PKGNOTE; f++)
		assert_fact(f, &s, 0, "");
	s.pkg_known = false;
	s.pkg_why = NULL;
	assert_fact(MS_FACT_PACKAGE, &s, 0, "");
}

static void test_file_facts(void **state)
{
	static const unsigned char id[] = { 0x00, 0x1f, 0xa0, 0xff };
	struct ms_fact_src s = { 0 };

	(void)state;
	assert_fact(MS_FACT_BUILDID, &s, 0, "");
	assert_fact(MS_FACT_VERDICT, &s, 0, "");
	assert_fact(MS_FACT_RSS, &s, 0, "");
	s.build_id = id;
	s.build_id_len = sizeof(id);
	assert_fact(MS_FACT_BUILDID, &s, 0, "001fa0ff");
	s.soname = "libssl.so.3";
	s.libver = "?";
	s.filever = "3";
	assert_fact(MS_FACT_SONAME, &s, 0, "libssl.so.3");
	assert_fact(MS_FACT_LIBVER, &s, 0, "?");
	assert_fact(MS_FACT_FILEVER, &s, 0, "3");
	s.verdict_known = true;
	s.verdict = MS_STALE_DELETED;
	assert_fact(MS_FACT_VERDICT, &s, 0, "deleted");
	s.size_known[MS_FACT_USS - MS_FACT_RSS] = true;
	s.size[MS_FACT_USS - MS_FACT_RSS] = 1536 * 1024;
	assert_fact(MS_FACT_USS, &s, MS_FACT_BYTES, "1572864");
	assert_fact(MS_FACT_USS, &s, 0, "1.5M");
	assert_fact(MS_FACT_PSS, &s, 0, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_package),
		cmocka_unit_test(test_file_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
