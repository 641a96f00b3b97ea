/*
 * Each copy dated by its own inode, through a real history of dpkg runs:
 * one package, mapscope-histpkg (and this run's suffix, debfix.h),
 * shipping one library, goes through an
 * install of 1.0, upgrades to 2.0 and 3.0, a reinstall of 3.0 and a
 * downgrade to another build of 1.0, each with its own build of the
 * library.  Processes of uid 65534 hold the copy of their time: A the
 * first 1.0, B 2.0, C 3.0 (unlinked by the reinstall), and D, started
 * under 1.0 but mapping the library only under 2.0 (a dlopen).  As root,
 * mapscope reads each copy's unlink time through map_files and must name
 * the version of each (list --by-file, stale, libs, who; JSON and the
 * table), and call A's copy replaced, not same-build: 1.0 is installed
 * again, but another build of it.  A copy replaced by hand (E), which no
 * dpkg run explains, is unknown.  As uid 65534, which cannot read
 * map_files, the holders' start is all there is (dpkglog.h): the test
 * asserts what that rule promises for the same history.  A reinstall
 * slow to unpack (its files replaced seconds after its first line) dates
 * its copy too.
 *
 * dpkg's log has whole seconds: the test lets a second pass between runs
 * (and the log's slack before a holder starts), so no two runs, and no
 * run and a start, share a second.  It needs root and dpkg, and uid 65534
 * able to enter $TMPDIR; without them it skips and says why.  The package
 * is purged at the end, also when the test fails.
 */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/pkg/dpkglog.h"
#include "debfix.h"
#include "fixture_client.h"
#include "jsoncheck.h"
#include "msrun.h"
#include "testutil.h"

#define PKG "mapscope-histpkg"
#define NOBODY 65534

enum { A, B, C, D, E, HOLDERS };
/* The packages: DEB_3_SLOW is another build of 3.0, slow to unpack. */
enum { DEB_1, DEB_2, DEB_3, DEB_1_AGAIN, DEB_3_SLOW, DEBS };

struct hist {
	char *dir;
	struct debfix pkg;
	char deb[DEBS][PATH_MAX];
	struct fixture holder[HOLDERS];
	pid_t pid[HOLDERS];
	char deleted[PATH_MAX + 16]; /* the name of a replaced copy */
	time_t last;                 /* the second the last dpkg run ended */
	const char *now;             /* the version it installed */
};

static const char *const holder_name = "ABCDE";
static const char *const deb_version[DEBS] = { "1.0", "2.0", "3.0", "1.0", "3.0" };

static int teardown(void **state);

static int setup(void **state)
{
	static const char *const lib[DEBS] = { "libhist-1.so", "libhist-2.so", "libhist-3.so", "libhist-4.so",
					       "libhist-2.so" };
	/* Two seconds between the run's first line and its new files: past the one second either way allowed. */
	static const char *const preinst[DEBS] = { [DEB_3_SLOW] = "#!/bin/sh\nsleep 2\n" };
	struct hist *h = calloc(1, sizeof(*h));

	if (!h || !(h->dir = debfix_dir())) {
		free(h);
		return -1;
	}
	*state = h;
	debfix_init(&h->pkg, PKG, h->dir, "libhist.so");
	snprintf(h->deleted, sizeof(h->deleted), "%s (deleted)", h->pkg.mapped);
	for (int i = 0; i < DEBS; i++)
		if (debfix_build(&h->pkg, i, deb_version[i], lib[i], preinst[i], h->deb[i]) < 0) {
			teardown(state);
			*state = NULL;
			return -1;
		}
	return 0;
}

static int teardown(void **state)
{
	struct hist *h = *state;

	if (!h)
		return 0;
	for (int i = 0; i < HOLDERS; i++)
		if (h->holder[i].pid)
			fixture_stop(&h->holder[i]);
	debfix_purge(&h->pkg);
	tu_rmtree(h->dir);
	free(h->dir);
	free(h);
	return 0;
}

