/*
 * Hostile names, command lines and command names, end to end through the
 * batch commands: tests/ms-hostile maps files named with escape sequences
 * (CSI, OSC, OSC 52), BEL, CR, newline, C1, bidi overrides, invalid UTF-8,
 * a 4,000-byte path and a name really ending in " (deleted)", from a
 * command line and a comm made of the same bytes.  For list, stale, who,
 * diff and snapshot, in table, raw and JSON modes: no raw control byte
 * reaches the output, the JSON parses, every name escapes reversibly (two
 * names never print the same), and table columns line up after escaping.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/base/escape.h"
#include "core/proc/proc.h"
#include "core/procs/proclist.h"
#include "core/maps/maps.h"
#include "core/stale/stale.h"
#include "safe_text.h"
#include "fixture_client.h"
#include "msrun.h"
#include "testutil.h"

/* ms-hostile, running with its mappings: one per test program. */
static struct fixture hx;

static int setup(void **state)
{
	(void)state;
	return fixture_start_with(&hx, &(struct fixture_opts){ .prog = "ms-hostile" });
}

static int teardown(void **state)
{
	(void)state;
	fixture_stop(&hx);
	return 0;
}

static const struct fx_map *find_kind(const char *kind)
{
	const struct fx_map *m = fixture_find(&hx, kind);

	if (m)
		return m;
	fail_msg("ms-hostile did not map %s", kind);
	abort(); /* not reached: fail_msg ends the test */
}

static void assert_safe(const char *what, const char *out)
{
	const char *why = safe_text_problem(out, strlen(out), 1);

	if (why)
		fail_msg("%s: the output holds %s", what, why);
}

/* Run mapscope with up to 8 args; the output is checked safe; returns it. */
static char *run_safe(int want_status, const char *a0, ...)
{
	const char *args[10] = { a0 };
	size_t n = 1;
	va_list ap;
	char *out;
	int status;

	va_start(ap, a0);
	while (n < 9 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	status = msrun_capture(args, NULL, &out, NULL);
	assert_non_null(out);
	if (want_status >= 0 && status != want_status)
		fail_msg("mapscope %s %s: exit %d, wanted %d", a0, args[1] ? args[1] : "", status,
			 want_status);
	assert_safe(a0, out);
	return out;
}

static json_t *parse_json(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("not valid JSON: %s (line %d)", jerr.text, jerr.line);
	return root;
}

/* The raw bytes of a printed name; fails if it is not reversible. */
static char *unescape(const char *printed, size_t *len)
{
	size_t n = strlen(printed);
	char *raw = malloc(n + 1);

	assert_non_null(raw);
	*len = ms_unescape(printed, n, raw);
	if (*len == (size_t)-1)
		fail_msg("not a reversible escape: %s", printed);
	return raw;
}

static void test_list_every_mode(void **state)
{
	/* Raw mode has libsmartcols encode the backslash and the space once more. */
	static const struct {
		const char *opt[2];
		const char *osc52, *deleted;
	} modes[] = {
		{ { NULL }, "\\x1b]52;c;", "really (deleted)" },
		{ { "-n", "-b" }, "\\x1b]52;c;", "really (deleted)" },
		{ { "-o", "+BUILDID,INODE" }, "\\x1b]52;c;", "really (deleted)" },
		{ { "-r", NULL }, "\\x5cx1b]52;c;", "really\\x20(deleted)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char *out = run_safe(0, "list", hx.pidstr, modes[i].opt[0], modes[i].opt[1], NULL);

		assert_non_null(strstr(out, modes[i].osc52));
		assert_non_null(strstr(out, modes[i].deleted));
		free(out);
	}
}

/* JSON: valid, and each name unescapes to exactly the kernel's bytes. */
static void check_list_json_reversible(const char *backend)
{
	char *out = run_safe(0, "list", hx.pidstr, "-J", backend, NULL);
	json_t *root = parse_json(out), *maps = json_object_get(root, "mappings"), *m;
	size_t i, matched = 0;

	assert_true(json_is_array(maps));
	json_array_foreach(maps, i, m) {
		uint64_t start = strtoull(json_string_value(json_object_get(m, "start")), NULL, 16);
		const char *name = json_string_value(json_object_get(m, "name"));

		for (size_t k = 0; k < hx.count; k++) {
			size_t len;
			char *raw;

			if (hx.maps[k].start != start)
				continue;
			assert_non_null(name);
			raw = unescape(name, &len);
			if (len != hx.maps[k].name_len || memcmp(raw, hx.maps[k].name, len))
				fail_msg("%s: the JSON name %s does not give back the kernel's name (%zu bytes, want %zu)",
					 hx.maps[k].kind, name, len, hx.maps[k].name_len);
			free(raw);
			matched++;
		}
	}
	assert_int_equal(matched, hx.count);
	json_decref(root);
	free(out);
}

static void test_list_json_reversible(void **state)
{
	(void)state;
	check_list_json_reversible(NULL);
}

/*
 * The text prints "nl-\nsecond line" and "nl-\\012second line" alike; the
 * text backend asks PROCMAP_QUERY which is which, so both come out exact.
 */
static void test_text_backend_names_exact(void **state)
{
	(void)state;
	check_list_json_reversible("--backend=text");
}

static int fake_notty(int fd, unsigned long request, void *arg)
{
	(void)fd, (void)request, (void)arg;
	errno = ENOTTY;
	return -1;
}

/* The mapping at start in maps's list; fails the test if there is none. */
static const struct ms_mapping *mapping_at(const struct ms_maplist *list, uint64_t start)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->items[i].start == start)
			return &list->items[i];
	fail_msg("no mapping at %" PRIx64, start);
	abort(); /* not reached */
}

