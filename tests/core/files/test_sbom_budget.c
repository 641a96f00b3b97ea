/*
 * Who gets the SBOM's hash budget (sbom.h, ms_sbom_budget_plan), on owners
 * and sizes made here:
 *   - root's files first, however many files a user has, named before them;
 *   - the rest round robin per uid: the small owners get all they ask, the
 *     one with 65,000 files what is left, in its name order;
 *   - bytes: an equal share of what root left, what one owner does not
 *     need going to the others;
 *   - files that are not candidates are left alone;
 *   - 400,000 candidates, half of them one uid's and half one file each of
 *     other uids, with a file budget that takes them all: planned in
 *     linear time (a round that visited every owner would take minutes).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "core/files/sbom.h"

#define MIB (1ull << 20)

/* n candidates of uid, size each, items from *item on (the name order). */
static void add(struct ms_sbom_cand *c, size_t *count, size_t n, uid_t uid, uint64_t size)
{
	for (size_t i = 0; i < n; i++, (*count)++)
		c[*count] = (struct ms_sbom_cand){ .item = *count, .uid = uid, .size = size,
						   .plan = MS_SBOM_PLAN_HASH };
}

static size_t count_plan(const struct ms_sbom_cand *c, size_t from, size_t to, enum ms_sbom_plan plan)
{
	size_t n = 0;

	for (size_t i = from; i < to; i++)
		n += c[i].plan == plan;
	return n;
}

static void test_root_first(void **state)
{
	struct ms_sbom_cand *c = calloc(4300, sizeof(*c));
	size_t n = 0;

	(void)state;
	assert_non_null(c);
	add(c, &n, 4200, 65534, 16 << 10);
	add(c, &n, 2, 0, 16 << 10);
	assert_int_equal(ms_sbom_budget_plan(c, n, MS_SBOM_HASH_FILES, MS_SBOM_HASH_TOTAL_MAX), 0);
	assert_int_equal(c[4200].plan, MS_SBOM_PLAN_HASH);
	assert_int_equal(c[4201].plan, MS_SBOM_PLAN_HASH);
	assert_int_equal(count_plan(c, 0, 4200, MS_SBOM_PLAN_HASH), MS_SBOM_HASH_FILES - 2);
	assert_int_equal(count_plan(c, 0, 4200, MS_SBOM_PLAN_FILES), 4200 - (MS_SBOM_HASH_FILES - 2));
	/* The user's own files, in their name order. */
	assert_int_equal(count_plan(c, 0, MS_SBOM_HASH_FILES - 2, MS_SBOM_PLAN_HASH), MS_SBOM_HASH_FILES - 2);
	free(c);
}

static void test_round_robin(void **state)
{
	struct ms_sbom_cand *c = calloc(65100, sizeof(*c));
	size_t n = 0;

	(void)state;
	assert_non_null(c);
	add(c, &n, 65000, 1000, 4096);
	add(c, &n, 10, 1001, 4096);
	add(c, &n, 3, 1002, 4096);
	add(c, &n, 1, 0, 4096);
	assert_int_equal(ms_sbom_budget_plan(c, n, 100, MS_SBOM_HASH_TOTAL_MAX), 0);
	assert_int_equal(count_plan(c, 65000, 65014, MS_SBOM_PLAN_HASH), 14);
	assert_int_equal(count_plan(c, 0, 86, MS_SBOM_PLAN_HASH), 86);
	assert_int_equal(count_plan(c, 86, 65000, MS_SBOM_PLAN_FILES), 65000 - 86);
	/* Two users as big as each other split the files evenly. */
	n = 0;
	add(c, &n, 300, 1000, 4096);
	add(c, &n, 300, 1001, 4096);
	assert_int_equal(ms_sbom_budget_plan(c, n, 101, MS_SBOM_HASH_TOTAL_MAX), 0);
	assert_int_equal(count_plan(c, 0, 300, MS_SBOM_PLAN_HASH) + count_plan(c, 300, 600, MS_SBOM_PLAN_HASH), 101);
	assert_true(count_plan(c, 0, 300, MS_SBOM_PLAN_HASH) >= 50);
	assert_true(count_plan(c, 300, 600, MS_SBOM_PLAN_HASH) >= 50);
	free(c);
}

