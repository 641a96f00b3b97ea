/*
 * The package behind a stale file, through a real package upgrade: the
 * test builds two versions of a small package with dpkg-deb (each ships a
 * different build of a test library), installs the first with dpkg, has
 * two processes map the library, installs the second over it, and expects
 * `mapscope stale` to call the file replaced and name the package, the
 * version installed now and the version the processes run (the first:
 * dpkg's own log, /var/log/dpkg.log, says it upgraded from it after they
 * started), for each process, in the table and in JSON.  Before that the
 * file is replaced by hand, not by dpkg: the log knows nothing of it, so
 * the version running is unknown, and said so; the processes then start
 * again on a copy dpkg installed, so the upgrade is what replaced the copy
 * they map.  Where /lib is merged into /usr, the package ships the library
 * under /lib while the kernel names it under /usr/lib, as on a real Debian
 * system (debfix.h).  The processes run as uid 65534, so a worker's
 * version is asked as that user too, who cannot read map_files: there its
 * parent's start dates the copy.  It needs root and dpkg; without them it
 * skips and says why.  The package is purged at the end.
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
#include "testutil.h"

#define PKG "mapscope-testpkg"
#define NOBODY 65534

struct fx {
	char *dir;
	char deb[2][PATH_MAX];
	struct debfix pkg;
	struct fixture child, child2; /* two processes map the library */
};

static int teardown(void **state);

static int setup(void **state)
{
	static const char *const lib[2] = { "libstale-a.so", "libstale-b.so" };
	static const char *const version[2] = { "1.0", "2.0-1" };
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx || !(fx->dir = debfix_dir())) {
		free(fx);
		return -1;
	}
	*state = fx;
	debfix_init(&fx->pkg, PKG, fx->dir, "libmstestpkg.so");
	for (int v = 0; v < 2; v++)
		if (debfix_build(&fx->pkg, v, version[v], lib[v], NULL, fx->deb[v]) < 0) {
			teardown(state);
			*state = NULL;
			return -1;
		}
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (!fx)
		return 0;
	fixture_stop(&fx->child);
	fixture_stop(&fx->child2);
	debfix_purge(&fx->pkg);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* How many file entries named name say package pkg, version installed and running (NULL: null), from dpkg. */
static size_t entries_naming(json_t *root, const char *name, const char *pkg, const char *version,
			     const char *running)
{
	json_t *procs = json_object_get(root, "processes"), *p, *f;
	size_t i, k, n = 0;

	json_array_foreach(procs, i, p)
		json_array_foreach(json_object_get(p, "children"), k, f)
			n += debfix_field_is(f, "name", name) && debfix_field_is(f, "package", pkg) &&
			     debfix_field_is(f, "installed", version) && debfix_field_is(f, "version", running) &&
			     debfix_field_is(f, "pkgsrc", "dpkg");
	return n;
}


/*
 * `mapscope stale` of processes pid and pid2 (0: only pid), every verdict,
 * with format ("-J" or "-n"), columns and extra (may be NULL), as uid.
 */
static char *stale_output_of(struct fx *fx, uid_t uid, pid_t pid, pid_t pid2, const char *format,
			     const char *columns, const char *extra)
{
	pid_t pids[2] = { pid, pid2 };

	return debfix_stale(uid, fx->dir, pids, pid2 ? 2 : 1, format, columns, extra);
}

static char *stale_output_with(struct fx *fx, const char *format, const char *columns, const char *extra)
{
	return stale_output_of(fx, 0, fx->child.pid, fx->child2.pid, format, columns, extra);
}

static char *stale_output(struct fx *fx, const char *format, const char *columns)
{
	return stale_output_with(fx, format, columns, NULL);
}

/* The JSON of stale_output_of. */
static json_t *stale_json_of(struct fx *fx, uid_t uid, pid_t pid, pid_t pid2, const char *columns)
{
	char *out = stale_output_of(fx, uid, pid, pid2, "-J", columns, NULL);
	json_t *root = jc_parse(out);

	free(out);
	return root;
}

static json_t *stale_json(struct fx *fx, const char *columns)
{
	return stale_json_of(fx, 0, fx->child.pid, fx->child2.pid, columns);
}

