/*
 * RSS and SWAP in `list`: with -J (numbers of bytes by default) every mapping's numbers equal what
 * /proc/PID/smaps says, the default columns leave residency out, and
 * human-readable sizes follow the SIZE column's style.  `who` fills the
 * same columns for the mappings it finds.  `snapshot --residency` keeps
 * smaps' numbers through a file and back, and `diff` shows the growth when
 * the fixture writes more pages ("grow"): a change only with --residency.
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

#include "core/snap/snapshot.h"
#include "resfix.h"
#include "snapfix.h"

static json_t *run_json(const char *const *args)
{
	char *out = NULL;
	json_error_t jerr;
	json_t *root;

	assert_int_equal(msrun_capture(args, NULL, &out, NULL), 0);
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
	return run_json((const char *const[]){ "list", pidarg, "-J", "-o", columns, NULL });
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
	assert_int_equal(expect_smaps_numbers(fx->pid, (const char *const[]){ "who", path, "-J", "-o",
									  "PID,START,END,RSS,SWAP", NULL }), 1);
	/* Two pages were read, MADV_RANDOM: exactly those are resident. */
	root = run_json((const char *const[]){ "who", path, "-J", "-o", "PID,START,RSS", NULL });
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
	assert_int_equal(msrun_capture((const char *const[]){ "list", pidarg, "-r", "-n", "-o", "START,RSS,SWAP", NULL },
				     NULL, &out, NULL), 0);
	/* 2 MiB written of 4 MiB; nothing swapped. */
	snprintf(want, sizeof(want), "%" PRIx64 " 2M 0B\n", w->start);
	if (!strstr(out, want))
		fail_msg("no line '%s' in:\n%s", want, out);
	free(out);
}


/* `snapshot PID --residency` (or without) into path. */
/* Without packages: the versions here are residency's alone (packages make a version 3). */
static void snapshot_to(pid_t pid, const char *path, bool residency)
{
	char pidarg[16];

	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	assert_int_equal(msrun_capture((const char *const[]){ "snapshot", pidarg, "-o", path,
							    residency ? "--residency" : "--no-clobber",
							    "--no-packages", NULL },
				     NULL, NULL, NULL), 0);
}

static void load(const char *path, struct ms_snapshot *snap)
{
	struct ms_error err;

	if (ms_snapshot_load(path, snap, &err) < 0)
		fail_msg("%s", err.msg);
}

static void test_snapshot_residency_round_trip(void **state)
{
	struct fixture *fx = *state;
	char *path = NULL, *plain = NULL, *text = NULL;
	time_t deadline = time(NULL) + 20;
	struct ms_snapshot snap, again;
	struct ms_error err;
	size_t len, bad;

	assert_true(asprintf(&path, "%s/res.json", fx->dir) > 0);
	assert_true(asprintf(&plain, "%s/plain.json", fx->dir) > 0);
	for (;;) {
		struct smaps_set before, after;

		assert_int_equal(resfix_read_smaps(fx->pid, &before), 0);
		snapshot_to(fx->pid, path, true);
		assert_int_equal(resfix_read_smaps(fx->pid, &after), 0);
		load(path, &snap);
		assert_int_equal(snap.hdr.version, MS_SNAPSHOT_VERSION_RESIDENCY);
		assert_non_null(snap.res);
		assert_int_equal(snap.res_backend, MS_RES_PAGEMAP);
		bad = 0;
		for (size_t i = 0; i < snap.maps.count; i++) {
			const struct smaps_rec *s = resfix_smaps_find(&after, snap.maps.items[i].start,
								      snap.maps.items[i].end);

			assert_non_null(s);
			if (snap.res[i].rss != s->rss || snap.res[i].swap != s->swap)
				bad++;
		}
		free(before.recs);
		free(after.recs);
		if (bad && !resfix_smaps_same(&before, &after) && time(NULL) < deadline) {
			ms_snapshot_free(&snap);
			continue;
		}
		break;
	}
	assert_int_equal(bad, 0);
	/* What was read is written back the same. */
	assert_int_equal(ms_snapshot_dump(&snap, &text, &len, &err), 0);
	assert_int_equal(ms_snapshot_parse(text, len, "again", &again, &err), 0);
	assert_int_equal(again.maps.count, snap.maps.count);
	assert_non_null(again.res);
	assert_memory_equal(again.res, snap.res, snap.maps.count * sizeof(*snap.res));
	ms_snapshot_free(&again);
	ms_snapshot_free(&snap);
	free(text);

	/* Without the option: version 1, as older readers expect, and no numbers. */
	snapshot_to(fx->pid, plain, false);
	load(plain, &snap);
	assert_int_equal(snap.hdr.version, MS_SNAPSHOT_VERSION);
	assert_null(snap.res);
	ms_snapshot_free(&snap);
	text = tu_slurp(plain, &len);
	assert_non_null(text);
	assert_null(strstr(text, "\"rss\""));
	free(text);
	free(path);
	free(plain);
}

