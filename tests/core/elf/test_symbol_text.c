/*
 * Symbol text as at and the explorer show it: hostile names are escaped,
 * the offset and line always survive, and a small buffer cuts names at a
 * whole escape, the directory before the file name.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/escape.h"
#include "elf/symbol_text.h"

static void test_plain(void **state)
{
	struct ms_symbol s = { .name = "main", .name_off = 0x10, .file = "src/a.c", .line = 42,
			       .comp_dir = "/build" };
	char buf[256];

	(void)state;
	assert_int_equal(ms_symbol_text_name(&s, 0, buf, sizeof(buf)), strlen("main+0x10"));
	assert_string_equal(buf, "main+0x10");
	assert_int_equal(ms_symbol_text_source(&s, 0, buf, sizeof(buf)), strlen("/build/src/a.c:42"));
	assert_string_equal(buf, "/build/src/a.c:42");
	s.comp_dir = NULL;
	ms_symbol_text_source(&s, 0, buf, sizeof(buf));
	assert_string_equal(buf, "src/a.c:42");
}

static void test_unknown(void **state)
{
	struct ms_symbol s = { .why = "no symbol table" };
	char buf[64] = "x";

	(void)state;
	assert_int_equal(ms_symbol_text_name(&s, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	strcpy(buf, "x");
	assert_int_equal(ms_symbol_text_source(&s, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

/* A name or path from a file anyone wrote: terminal controls never pass. */
static void test_hostile(void **state)
{
	struct ms_symbol s = { .name = "f\x1b]52;c;aGk=\x07\\", .name_off = 0xffffffffffffffffu,
			       .file = "\xff\xfe.c\n", .line = 7, .comp_dir = "/tmp/\x1b[2J" };
	char buf[256];

	(void)state;
	ms_symbol_text_name(&s, 0, buf, sizeof(buf));
	assert_string_equal(buf, "f\\x1b]52;c;aGk=\\x07\\\\+0xffffffffffffffff");
	ms_symbol_text_source(&s, 0, buf, sizeof(buf));
	assert_string_equal(buf, "/tmp/\\x1b[2J/\\xff\\xfe.c\\x0a:7");
	s.name = "caf\xc3\xa9";
	ms_symbol_text_name(&s, MS_ESC_ASCII, buf, sizeof(buf));
	assert_string_equal(buf, "caf\\xc3\\xa9+0xffffffffffffffff");
}

/* Cut short: whole escapes only, the suffix kept, and the bound never cuts. */
static void test_cut(void **state)
{
	char name[3000], dir[3000];
	struct ms_symbol s = { .name = name, .name_off = 0x1234, .file = "x/\x01y.c", .line = 99,
			       .comp_dir = dir };
	char small[64], *big;
	size_t n, bound;

	(void)state;
	memset(name, '\x1b', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';

	n = ms_symbol_text_name(&s, 0, small, sizeof(small));
	assert_int_equal(n, strlen(small));
	assert_true(n < sizeof(small));
	assert_string_equal(small + n - strlen("+0x1234"), "+0x1234");
	/* Only whole "\x1b" units before the suffix. */
	assert_int_equal((n - strlen("+0x1234")) % 4, 0);
	for (size_t i = 0; i + 4 <= n - strlen("+0x1234"); i += 4)
		assert_memory_equal(small + i, "\\x1b", 4);

	/* The directory yields: the file name and line stay whole. */
	n = ms_symbol_text_source(&s, 0, small, sizeof(small));
	assert_int_equal(n, strlen(small));
	assert_string_equal(small + n - strlen("/x/\\x01y.c:99"), "/x/\\x01y.c:99");

	bound = ms_symbol_text_bound(&s);
	big = malloc(bound);
	assert_non_null(big);
	n = ms_symbol_text_name(&s, 0, big, bound);
	assert_int_equal(n, 4 * (sizeof(name) - 1) + strlen("+0x1234"));
	n = ms_symbol_text_source(&s, 0, big, bound);
	assert_int_equal(n, strlen(dir) + strlen("/x/\\x01y.c:99"));
	assert_memory_equal(big, dir, strlen(dir));
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