static void settle(const struct hist *h)
{
	debfix_settle(h->last);
}

/* dpkg -i of deb, once the last run has settled. */
static void dpkg_step(struct hist *h, int deb)
{
	settle(h);
	if (debfix_install(h->deb[deb]) != 0)
		fail_msg("dpkg -i %s failed", h->deb[deb]);
	h->last = time(NULL);
	h->now = deb_version[deb];
}

/* Holder i: a process of uid 65534, which maps the library now when map_now. */
static void start_holder(struct hist *h, int i, bool map_now)
{
	settle(h);
	assert_int_equal(fixture_start_with(&h->holder[i], FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&h->holder[i], "user %d", NOBODY), 0);
	h->pid[i] = h->holder[i].pid;
	if (map_now)
		assert_int_equal(fixture_commandf(&h->holder[i], "dlopen %s", h->pkg.mapped), 0);
}

/* The file at the library's path swapped for another file by hand, as dpkg would not: its log never hears of it. */
static void replace_by_hand(const struct hist *h)
{
	char tmp[PATH_MAX + 16], *lib = tu_built("libstale-b.so");

	assert_non_null(lib);
	snprintf(tmp, sizeof(tmp), "%s.by-hand", h->pkg.mapped);
	assert_int_equal(tu_copy(lib, tmp), 0);
	assert_int_equal(chmod(tmp, 0644), 0);
	assert_int_equal(rename(tmp, h->pkg.mapped), 0);
	free(lib);
}

/* What uid's `stale` of holder i alone says of its copy. */
static void check_stale(const struct hist *h, uid_t uid, int i, const char *version)
{
	char *out = debfix_stale(uid, h->dir, &h->pid[i], 1, "-J", "NAME,PID,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC",
				 NULL);
	json_t *root = jc_parse(out), *f = debfix_stale_entry(root, h->pid[i], h->deleted);

	if (!f)
		fail_msg("stale of %c: no entry for %s in %s", holder_name[i], h->deleted, out);
	if (!debfix_field_is(f, "verdict", "replaced") || !debfix_field_is(f, "version", version) ||
	    !debfix_field_is(f, "installed", h->now) || !debfix_field_is(f, "package", h->pkg.name) ||
	    !debfix_field_is(f, "pkgsrc", "dpkg"))
		fail_msg("stale of %c: want replaced, version %s, installed %s, dpkg; got %s", holder_name[i],
			 version ? version : "null", h->now, out);
	json_decref(root);
	free(out);
}

/*
 * The VERWHY of holder pid's copy, named name, in the JSON of stale
 * (key "processes": processes, their files below), list --by-file
 * ("files") or libs --pids ("libraries": files, their processes below).
 */
static const char *verwhy_in(json_t *root, const char *key, const char *name, pid_t pid)
{
	json_t *row, *child;
	size_t i, k;

	json_array_foreach(json_object_get(root, key), i, row) {
		bool named = debfix_field_is(row, "name", name);

		if (named && !strcmp(key, "files"))
			return json_string_value(json_object_get(row, "verwhy"));
		json_array_foreach(json_object_get(row, "children"), k, child) {
			if (!strcmp(key, "processes") && json_integer_value(json_object_get(row, "pid")) == pid &&
			    debfix_field_is(child, "name", name))
				return json_string_value(json_object_get(child, "verwhy"));
			if (named && json_integer_value(json_object_get(child, "pid")) == pid)
				return json_string_value(json_object_get(row, "verwhy"));
		}
	}
	return NULL;
}

/*
 * Fail unless VERWHY (how holder i's version was found, or why not) holds
 * text, asked as uid alone with the name (no other package column): in
 * stale (processes, their files below), list --by-file (files) and libs
 * --pids (libraries, their processes below).
 */
