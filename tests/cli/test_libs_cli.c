/*
 * `mapscope libs` end to end, on real processes: two that map one copy of
 * a test library, a third that maps another copy which is then deleted.
 * Counts and verdicts must be exact, PATTERN must match by base name, by
 * SONAME (the library calls itself libstale.so.1) and by path (filematch.h), --pids
 * must list each file's processes below it, and -J must print counts and
 * sizes as numbers.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "jsoncheck.h"

#include "msrun.h"
#include "fixture_client.h"
#include "testutil.h"

struct fx {
	char *dir;
	char *lib;        /* DIR/libms-libs.so, mapped by a and b */
	char *old;        /* DIR/old/libms-libs.so, mapped by c, then deleted */
	char pids[64];    /* a,b,c */
	struct fixture a, b, c;
	char *out;
};

static void start_holding(struct fixture *child, const char *lib)
{
	assert_int_equal(fixture_start_with(child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(child, "dlopen %s", lib), 0);
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *lib_a = tu_built("libstale-a.so"), *conf, *olddir;

	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	/* No ignore rules: a deleted library under /tmp is "deleted", not "ignored". */
	conf = tu_join(fx->dir, "mapscope");
	assert_int_equal(mkdir(conf, 0755), 0);
	free(conf);
	conf = tu_join(fx->dir, "mapscope/stale-ignore.conf");
	assert_int_equal(tu_spit(conf, ""), 0);
	free(conf);
	setenv("XDG_CONFIG_HOME", fx->dir, 1);
	olddir = tu_join(fx->dir, "old");
	assert_int_equal(mkdir(olddir, 0755), 0);
	fx->lib = tu_join(fx->dir, "libms-libs.so");
	fx->old = tu_join(olddir, "libms-libs.so");
	free(olddir);
	assert_int_equal(tu_copy(lib_a, fx->lib), 0);
	assert_int_equal(tu_copy(lib_a, fx->old), 0);
	start_holding(&fx->a, fx->lib);
	start_holding(&fx->b, fx->lib);
	start_holding(&fx->c, fx->old);
	assert_int_equal(unlink(fx->old), 0);
	snprintf(fx->pids, sizeof(fx->pids), "%d,%d,%d", (int)fx->a.pid, (int)fx->b.pid, (int)fx->c.pid);
	free(lib_a);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	fixture_stop(&fx->a);
	fixture_stop(&fx->b);
	fixture_stop(&fx->c);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->lib);
	free(fx->old);
	free(fx->out);
	free(fx);
	return 0;
}

static int run(struct fx *fx, const char *const *args)
{
	return jc_run(&fx->out, args);
}

/* The "libraries" array of libs -J with args (a NULL-terminated list after "libs"). */
static json_t *libs_json(struct fx *fx, const char *const *args, json_t **root)
{
	json_t *rows;

	assert_int_equal(run(fx, args), 0);
	*root = jc_parse(fx->out);
	rows = json_object_get(*root, "libraries");
	assert_true(json_is_array(rows));
	return rows;
}

static json_t *row_named(json_t *rows, const char *name)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row) {
		json_t *v = json_object_get(row, "name");

		if (json_is_string(v) && !strcmp(json_string_value(v), name))
			return row;
	}
	fail_msg("no row named %s", name);
	return NULL;
}

static long long int_of(json_t *row, const char *key)
{
	json_t *v = json_object_get(row, key);

	if (!json_is_integer(v))
		fail_msg("%s is not a JSON number", key);
	return json_integer_value(v);
}

static const char *str_of(json_t *row, const char *key)
{
	json_t *v = json_object_get(row, key);

	if (!json_is_string(v))
		fail_msg("%s is not a JSON string", key);
	return json_string_value(v);
}

