/*
 * The symbol index's sort (symindex_sort.h): by value, and entries with
 * one value in the order they came (table order), for input in order,
 * reversed, shuffled with many ties, all equal, and values that differ
 * only in their upper bytes; each checked against a comparison sort by
 * (value, table order).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "elf/symindex_sort.h"

#define N 5000

static int by_value_then_ndx(const void *a, const void *b)
{
	const struct ms_symindex_entry *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* A small generator of its own: the same numbers on every machine. */
static uint64_t next(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 11;
}

/* e holds n entries with ndx in table order (0, 1, ...): sort them and compare. */
static void check(struct ms_symindex_entry *e, size_t n)
{
	struct ms_symindex_entry *want = malloc((n ? n : 1) * sizeof(*want));
	struct ms_symindex_entry *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	struct ms_symindex_entry *got;

	assert_non_null(want);
	assert_non_null(tmp);
	for (size_t i = 0; i < n; i++) {
		e[i].ndx = (uint32_t)i;
		e[i].size = e[i].value ^ 0x5a5a; /* rides along with its entry */
	}
	memcpy(want, e, n * sizeof(*e));
	qsort(want, n, sizeof(*want), by_value_then_ndx);
	got = ms_symindex_sort(e, tmp, n);
	assert_true(got == e || got == tmp);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(got[i].value, want[i].value);
		assert_int_equal(got[i].ndx, want[i].ndx);
		assert_int_equal(got[i].size, want[i].size);
	}
	free(want);
	free(tmp);
}

static void test_in_order(void **state)
{
	struct ms_symindex_entry e[N];

	(void)state;
	for (size_t i = 0; i < N; i++)
		e[i].value = 0x7f0000001000ull + 16 * i;
	check(e, N);
	check(e, 1);
	check(e, 0);
}

static void test_reversed(void **state)
{
	struct ms_symindex_entry e[N];

	(void)state;
	for (size_t i = 0; i < N; i++)
		e[i].value = 0x7f0000001000ull + 24 * (N - i);
	check(e, N);
}

static void test_shuffled_with_ties(void **state)
{
	struct ms_symindex_entry e[N];
	uint64_t rnd = 1;

	(void)state;
	/* Few distinct values: every one is shared by tens of entries. */
	for (size_t i = 0; i < N; i++)
		e[i].value = 0x400000ull + 8 * (next(&rnd) % 97);
	check(e, N);
	/* Mostly in order, with a run out of place, as a symbol table often is. */
	for (size_t i = 0; i < N; i++)
		e[i].value = 0x1000 + 4 * i;
	for (size_t i = 1000; i < 1400; i++)
		e[i].value = 0x1000 + (next(&rnd) % (4 * N));
	check(e, N);
}

static void test_all_equal(void **state)
{
	struct ms_symindex_entry e[N];

	(void)state;
	for (size_t i = 0; i < N; i++)
		e[i].value = 0x1234;
	check(e, N);
}

static void test_every_byte(void **state)
{
	struct ms_symindex_entry e[N];
	uint64_t rnd = 7;

	(void)state;
	/* Values that differ in every byte, and ones that differ only in the top one. */
	for (size_t i = 0; i < N; i++)
		e[i].value = next(&rnd) << 11 ^ next(&rnd);
	check(e, N);
	for (size_t i = 0; i < N; i++)
		e[i].value = (next(&rnd) % 5) << 56 | 0xabcdef;
	check(e, N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_reversed),
		cmocka_unit_test(test_shuffled_with_ties),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
