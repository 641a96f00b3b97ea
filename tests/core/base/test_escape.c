/* The escaper: hostile bytes never pass, valid text does, and it reverses. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/escape.h"
#include "safe_text.h"

static char *esc(const char *s, size_t len, unsigned flags)
{
	char *out = ms_escape_dup(s, len, flags);

	assert_non_null(out);
	return out;
}

static void expect(const char *in, size_t len, unsigned flags, const char *want)
{
	char *got = esc(in, len, flags);

	assert_string_equal(got, want);
	free(got);
}

static void test_controls(void **state)
{
	(void)state;
	expect("plain /usr/lib/x.so", 19, 0, "plain /usr/lib/x.so");
	expect("a\nb", 3, 0, "a\\x0ab");
	expect("\x1b[31mred", 8, 0, "\\x1b[31mred");
	expect("\x1b]52;c;aGk=\x07", 12, 0, "\\x1b]52;c;aGk=\\x07");  /* OSC 52 */
	expect("cr\rdel\x7f", 7, 0, "cr\\x0ddel\\x7f");
	expect("nul\0x", 5, 0, "nul\\x00x");
	expect("back\\slash", 10, 0, "back\\\\slash");
}

static void test_utf8(void **state)
{
	(void)state;
	expect("caf\xc3\xa9", 5, 0, "caf\xc3\xa9");                 /* valid: kept */
	expect("caf\xc3\xa9", 5, MS_ESC_ASCII, "caf\\xc3\\xa9");    /* C locale */
	expect("\xc2\x85", 2, 0, "\\xc2\\x85");                     /* C1 NEL */
	expect("\xc2\x9b" "31m", 5, 0, "\\xc2\\x9b31m");            /* C1 CSI */
	expect("a\xe2\x80\xae" "b", 5, 0, "a\\xe2\\x80\\xaeb");     /* RLO bidi override */
	expect("\xe2\x81\xa6", 3, 0, "\\xe2\\x81\\xa6");            /* LRI */
	expect("\xff\xfe", 2, 0, "\\xff\\xfe");                     /* invalid bytes */
	expect("\xc0\xaf", 2, 0, "\\xc0\\xaf");                     /* overlong '/' */
	expect("\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80");            /* surrogate */
	expect("\xe2\x82", 2, 0, "\\xe2\\x82");                     /* truncated */
	expect("\xf0\x9f\x98\x80", 4, 0, "\xf0\x9f\x98\x80");       /* emoji kept */
}

static void test_reversible_and_clean(void **state)
{
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		char in[64], back[64 * 4 + 1];
		size_t len = (size_t)(rand_r(&seed) % 64), got;
		char *out;

		for (size_t i = 0; i < len; i++)
			in[i] = (char)(rand_r(&seed) & 0xff);
		for (unsigned flags = 0; flags <= MS_ESC_ASCII; flags++) {
			out = esc(in, len, flags);
			for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
				assert_true(*p >= 0x20 && *p != 0x7f);
				if (flags & MS_ESC_ASCII)
					assert_true(*p < 0x80);
			}
			got = ms_unescape(out, strlen(out), back);
			assert_int_equal(got, len);
			assert_memory_equal(back, in, len);
			free(out);
		}
	}
}

/*
 * Names that look alike on a terminal unless every invisible and format
 * character is escaped: zero-width space, joiners, word joiner, invisible
 * times, BOM, soft hyphen, a tag character, a variation selector, a Hangul
 * filler, and the bidi and C1 controls.
 */
static const char *const lookalikes[] = {
	"libc.so.6",
	"lib\xe2\x80\x8b" "c.so.6",      /* U+200B zero-width space */
	"lib\xe2\x80\x8c" "c.so.6",      /* U+200C ZWNJ */
	"lib\xe2\x80\x8d" "c.so.6",      /* U+200D ZWJ */
	"lib\xe2\x81\xa0" "c.so.6",      /* U+2060 word joiner */
	"lib\xe2\x81\xa2" "c.so.6",      /* U+2062 invisible times */
	"lib\xe2\x81\xa4" "c.so.6",      /* U+2064 invisible plus */
	"lib\xef\xbb\xbf" "c.so.6",      /* U+FEFF BOM */
	"lib\xc2\xad" "c.so.6",           /* U+00AD soft hyphen */
	"lib\xf3\xa0\x80\xa1" "c.so.6", /* U+E0021 tag exclamation */
	"lib\xef\xb8\x8f" "c.so.6",      /* U+FE0F variation selector 16 */
	"lib\xe3\x85\xa4" "c.so.6",      /* U+3164 Hangul filler */
	"lib\xe2\x80\x8e" "c.so.6",      /* U+200E LRM */
	"lib\xc2\x85" "c.so.6",           /* U+0085 NEL */
};