/* The two copies, with exact counts, verdicts and SONAMEs; the pattern picks them by base name. */
static void check_two_copies(struct fx *fx, const char *pattern)
{
	char pid_opt[80], deleted[4200];
	const char *args[] = { "libs", pid_opt, "-J", "-o", "NAME,SONAME,PROCS,MAPS,VERDICT,WHERE,RSS", pattern, NULL };
	json_t *root, *rows, *cur, *old;

	snprintf(pid_opt, sizeof(pid_opt), "--pid=%s", fx->pids);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", fx->old);
	rows = libs_json(fx, args, &root);
	assert_int_equal(json_array_size(rows), 2);
	cur = row_named(rows, fx->lib);
	old = row_named(rows, deleted);
	assert_int_equal(int_of(cur, "procs"), 2);
	assert_int_equal(int_of(old, "procs"), 1);
	assert_true(int_of(cur, "maps") >= 2);
	assert_string_equal(str_of(cur, "verdict"), "ok");
	assert_string_equal(str_of(old, "verdict"), "deleted");
	assert_string_equal(str_of(cur, "soname"), "libstale.so.1");
	assert_string_equal(str_of(old, "soname"), "libstale.so.1");
	assert_string_equal(str_of(cur, "where"), "host");
	assert_true(int_of(cur, "rss") > 0);
	json_decref(root);
}

static void test_libs_counts_and_verdicts(void **state)
{
	check_two_copies(*state, "libms-libs.so");
}

static void test_libs_pattern_by_soname(void **state)
{
	struct fx *fx = *state;
	char pid_opt[80];
	const char *none[] = { "libs", pid_opt, "-J", "libms-nothing*", NULL };
	json_t *root, *rows;

	check_two_copies(fx, "libstale.so.1");
	check_two_copies(fx, "libstale.so.[0-9]");
	/* Neither the name nor the SONAME: an empty list, and status 1, as grep's. */
	snprintf(pid_opt, sizeof(pid_opt), "--pid=%s", fx->pids);
	assert_int_equal(run(fx, none), 1);
	root = jc_parse(fx->out);
	rows = json_object_get(root, "libraries");
	assert_true(json_is_array(rows));
	assert_int_equal(json_array_size(rows), 0);
	json_decref(root);
}

/* A path: the file at it now, or the copy the kernel names by it since it was deleted. */
static void test_libs_pattern_by_path(void **state)
{
	struct fx *fx = *state;
	char pid_opt[80], deleted[4200];
	const char *now[] = { "libs", pid_opt, "-J", "-o", "NAME,PROCS", fx->lib, NULL };
	const char *gone[] = { "libs", pid_opt, "-J", "-o", "NAME,PROCS", fx->old, NULL };
	json_t *root, *rows;

	snprintf(pid_opt, sizeof(pid_opt), "--pid=%s", fx->pids);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", fx->old);
	rows = libs_json(fx, now, &root);
	assert_int_equal(json_array_size(rows), 1);
	assert_int_equal(int_of(row_named(rows, fx->lib), "procs"), 2);
	json_decref(root);
	rows = libs_json(fx, gone, &root);
	assert_int_equal(json_array_size(rows), 1);
	assert_int_equal(int_of(row_named(rows, deleted), "procs"), 1);
	json_decref(root);
}

/*
 * Every process, not named ones: the counts are still exact.  Paths, not a
 * name: a name reads the SONAME of every file on the machine, and another
 * test may be running a process that maps 65,000 of them.
 */
static void test_libs_every_process(void **state)
{
	struct fx *fx = *state;
	const char *args[] = { "libs", "-J", "-o", "NAME,PROCS,VERDICT", fx->lib, fx->old, NULL };
	json_t *root, *rows;

	rows = libs_json(fx, args, &root);
	assert_int_equal(json_array_size(rows), 2);
	assert_int_equal(int_of(row_named(rows, fx->lib), "procs"), 2);
	json_decref(root);
}

static bool has_pid(json_t *children, pid_t pid)
{
	size_t i;
	json_t *child;

	json_array_foreach(children, i, child)
		if (int_of(child, "pid") == pid)
			return true;
	return false;
}

static void test_libs_pids_tree(void **state)
{
	struct fx *fx = *state;
	char pid_opt[80];
	const char *args[] = { "libs", pid_opt, "--pids", "-J", "libms-libs.so", NULL };
	const char *text[] = { "libs", pid_opt, "--pids", "-r", "-n", "-o", "NAME,PID", "libms-libs.so", NULL };
	json_t *root, *rows, *children;
	char line[64];

	snprintf(pid_opt, sizeof(pid_opt), "--pid=%s", fx->pids);
	rows = libs_json(fx, args, &root);
	children = json_object_get(row_named(rows, fx->lib), "children");
	assert_true(json_is_array(children));
	assert_int_equal(json_array_size(children), 2);
	assert_true(has_pid(children, fx->a.pid));
	assert_true(has_pid(children, fx->b.pid));
	assert_string_equal(str_of(json_array_get(children, 0), "name"), "stale-child");
	json_decref(root);
	/* The table: a file line, then its processes' lines. */
	assert_int_equal(run(fx, text), 0);
	snprintf(line, sizeof(line), "\nstale-child %d\n", (int)fx->c.pid);
	assert_non_null(strstr(fx->out, line));
}