static void check_why(const struct hist *h, uid_t uid, int i, const char *text)
{
	char pidstr[16];
	const char *list[] = { "list", pidstr, "--by-file", "-J", "-o", "NAME,VERWHY", NULL };
	const char *libs[] = { "libs", h->pkg.mapped, "--pids", "-J", "-o", "NAME,PID,VERWHY", NULL };
	struct msrun_opts o = { .uid = uid };
	char *out[3];
	const char *key[3] = { "processes", "files", "libraries" };

	snprintf(pidstr, sizeof(pidstr), "%d", (int)h->pid[i]);
	out[0] = debfix_stale(uid, h->dir, &h->pid[i], 1, "-J", "NAME,PID,VERWHY", NULL);
	for (int k = 1; k < 3; k++) {
		struct msrun_result r = msrun(&o, k == 1 ? list : libs);

		out[k] = r.out;
		r.out = NULL;
		msrun_free(&r);
	}
	for (int k = 0; k < 3; k++) {
		json_t *root = jc_parse(out[k]);
		const char *why = verwhy_in(root, key[k], h->deleted, h->pid[i]);

		if (!why || !strstr(why, text))
			fail_msg("%s of %c: want VERWHY with \"%s\"; got %s", key[k], holder_name[i], text, out[k]);
		json_decref(root);
		free(out[k]);
	}
}

/* Every view uid has of holder i: its copy runs version (NULL: unknown). */
static void check_holder(const struct hist *h, uid_t uid, int i, const char *version)
{
	debfix_expect_list(&h->pkg, uid, h->pid[i], h->deleted, version, h->now);
	check_stale(h, uid, i, version);
	debfix_expect_libs(&h->pkg, uid, h->pid[i], h->deleted, version, h->now);
	if (debfix_who_rows(uid, h->pkg.mapped, h->pid[i], "replaced", h->pkg.name, version) < 1)
		fail_msg("who %s: no row of %c with copy replaced, version %s", h->pkg.mapped, holder_name[i],
			 version ? version : "null");
}


/* The table of `stale -o NAME,PACKAGE` of holders first..last, as uid. */
static char *stale_table(const struct hist *h, uid_t uid, int first, int last)
{
	return debfix_stale(uid, h->dir, &h->pid[first], (size_t)(last - first + 1), "-n", "NAME,PACKAGE", NULL);
}

/* The table says each version in one cell, the version installed beside it. */
static void check_table(const struct hist *h)
{
	char *table = stale_table(h, 0, A, D);

	assert_int_equal(debfix_count(table, h->pkg.name, " 1.0 (now 1.0)"), 1);
	assert_int_equal(debfix_count(table, h->pkg.name, " 2.0 (now 1.0)"), 2);
	assert_int_equal(debfix_count(table, h->pkg.name, " 3.0 (now 1.0)"), 1);
	assert_int_equal(debfix_count(table, NULL, "unknown"), 0);
	free(table);
}

/* The history, as root: each copy's own unlink time names its version. */
static void run_history(struct hist *h)
{
	debfix_purge(&h->pkg); /* a first install, not an upgrade of what an earlier run left */
	dpkg_step(h, DEB_1);
	start_holder(h, A, true);
	start_holder(h, D, false); /* started under 1.0, maps the library only later */
	dpkg_step(h, DEB_2);
	start_holder(h, B, true);
	assert_int_equal(fixture_commandf(&h->holder[D], "dlopen %s", h->pkg.mapped), 0);
	dpkg_step(h, DEB_3);
	start_holder(h, C, true);
	dpkg_step(h, DEB_3);       /* a reinstall: C's copy is unlinked too */
	dpkg_step(h, DEB_1_AGAIN); /* a downgrade, to another build of 1.0 */
}

