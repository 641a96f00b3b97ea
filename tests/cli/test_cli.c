/*
 * The mapscope binary as a user runs it: list and at on the fixture, in
 * table, raw and JSON modes, with filters, column choices, and the exit
 * statuses and messages of the failure cases.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "base/escape.h"
#include "fixture_client.h"
#include "msrun.h"
#include "testutil.h"

/* Every run in a UTF-8 locale, with room for the 65,000-row listing. */
static const struct msrun_opts utf8 = { .locale = "C.UTF-8", .timeout_ms = 60000 };

#define RUN(...) MSRUN(&utf8, __VA_ARGS__)

static void assert_no_control_bytes(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
			fail_msg("raw control byte 0x%02x at offset %zu", *p, (size_t)(p - (const unsigned char *)s));
}

static const char *pid_arg(const struct fixture *fx)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), "%d", (int)fx->pid);
	return buf;
}

static json_t *find_by_start(json_t *maps, uint64_t start)
{
	char hex[32];
	size_t i;
	json_t *m;

	snprintf(hex, sizeof(hex), "%" PRIx64, start);
	json_array_foreach(maps, i, m)
		if (!strcmp(json_string_value(json_object_get(m, "start")), hex))
			return m;
	return NULL;
}

static void check_json(const struct fixture *fx, const char *backend)
{
	char opt[32];
	struct msrun_result r;
	json_error_t jerr;
	json_t *root, *maps;

	snprintf(opt, sizeof(opt), "--backend=%s", backend);
	/* No -b: JSON sizes are numbers of bytes by default, as lsblk -J -b. */
	r = RUN("list", pid_arg(fx), "-J", opt);
	assert_int_equal(r.status, 0);
	assert_no_control_bytes(r.out);
	root = json_loads(r.out, 0, &jerr);
	if (!root)
		fail_msg("invalid JSON (%s) at line %d: %s", backend, jerr.line, jerr.text);
	maps = json_object_get(root, "mappings");
	assert_true(json_is_array(maps));
	for (size_t i = 0; i < fx->count; i++) {
		const struct fx_map *want = &fx->maps[i];
		json_t *got = find_by_start(maps, want->start);
		char *escaped = ms_escape_dup(want->name ? want->name : "", want->name_len, 0);

		if (!got)
			fail_msg("%s: fixture mapping %s missing from JSON", backend, want->kind);
		assert_string_equal(json_string_value(json_object_get(got, "perms")), want->perms);
		assert_true(json_is_integer(json_object_get(got, "size")));
		assert_int_equal(json_integer_value(json_object_get(got, "size")), want->end - want->start);
		/* Addresses stay hex strings, as util-linux prints them. */
		assert_true(json_is_string(json_object_get(got, "start")));
		/* libsmartcols writes an empty cell as null, as lsblk does. */
		if (want->name_len)
			assert_string_equal(json_string_value(json_object_get(got, "name")), escaped);
		else
			assert_true(json_is_null(json_object_get(got, "name")));
		free(escaped);
	}
	json_decref(root);
	msrun_free(&r);
}

static void test_list_json_both_backends(void **state)
{
	check_json(*state, "ioctl");
	check_json(*state, "text");
}

static void test_list_modes_are_safe(void **state)
{
	const struct fixture *fx = *state;
	const char *modes[] = { "-n", "-r", "-J" };

	for (size_t i = 0; i < 3; i++) {
		struct msrun_result r = RUN("list", pid_arg(fx), modes[i]);
		const struct fx_map *esc = fixture_find(fx, "escape");
		char hex[32];

		assert_int_equal(r.status, 0);
		assert_no_control_bytes(r.out);
		snprintf(hex, sizeof(hex), "%" PRIx64, esc->start);
		assert_non_null(strstr(r.out, hex));
		/* The ESC of the hostile name shows as text. */
		assert_non_null(strstr(r.out, "x1b[31mred"));
		msrun_free(&r);
	}
}

static void test_list_filters_and_columns(void **state)
{
	const struct fixture *fx = *state;
	struct msrun_result r = RUN("list", pid_arg(fx), "--file-backed", "--perms=r-x", "-r", "-n", "-o", "PERMS,INODE,NAME");
	char *line, *save = NULL;
	size_t rows = 0;

	assert_int_equal(r.status, 0);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char perms[8];
		unsigned long long inode;

		assert_int_equal(sscanf(line, "%7s %llu", perms, &inode), 2);
		assert_int_equal(perms[0], 'r');
		assert_int_equal(perms[2], 'x');
		assert_true(inode != 0);
		rows++;
	}
	assert_true(rows >= 2); /* the fixture's code.bin, its own text, libc... */
	assert_non_null(strstr(r.err, "") );
	msrun_free(&r);

	r = RUN("list", pid_arg(fx), "-o", "+BUILDID,PAGESIZE", "-n");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "4K"));
	msrun_free(&r);

	r = RUN("list", pid_arg(fx), "-o", "START,NOPE");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown column: NOPE"));
	msrun_free(&r);

	r = RUN("list", pid_arg(fx), "--perms=rq");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "'q'"));
	msrun_free(&r);
}