/* PSS from smaps (--pss): a part of RSS, for a file shared by two processes. */
static void test_libs_pss(void **state)
{
	struct fx *fx = *state;
	char pid_opt[80];
	const char *args[] = { "libs", pid_opt, "--pss", "-J", "-o", "NAME,RSS,PSS", fx->lib, NULL };
	json_t *root, *rows, *row;

	snprintf(pid_opt, sizeof(pid_opt), "--pid=%s", fx->pids);
	rows = libs_json(fx, args, &root);
	row = row_named(rows, fx->lib);
	assert_true(int_of(row, "pss") > 0);
	assert_true(int_of(row, "pss") <= int_of(row, "rss"));
	json_decref(root);
}

/*
 * A process pivoted into a root of its own maps a library there: its row
 * says where it lives and gets no package (our databases do not describe
 * its files), while the files it shares with a process of ours (libc,
 * mapped before the pivot) are ours.  Root only; skipped where pivot_root
 * is refused (the tests run in a chroot).
 */
static void test_libs_other_root(void **state)
{
	struct fx *fx = *state;
	char *root, *inner, *built;
	char pid_opt[80];
	const char *args[] = { "libs", pid_opt, "-J", "-o", "NAME,PACKAGE,PROCS,WHERE", "libms-inner.so", "libc.so.6", NULL };
	struct fixture child = { 0 };
	json_t *out, *rows, *row;
	bool pivoted;
	size_t i;

	if (geteuid() != 0)
		skip();
	root = tu_join(fx->dir, "root");
	inner = tu_join(root, "libms-inner.so");
	built = tu_built("libstale-a.so");
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(tu_copy(built, inner), 0);
	assert_int_equal(fixture_start_with(&child, FIXTURE_STALE_CHILD), 0);
	pivoted = fixture_commandf(&child, "pivot %s", root) == 0;
	if (!pivoted)
		goto done;
	assert_int_equal(fixture_command(&child, "dlopen /libms-inner.so"), 0);
	snprintf(pid_opt, sizeof(pid_opt), "--pid=%d,%d", (int)child.pid, (int)fx->a.pid);
	rows = libs_json(fx, args, &out);
	json_array_foreach(rows, i, row) {
		const char *name = str_of(row, "name");

		if (strstr(name, "libms-inner.so")) {
			assert_string_equal(str_of(row, "where"), "other root");
			assert_true(json_is_null(json_object_get(row, "package")));
			assert_int_equal(int_of(row, "procs"), 1);
		} else {
			assert_string_equal(str_of(row, "where"), "host");
			assert_string_equal(str_of(row, "package"), "libc6");
			assert_int_equal(int_of(row, "procs"), 2);
		}
	}
	assert_int_equal(json_array_size(rows), 2);
	json_decref(out);
done:
	fixture_stop(&child);
	free(built);
	free(inner);
	free(root);
	/* Where pivot_root is refused (a chroot), freed first: LeakSanitizer checks skips too. */
	if (!pivoted)
		skip();
}

static void test_libs_usage_errors(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(run(fx, (const char *const[]){ "libs", "-o", "NOSUCH", NULL }), 2);
	assert_int_equal(run(fx, (const char *const[]){ "libs", "--nosuch", NULL }), 2);
	assert_int_equal(run(fx, (const char *const[]){ "libs", "--pid=notapid", NULL }), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libs_counts_and_verdicts),
		cmocka_unit_test(test_libs_pattern_by_soname),
		cmocka_unit_test(test_libs_pattern_by_path),
		cmocka_unit_test(test_libs_every_process),
		cmocka_unit_test(test_libs_pids_tree),
		cmocka_unit_test(test_libs_pss),
		cmocka_unit_test(test_libs_other_root),
		cmocka_unit_test(test_libs_usage_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
