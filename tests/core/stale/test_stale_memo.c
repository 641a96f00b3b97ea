/*
 * The memo of "ok" verdicts (stale_memo.h): a file judged current under
 * our root is not judged again for the next process that maps the same
 * device and inode under the same name, and only then.
 *
 * The table itself: found by (device, inode, name) and nothing less, bounded
 * at MS_STALE_MEMO_MAX entries, emptied by clear.  Then through the stale
 * context, with real processes: two children map one copy of a test library
 * (the second gets the first's verdict), and a third maps the file renamed
 * over that path since, under the same name but another inode: it must be
 * judged on its own, not given the first copy's "ok".
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "maps/maps.h"
#include "stale/stale.h"
#include "stale/stale_memo.h"
#include "fixture_client.h"
#include "testutil.h"

static struct ms_mapping key(uint64_t inode, const char *name)
{
	return (struct ms_mapping){ .dev_major = 8, .dev_minor = 1, .inode = inode,
				    .name = (char *)name, .name_len = strlen(name) };
}

static void test_table(void **state)
{
	struct ms_stale_memo memo = { 0 };
	struct ms_stale_result r = { .verdict = MS_STALE_OK, .path_ours = true };
	struct ms_mapping m = key(42, "/usr/lib/libx.so.1"), other;
	const struct ms_stale_result *got;
	char name[64];

	(void)state;
	assert_null(ms_stale_memo_find(&memo, &m, SIZE_MAX));
	snprintf(r.why, sizeof(r.why), "kept");
	/* Added as the first file of a list: position 0 remembers it. */
	ms_stale_memo_add(&memo, &m, &r, 0);
	got = ms_stale_memo_find(&memo, &m, SIZE_MAX);
	assert_non_null(got);
	assert_string_equal(got->why, "kept");
	/* Every part of the key counts, whether found by hash or at the remembered position. */
	for (size_t pos = 0; pos < 2; pos++) {
		size_t at = pos ? SIZE_MAX : 0;

		assert_non_null(ms_stale_memo_find(&memo, &m, at));
		other = key(43, "/usr/lib/libx.so.1");
		assert_null(ms_stale_memo_find(&memo, &other, at));
		other = key(42, "/usr/lib/libx.so.2");
		assert_null(ms_stale_memo_find(&memo, &other, at));
		other = key(42, "/usr/lib/libx.so.1");
		other.dev_minor = 2;
		assert_null(ms_stale_memo_find(&memo, &other, at));
		other = key(42, "/usr/lib/libx.so");
		assert_null(ms_stale_memo_find(&memo, &other, at));
	}
	/* Bounded: past MS_STALE_MEMO_MAX entries nothing more is kept. */
	for (unsigned i = 1; i <= MS_STALE_MEMO_MAX; i++) {
		other = key(1000 + i, "/usr/lib/liby.so");
		ms_stale_memo_add(&memo, &other, &r, SIZE_MAX);
	}
	assert_int_equal(memo.count, MS_STALE_MEMO_MAX);
	other = key(1000 + MS_STALE_MEMO_MAX - 1, "/usr/lib/liby.so");
	assert_non_null(ms_stale_memo_find(&memo, &other, SIZE_MAX));
	other = key(1000 + MS_STALE_MEMO_MAX, "/usr/lib/liby.so");
	assert_null(ms_stale_memo_find(&memo, &other, SIZE_MAX));
	/* Cleared, nothing is found, and it fills again. */
	ms_stale_memo_clear(&memo);
	assert_null(ms_stale_memo_find(&memo, &m, SIZE_MAX));
	snprintf(name, sizeof(name), "/usr/lib/libz.so");
	other = key(7, name);
	ms_stale_memo_add(&memo, &other, &r, SIZE_MAX);
	assert_non_null(ms_stale_memo_find(&memo, &other, SIZE_MAX));
	ms_stale_memo_free(&memo);
}

struct fx {
	char *dir;
	char *lib; /* dir/libstale.so, a copy of one build, then of the other */
	struct fixture child[3];
	int started;
	struct ms_stale_ctx *ctx;
};

/* Put a copy of the built library called built at path, renamed into place as package managers do. */
static void install(struct fx *fx, const char *built)
{
	char *src = tu_built(built), *tmp = tu_join(fx->dir, "incoming.so");

	assert_int_equal(tu_copy(src, tmp), 0);
	assert_int_equal(rename(tmp, fx->lib), 0);
	free(tmp);
	free(src);
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct ms_error err;

	assert_non_null(fx);
	assert_non_null(fx->dir = tu_tmpdir());
	fx->lib = tu_join(fx->dir, "libstale.so");
	install(fx, "libstale-a.so");
	/* No ignore rules: the test directory is under /tmp, which the defaults ignore. */
	assert_int_equal(ms_stale_ctx_new(NULL, &fx->ctx, &err), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	for (int i = 0; i < fx->started; i++)
		fixture_stop(&fx->child[i]);
	ms_stale_ctx_free(fx->ctx);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->lib);
	free(fx);
	return 0;
}

static void start_child(struct fx *fx)
{
	struct fixture *c = &fx->child[fx->started];

	assert_int_equal(fixture_start_with(c, FIXTURE_STALE_CHILD), 0);
	fx->started++;
	assert_int_equal(fixture_commandf(c, "dlopen %s", fx->lib), 0);
}

/* The verdict of the library's file in child i, scanned with fx's context (never forgotten here). */
static enum ms_stale_verdict judge_child(struct fx *fx, int i, char *why, size_t why_size)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_AUTO, .ioctl_fn = NULL };
	struct ms_stale_list list = { 0 };
	enum ms_stale_verdict v = MS_STALE_VERDICT_COUNT;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	size_t len = strlen(fx->lib);

	assert_int_equal(ms_proc_open(fx->child[i].pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
	assert_int_equal(ms_stale_scan(fx->ctx, maps, 0, &list, &err), 0);
	for (size_t j = 0; j < list.count; j++)
		if (list.items[j].name_len >= len && !memcmp(list.items[j].name, fx->lib, len)) {
			v = list.items[j].result.verdict;
			snprintf(why, why_size, "%s", list.items[j].result.why);
		}
	ms_stale_list_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	assert_int_not_equal(v, MS_STALE_VERDICT_COUNT);
	return v;
}

static void test_same_file_kept_other_inode_judged(void **state)
{
	struct fx *fx = *state;
	char why0[MS_STALE_WHY_MAX], why[MS_STALE_WHY_MAX];
	size_t hits;

	start_child(fx);
	start_child(fx);
	assert_int_equal(judge_child(fx, 0, why0, sizeof(why0)), MS_STALE_OK);
	/* The second holder of the same copy gets the same verdict, from the memo. */
	hits = ms_stale_ctx_memo_hits(fx->ctx);
	assert_int_equal(judge_child(fx, 1, why, sizeof(why)), MS_STALE_OK);
	assert_string_equal(why, why0);
	assert_true(ms_stale_ctx_memo_hits(fx->ctx) > hits);
	/*
	 * Another file renamed over the path, mapped by a third child: same
	 * name, another inode.  The context still holds the old lookup (only
	 * forget drops it), which names the first copy's inode: not this one.
	 */
	install(fx, "libstale-b.so");
	start_child(fx);
	assert_int_not_equal(judge_child(fx, 2, why, sizeof(why)), MS_STALE_OK);
	/* The first copy's holders are still judged from the kept verdict. */
	assert_int_equal(judge_child(fx, 1, why, sizeof(why)), MS_STALE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test_setup_teardown(test_same_file_kept_other_inode_judged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
