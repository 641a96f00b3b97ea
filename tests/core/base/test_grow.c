/* ms_grow: doubling growth that refuses sizes past size_t. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/grow.h"

static void test_grows_by_doubling(void **state)
{
	int *items = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(ms_grow((void **)&items, &cap, 0, sizeof(*items), 4), 0);
	assert_int_equal(cap, 4);
	for (size_t i = 0; i < 100; i++) {
		assert_int_equal(ms_grow((void **)&items, &cap, i, sizeof(*items), 4), 0);
		assert_true(cap > i);
		items[i] = (int)i;
	}
	assert_int_equal(cap, 128);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(items[i], (int)i);
	free(items);
}

static void test_refuses_overflow(void **state)
{
	void *items = NULL;
	size_t cap = SIZE_MAX / 8 + 1, before = cap;

	(void)state;
	/* Doubling cap would need more bytes than size_t holds. */
	assert_int_equal(ms_grow(&items, &cap, cap, 8, 16), MS_ERR_NOMEM);
	assert_int_equal(cap, before);
	assert_null(items);
	cap = SIZE_MAX / 2 + 1;
	assert_int_equal(ms_grow(&items, &cap, cap, 1, 16), MS_ERR_NOMEM);
	assert_null(items);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_by_doubling),
		cmocka_unit_test(test_refuses_overflow),
	};

	return cmocka_run_group_tests_name("grow", tests, NULL, NULL);
}