/*
 * Without the ioctl the text cannot say which of the two it is: both are
 * marked ambiguous and judged "unknown", never looked up (a lookup would
 * find the other file and call it replaced).  Any other name is not.
 */
static void test_text_names_ambiguous_without_ioctl(void **state)
{
	static const ms_ioctl_fn fns[] = { fake_notty, NULL };
	const char *kinds[] = { "newline", "newline-text" };
	struct ms_error err = { 0 };
	struct ms_stale_ctx *ctx;
	struct ms_proc *proc;

	(void)state;
	assert_int_equal(ms_proc_open(hx.pid, &proc, &err), 0);
	assert_int_equal(ms_stale_ctx_new(NULL, &ctx, &err), 0);
	for (size_t f = 0; f < 2; f++) {
		struct ms_maps_opts mo = { .backend = MS_BACKEND_TEXT, .ioctl_fn = fns[f] };
		struct ms_maplist list = { 0 };
		struct ms_maps *maps;

		assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
		assert_int_equal(ms_maps_collect(maps, 0, &list, &err), 0);
		for (size_t k = 0; k < 2; k++) {
			const struct fx_map *want = find_kind(kinds[k]);
			const struct ms_mapping *m = mapping_at(&list, want->start);
			struct ms_stale_result res;

			assert_int_equal(m->name_ambiguous, fns[f] == fake_notty);
			assert_int_equal(ms_stale_judge(ctx, maps, m, &res), 0);
			if (fns[f] == fake_notty) {
				assert_int_equal(res.verdict, MS_STALE_UNKNOWN);
				assert_non_null(strstr(res.why, "newline"));
			} else {
				assert_int_equal(m->name_len, want->name_len);
				assert_memory_equal(m->name, want->name, want->name_len);
				assert_int_equal(res.verdict, MS_STALE_OK);
			}
		}
		assert_false(mapping_at(&list, find_kind("osc52")->start)->name_ambiguous);
		ms_maplist_free(&list);
		ms_maps_close(maps);
	}
	ms_stale_ctx_free(ctx);
	ms_proc_close(proc);
}

/* Different names print differently: the twins "x\x1b" and "x\\x1b". */
static void test_names_never_print_the_same(void **state)
{
	char *out = run_safe(0, "list", hx.pidstr, "-n", "-o", "START,NAME", NULL);
	const struct fx_map *raw = find_kind("twin-raw"), *text = find_kind("twin-text");
	char *a, *b;

	(void)state;
	assert_true(asprintf(&a, "%" PRIx64 " %s/twin-\\x1b\n", raw->start, hx.dir) > 0);
	assert_true(asprintf(&b, "%" PRIx64 " %s/twin-\\\\x1b\n", text->start, hx.dir) > 0);
	if (!strstr(out, a) || !strstr(out, b))
		fail_msg("the twins do not print as %s and %s", a, b);
	free(a);
	free(b);
	free(out);
}

/* Widths are measured after escaping: every row of a table is as wide. */
static void test_table_columns_line_up(void **state)
{
	static const char *const locales[] = { "C.UTF-8", "C" };

	(void)state;
	for (size_t l = 0; l < 2; l++) {
		char *out, *line, *save = NULL;
		size_t width = 0, rows = 0;

		setenv("LC_ALL", locales[l], 1);
		out = run_safe(0, "list", hx.pidstr, "-o", "NAME,PERMS,START", NULL);
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			/* Escaped output is ASCII here, so bytes are columns. */
			size_t w = strlen(line);

			if (rows++ == 0)
				width = w;
			else if (w != width)
				fail_msg("LC_ALL=%s: a row %zu columns wide under a %zu-column header: %s",
					 locales[l], w, width, line);
		}
		assert_true(rows > hx.count);
		free(out);
	}
	unsetenv("LC_ALL");
}

