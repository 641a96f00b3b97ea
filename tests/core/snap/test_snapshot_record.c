/*
 * `mapscope record`: one header however often a file is continued, changes
 * appended and replayable, another process's recording refused untouched,
 * a file that is not a recording refused without quoting a byte of it,
 * Ctrl-C leaves whole JSON lines, the process exiting ends the run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/maps/maps.h"
#include "core/snap/record.h"
#include "snapfix.h"

/* Every line of the file parsed; the count in *n. */
static json_t **lines_of(const char *path, size_t *n)
{
	char *text = tu_slurp(path, NULL), *p, *nl;
	json_t **out = calloc(64, sizeof(*out));

	assert_non_null(text);
	*n = 0;
	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl); /* every line is whole */
		assert_true(*n < 64);
		out[*n] = json_loadb(p, (size_t)(nl - p), 0, NULL);
		assert_non_null(out[*n]);
		(*n)++;
	}
	free(text);
	return out;
}

static void free_lines(json_t **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(l[i]);
	free(l);
}

static size_t live_count(pid_t pid)
{
	struct ms_maplist list = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	size_t n;

	assert_int_equal(ms_proc_open(pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, NULL, &maps, &err), 0);
	assert_int_equal(ms_maps_collect(maps, 0, &list, &err), 0);
	n = list.count;
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return n;
}

static void test_record_twice_one_header(void **state)
{
	struct snapfix_env *e = *state;
	const char *args[] = { "record", e->pid, "-o", e->out, "--count", "1", NULL };
	const struct fx_map *added;
	struct ms_maplist replayed = { 0 };
	struct ms_error err;
	size_t n, records;
	char *err_text = NULL, *text;
	json_t **l;
	char want[32];

	assert_int_equal(msrun_capture(args, NULL, NULL, &err_text), 0);
	assert_non_null(strstr(err_text, "created"));
	free(err_text);
	l = lines_of(e->out, &n);
	assert_int_equal(n, 2);
	assert_string_equal(json_string_value(json_object_get(l[0], "mapscope")), "recording");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(l[0], "header"), "pid")), e->fx.pid);
	/* The first change is the whole map, as added. */
	assert_int_equal(json_array_size(json_object_get(l[1], "added")), live_count(e->fx.pid));
	free_lines(l, n);

	assert_int_equal(fixture_command(&e->fx, "mapfile later.dat"), 0);
	added = fixture_find(&e->fx, "extra");
	assert_non_null(added);
	assert_int_equal(msrun_capture(args, NULL, NULL, &err_text), 0);
	assert_non_null(strstr(err_text, "appending"));
	free(err_text);

	l = lines_of(e->out, &n);
	assert_int_equal(n, 3);
	for (size_t i = 1; i < n; i++)
		assert_null(json_object_get(l[i], "mapscope"));
	assert_int_equal(json_array_size(json_object_get(l[2], "added")), 1);
	assert_int_equal(json_array_size(json_object_get(l[2], "removed")), 0);
	assert_int_equal(json_array_size(json_object_get(l[2], "changed")), 0);
	snprintf(want, sizeof(want), "%lx", (unsigned long)added->start);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(l[2], "added"), 0), "start")), want);
	free_lines(l, n);

	/* Replaying the file gives the live map. */
	text = tu_slurp(e->out, &n);
	assert_int_equal(ms_recording_replay(text, n, "rec", 0, 0, &replayed, &records, &err), 0);
	assert_int_equal(records, 2);
	assert_int_equal(replayed.count, live_count(e->fx.pid));
	ms_maplist_free(&replayed);
	free(text);
}