static void test_bytes(void **state)
{
	struct ms_sbom_cand c[32];
	size_t n = 0;

	(void)state;
	/* 512 MiB wanted by one owner, 20 by another: the small one gets its 20. */
	add(c, &n, 8, 1000, 64 * MIB);
	add(c, &n, 2, 1001, 10 * MIB);
	assert_int_equal(ms_sbom_budget_plan(c, n, MS_SBOM_HASH_FILES, MS_SBOM_HASH_TOTAL_MAX), 0);
	assert_int_equal(count_plan(c, 0, 7, MS_SBOM_PLAN_HASH), 7);
	assert_int_equal(c[7].plan, MS_SBOM_PLAN_BYTES);
	assert_int_equal(count_plan(c, 8, 10, MS_SBOM_PLAN_HASH), 2);
	/* Two big owners: half each. */
	n = 0;
	add(c, &n, 8, 1000, 64 * MIB);
	add(c, &n, 8, 1001, 64 * MIB);
	assert_int_equal(ms_sbom_budget_plan(c, n, MS_SBOM_HASH_FILES, MS_SBOM_HASH_TOTAL_MAX), 0);
	assert_int_equal(count_plan(c, 0, 8, MS_SBOM_PLAN_HASH), 4);
	assert_int_equal(count_plan(c, 8, 16, MS_SBOM_PLAN_HASH), 4);
	assert_int_equal(count_plan(c, 0, 16, MS_SBOM_PLAN_BYTES), 8);
	/* Root first, bytes too: what does not fit is skipped, what still fits is not. */
	n = 0;
	add(c, &n, 3, 1000, 1 * MIB);
	add(c, &n, 8, 0, 60 * MIB);
	add(c, &n, 1, 0, 64 * MIB);
	add(c, &n, 1, 0, 30 * MIB);
	assert_int_equal(ms_sbom_budget_plan(c, n, MS_SBOM_HASH_FILES, MS_SBOM_HASH_TOTAL_MAX), 0);
	assert_int_equal(count_plan(c, 3, 11, MS_SBOM_PLAN_HASH), 8);
	assert_int_equal(c[11].plan, MS_SBOM_PLAN_BYTES);
	assert_int_equal(c[12].plan, MS_SBOM_PLAN_HASH);
	assert_int_equal(count_plan(c, 0, 3, MS_SBOM_PLAN_HASH), 2);
	assert_int_equal(c[2].plan, MS_SBOM_PLAN_BYTES);
}

static void test_not_candidates(void **state)
{
	struct ms_sbom_cand c[4];
	size_t n = 0;

	(void)state;
	add(c, &n, 4, 1000, 4096);
	c[1].plan = c[3].plan = MS_SBOM_PLAN_NONE;
	assert_int_equal(ms_sbom_budget_plan(c, n, 1, MS_SBOM_HASH_TOTAL_MAX), 0);
	assert_int_equal(c[0].plan, MS_SBOM_PLAN_HASH);
	assert_int_equal(c[1].plan, MS_SBOM_PLAN_NONE);
	assert_int_equal(c[2].plan, MS_SBOM_PLAN_FILES);
	assert_int_equal(c[3].plan, MS_SBOM_PLAN_NONE);
	assert_int_equal(ms_sbom_budget_plan(c, 0, 1, 0), 0);
}

static void test_linear(void **state)
{
	const size_t half = 200000;
	struct ms_sbom_cand *c = calloc(2 * half, sizeof(*c));
	clock_t t0 = clock();
	size_t n = 0;

	(void)state;
	assert_non_null(c);
	add(c, &n, half, 70000, 1);
	for (size_t i = 0; i < half; i++)
		add(c, &n, 1, (uid_t)(100000 + i), 1);
	assert_int_equal(ms_sbom_budget_plan(c, n, n, UINT64_MAX), 0);
	assert_int_equal(count_plan(c, 0, n, MS_SBOM_PLAN_HASH), n);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 10.0);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_first),
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_not_candidates),
		cmocka_unit_test(test_linear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