/* LANG=C: mapscope works and prints pure ASCII. */
static void test_lang_c_is_ascii(void **state)
{
	char *out;

	(void)state;
	setenv("LC_ALL", "C", 1);
	out = run_safe(0, "list", hx.pidstr, NULL);
	unsetenv("LC_ALL");
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		if (*p >= 0x80)
			fail_msg("LC_ALL=C: a non-ASCII byte 0x%02x", *p);
	assert_non_null(strstr(out, "bidi-\\xe2\\x80\\xae"));
	free(out);
}

static const char *verdict_of(json_t *root, const char *dir, const char *label_name)
{
	json_t *procs = json_object_get(root, "processes"), *p, *f;
	size_t i, k;
	char *want;
	const char *verdict = NULL;

	assert_true(asprintf(&want, "%s/%s", dir, label_name) > 0);
	json_array_foreach(procs, i, p)
		json_array_foreach(json_object_get(p, "children"), k, f)
			if (!strcmp(json_string_value(json_object_get(f, "name")), want))
				verdict = json_string_value(json_object_get(f, "verdict"));
	free(want);
	return verdict;
}

/*
 * stale: an empty ignore file, so the files under the temp dir get real
 * verdicts; the gone ones are deleted, "really (deleted)" is not.
 */
static void test_stale_every_mode(void **state)
{
	char *empty = tu_join(hx.dir, "empty-ignore"), *opt, *out;
	json_t *root;
	int fd;

	(void)state;
	fd = open(empty, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_true(asprintf(&opt, "--ignore-file=%s", empty) > 0);
	free(run_safe(1, "stale", hx.pidstr, opt, "--show=all", NULL));
	free(run_safe(1, "stale", hx.pidstr, opt, "--show=all", "-r", NULL));
	free(run_safe(1, "stale", hx.pidstr, opt, "--show=all", "--by-file", NULL));
	free(run_safe(1, "stale", hx.pidstr, opt, "--by-file", "-J", NULL));
	free(run_safe(1, "stale", hx.pidstr, opt, "--openmetrics", NULL));

	out = run_safe(1, "stale", hx.pidstr, opt, "--show=all", "-J", NULL);
	root = parse_json(out);
	assert_string_equal(verdict_of(root, hx.dir, "osc52-\\x1b]52;c;cm0gLXJmIC8K\\x07-gone (deleted)"),
			    "deleted");
	assert_string_equal(verdict_of(root, hx.dir, "really (deleted)"), "ok");
	assert_string_equal(verdict_of(root, hx.dir, "really (deleted)-gone (deleted)"), "deleted");
	/* The process's own name is its hostile comm, escaped. */
	assert_non_null(strstr(out, "\"\\\\x1b[7m\\\\x07host\\\\x1b]0;x\""));
	json_decref(root);
	free(out);
	free(opt);
	free(empty);
}

static void test_who_every_mode(void **state)
{
	const struct fx_map *m = find_kind("osc52");
	char *out;
	json_t *root;

	(void)state;
	free(run_safe(0, "who", m->name, NULL));
	free(run_safe(0, "who", m->name, "-r", "-o", "+COMM,BUILDID", NULL));
	out = run_safe(0, "who", m->name, "-J", NULL);
	root = parse_json(out);
	assert_non_null(strstr(out, "\\\\x1b]52;c;cm0gLXJmIC8K\\\\x07"));
	json_decref(root);
	free(out);
}

/* libs: every output mode safe; the hostile names and comm escaped in JSON, once per file. */
static void test_libs_every_mode(void **state)
{
	char *pid, *out;
	json_t *root;

	(void)state;
	assert_true(asprintf(&pid, "--pid=%s", hx.pidstr) > 0);
	free(run_safe(0, "libs", pid, "--all-mappings", NULL));
	free(run_safe(0, "libs", pid, "--all-mappings", "-r", NULL));
	free(run_safe(0, "libs", pid, "--all-mappings", "--pids", NULL));
	free(run_safe(0, "libs", pid, "--all-mappings", "-o", "+SONAME,BUILDID,WHY,RSS", NULL));
	out = run_safe(0, "libs", pid, "--all-mappings", "--pids", "-J", NULL);
	root = parse_json(out);
	assert_true(json_is_array(json_object_get(root, "libraries")));
	assert_non_null(strstr(out, "osc52-\\\\x1b]52;c;cm0gLXJmIC8K\\\\x07-gone (deleted)\""));
	assert_non_null(strstr(out, "\"\\\\x1b[7m\\\\x07host\\\\x1b]0;x\""));
	json_decref(root);
	free(out);
	free(pid);
}

/* snapshot and diff: the file and the diff against another process. */
static void test_snapshot_and_diff(void **state)
{
	char *file = tu_join(hx.dir, "snap.json"), *text, *out, *raw, *cmdline;
	char self[16], path[64];
	json_t *root;
	size_t len, cmdline_len = 0;
	FILE *f;

	(void)state;
	free(run_safe(0, "snapshot", hx.pidstr, "-o", file, NULL));
	f = fopen(file, "r");
	assert_non_null(f);
	text = calloc(1, 1 << 20);
	assert_non_null(text);
	len = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(len > 0);
	assert_safe("the snapshot file", text);
	root = parse_json(text);
	/* The header's command line gives back /proc/PID/cmdline exactly. */
	raw = unescape(json_string_value(json_object_get(json_object_get(root, "header"), "cmdline")), &len);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)hx.pid);
	f = fopen(path, "r");
	assert_non_null(f);
	cmdline = calloc(1, 65536);
	assert_non_null(cmdline);
	cmdline_len = fread(cmdline, 1, 65536, f);
	fclose(f);
	assert_int_equal(len, cmdline_len);
	assert_memory_equal(raw, cmdline, len);
	assert_non_null(memmem(cmdline, cmdline_len, "\x1b]52;c;", 7));
	json_decref(root);
	free(raw);
	free(cmdline);
	free(text);

	snprintf(self, sizeof(self), "%d", (int)getpid());
	free(run_safe(1, "diff", file, self, NULL));
	free(run_safe(1, "diff", file, self, "-r", NULL));
	out = run_safe(1, "diff", file, self, "-J", NULL);
	root = parse_json(out);
	assert_non_null(strstr(out, "bidi-\\\\xe2\\\\x80\\\\xae"));
	json_decref(root);
	free(out);
	/* By file: the same names, as paths. */
	free(run_safe(1, "diff", "--by-file", file, self, NULL));
	out = run_safe(1, "diff", "--by-file", file, self, "-J", NULL);
	root = parse_json(out);
	assert_non_null(strstr(out, "bidi-\\\\xe2\\\\x80\\\\xae"));
	json_decref(root);
	free(out);
	free(file);
}

