/*
 * `mapscope stale` and `mapscope who` end to end: exit statuses, JSON
 * (parsed with jansson), OpenMetrics and the ignore-file lookup, on a real
 * process that loaded a copy of a test library.
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
	char *lib;
	char *no_rules;  /* an empty ignore file */
	char pid[16];
	struct fixture child;
	char *out;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *lib_a = tu_built("libstale-a.so");
	FILE *fp;

	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	fx->lib = tu_join(fx->dir, "libstale.so");
	assert_int_equal(tu_copy(lib_a, fx->lib), 0);
	fx->no_rules = tu_join(fx->dir, "no-rules.conf");
	fp = fopen(fx->no_rules, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "dlopen %s", fx->lib), 0);
	snprintf(fx->pid, sizeof(fx->pid), "%d", (int)fx->child.pid);
	free(lib_a);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	fixture_stop(&fx->child);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->lib);
	free(fx->no_rules);
	free(fx->out);
	free(fx);
	return 0;
}

static int run(struct fx *fx, const char *const *args)
{
	return jc_run(&fx->out, args);
}

/* The object in array arr whose key equals the string s, or NULL. */
static json_t *find_by(json_t *arr, const char *key, const char *s)
{
	size_t i;
	json_t *item;

	json_array_foreach(arr, i, item) {
		json_t *v = json_object_get(item, key);

		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return item;
	}
	return NULL;
}

static void test_stale_exit_and_json(void **state)
{
	struct fx *fx = *state;
	const char *ok_args[] = { "stale", "--ignore-file", fx->no_rules, "-J", fx->pid, NULL };
	char deleted[4200];
	json_t *root, *procs, *proc, *file;

	assert_int_equal(run(fx, ok_args), 0);
	root = jc_parse(fx->out);
	procs = json_object_get(root, "processes");
	assert_true(json_is_array(procs));
	assert_int_equal(json_array_size(procs), 0);
	json_decref(root);

	assert_int_equal(unlink(fx->lib), 0);
	assert_int_equal(run(fx, ok_args), 1);
	root = jc_parse(fx->out);
	procs = json_object_get(root, "processes");
	assert_int_equal(json_array_size(procs), 1);
	proc = json_array_get(procs, 0);
	assert_int_equal(json_integer_value(json_object_get(proc, "pid")), fx->child.pid);
	assert_string_equal(json_string_value(json_object_get(proc, "name")), "stale-child");
	snprintf(deleted, sizeof(deleted), "%s (deleted)", fx->lib);
	file = find_by(json_object_get(proc, "children"), "name", deleted);
	assert_non_null(file);
	assert_string_equal(json_string_value(json_object_get(file, "verdict")), "deleted");
	assert_true(json_is_string(json_object_get(file, "why")));
	json_decref(root);
}

static void test_stale_show_all_and_by_file(void **state)
{
	struct fx *fx = *state;
	const char *all[] = { "stale", "--ignore-file", fx->no_rules, "--show=all", "-J",
			      "-o", "NAME,PID,VERDICT,EXE,MAPS", fx->pid, NULL };
	const char *by_file[] = { "stale", "--ignore-file", fx->no_rules, "--by-file", "-J", fx->pid, NULL };
	json_t *root, *proc, *file, *files;
	char deleted[4200];

	assert_int_equal(run(fx, all), 0);
	root = jc_parse(fx->out);
	proc = json_array_get(json_object_get(root, "processes"), 0);
	assert_non_null(proc);
	file = find_by(json_object_get(proc, "children"), "name", fx->lib);
	assert_non_null(file);
	assert_string_equal(json_string_value(json_object_get(file, "verdict")), "ok");
	assert_true(json_is_false(json_object_get(file, "exe")));
	assert_true(json_integer_value(json_object_get(file, "maps")) >= 1);
	json_decref(root);

	assert_int_equal(unlink(fx->lib), 0);
	assert_int_equal(run(fx, by_file), 1);
	root = jc_parse(fx->out);
	files = json_object_get(root, "files");
	snprintf(deleted, sizeof(deleted), "%s (deleted)", fx->lib);
	file = find_by(files, "name", deleted);
	assert_non_null(file);
	assert_string_equal(json_string_value(json_object_get(file, "verdict")), "deleted");
	proc = json_array_get(json_object_get(file, "children"), 0);
	assert_int_equal(json_integer_value(json_object_get(proc, "pid")), fx->child.pid);
	json_decref(root);
}