/* The one child of pid (from /proc/PID/task/PID/children), or 0. */
static pid_t only_child(pid_t pid)
{
	char path[64], *text;
	long child = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	text = tu_slurp(path, NULL);
	if (text && sscanf(text, "%ld", &child) != 1)
		child = 0;
	free(text);
	return (pid_t)child;
}

/* The file at path swapped for another build by hand, as dpkg would not: the log never hears of it. */
static void replace_by_hand(const char *path)
{
	char tmp[PATH_MAX + 16], *lib = tu_built("libstale-b.so");

	snprintf(tmp, sizeof(tmp), "%s.by-hand", path);
	assert_int_equal(tu_copy(lib, tmp), 0);
	assert_int_equal(rename(tmp, path), 0);
	free(lib);
}

/* Both children, uid 65534's own processes, mapping the library at its path now. */
static void start_children(struct fx *fx)
{
	struct fixture *child[2] = { &fx->child, &fx->child2 };

	for (int i = 0; i < 2; i++) {
		assert_int_equal(fixture_start_with(child[i], FIXTURE_STALE_CHILD), 0);
		assert_int_equal(fixture_commandf(child[i], "user %d", NOBODY), 0);
		assert_int_equal(fixture_commandf(child[i], "mapx %s", fx->pkg.mapped), 0);
	}
}