/*
 * A zombie shows as "[comm]"; with a hostile comm both process-list sources
 * must give the same raw bytes (libproc2 drops control bytes from comm).
 */
static void test_proclist_sources_agree_on_hostile_comm(void **state)
{
	static const char comm[] = "\x1b[7m\x07zz\x1b]0;x";
	static const enum ms_proclist_source srcs[] = { MS_PROCLIST_PROCFS, MS_PROCLIST_LIBPROC2 };
	struct ms_proclist lists[2] = { { 0 }, { 0 } };
	struct ms_proc *proc;
	struct ms_error err;
	time_t deadline = time(NULL) + 10;
	const struct ms_procrow *rows[2];
	pid_t child;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		prctl(PR_SET_NAME, comm);
		_exit(0);
	}
	assert_int_equal(ms_proc_open(child, &proc, &err), 0);
	while (ms_proc_liveness(proc) != MS_PROC_ZOMBIE)
		assert_true(time(NULL) < deadline);
	ms_proc_close(proc);
	for (size_t i = 0; i < 2; i++) {
		size_t at;
		int rc = ms_proclist_scan(srcs[i], 0, &lists[i], &err);

		if (rc == MS_ERR_NOTSUP) {
			rows[i] = NULL;
			continue;
		}
		assert_int_equal(rc, 0);
		at = ms_proclist_find(&lists[i], child);
		assert_true(at < lists[i].count);
		rows[i] = &lists[i].rows[at];
		assert_string_equal(rows[i]->cmd, "[\x1b[7m\x07zz\x1b]0;x]");
	}
	if (rows[0] && rows[1]) {
		assert_int_equal(rows[0]->cmd_len, rows[1]->cmd_len);
		assert_memory_equal(rows[0]->cmd, rows[1]->cmd, rows[0]->cmd_len);
	}
	ms_proclist_free(&lists[0]);
	ms_proclist_free(&lists[1]);
	waitpid(child, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_every_mode),
		cmocka_unit_test(test_list_json_reversible),
		cmocka_unit_test(test_text_backend_names_exact),
		cmocka_unit_test(test_text_names_ambiguous_without_ioctl),
		cmocka_unit_test(test_names_never_print_the_same),
		cmocka_unit_test(test_table_columns_line_up),
		cmocka_unit_test(test_lang_c_is_ascii),
		cmocka_unit_test(test_stale_every_mode),
		cmocka_unit_test(test_who_every_mode),
		cmocka_unit_test(test_libs_every_mode),
		cmocka_unit_test(test_snapshot_and_diff),
		cmocka_unit_test(test_proclist_sources_agree_on_hostile_comm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