/* The row of diff's -J output starting at start, or NULL. */
static json_t *row_at(json_t *root, uint64_t start)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(root, "changes"), i, m)
		if (hexval(json_object_get(m, "start")) == start)
			return m;
	return NULL;
}

static json_t *diff_json(const char *a, const char *b, int want_status)
{
	char *out = NULL;
	json_error_t jerr;
	json_t *root;

	assert_int_equal(msrun_capture((const char *const[]){ "diff", "--residency", a, b, "-J", "-o",
							    "START,OLDRSS,RSS,RSSDIFF,SWAPDIFF,FIELDS", NULL },
				     NULL, &out, NULL), want_status);
	root = json_loads(out, 0, &jerr);
	if (!root)
		fail_msg("not JSON: %s", jerr.text);
	free(out);
	return root;
}

static void expect_growth(json_t *root, uint64_t start, long page)
{
	json_t *row = row_at(root, start);

	assert_non_null(row);
	assert_int_equal(json_integer_value(json_object_get(row, "oldrss")), 5 * page);
	assert_int_equal(json_integer_value(json_object_get(row, "rss")), 8 * page);
	assert_int_equal(json_integer_value(json_object_get(row, "rssdiff")), 3 * page);
	assert_int_equal(json_integer_value(json_object_get(row, "swapdiff")), 0);
	assert_string_equal(json_string_value(json_object_get(row, "fields")), "rss");
	assert_true(json_integer_value(json_object_get(json_object_get(root, "summary"), "changed")) >= 1);
}

static void test_diff_growth(void **state)
{
	struct fixture *fx = *state;
	const struct fx_map *w = fixture_find(fx, "anon-written");
	long page = sysconf(_SC_PAGESIZE);
	char *a = NULL, *b = NULL, *plain = NULL, *errout = NULL, pidarg[16];
	json_t *root;

	assert_non_null(w);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)fx->pid);
	assert_true(asprintf(&a, "%s/a.json", fx->dir) > 0);
	assert_true(asprintf(&b, "%s/b.json", fx->dir) > 0);
	assert_true(asprintf(&plain, "%s/plain.json", fx->dir) > 0);
	snapshot_to(fx->pid, a, true);
	snapshot_to(fx->pid, plain, false);
	assert_int_equal(fixture_command(fx, "grow"), 0);
	snapshot_to(fx->pid, b, true);

	/* Residency alone changes no layout: the same map for plain diff. */
	assert_int_equal(msrun_capture((const char *const[]){ "diff", a, b, NULL }, NULL, NULL, NULL), 0);

	root = diff_json(a, b, 1);
	expect_growth(root, w->start, page);
	json_decref(root);
	/* A live side is measured on the spot. */
	root = diff_json(a, pidarg, 1);
	expect_growth(root, w->start, page);
	json_decref(root);

	/* --residency needs it on both sides. */
	assert_int_equal(msrun_capture((const char *const[]){ "diff", "--residency", plain, b, NULL },
				     NULL, NULL, &errout), 2);
	assert_non_null(strstr(errout, "without residency"));
	free(errout);
	free(a);
	free(b);
	free(plain);
}

/* A snapshot without residency fills no cell of its side: null in JSON. */
static void test_diff_residency_null_without(void **state)
{
	struct snapfix_env *e = *state;
	char *out = NULL, *errout = NULL, cmd[64];
	json_t *root, *row;
	json_error_t jerr;
	uint64_t start;

	/* A mapping only the old snapshot (version 1) has: a removed row. */
	assert_int_equal(fixture_command(&e->fx, "mapfile res-gone.dat"), 0);
	start = e->fx.maps[e->fx.count - 1].start;
	assert_int_equal(msrun_capture((const char *const[]){ "snapshot", e->pid, "-o", e->out, NULL },
				     NULL, NULL, NULL), 0);
	snprintf(cmd, sizeof(cmd), "unmap %" PRIx64, start);
	assert_int_equal(fixture_command(&e->fx, cmd), 0);
	assert_int_equal(msrun_capture((const char *const[]){ "diff", e->out, e->pid, "-J", "-b", "-o",
							    "CHANGE,START,OLDRSS,RSS,RSSDIFF,NAME", NULL },
				     NULL, &out, &errout), 1);
	assert_non_null(strstr(errout, "without residency"));
	root = json_loads(out, 0, &jerr);
	if (!root)
		fail_msg("not JSON: %s", jerr.text);
	row = row_at(root, start);
	assert_non_null(row);
	assert_string_equal(json_string_value(json_object_get(row, "change")), "removed");
	assert_true(json_is_null(json_object_get(row, "oldrss")));
	assert_true(json_is_null(json_object_get(row, "rss")));
	assert_true(json_is_null(json_object_get(row, "rssdiff")));
	json_decref(root);
	free(out);
	free(errout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_rss_equals_smaps, resfix_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_list_known_pages_and_default, resfix_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_list_human_sizes, resfix_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_who_rss_equals_smaps, resfix_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_residency_round_trip, resfix_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_diff_growth, resfix_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_diff_residency_null_without, snapfix_env_setup,
						snapfix_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
