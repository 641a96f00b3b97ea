/*
 * ms_format_size against a reference written here with divisions, as the
 * sizes were computed before they became shifts: every unit boundary, the
 * roundings on either side of it, and random values of every magnitude.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "base/units.h"

/* lsblk's style: one decimal, dropped when zero; B below 1 KiB. */
static void reference(uint64_t bytes, char *buf, size_t size)
{
	static const char suffix[] = "KMGTPE";
	uint64_t unit = 1024, whole, tenth;
	int exp = 0;

	if (bytes < 1024) {
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
		return;
	}
	while (exp < 5 && bytes / unit >= 1024) {
		unit *= 1024;
		exp++;
	}
	whole = bytes / unit;
	tenth = ((bytes % unit) * 10 + unit / 2) / unit;
	if (tenth == 10) {
		whole++;
		tenth = 0;
	}
	if (tenth)
		snprintf(buf, size, "%llu.%llu%c", (unsigned long long)whole, (unsigned long long)tenth, suffix[exp]);
	else
		snprintf(buf, size, "%llu%c", (unsigned long long)whole, suffix[exp]);
}

static void check(uint64_t v)
{
	char got[64], want[64];

	ms_format_size(v, false, got, sizeof(got));
	reference(v, want, sizeof(want));
	if (strcmp(got, want)) {
		fprintf(stderr, "size %llu: got %s, want %s\n", (unsigned long long)v, got, want);
		fail();
	}
}

static void test_boundaries(void **state)
{
	(void)state;
	for (unsigned shift = 0; shift < 64; shift++) {
		uint64_t p = UINT64_C(1) << shift;

		for (int d = -3; d <= 3; d++)
			check(p + (uint64_t)(int64_t)d);
		/* Just under and over each rounding to the next tenth and the next whole. */
		for (unsigned k = 1; k < 20; k++) {
			uint64_t step = p / 20 ? p / 20 : 1;

			check(p + k * step - 1);
			check(p + k * step);
			check(p * 1023 + k * step);
		}
	}
	check(UINT64_MAX);
	check(0);
}

static void test_random(void **state)
{
	unsigned seed = (unsigned)time(NULL);
	uint64_t x = seed | 1;

	(void)state;
	fprintf(stderr, "seed %u\n", seed);
	for (int i = 0; i < 200000; i++) {
		/* xorshift64, then a random magnitude. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check(x >> (x % 64));
	}
}

static void test_bytes(void **state)
{
	char buf[64];

	(void)state;
	ms_format_size(UINT64_C(123456789), true, buf, sizeof(buf));
	assert_string_equal(buf, "123456789");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