static void test_distinct_names_stay_distinct(void **state)
{
	char *a = esc("x\\x41", 5, 0), *b = esc("xA", 2, 0), *c = esc("x\x41", 2, 0);

	(void)state;
	assert_string_not_equal(a, b);
	assert_string_equal(b, c);
	free(a);
	free(b);
	free(c);
}

/* What a terminal draws: the text less every character that draws nothing. */
static void visible(const char *s, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, o = 0;

	while (i < len) {
		uint32_t cp = 0;
		size_t n = safe_text_utf8_next(p + i, len - i, &cp);

		assert_int_not_equal(n, 0);
		if (!safe_text_cp_forbidden(cp))
			memcpy(out + o, p + i, n), o += n;
		i += n;
	}
	out[o] = '\0';
}

static void test_lookalikes_print_apart(void **state)
{
	enum { N = sizeof(lookalikes) / sizeof(lookalikes[0]) };
	char shown[N][128];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		char *out = esc(lookalikes[i], strlen(lookalikes[i]), 0);
		const char *problem = safe_text_problem(out, strlen(out), 0);

		if (problem)
			fail_msg("name %zu escapes to \"%s\": %s", i, out, problem);
		assert_true(strlen(out) < sizeof(shown[i]));
		visible(out, shown[i]);
		free(out);
	}
	for (size_t i = 0; i < N; i++)
		for (size_t j = i + 1; j < N; j++)
			if (!strcmp(shown[i], shown[j]))
				fail_msg("names %zu and %zu both print as \"%s\"", i, j, shown[i]);
}

static void test_truncation_keeps_whole_escapes(void **state)
{
	char out[8];
	size_t n;

	(void)state;
	/* "abcd" + "\x1b" needs 9 bytes with the NUL: the escape is left out whole. */
	n = ms_escape("abcd\x1b", 5, out, sizeof(out), 0);
	assert_int_equal(n, 4);
	assert_string_equal(out, "abcd");
	n = ms_escape("abc\x1b", 4, out, sizeof(out), 0);
	assert_string_equal(out, "abc\\x1b");
	assert_int_equal(n, 7);
	assert_int_equal(ms_unescape("\\q", 2, out), (size_t)-1);
	assert_int_equal(ms_escape_bound(3), 13);
}

/* What the formats that escape by their own rules learn of each unit. */
static void test_text_units(void **state)
{
	static const struct {
		const char *s;
		size_t len, run;
		enum ms_text_kind kind;
	} units[] = {
		{ "a", 1, 1, MS_TEXT_PLAIN },           { "\\", 1, 1, MS_TEXT_PLAIN },
		{ "\"", 1, 1, MS_TEXT_PLAIN },          { "\n", 1, 1, MS_TEXT_CONTROL },
		{ "\x7f", 1, 1, MS_TEXT_CONTROL },       { "\xc3\xa9", 2, 2, MS_TEXT_PLAIN },
		{ "\xc2\x85", 2, 2, MS_TEXT_HIDDEN },    { "\xe2\x80\xae", 3, 3, MS_TEXT_HIDDEN },
		{ "\xff", 1, 1, MS_TEXT_INVALID },       { "\xe2\x82", 2, 1, MS_TEXT_INVALID },
		{ "\xf0\x9f\x98\x80", 4, 4, MS_TEXT_PLAIN },
	};
	enum ms_text_kind kind;
	char *u;

	(void)state;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		assert_int_equal(ms_text_unit(units[i].s, units[i].len, &kind), units[i].run);
		assert_int_equal(kind, units[i].kind);
	}
	/* Only bytes that are not UTF-8 change: controls and hidden code points are the format's to escape. */
	u = ms_text_utf8_dup("a\\\"\n\xe2\x80\xae\xff\xc3\xa9\xe2\x82", 12);
	assert_non_null(u);
	assert_string_equal(u, "a\\\"\n\xe2\x80\xae" MS_TEXT_REPLACEMENT "\xc3\xa9" MS_TEXT_REPLACEMENT MS_TEXT_REPLACEMENT);
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_reversible_and_clean),
		cmocka_unit_test(test_distinct_names_stay_distinct),
		cmocka_unit_test(test_lookalikes_print_apart),
		cmocka_unit_test(test_truncation_keeps_whole_escapes),
		cmocka_unit_test(test_text_units),
	};

	return cmocka_run_group_tests_name("escape", tests, NULL, NULL);
}
