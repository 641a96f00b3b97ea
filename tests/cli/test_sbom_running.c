/*
 * The SBOM of a replaced copy that still runs, with real dpkg runs: one
 * package, mapscope-sbompkg (and this run's suffix), installed at 1.0 (a build of libhist) and
 * upgraded by dpkg to 2.0 (another build).  Process A, started under
 * 1.0, holds the replaced copy; process B, started after the upgrade,
 * maps 2.0.  As root (the copy's unlink time read through map_files dates
 * it by dpkg's log), `libs --format=cyclonedx`:
 *   - of A and B: two components, 1.0 ("replaced", 2.0 installed) with an
 *     occurrence at the replaced copy's name naming A's pid and what the
 *     copy is, and 2.0 with B's; each process depends on its own, and the
 *     identity of each is sure (1);
 *   - of A alone: 1.0 only (2.0 runs nowhere);
 *   - of A alone with --installed: 2.0 too, as installed-not-running,
 *     no occurrence, only the host depending on it.
 * Every document is checked by tests/sbom_check.py (the CycloneDX 1.6
 * schema, purls, the graph).  Needs root, dpkg and python3 with
 * jsonschema; without them it skips and says why.  The package is purged
 * at the end, also when the test fails.
 */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "debfix.h"
#include "fixture_client.h"
#include "msrun.h"
#include "testutil.h"

#define PKG "mapscope-sbompkg"

struct run {
	char *dir;
	struct debfix pkg;
	char deb[2][PATH_MAX];
	struct fixture holder[2];
	char deleted[PATH_MAX + 16];
	time_t last;
};

static int teardown(void **state)
{
	struct run *r = *state;

	if (!r)
		return 0;
	for (int i = 0; i < 2; i++)
		fixture_stop(&r->holder[i]);
	debfix_purge(&r->pkg);
	tu_rmtree(r->dir);
	free(r->dir);
	free(r);
	return 0;
}

static int setup(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	if (!r || !(r->dir = debfix_dir())) {
		free(r);
		return -1;
	}
	*state = r;
	debfix_init(&r->pkg, PKG, r->dir, "libsbomrun.so");
	snprintf(r->deleted, sizeof(r->deleted), "%s (deleted)", r->pkg.mapped);
	if (debfix_build(&r->pkg, 0, "1.0", "libhist-1.so", NULL, r->deb[0]) < 0 ||
	    debfix_build(&r->pkg, 1, "2.0", "libhist-2.so", NULL, r->deb[1]) < 0) {
		teardown(state);
		*state = NULL;
		return -1;
	}
	return 0;
}

static void dpkg_step(struct run *r, int deb)
{
	debfix_settle(r->last);
	if (debfix_install(r->deb[deb]) != 0)
		fail_msg("dpkg -i %s failed", r->deb[deb]);
	r->last = time(NULL);
}

static void start_holder(struct run *r, int i)
{
	debfix_settle(r->last);
	assert_int_equal(fixture_start_with(&r->holder[i], FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&r->holder[i], "dlopen %s", r->pkg.mapped), 0);
}

/*
 * `libs --pid=PIDS --format=cyclonedx [--installed]` into dir/name, which
 * sbom_check.py must find as the expectations say (NULL-terminated); the
 * document's text, for the test's own look.
 */
static char *sbom(const struct run *r, const char *name, const char *pids, bool installed, ...)
{
	char path[PATH_MAX], arg[64], cmd[16384];
	struct msrun_opts o = { .out = MSRUN_FILE, .out_path = path };
	struct msrun_result res;
	size_t at, len;
	va_list ap;
	char *text;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	snprintf(arg, sizeof(arg), "--pid=%s", pids);
	res = installed ? MSRUN(&o, "libs", arg, "--format=cyclonedx", "--installed")
			: MSRUN(&o, "libs", arg, "--format=cyclonedx");
	if (res.status != 0)
		fail_msg("libs %s --format=cyclonedx: exit %d: %s", arg, res.status, res.err ? res.err : "");
	msrun_free(&res);
	at = (size_t)snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -W ignore %s/tests/sbom_check.py %s/tests/data/cyclonedx '%s'",
			      SRCDIR, SRCDIR, path);
	va_start(ap, installed);
	for (const char *e = va_arg(ap, const char *); e && at < sizeof(cmd); e = va_arg(ap, const char *))
		at += (size_t)snprintf(cmd + at, sizeof(cmd) - at, " '%s'", e);
	va_end(ap);
	assert_true(at < sizeof(cmd));
	text = tu_slurp(path, &len);
	assert_non_null(text);
	if (system(cmd) != 0)
		fail_msg("the SBOM of %s does not hold (above): %s", arg, text);
	return text;
}

static void test_replaced_copy(void **state)
{
	struct run *r = *state;
	char a[16], b[16], ab[40], context[256];
	char *text;

	debfix_purge(&r->pkg);
	dpkg_step(r, 0);
	start_holder(r, 0);
	dpkg_step(r, 1);
	start_holder(r, 1);
	snprintf(a, sizeof(a), "%d", (int)r->holder[0].pid);
	snprintf(b, sizeof(b), "%d", (int)r->holder[1].pid);
	snprintf(ab, sizeof(ab), "%s,%s", a, b);

	/* The running old version with its file and pid; the installed one, mapped by B. */
	text = sbom(r, "both.json", ab, false, "occurs", r->pkg.name, "1.0", r->deleted, a, "1", "occurs", r->pkg.name, "2.0",
		    r->pkg.mapped, b, "1", NULL);
	snprintf(context, sizeof(context), "\"pids %s; verdict replaced; a replaced or deleted copy of 1.0, 2.0 installed now",
		 a);
	if (!strstr(text, context))
		fail_msg("no occurrence says %s: %s", context, text);
	if (!strstr(text, "{\"name\": \"mapscope:running\", \"value\": \"replaced\"}, "
			  "{\"name\": \"mapscope:installed-version\", \"value\": \"2.0\"}"))
		fail_msg("1.0 is not said replaced, 2.0 installed: %s", text);
	free(text);
	/* A alone: 2.0 runs nowhere, so it is no component... */
	free(sbom(r, "old.json", a, false, "occurs", r->pkg.name, "1.0", r->deleted, a, "1", "absent", r->pkg.name, "2.0", NULL));
	/* ...but with --installed, the version on disk beside it. */
	free(sbom(r, "installed.json", a, true, "occurs", r->pkg.name, "1.0", r->deleted, a, "1", "notrunning", r->pkg.name, "2.0",
		  NULL));
}

int main(void)
{
	const char *why = debfix_unavailable();

	if (!why && (access("/usr/bin/python3", X_OK) != 0 ||
		     system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0))
		why = "needs /usr/bin/python3 with jsonschema (setup.sh installs python3-jsonschema)";
	/* 77: the test harness reports a skip, with the reason above it. */
	if (why) {
		printf("test_sbom_running: SKIP: %s\n", why);
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replaced_copy, setup, teardown),
	};

	return cmocka_run_group_tests_name("sbom of a replaced copy", tests, NULL, NULL);
}