static void test_record_other_pid_refused(void **state)
{
	struct snapfix_env *e = *state;
	const char *args[] = { "record", e->pid, "-o", e->out, "--count", "1", NULL };
	struct fixture other;
	char *before, *after, *err_text = NULL;
	char *snap = tu_join(e->dir, "snap.json");
	const char *snap_args[] = { "snapshot", e->pid, "-o", snap, NULL };

	assert_int_equal(msrun_capture(args, NULL, NULL, NULL), 0);
	before = tu_slurp(e->out, NULL);
	assert_int_equal(fixture_start_with(&other, &(struct fixture_opts){ .dir = e->dir }), 0);
	{
		const char *theirs[] = { "record", other.pidstr, "-o", e->out, "--count", "1", NULL };

		assert_int_equal(msrun_capture(theirs, NULL, NULL, &err_text), 1);
	}
	assert_non_null(strstr(err_text, "refusing to mix two processes"));
	free(err_text);
	after = tu_slurp(e->out, NULL);
	assert_string_equal(before, after);
	fixture_stop(&other);
	free(before);
	free(after);

	/* A file that is not a recording at all is refused too, and kept. */
	assert_int_equal(msrun_capture(snap_args, NULL, NULL, NULL), 0);
	before = tu_slurp(snap, NULL);
	{
		const char *onto[] = { "record", e->pid, "-o", snap, "--count", "1", NULL };

		assert_int_equal(msrun_capture(onto, NULL, NULL, &err_text), 1);
	}
	assert_non_null(strstr(err_text, "not a mapscope recording"));
	free(err_text);
	after = tu_slurp(snap, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(snap);
}

/*
 * record -o onto a file that is not a recording (root's, through a name
 * the user chose) is refused without one byte of it in the message: not
 * jansson's "near '...'", not a key, not a value.
 */
static void test_record_foreign_file_not_quoted(void **state)
{
	struct snapfix_env *e = *state;
	static const char *const foreign[] = {
		"TOPSECRET hunter2\n",                   /* not JSON */
		"[\"TOPSECRET hunter2\n",                /* JSON cut short */
		"{\"TOPSECRET\": \"hunter2\"}\n",        /* JSON, not ours */
		"TOPSECRET hunter2",                     /* no newline at all */
		"{\"mapscope\":\"TOPSECRET hunter2\"}\n", /* a tag, not ours */
	};
	const char *args[] = { "record", e->pid, "-o", e->out, "--count", "1", NULL };
	char *err_text = NULL, *header, *nl, *bad, *kept;

	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		assert_int_equal(tu_spit(e->out, foreign[i]), 0);
		assert_int_equal(msrun_capture(args, NULL, NULL, &err_text), 1);
		if (strstr(err_text, "TOPSECRET") || strstr(err_text, "hunter2"))
			fail_msg("case %zu quotes the file: %s", i, err_text);
		assert_non_null(strstr(err_text, "not a mapscope recording"));
		free(err_text);
		kept = tu_slurp(e->out, NULL);
		assert_string_equal(kept, foreign[i]);
		free(kept);
	}

	/* A real recording with a damaged later line: still no bytes of that line. */
	assert_int_equal(unlink(e->out), 0);
	assert_int_equal(msrun_capture(args, NULL, NULL, NULL), 0);
	header = tu_slurp(e->out, NULL);
	nl = strchr(header, '\n');
	assert_non_null(nl);
	nl[1] = '\0';
	assert_true(asprintf(&bad, "%s{\"time\": TOPSECRET hunter2}\n", header) > 0);
	assert_int_equal(tu_spit(e->out, bad), 0);
	assert_int_equal(msrun_capture(args, NULL, NULL, &err_text), 1);
	if (strstr(err_text, "TOPSECRET") || strstr(err_text, "hunter2"))
		fail_msg("a damaged line is quoted: %s", err_text);
	assert_non_null(strstr(err_text, ":2:"));
	free(err_text);
	free(header);
	free(bad);
}