static void test_each_copy_its_version(void **state)
{
	struct hist *h = *state;
	char *table, why[160];

	run_history(h);
	check_holder(h, 0, A, "1.0");
	check_holder(h, 0, B, "2.0");
	check_holder(h, 0, C, "3.0");
	check_holder(h, 0, D, "2.0");
	check_table(h);
	/* How: each copy's unlink time falls in its run's window. */
	check_why(h, 0, A, "by dpkg's upgrade from 1.0 to 2.0");
	check_why(h, 0, B, "by dpkg's upgrade from 2.0 to 3.0");
	check_why(h, 0, C, "by dpkg's upgrade from 3.0 to 3.0");
	check_why(h, 0, D, "by dpkg's upgrade from 2.0 to 3.0");

	/* E: a copy of the last install, replaced by hand, well after it. */
	start_holder(h, E, true);
	settle(h);
	replace_by_hand(h);
	check_holder(h, 0, E, NULL);
	table = stale_table(h, 0, E, E);
	assert_int_equal(debfix_count(table, h->pkg.name, " (running: unknown; now 1.0)"), 1);
	free(table);
	snprintf(why, sizeof(why), "when dpkg's log has no upgrade or removal of %s (dpkg had installed 1.0)", h->pkg.name);
	check_why(h, 0, E, why);
	/* The others keep their answers. */
	check_holder(h, 0, A, "1.0");
	check_holder(h, 0, D, "2.0");

	/*
	 * As uid 65534: no map_files, so the holders' start dates each copy
	 * (dpkglog.h), over the runs logged since (less the slack).  D's
	 * copy is B's too: their earliest start counts, D's, before the
	 * upgrade to 2.0.
	 *   A, and B and D's copy: 1.0, 2.0 and 3.0 replaced since: unknown,
	 *   more than two versions, so no candidates.
	 *   C: 3.0 alone (the reinstall, then the downgrade to the 1.0
	 *   installed now): 3.0.
	 *   E: no run since it started: unknown.
	 */
	check_holder(h, NOBODY, A, NULL);
	check_holder(h, NOBODY, B, NULL);
	check_holder(h, NOBODY, C, "3.0");
	check_holder(h, NOBODY, D, NULL);
	check_holder(h, NOBODY, E, NULL);
	check_why(h, NOBODY, C, "its holders' start");
	/* B alone: the runs since its start leave 2.0 or 3.0; beside D (libs) D's start counts. */
	check_why(h, NOBODY, B, "upgraded more than once since its holders started");
	table = stale_table(h, NOBODY, B, B);
	assert_int_equal(debfix_count(table, h->pkg.name, " (running: 2.0 or 3.0; now 1.0)"), 1);
	free(table);
	snprintf(why, sizeof(why), "no upgrade or removal of %s since its holders started", h->pkg.name);
	check_why(h, NOBODY, E, why);
	table = stale_table(h, NOBODY, A, E);
	assert_int_equal(debfix_count(table, h->pkg.name, " (running: unknown; now 1.0)"), 4);
	assert_int_equal(debfix_count(table, h->pkg.name, " 3.0 (now 1.0)"), 1);
	free(table);
}

/*
 * A reinstall slow to unpack (a large package, a slow preinst): dpkg logs
 * the version being reinstalled as half-configured and unpacked before it
 * replaces a file (the old package's state), and unpacked again once it
 * has.  The copy unlinked seconds after the run's first line is still the
 * one the reinstall replaced.
 */
static void test_slow_reinstall(void **state)
{
	struct hist *h = *state;

	debfix_purge(&h->pkg);
	dpkg_step(h, DEB_3);
	start_holder(h, C, true);
	dpkg_step(h, DEB_3_SLOW);
	check_holder(h, 0, C, "3.0");
}

int main(void)
{
	const char *why = debfix_unavailable();

	/* 77: the test harness reports a skip, with the reason above it. */
	if (why) {
		printf("test_dpkg_history: SKIP: %s\n", why);
		return 77;
	}
	if (tu_tmpdir_open_to(NOBODY) != 1) {
		printf("test_dpkg_history: SKIP: uid %d cannot enter $TMPDIR, where mapscope runs as that user\n",
		       NOBODY);
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_each_copy_its_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_reinstall, setup, teardown),
	};

	return cmocka_run_group_tests_name("dpkg history", tests, NULL, NULL);
}
