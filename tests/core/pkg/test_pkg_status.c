/*
 * The versions from dpkg's status file read a piece at a time
 * (ms_pkg_status_read_versions, 64 KiB at a time) against the same file
 * parsed whole (ms_pkg_status_versions): 3,000 stanzas of varied lengths,
 * so that stanzas straddle every piece's end, one stanza of 200 KB (longer
 * than a piece), packages not installed, two architectures of one
 * package, a Version before its Package.  Every package is asked for;
 * the answers must be equal and the ones made here right.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pkg/pkg_status.h"
#include "testutil.h"

#define NPKG 3000

static char *status_text(size_t *len)
{
	size_t cap = 8u << 20, at = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	for (int i = 0; i < NPKG; i++) {
		int pad = i == 1234 ? 200000 : (i * 37) % 900;

		if (i % 3 == 1)
			at += (size_t)snprintf(t + at, cap - at, "Version: %d.%d\nPackage: p%04d\n", i, i % 7, i);
		else
			at += (size_t)snprintf(t + at, cap - at, "Package: p%04d\nVersion: %d.%d\n", i, i, i % 7);
		at += (size_t)snprintf(t + at, cap - at, "Architecture: %s\nStatus: %s\nDescription: x\n",
				       i % 10 == 9 ? "i386" : "amd64",
				       i % 11 == 5 ? "deinstall ok config-files" : "install ok installed");
		for (int k = 0; k < pad; k++)
			at += (size_t)snprintf(t + at, cap - at, "%s", k % 70 == 69 ? "\n ." : "y");
		at += (size_t)snprintf(t + at, cap - at, "\n\n");
	}
	/* p0009 is installed for amd64 too: the architecture picks the stanza. */
	at += (size_t)snprintf(t + at, cap - at,
			       "Package: p0009\nVersion: 9.amd\nArchitecture: amd64\nStatus: install ok installed\n");
	*len = at;
	return t;
}

static void ask_all(struct ms_pkg *out)
{
	for (int i = 0; i < NPKG; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].found = true;
		snprintf(out[i].name, sizeof(out[i].name), "p%04d", i);
		snprintf(out[i].arch, sizeof(out[i].arch), "%s", i % 10 == 9 ? "i386" : "amd64");
	}
	/* p0009 asked for amd64 as well. */
	out[NPKG] = out[9];
	snprintf(out[NPKG].arch, sizeof(out[NPKG].arch), "amd64");
}

static void test_pieces_as_whole(void **state)
{
	char *dir = tu_tmpdir(), *path = tu_join(dir, "status");
	struct ms_pkg *whole = calloc(NPKG + 1, sizeof(*whole)), *pieces = calloc(NPKG + 1, sizeof(*pieces));
	size_t len;
	char *text = status_text(&len), want[32];

	(void)state;
	assert_true(len > 1000000);
	assert_int_equal(tu_spit(path, text), 0);
	ask_all(whole);
	ask_all(pieces);
	ms_pkg_status_versions(text, len, whole, NPKG + 1);
	assert_int_equal(ms_pkg_status_read_versions(dir, 64u << 20, pieces, NPKG + 1), 0);
	for (int i = 0; i <= NPKG; i++) {
		int k = i == NPKG ? 9 : i;

		if (k % 11 == 5)
			snprintf(want, sizeof(want), "%s", "");
		else if (i == NPKG)
			snprintf(want, sizeof(want), "9.amd");
		else
			snprintf(want, sizeof(want), "%d.%d", k, k % 7);
		assert_string_equal(whole[i].version, want);
		assert_string_equal(pieces[i].version, want);
	}
	/* Bounded: only the first bytes are read, and the packages beyond say nothing. */
	ask_all(pieces);
	assert_int_equal(ms_pkg_status_read_versions(dir, 100000, pieces, NPKG + 1), 0);
	assert_string_equal(pieces[0].version, "0.0");
	assert_string_equal(pieces[NPKG - 1].version, "");
	free(text);
	free(whole);
	free(pieces);
	tu_rmtree(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_as_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