static void test_at(void **state)
{
	const struct fixture *fx = *state;
	const struct fx_map *rx = fixture_find(fx, "file-rx");
	const struct fx_map *shared = fixture_find(fx, "file-shared");
	char addr[32], want[32];
	struct msrun_result r;

	snprintf(addr, sizeof(addr), "0x%" PRIx64, rx->start + 0x10);
	r = RUN("at", pid_arg(fx), addr, "-r", "-n", "-o", "FILEOFF,START");
	assert_int_equal(r.status, 0);
	snprintf(want, sizeof(want), "%" PRIx64 " %" PRIx64 "\n", rx->offset + 0x10, rx->start);
	assert_string_equal(r.out, want);
	msrun_free(&r);

	/* The gap after a mapping: nothing covers it. */
	snprintf(addr, sizeof(addr), "%" PRIx64, shared->end);
	r = RUN("at", pid_arg(fx), addr);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no mapping covers"));
	assert_non_null(strstr(r.err, pid_arg(fx)));
	msrun_free(&r);

	r = RUN("at", pid_arg(fx), "0xzz");
	assert_int_equal(r.status, 2);
	msrun_free(&r);
}

static void test_failures(void **state)
{
	struct fixture gone;
	struct msrun_result r;
	char pid[16];

	(void)state;
	assert_int_equal(fixture_start(&gone), 0);
	snprintf(pid, sizeof(pid), "%d", (int)gone.pid);
	fixture_stop(&gone);
	r = RUN("list", pid);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, pid));
	assert_non_null(strstr(r.err, "no such process"));
	assert_string_equal(r.out, "");
	msrun_free(&r);

	r = RUN("list", "12abc");
	assert_int_equal(r.status, 2);
	msrun_free(&r);
	r = RUN("list");
	assert_int_equal(r.status, 2);
	msrun_free(&r);
	r = RUN("frobnicate");
	assert_int_equal(r.status, 2);
	msrun_free(&r);
	r = RUN("--version");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, PACKAGE_VERSION));
	msrun_free(&r);
	r = RUN("--help");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "list PID"));
	msrun_free(&r);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Long listings go out in chunks: every row is there once, and the columns line up. */
static void test_long_listing_streams_aligned(void **state)
{
	pid_t pid = tu_spawn_many(5000);
	char pidarg[16], *line, *save = NULL;
	struct msrun_result table, raw, json;
	size_t rows = 0, perms_at = 0, name_at = 0;
	json_error_t jerr;
	json_t *root;

	(void)state;
	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	table = RUN("list", pidarg);
	raw = RUN("list", pidarg, "-r");
	json = RUN("list", pidarg, "-J");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(table.status, 0);
	assert_int_equal(raw.status, 0);
	assert_int_equal(json.status, 0);
	assert_true(count_lines(raw.out) > 5000);
	assert_int_equal(count_lines(table.out), count_lines(raw.out));
	root = json_loads(json.out, 0, &jerr);
	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "mappings")) + 1, count_lines(raw.out));
	json_decref(root);
	/* The header's PERMS and NAME columns start where every row's do. */
	for (line = strtok_r(table.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), rows++) {
		const char *perms = rows ? strpbrk(line, "r-") : strstr(line, "PERMS");
		const char *p;

		if (rows == 0) {
			perms_at = (size_t)(perms - line);
			name_at = (size_t)(strstr(line, "NAME") - line);
			continue;
		}
		/* PERMS is left-aligned: r--p / rw-p at the header's column. */
		for (p = line + perms_at; p > line && p[-1] != ' '; p--)
			;
		if ((size_t)(p - line) != perms_at || (line[perms_at] != 'r' && line[perms_at] != '-'))
			fail_msg("row %zu does not line up: '%s'", rows, line);
		assert_true(strlen(line) >= name_at);
	}
	msrun_free(&table);
	msrun_free(&raw);
	msrun_free(&json);
}

static void test_write_errors(void **state)
{
	const struct fixture *fx = *state;
	struct msrun_result r;

	if (access("/dev/full", W_OK) != 0) {
		printf("# skipped: /dev/full is not available\n");
		skip();
	}
	r = MSRUN(&((struct msrun_opts){ .out = MSRUN_DEV_FULL, .locale = "C.UTF-8" }), "list", pid_arg(fx));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "write error"));
	msrun_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_json_both_backends),
		cmocka_unit_test(test_list_modes_are_safe),
		cmocka_unit_test(test_list_filters_and_columns),
		cmocka_unit_test(test_at),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_long_listing_streams_aligned),
		cmocka_unit_test(test_write_errors),
	};

	return cmocka_run_group_tests_name("cli", tests, fixture_setup, fixture_teardown);
}
