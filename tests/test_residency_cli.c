/*
 * RSS and SWAP in `list`: with -b -J every mapping's numbers equal what
 * /proc/PID/smaps says, the default columns leave residency out, and
 * human-readable sizes follow the SIZE column's style.  `who` fills the
 * same columns for the mappings it finds.
 */
#include "config.h"

#include <inttypes.h>
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
#include <jansson.h>

#include "resfix.h"
#include "snapfix.h"

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	assert_int_equal(resfix_start(fx), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture_stop(*state);
	free(*state);
	return 0;
}

static json_t *run_json(const char *const *args)
{
	char *out = NULL;
	json_error_t jerr;
	json_t *root;

	assert_int_equal(snapfix_run(args, NULL, &out, NULL), 0);
	root = json_loads(out, 0, &jerr);
	if (!root)
		fail_msg("not JSON: %s", jerr.text);
	free(out);
	return root;
}

static json_t *list_json(pid_t pid, const char *columns)
{
	char pidarg[16];

	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	return run_json((const char *const[]){ "list", pidarg, "-J", "-b", "-o", columns, NULL });
}

static uint64_t hexval(json_t *v)
{
	return strtoull(json_string_value(v), NULL, 16);
}

/*
 * Mappings (of pid, when the rows carry a "pid") whose rss and swap differ
 * from smaps; *rows counts the rows compared.
 */
static size_t count_unlike_smaps(json_t *maps, pid_t pid, const struct smaps_set *smaps,
				 size_t *rows)
{
	size_t i, bad = 0;
	json_t *m;

	*rows = 0;
	json_array_foreach(maps, i, m) {
		json_t *owner = json_object_get(m, "pid");
		const struct smaps_rec *s;

		if (owner && json_integer_value(owner) != pid)
			continue;
		s = resfix_smaps_find(smaps, hexval(json_object_get(m, "start")),
				      hexval(json_object_get(m, "end")));
		assert_non_null(s);
		assert_true(json_is_integer(json_object_get(m, "rss")));
		assert_true(json_is_integer(json_object_get(m, "swap")));
		(*rows)++;
		if ((uint64_t)json_integer_value(json_object_get(m, "rss")) != s->rss ||
		    (uint64_t)json_integer_value(json_object_get(m, "swap")) != s->swap)
			bad++;
	}
	return bad;
}

/*
 * Run a command printing "mappings" with START, END, RSS and SWAP until
 * smaps was the same before and after it (the fixture is quiescent, but
 * the kernel may still settle pages), then compare.  Returns the rows.
 */
static size_t expect_smaps_numbers(pid_t pid, const char *const *args)
{
	time_t deadline = time(NULL) + 20;

	for (;;) {
		struct smaps_set before, after;
		size_t rows, bad;
		json_t *root;

		assert_int_equal(resfix_read_smaps(pid, &before), 0);
		root = run_json(args);
		assert_int_equal(resfix_read_smaps(pid, &after), 0);
		bad = count_unlike_smaps(json_object_get(root, "mappings"), pid, &after, &rows);
		json_decref(root);
		if (!resfix_smaps_same(&before, &after) && time(NULL) < deadline) {
			free(before.recs);
			free(after.recs);
			continue;
		}
		free(before.recs);
		free(after.recs);
		assert_int_equal(bad, 0);
		return rows;
	}
}

static void test_list_rss_equals_smaps(void **state)
{
	struct fixture *fx = *state;
	struct smaps_set smaps;
	char pidarg[16];
	size_t rows;

	snprintf(pidarg, sizeof(pidarg), "%d", (int)fx->pid);
	rows = expect_smaps_numbers(fx->pid, (const char *const[]){ "list", pidarg, "-J", "-b", "-o",
								  "START,END,RSS,SWAP", NULL });
	assert_int_equal(resfix_read_smaps(fx->pid, &smaps), 0);
	assert_true(rows + 1 >= smaps.count); /* [vsyscall]: text only */
	free(smaps.recs);
}

/* who: the fixture's file mapping, with the numbers smaps has for it. */
static void test_who_rss_equals_smaps(void **state)
{
	struct fixture *fx = *state;
	const struct fx_map *f = fixture_find(fx, "file-partial");
	long page = sysconf(_SC_PAGESIZE);
	char *path = NULL;
	json_t *root, *m;
	size_t i, rows = 0;

	assert_non_null(f);
	assert_true(asprintf(&path, "%s/partial.dat", fx->dir) > 0);
	assert_int_equal(expect_smaps_numbers(fx->pid, (const char *const[]){ "who", path, "-J", "-b", "-o",
									  "PID,START,END,RSS,SWAP", NULL }), 1);
	/* Two pages were read, MADV_RANDOM: exactly those are resident. */
	root = run_json((const char *const[]){ "who", path, "-J", "-b", "-o", "PID,START,RSS", NULL });
	json_array_foreach(json_object_get(root, "mappings"), i, m) {
		if (json_integer_value(json_object_get(m, "pid")) != fx->pid)
			continue;
		assert_int_equal(hexval(json_object_get(m, "start")), f->start);
		assert_int_equal(json_integer_value(json_object_get(m, "rss")), 2 * page);
		rows++;
	}
	assert_int_equal(rows, 1);
	json_decref(root);
	free(path);
}

static void test_list_known_pages_and_default(void **state)
{
	struct fixture *fx = *state;
	const struct fx_map *w = fixture_find(fx, "anon-written");
	json_t *root = list_json(fx->pid, "START,RSS"), *m;
	long page = sysconf(_SC_PAGESIZE);
	size_t i;
	bool seen = false;

	assert_non_null(w);
	json_array_foreach(json_object_get(root, "mappings"), i, m) {
		if (hexval(json_object_get(m, "start")) == w->start) {
			assert_int_equal(json_integer_value(json_object_get(m, "rss")), 5 * page);
			seen = true;
		}
	}
	assert_true(seen);
	json_decref(root);

	/* The default columns do not pay for a page walk. */
	root = list_json(fx->pid, "+BUILDID");
	assert_null(json_object_get(json_array_get(json_object_get(root, "mappings"), 0), "rss"));
	json_decref(root);
}

static void test_list_human_sizes(void **state)
{
	struct fixture *fx = *state;
	const struct fx_map *w = fixture_find(fx, "thp-written");
	char pidarg[16], *out = NULL, want[64];

	assert_non_null(w);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)fx->pid);
	assert_int_equal(snapfix_run((const char *const[]){ "list", pidarg, "-r", "-n", "-o", "START,RSS,SWAP", NULL },
				     NULL, &out, NULL), 0);
	/* 2 MiB written of 4 MiB; nothing swapped. */
	snprintf(want, sizeof(want), "%" PRIx64 " 2M 0B\n", w->start);
	if (!strstr(out, want))
		fail_msg("no line '%s' in:\n%s", want, out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_rss_equals_smaps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_known_pages_and_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_human_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_rss_equals_smaps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
