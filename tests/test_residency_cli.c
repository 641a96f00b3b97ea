/*
 * RSS and SWAP in `list`: with -b -J every mapping's numbers equal what
 * /proc/PID/smaps says, the default columns leave residency out, and
 * human-readable sizes follow the SIZE column's style.
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

static json_t *list_json(pid_t pid, const char *columns)
{
	char pidarg[16], *out = NULL;
	json_error_t jerr;
	json_t *root;

	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	assert_int_equal(snapfix_run((const char *const[]){ "list", pidarg, "-J", "-b", "-o", columns, NULL },
				     NULL, &out, NULL), 0);
	root = json_loads(out, 0, &jerr);
	if (!root)
		fail_msg("not JSON: %s", jerr.text);
	free(out);
	return root;
}

static uint64_t hexval(json_t *v)
{
	return strtoull(json_string_value(v), NULL, 16);
}

static void test_list_rss_equals_smaps(void **state)
{
	struct fixture *fx = *state;
	time_t deadline = time(NULL) + 20;

	for (;;) {
		struct smaps_set before, after;
		json_t *root, *maps, *m;
		size_t i, bad = 0;

		assert_int_equal(resfix_read_smaps(fx->pid, &before), 0);
		root = list_json(fx->pid, "START,END,RSS,SWAP");
		assert_int_equal(resfix_read_smaps(fx->pid, &after), 0);
		maps = json_object_get(root, "mappings");
		assert_true(json_array_size(maps) + 1 >= after.count); /* [vsyscall]: text only */
		json_array_foreach(maps, i, m) {
			const struct smaps_rec *s = resfix_smaps_find(&after, hexval(json_object_get(m, "start")),
								      hexval(json_object_get(m, "end")));

			assert_non_null(s);
			assert_true(json_is_integer(json_object_get(m, "rss")));
			if ((uint64_t)json_integer_value(json_object_get(m, "rss")) != s->rss ||
			    (uint64_t)json_integer_value(json_object_get(m, "swap")) != s->swap)
				bad++;
		}
		json_decref(root);
		if (!resfix_smaps_same(&before, &after) && time(NULL) < deadline) {
			free(before.recs);
			free(after.recs);
			continue;
		}
		free(before.recs);
		free(after.recs);
		assert_int_equal(bad, 0);
		break;
	}
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