/* Continuing another user's recording takes --force (as root: chown). */
static void test_record_other_owner_needs_force(void **state)
{
	struct snapfix_env *e = *state;
	const char *args[] = { "record", e->pid, "-o", e->out, "--count", "1", NULL };
	const char *forced[] = { "record", e->pid, "-o", e->out, "--count", "1", "--force", NULL };
	char *err_text = NULL, *before, *after;

	if (geteuid() != 0) {
		printf("# skipped: needs root, to give the file to nobody\n");
		skip();
	}
	assert_int_equal(msrun_capture(args, NULL, NULL, NULL), 0);
	assert_int_equal(chown(e->out, 65534, 65534), 0);
	before = tu_slurp(e->out, NULL);
	assert_int_equal(msrun_capture(args, NULL, NULL, &err_text), 1);
	assert_non_null(strstr(err_text, "owned by uid 65534"));
	assert_non_null(strstr(err_text, "--force"));
	free(err_text);
	after = tu_slurp(e->out, NULL);
	assert_string_equal(before, after);
	free(after);
	assert_int_equal(fixture_command(&e->fx, "mapfile later.dat"), 0);
	assert_int_equal(msrun_capture(forced, NULL, NULL, &err_text), 0);
	assert_non_null(strstr(err_text, "appending"));
	free(err_text);
	after = tu_slurp(e->out, NULL);
	assert_true(strlen(after) > strlen(before));
	free(before);
	free(after);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t count_lines(const char *path)
{
	char *text = tu_slurp(path, NULL);
	size_t n = 0;

	for (char *p = text; p && *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

/* Wait for a child with a deadline; -1 if it is still running. */
static int wait_deadline(pid_t pid, int *status)
{
	long long deadline = now_ms() + 20000;

	while (now_ms() < deadline) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		poll(NULL, 0, 10);
	}
	return -1;
}

/* Poll until path has at least want lines, or the deadline; the count. */
static size_t wait_lines(const char *path, size_t want)
{
	long long deadline = now_ms() + 20000;

	while (count_lines(path) < want && now_ms() < deadline)
		poll(NULL, 0, 10);
	return count_lines(path);
}

/* record at 20 ms intervals, once it has written its header and first change. */
static pid_t start_recorder(struct snapfix_env *e)
{
	const char *args[] = { "record", e->pid, "-o", e->out, "--interval", "0.02", NULL };
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid_t rec;

	assert_true(devnull >= 0);
	rec = msrun_spawn(args, devnull, devnull);
	close(devnull);
	assert_true(rec > 0);
	assert_int_equal(wait_lines(e->out, 2), 2);
	return rec;
}

static void test_record_sigint_whole_lines(void **state)
{
	struct snapfix_env *e = *state;
	pid_t rec = start_recorder(e);
	size_t n;
	int status;

	/* A change while it runs, then Ctrl-C once that change is in. */
	assert_int_equal(fixture_command(&e->fx, "mapfile during.dat"), 0);
	assert_int_equal(wait_lines(e->out, 3), 3);
	assert_int_equal(kill(rec, SIGINT), 0);
	assert_int_equal(wait_deadline(rec, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	{
		json_t **l = lines_of(e->out, &n);

		free_lines(l, n);
	}
	assert_int_equal(n, 3);
}

static void test_record_ends_when_process_exits(void **state)
{
	struct snapfix_env *e = *state;
	pid_t rec = start_recorder(e);
	int status;
	size_t n;

	/* exit gets no answer; reaping it makes the PID vanish. */
	assert_int_equal(linechild_send(&e->fx.io, "exit"), 0);
	assert_int_equal(waitpid(e->fx.pid, NULL, 0), e->fx.pid);
	e->fx.pid = e->fx.io.pid = -1;
	assert_int_equal(wait_deadline(rec, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/*
	 * Header and the first state; a tick that caught the process on its
	 * way out (a sanitizer's exit-time work maps and unmaps) adds a change
	 * of it, and nothing else may follow.
	 */
	{
		json_t **l = lines_of(e->out, &n);

		assert_true(n >= 2 && n <= 4);
		for (size_t i = 1; i < n; i++) {
			assert_null(json_object_get(l[i], "mapscope"));
			assert_non_null(json_object_get(l[i], "added"));
		}
		free_lines(l, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record_twice_one_header, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_record_other_pid_refused, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_record_foreign_file_not_quoted, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_record_other_owner_needs_force, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_record_sigint_whole_lines, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_record_ends_when_process_exits, snapfix_env_setup, snapfix_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
