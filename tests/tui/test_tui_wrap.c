/*
 * tui_wrap_line: escaped text broken at word boundaries for the detail
 * panes; a word is cut only when it is wider than the line, and then
 * between escape units and whole UTF-8 characters.
 */
#include "config.h"

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tui/wrap.h"

/* All lines of s at width, joined with "|". */
static const char *wrapped(const char *s, int width)
{
	static char out[1024];
	size_t len = strlen(s), at = 0, o = 0;

	while (at < len) {
		size_t next, n = tui_wrap_line(s + at, len - at, width, &next);

		assert_true(next > 0);
		assert_true(n <= next);
		if (o)
			out[o++] = '|';
		memcpy(out + o, s + at, n);
		o += n;
		at += next;
	}
	out[o] = '\0';
	return out;
}

static void test_words_whole(void **state)
{
	(void)state;
	/* The explorer cut this as "...has n" / "o build ID". */
	assert_string_equal(wrapped("replaced: the mapping has no build ID to compare", 26),
			    "replaced: the mapping has|no build ID to compare");
	assert_string_equal(wrapped("replaced: the mapping has no build ID to compare", 27),
			    "replaced: the mapping has|no build ID to compare");
	assert_string_equal(wrapped("one two three", 7), "one two|three");
	assert_string_equal(wrapped("one two three", 8), "one two|three");
	assert_string_equal(wrapped("fits whole", 10), "fits whole");
	/* Blanks at the break are dropped, not carried to the next line. */
	assert_string_equal(wrapped("aaa    bbb", 5), "aaa|bbb");
}

static void test_long_word_cut_between_units(void **state)
{
	(void)state;
	assert_string_equal(wrapped("/usr/lib/x86_64-linux-gnu/libc.so.6", 12),
			    "/usr/lib/x86|_64-linux-gn|u/libc.so.6");
	/* "\x1b" is one unit of four columns: never "ab\x" / "1b". */
	assert_string_equal(wrapped("ab\\x1bcd", 5), "ab|\\x1bc|d");
	assert_string_equal(wrapped("a\\\\b", 2), "a|\\\\|b");
	/* A word after a blank moves whole; a unit wider than the line still shows. */
	assert_string_equal(wrapped("x \\x1b", 3), "x|\\x1b");
}

static void test_utf8_widths(void **state)
{
	(void)state;
	/* Two columns each: the break falls between characters and at the blank. */
	assert_string_equal(wrapped("\xe6\x97\xa5\xe6\x9c\xac \xe8\xaa\x9e", 4),
			    "\xe6\x97\xa5\xe6\x9c\xac|\xe8\xaa\x9e");
	assert_string_equal(wrapped("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 3),
			    "\xe6\x97\xa5|\xe6\x9c\xac|\xe8\xaa\x9e");
	assert_string_equal(wrapped("caf\xc3\xa9 au lait", 7), "caf\xc3\xa9 au|lait");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_whole),
		cmocka_unit_test(test_long_word_cut_between_units),
		cmocka_unit_test(test_utf8_widths),
	};

	/* Column widths of CJK text need a UTF-8 locale, as the explorer runs in. */
	if (!setlocale(LC_ALL, "C.UTF-8"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
