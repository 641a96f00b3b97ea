/*
 * Eliding and scrolling the last column: paths keep their file name, cuts
 * fall between escape units, widths are columns of the escaped text.
 */
#include "config.h"

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/escape.h"
#include "tui/elide.h"
#include "tui/format.h"

#define SSL "/opt/python/versions/3.11.7/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so"

static int cols(const char *s)
{
	int c;

	tui_text_fit(s, strlen(s), 1 << 20, &c);
	return c;
}

static void elide_is(const char *in, int width, const char *ellipsis, const char *want)
{
	char out[TUI_LINE_MAX];

	tui_elide(in, strlen(in), width, ellipsis, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("%s at %d columns: got '%s', want '%s'", in, width, out, want);
}

/* The example, in a UTF-8 locale (U+2026) and outside one ("..."). */
static void test_path_keeps_file_name(void **state)
{
	(void)state;
	assert_non_null(setlocale(LC_CTYPE, "C.UTF-8"));
	elide_is(SSL, 55, tui_ellipsis(0), "/opt/\xe2\x80\xa6/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so");
	/* Room for one more leading component. */
	elide_is(SSL, 62, tui_ellipsis(0), "/opt/python/\xe2\x80\xa6/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so");
	/* Room for one more trailing one. */
	elide_is(SSL, 66, tui_ellipsis(0),
		 "/opt/\xe2\x80\xa6/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so");
	assert_non_null(setlocale(LC_CTYPE, "C"));
	elide_is(SSL, 57, tui_ellipsis(MS_ESC_ASCII), "/opt/.../lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so");
	/* What fits is left alone. */
	elide_is(SSL, (int)strlen(SSL), "...", SSL);
	elide_is("/usr/lib/libc.so.6", 80, "...", "/usr/lib/libc.so.6");
}

/* When not even the file name fits, or there is no path, the middle goes. */
static void test_middle(void **state)
{
	(void)state;
	/* Not even "/.../NAME" fits: the file name's middle goes, no folder shows. */
	elide_is(SSL, 20, "...", "/_ssl...linux-gnu.so");
	elide_is("[anon:a-very-long-name-for-a-mapping]", 20, "...", "[anon...r-a-mapping]");
	elide_is("/just-one-long-component-here.so", 16, "...", "/jus...t-here.so");
	elide_is("abcdef", 2, "...", "ab");
	elide_is("abcdef", 0, "...", "");
}

/* A piece of out (n bytes) is a run of esc's whole units. */
static void piece_of(const char *esc, const char *piece, size_t n)
{
	char copy[512], back[512];

	memcpy(copy, piece, n);
	copy[n] = '\0';
	assert_non_null(strstr(esc, copy));
	assert_int_not_equal(ms_unescape(copy, n, back), (size_t)-1);
}

/* An elided result is two runs of whole escape units (the second esc's end), within width. */
static void test_never_inside_an_escape(void **state)
{
	static const char raw[] = "/srv/a\\b/\x1b[31m\x1b[0m/x\x7f\x01y/\xff\xfe/lib\x1b.so (deleted)";
	char esc[512], out[512];
	size_t len = ms_escape(raw, sizeof(raw) - 1, esc, sizeof(esc), MS_ESC_ASCII);

	(void)state;
	for (int w = 1; w <= (int)len; w++) {
		char *dots, back[512];
		size_t n = tui_elide(esc, len, w, "...", out, sizeof(out)), head;

		assert_true(cols(out) <= w);
		dots = strstr(out, "...");
		if (!dots) {
			piece_of(esc, out, n);
			continue;
		}
		head = (size_t)(dots - out);
		/* Both sides unescape: no "\x" without its two digits, no lone backslash. */
		piece_of(esc, out, head);
		assert_string_equal(esc + len - strlen(dots + 3), dots + 3);
		assert_int_not_equal(ms_unescape(dots + 3, strlen(dots + 3), back), (size_t)-1);
	}
}

/* Scrolled: the raw text from an offset, starting at a whole unit. */
static void test_scroll(void **state)
{
	char line[TUI_LINE_MAX], heading[64] = "NAME";
	size_t at = 0;

	(void)state;
	assert_int_equal(tui_skip_cols("ab\\x1bcd", 8, 0), 0);
	assert_int_equal(tui_skip_cols("ab\\x1bcd", 8, 2), 2);
	assert_int_equal(tui_skip_cols("ab\\x1bcd", 8, 3), 6); /* never mid-escape */
	assert_int_equal(tui_skip_cols("ab\\\\cd", 6, 3), 4);
	assert_int_equal(tui_skip_cols("ab", 2, 50), 2);

	snprintf(line, sizeof(line), "12345 %s", SSL);
	assert_int_equal(tui_fit_last_column(line, sizeof(line), 6, 40, 16, true, MS_ESC_ASCII),
			 strlen(SSL));
	assert_string_equal(line, "12345 ions/3.11.7/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so");
	snprintf(line, sizeof(line), "12345 %s", SSL);
	tui_fit_last_column(line, sizeof(line), 6, 40, 0, true, MS_ESC_ASCII);
	assert_string_equal(line, "12345 /_ssl.cpyt...1-x86_64-linux-gnu.so");
	assert_int_equal(cols(line), 40);
	/* A command line is not a path: the screen cuts its end. */
	snprintf(line, sizeof(line), "12345 %s", SSL);
	tui_fit_last_column(line, sizeof(line), 6, 40, 0, false, MS_ESC_ASCII);
	assert_string_equal(line, "12345 " SSL);

	tui_hscroll(&at, -1, 100);
	assert_int_equal(at, 0);
	tui_hscroll(&at, 1, 100);
	tui_hscroll(&at, 1, 100);
	assert_int_equal(at, 2 * TUI_HSCROLL_STEP);
	/* Right stops while some of the widest text still shows. */
	tui_hscroll(&at, 1, 2 * TUI_HSCROLL_STEP + 1);
	assert_int_equal(at, 2 * TUI_HSCROLL_STEP);
	tui_hscroll(&at, 1, 0);
	assert_int_equal(at, 2 * TUI_HSCROLL_STEP);
	tui_heading_offset(heading, sizeof(heading), at);
	assert_string_equal(heading, "NAME +16");
	tui_hscroll(&at, -1, 100);
	tui_hscroll(&at, -1, 100);
	assert_int_equal(at, 0);
	snprintf(heading, sizeof(heading), "NAME");
	tui_heading_offset(heading, sizeof(heading), at);
	assert_string_equal(heading, "NAME");
}

/*
 * A name with " (deleted)": the file name and the suffix stay whole before
 * any folder shows ("/.../libappsame.so.1 (deleted)", not
 * "/srv/app/l...ame.so.1 (deleted)"), in both locales' marks.
 */
static void test_deleted_keeps_file_name(void **state)
{
	static const char gone[] = "/srv/app/releases/2026-12-01/lib/libappsame.so.1 (deleted)";

	(void)state;
	assert_non_null(setlocale(LC_CTYPE, "C.UTF-8"));
	elide_is(gone, 29, tui_ellipsis(0), "/\xe2\x80\xa6/libappsame.so.1 (deleted)");
	elide_is(gone, 34, tui_ellipsis(0), "/srv/\xe2\x80\xa6/libappsame.so.1 (deleted)");
	elide_is(gone, 38, tui_ellipsis(0), "/srv/\xe2\x80\xa6/lib/libappsame.so.1 (deleted)");
	assert_non_null(setlocale(LC_CTYPE, "C"));
	elide_is(gone, 30, "...", "/.../libappsame.so.1 (deleted)");
	elide_is(gone, 32, "...", "/.../libappsame.so.1 (deleted)");
	/* Narrower: the file name loses its middle, the suffix stays whole. */
	elide_is(gone, 24, "...", "/li...ame.so.1 (deleted)");
	elide_is(gone, 12, "...", "/li...leted)");
	/* What the layout asks for to keep it whole. */
	assert_int_equal(tui_elide_want(gone, strlen(gone), "..."), 30);
	assert_int_equal(tui_elide_want("/usr/bin/app", 12, "..."), 8); /* "/.../app" */
	assert_int_equal(tui_elide_want("[heap]", 6, "..."), 6);
}

/* Escaped names: a "\xNN" unit is never split, the file name still wins over its folders. */
static void test_escaped_name(void **state)
{
	static const char raw[] = "/home/u/\x1b]8;;evil\x07/build/libx\xff\x1b.so (deleted)";
	char esc[512], out[512];
	size_t len = ms_escape(raw, sizeof(raw) - 1, esc, sizeof(esc), MS_ESC_ASCII);
	const char *name = strstr(esc, "/libx");

	(void)state;
	assert_non_null(name);
	for (int w = 4; w < (int)len; w++) {
		tui_elide(esc, len, w, "...", out, sizeof(out));
		assert_true(cols(out) <= w);
		/* Wide enough for "/.../NAME": the whole file name and no folder but what fits. */
		if (w >= 4 + (int)strlen(name))
			assert_non_null(strstr(out, name));
	}
}

/* The end cut of plain cells: whole units, the locale's mark, never '~'. */
static void test_cut_end(void **state)
{
	char out[64];

	(void)state;
	tui_cut_end("libpython3.11-stdlib", 20, 12, "...", out, sizeof(out));
	assert_string_equal(out, "libpython...");
	assert_non_null(setlocale(LC_CTYPE, "C.UTF-8"));
	tui_cut_end("libpython3.11-stdlib", 20, 12, "\xe2\x80\xa6", out, sizeof(out));
	assert_string_equal(out, "libpython3.\xe2\x80\xa6");
	assert_non_null(setlocale(LC_CTYPE, "C"));
	/* "\x1b" is one unit: all of it or none. */
	tui_cut_end("a\\x1bcdef", 9, 6, "...", out, sizeof(out));
	assert_string_equal(out, "a...");
	tui_cut_end("a\\x1bcdef", 9, 8, "...", out, sizeof(out));
	assert_string_equal(out, "a\\x1b...");
	tui_cut_end("fits", 4, 4, "...", out, sizeof(out));
	assert_string_equal(out, "fits");
	tui_cut_end("abcdef", 6, 2, "...", out, sizeof(out));
	assert_string_equal(out, "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_keeps_file_name),
		cmocka_unit_test(test_middle),
		cmocka_unit_test(test_never_inside_an_escape),
		cmocka_unit_test(test_scroll),
		cmocka_unit_test(test_deleted_keeps_file_name),
		cmocka_unit_test(test_escaped_name),
		cmocka_unit_test(test_cut_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