static void test_upgrade_names_the_package(void **state)
{
	char deleted[PATH_MAX + 16], *table;
	struct fx *fx = *state;
	time_t upgraded;
	json_t *root, *f;
	pid_t worker;

	/* A first install (logged as such), not a reinstall over what an earlier run left. */
	debfix_purge(&fx->pkg);
	assert_int_equal(debfix_install(fx->deb[0]), 0);
	start_children(fx);
	/* Nothing stale: no package is named, for nothing needs one. */
	root = stale_json(fx, "NAME,VERDICT,PACKAGE,VERSION");
	f = debfix_stale_entry(root, 0, fx->pkg.mapped);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "verdict")), "ok");
	assert_true(json_is_null(json_object_get(f, "package")));
	assert_true(json_is_null(json_object_get(f, "version")));
	json_decref(root);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", fx->pkg.mapped);

	/* Replaced without dpkg: which version runs cannot be known from its log. */
	replace_by_hand(fx->pkg.mapped);
	root = stale_json(fx, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
	f = debfix_stale_entry(root, 0, deleted);
	if (!f)
		fail_msg("no entry for %s after the file was replaced by hand", deleted);
	assert_string_equal(json_string_value(json_object_get(f, "verdict")), "replaced");
	assert_int_equal(entries_naming(root, deleted, fx->pkg.name, "1.0", NULL), 2);
	json_decref(root);
	table = stale_output(fx, "-n", "NAME,PACKAGE");
	assert_int_equal(debfix_count(table, fx->pkg.name, " (running: unknown; now 1.0)"), 2);
	free(table);
	table = stale_output(fx, "-n", "VERSION,INSTALLED");
	assert_int_equal(debfix_count(table, NULL, "unknown 1.0"), 2);
	free(table);
	/* list --by-file, libs, who: not the version installed now, but unknown (null). */
	debfix_expect_list(&fx->pkg, 0, fx->child.pid, deleted, NULL, "1.0");
	debfix_expect_libs(&fx->pkg, 0, fx->child.pid, deleted, NULL, "1.0");
	assert_true(debfix_who_rows(0, fx->pkg.mapped, fx->child.pid, "replaced", fx->pkg.name, NULL) >= 1);

	/*
	 * The copy by hand is no dpkg copy: the processes start again on
	 * one, which the upgrade replaces (dpkg -i 1.0 again puts it back).
	 */
	fixture_stop(&fx->child);
	fixture_stop(&fx->child2);
	assert_int_equal(debfix_install(fx->deb[0]), 0);
	start_children(fx);

	/* Upgraded by dpkg after both started: they run 1.0, 2.0-1 is installed. */
	assert_int_equal(debfix_install(fx->deb[1]), 0);
	upgraded = time(NULL);
	root = stale_json(fx, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
	f = debfix_stale_entry(root, 0, deleted);
	if (!f)
		fail_msg("no entry for %s after the upgrade", deleted);
	assert_string_equal(json_string_value(json_object_get(f, "verdict")), "replaced");
	assert_string_equal(json_string_value(json_object_get(f, "package")), fx->pkg.name);
	assert_string_equal(json_string_value(json_object_get(f, "installed")), "2.0-1");
	assert_string_equal(json_string_value(json_object_get(f, "version")), "1.0");
	/* Both processes, not only the first to ask. */
	assert_int_equal(entries_naming(root, deleted, fx->pkg.name, "2.0-1", "1.0"), 2);
	json_decref(root);
	/* The default JSON fields carry them too. */
	table = stale_output(fx, "-J", "+MAPS");
	root = jc_parse(table);
	assert_int_equal(entries_naming(root, deleted, fx->pkg.name, "2.0-1", "1.0"), 2);
	json_decref(root);
	free(table);
	/* The table says it in one cell, for each process; by file too. */
	table = stale_output(fx, "-n", "NAME,PACKAGE");
	assert_int_equal(debfix_count(table, fx->pkg.name, " 1.0 (now 2.0-1)"), 2);
	free(table);
	table = stale_output_with(fx, "-n", "NAME,PACKAGE", "--by-file");
	assert_int_equal(debfix_count(table, fx->pkg.name, " 1.0 (now 2.0-1)"), 1);
	free(table);
	/* list --by-file says the same of each process: the copy runs 1.0, 2.0-1 is installed. */
	debfix_expect_list(&fx->pkg, 0, fx->child.pid, deleted, "1.0", "2.0-1");
	debfix_expect_list(&fx->pkg, 0, fx->child2.pid, deleted, "1.0", "2.0-1");
	/* libs: the old copy's row runs 1.0. */
	debfix_expect_libs(&fx->pkg, 0, fx->child.pid, deleted, "1.0", "2.0-1");
	/* who: each process's old copy runs 1.0, whatever is installed now. */
	assert_true(debfix_who_rows(0, fx->pkg.mapped, fx->child.pid, "replaced", fx->pkg.name, "1.0") >= 1);
	assert_true(debfix_who_rows(0, fx->pkg.mapped, fx->child2.pid, "replaced", fx->pkg.name, "1.0") >= 1);
	assert_int_equal(debfix_who_rows(0, fx->pkg.mapped, fx->child.pid, "replaced", fx->pkg.name, "2.0-1"), 0);

	/*
	 * A worker forked after the upgrade (past the log's slack) keeps its
	 * parent's old copy.  Root dates it by the copy's own unlink time.
	 * Uid 65534 cannot read it: nothing is logged after the worker's own
	 * start, but its parent, which maps the same copy, started before the
	 * upgrade, and that start counts, asked alone or beside the parent.
	 */
	while (time(NULL) <= upgraded + MS_DPKGLOG_SLACK + 1)
		usleep(100 * 1000);
	assert_int_equal(fixture_command(&fx->child, "fork"), 0);
	worker = only_child(fx->child.pid);
	assert_true(worker > 0);
	for (uid_t uid = 0; uid <= NOBODY; uid += NOBODY) {
		root = stale_json_of(fx, uid, worker, 0, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
		assert_int_equal(entries_naming(root, deleted, fx->pkg.name, "2.0-1", "1.0"), 1);
		json_decref(root);
		/* list --by-file and libs --pid of the worker alone climb to its parent too. */
		debfix_expect_list(&fx->pkg, uid, worker, deleted, "1.0", "2.0-1");
		debfix_expect_libs(&fx->pkg, uid, worker, deleted, "1.0", "2.0-1");
		root = stale_json_of(fx, uid, fx->child.pid, worker, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
		assert_int_equal(entries_naming(root, deleted, fx->pkg.name, "2.0-1", "1.0"), 2);
		json_decref(root);
	}
}

int main(void)
{
	const char *why = debfix_unavailable();

	/* 77: the test harness reports a skip, with the reason above it. */
	if (why) {
		printf("test_packages: SKIP: %s\n", why);
		return 77;
	}
	if (tu_tmpdir_open_to(NOBODY) != 1) {
		printf("test_packages: SKIP: uid %d cannot enter $TMPDIR, where mapscope runs as that user\n", NOBODY);
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_upgrade_names_the_package, setup, teardown),
	};

	return cmocka_run_group_tests_name("packages", tests, NULL, NULL);
}