static void test_stale_openmetrics(void **state)
{
	struct fx *fx = *state;
	const char *args[] = { "stale", "--ignore-file", fx->no_rules, "--openmetrics", fx->pid, NULL };
	size_t len;

	assert_int_equal(unlink(fx->lib), 0);
	assert_int_equal(run(fx, args), 1);
	assert_non_null(strstr(fx->out, "\nmapscope_stale_processes 1\n"));
	assert_non_null(strstr(fx->out, "mapscope_stale_files{verdict=\"deleted\"} 1\n"));
	/* The label spells verdicts as every other output does. */
	assert_non_null(strstr(fx->out, "mapscope_stale_files{verdict=\"same-build\"} 0\n"));
	assert_non_null(strstr(fx->out, "# TYPE mapscope_stale_processes gauge\n"));
	len = strlen(fx->out);
	assert_true(len > 6);
	assert_string_equal(fx->out + len - 6, "# EOF\n");
}

/* The user's copy of the ignore list replaces the defaults. */
static void test_stale_user_ignore_file(void **state)
{
	struct fx *fx = *state;
	const char *args[] = { "stale", "--show=all", "-J", fx->pid, NULL };
	char *cfg = tu_join(fx->dir, "mapscope");
	char *user = tu_join(cfg, "stale-ignore.conf");
	char *old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
	char rule[4200];
	FILE *fp;

	assert_int_equal(unlink(fx->lib), 0);
	/* A user file under $XDG_CONFIG_HOME/mapscope is read without --ignore-file. */
	setenv("XDG_CONFIG_HOME", fx->dir, 1);
	assert_int_equal(mkdir(cfg, 0700), 0);
	fp = fopen(user, "w");
	assert_non_null(fp);
	snprintf(rule, sizeof(rule), "%s/*  test directory rule\n", fx->dir);
	fputs(rule, fp);
	fclose(fp);
	assert_int_equal(run(fx, args), 0);
	assert_non_null(strstr(fx->out, "test directory rule"));

	/* An empty user file ignores nothing. */
	fp = fopen(user, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(run(fx, args), 1);
	assert_null(strstr(fx->out, "test directory rule"));

	unlink(user);
	rmdir(cfg);
	if (old)
		setenv("XDG_CONFIG_HOME", old, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(old);
	free(cfg);
	free(user);
}

/*
 * A kernel thread named beside a process is skipped silently, whichever
 * comes first (first: the ioctl is probed on it; second: the walk already
 * knows the ioctl and learns from the first query), and with the text
 * backend: not an error, not counted as scanned, vanished or failed.
 */
static void test_stale_kernel_thread_skipped(void **state)
{
	static const char *const backends[] = { "--backend=ioctl", "--backend=text" };
	struct fx *fx = *state;
	pid_t kt = tu_kernel_thread();
	char ktpid[16];

	if (!kt) {
		printf("# skipped: no kernel thread visible in /proc\n");
		skip();
	}
	snprintf(ktpid, sizeof(ktpid), "%d", (int)kt);
	assert_int_equal(unlink(fx->lib), 0);
	for (int b = 0; b < 2; b++)
		for (int order = 0; order < 2; order++) {
			const char *args[] = { "stale", backends[b], "--ignore-file", fx->no_rules, "--openmetrics",
					       order ? ktpid : fx->pid, order ? fx->pid : ktpid, NULL };

			assert_int_equal(run(fx, args), 1);
			if (strncmp(fx->out, "# HELP", 6))
				fail_msg("%s, kernel thread %s: not metrics alone: %s", backends[b],
					 order ? "first" : "second", fx->out);
			assert_non_null(strstr(fx->out, "mapscope_scan_processes{outcome=\"scanned\"} 1\n"));
			assert_non_null(strstr(fx->out, "mapscope_scan_processes{outcome=\"vanished\"} 0\n"));
			assert_non_null(strstr(fx->out, "mapscope_scan_processes{outcome=\"failed\"} 0\n"));
			assert_non_null(strstr(fx->out, "\nmapscope_stale_processes 1\n"));
		}
}

static void test_stale_errors(void **state)
{
	struct fx *fx = *state;
	const char *no_pid[] = { "stale", "2147483646", NULL };
	const char *bad_opt[] = { "stale", "--no-such-option", NULL };
	const char *bad_show[] = { "stale", "--show=stale", NULL };
	const char *bad_file[] = { "stale", "--ignore-file", "/nonexistent/mapscope.conf", fx->pid, NULL };

	assert_int_equal(run(fx, no_pid), 2);
	assert_int_equal(run(fx, bad_opt), 2);
	assert_int_equal(run(fx, bad_show), 2);
	assert_int_equal(run(fx, bad_file), 2);
}

/* -r has no tree, as lsblk -r: the process line, then its files flat, no glyphs. */
static void test_stale_raw_flat(void **state)
{
	struct fx *fx = *state;
	const char *raw[] = { "stale", "--ignore-file", fx->no_rules, "-r", "-n",
			      "-o", "NAME,PID,VERDICT", fx->pid, NULL };
	char proc_line[64], file_line[4200];

	assert_int_equal(unlink(fx->lib), 0);
	assert_int_equal(run(fx, raw), 1);
	snprintf(proc_line, sizeof(proc_line), "stale-child %s \n", fx->pid);
	snprintf(file_line, sizeof(file_line), "\n%s\\x20(deleted)  deleted\n", fx->lib);
	if (strncmp(fx->out, proc_line, strlen(proc_line) - 2) || !strstr(fx->out, file_line))
		fail_msg("stale -r is not flat: %s", fx->out);
	assert_null(strstr(fx->out, "\\xe2"));
}

static void test_who_by_hard_link(void **state)
{
	struct fx *fx = *state;
	char *hard = tu_join(fx->dir, "hard-link.so");
	char *moved = tu_join(fx->dir, "moved.so");
	const char *by_link[] = { "who", "-J", hard, NULL };
	const char *by_move[] = { "who", "-J", "-o", "PID,COMM,INODE,NAME", moved, NULL };
	const char *nobody[] = { "who", fx->no_rules, NULL };
	json_t *root, *maps, *item;
	size_t i, mine = 0;
	struct stat st;

	assert_int_equal(link(fx->lib, hard), 0);
	assert_int_equal(run(fx, by_link), 0);
	root = jc_parse(fx->out);
	maps = json_object_get(root, "mappings");
	json_array_foreach(maps, i, item)
		if (json_integer_value(json_object_get(item, "pid")) == fx->child.pid) {
			mine++;
			/* The kernel still names the path that was opened. */
			assert_string_equal(json_string_value(json_object_get(item, "name")), fx->lib);
		}
	assert_true(mine >= 1);
	json_decref(root);

	assert_int_equal(stat(fx->lib, &st), 0);
	assert_int_equal(rename(fx->lib, moved), 0);
	assert_int_equal(run(fx, by_move), 0);
	root = jc_parse(fx->out);
	item = json_array_get(json_object_get(root, "mappings"), 0);
	assert_non_null(item);
	assert_int_equal(json_integer_value(json_object_get(item, "pid")), fx->child.pid);
	assert_int_equal(json_integer_value(json_object_get(item, "inode")), st.st_ino);
	json_decref(root);

	assert_int_equal(run(fx, nobody), 1);
	free(hard);
	free(moved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stale_exit_and_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_show_all_and_by_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_openmetrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_user_ignore_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_kernel_thread_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_raw_flat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_by_hard_link, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
