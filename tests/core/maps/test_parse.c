/* The maps text parser: well-formed lines, malformed ones, and streaming. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "maps/maps_parse.h"

static void test_full_line(void **state)
{
	struct ms_mapping m = { 0 };
	const char *line = "7f12a4c00000-7f12a4c26000 r-xp 00026000 fd:01 1835018                    /usr/lib/x86_64-linux-gnu/libc.so.6";

	(void)state;
	assert_int_equal(ms_maps_parse_line(line, strlen(line), &m), 0);
	assert_int_equal(m.start, 0x7f12a4c00000ull);
	assert_int_equal(m.end, 0x7f12a4c26000ull);
	assert_int_equal(m.perms, MS_PERM_READ | MS_PERM_EXEC);
	assert_int_equal(m.offset, 0x26000);
	assert_int_equal(m.dev_major, 0xfd);
	assert_int_equal(m.dev_minor, 1);
	assert_int_equal(m.inode, 1835018);
	assert_string_equal(m.name, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_true(ms_mapping_is_file_backed(&m));
	ms_mapping_reset(&m);
}

static void test_unnamed_and_special(void **state)
{
	struct ms_mapping m = { 0 };
	const char *anon = "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0";
	const char *heap = "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]";
	const char *shared = "7f0000000000-7f0000001000 rw-s 00000000 00:01 4242                       /dev/zero (deleted)";

	(void)state;
	assert_int_equal(ms_maps_parse_line(anon, strlen(anon), &m), 0);
	assert_null(m.name);
	assert_int_equal(m.name_len, 0);
	assert_false(ms_mapping_is_file_backed(&m));
	assert_int_equal(ms_maps_parse_line(heap, strlen(heap), &m), 0);
	assert_string_equal(m.name, "[heap]");
	assert_false(ms_mapping_is_file_backed(&m));
	assert_int_equal(ms_maps_parse_line(shared, strlen(shared), &m), 0);
	assert_int_equal(m.perms, MS_PERM_READ | MS_PERM_WRITE | MS_PERM_SHARED);
	assert_string_equal(m.name, "/dev/zero (deleted)");
	assert_true(ms_mapping_is_file_backed(&m));
	ms_mapping_reset(&m);
}

static void test_name_bytes(void **state)
{
	struct ms_mapping m = { 0 };
	/* Only \012 is an escape; other backslashes and raw bytes pass through. */
	const char *line = "1000-2000 r--p 00000000 08:02 7 /tmp/a\\012b c\\x\x1b[31m\\01";

	(void)state;
	assert_int_equal(ms_maps_parse_line(line, strlen(line), &m), 0);
	assert_int_equal(m.name_len, strlen("/tmp/a\nb c\\x\x1b[31m\\01"));
	assert_memory_equal(m.name, "/tmp/a\nb c\\x\x1b[31m\\01", m.name_len);
	ms_mapping_reset(&m);
}

static void test_malformed(void **state)
{
	static const char *bad[] = {
		"",
		"garbage",
		"1000-2000",
		"1000-2000 r--p",
		"1000-2000 r--p 0 08:02",
		"2000-1000 r--p 00000000 08:02 7",   /* end before start */
		"1000-1000 r--p 00000000 08:02 7",   /* empty */
		"1000-2000 rxwp 00000000 08:02 7",   /* perms out of order */
		"1000-2000 r--q 00000000 08:02 7",
		"1000-2000 r--p 0000zz00 08:02 7",
		"1000-2000 r--p 00000000 0802 7",
		"1000-2000 r--p 00000000 08:02 x7",
		"10000000000000000000-2 r--p 0 1:2 3", /* overflow */
		"1000-2000 r--p 0 1:2 99999999999999999999999",
		"-2000 r--p 0 1:2 3",
		"1000-2000 r--p 0 100000000:2 3",     /* major past 32 bits */
	};
	struct ms_mapping m = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ms_maps_parse_line(bad[i], strlen(bad[i]), &m) != -1)
			fail_msg("accepted malformed line %zu: '%s'", i, bad[i]);
	ms_mapping_reset(&m);
}

struct sink {
	struct ms_maplist list;
};

static int keep(void *ctx, struct ms_mapping *m)
{
	return ms_maplist_push(&((struct sink *)ctx)->list, m);
}

static char *sample(size_t *len)
{
	static const char text[] =
		"1000-2000 r--p 00000000 08:02 7 /a\n"
		"this line is broken\n"
		"3000-4000 rw-p 00000000 00:00 0\n"
		"5000-6000 r-xp 00001000 08:02 9                /b/c d\n"
		"7000-8000 ---p 00000000 00:00 0 [stack]";
	*len = sizeof(text) - 1;
	return strdup(text);
}

static void check_sample(const struct sink *s, const struct ms_text_parser *p)
{
	assert_int_equal(s->list.count, 4);
	assert_int_equal(p->malformed, 1);
	assert_int_equal(p->lines, 5);
	assert_string_equal(s->list.items[0].name, "/a");
	assert_null(s->list.items[1].name);
	assert_string_equal(s->list.items[2].name, "/b/c d");
	assert_string_equal(s->list.items[3].name, "[stack]");
	assert_int_equal(s->list.items[3].start, 0x7000);
}

static void test_stream_any_chunking(void **state)
{
	size_t len;
	char *text = sample(&len);

	(void)state;
	for (size_t chunk = 1; chunk <= len; chunk++) {
		struct sink s = { { 0 } };
		struct ms_text_parser p;

		ms_text_parser_init(&p, keep, &s);
		for (size_t off = 0; off < len; off += chunk)
			assert_int_equal(ms_text_parser_feed(&p, text + off, off + chunk > len ? len - off : chunk), 0);
		assert_int_equal(ms_text_parser_finish(&p), 0);
		check_sample(&s, &p);
		ms_text_parser_free(&p);
		ms_maplist_free(&s.list);
	}
	free(text);
}

static void test_long_lines(void **state)
{
	size_t name_len = 5000, bad_len = MS_TEXT_LINE_MAX + 100;
	char *line = malloc(name_len + 64), *huge = malloc(bad_len + 2);
	struct sink s = { { 0 } };
	struct ms_text_parser p;
	int n;

	(void)state;
	assert_non_null(line);
	assert_non_null(huge);
	/* Longer than a page but within bounds: parsed. */
	n = snprintf(line, 64, "1000-2000 r--p 00000000 08:02 7 /");
	memset(line + n, 'n', name_len);
	line[n + (int)name_len] = '\n';
	/* Past the bound: skipped and counted, never buffered whole. */
	memset(huge, 'x', bad_len);
	huge[bad_len] = '\n';

	ms_text_parser_init(&p, keep, &s);
	for (size_t off = 0; off < (size_t)n + name_len + 1; off += 700)
		assert_int_equal(ms_text_parser_feed(&p, line + off,
			off + 700 > (size_t)n + name_len + 1 ? (size_t)n + name_len + 1 - off : 700), 0);
	assert_int_equal(ms_text_parser_feed(&p, huge, bad_len + 1), 0);
	assert_int_equal(ms_text_parser_feed(&p, huge, 1000), 0);
	assert_int_equal(ms_text_parser_feed(&p, huge, bad_len - 1000 + 1), 0);
	assert_int_equal(ms_text_parser_finish(&p), 0);
	assert_int_equal(s.list.count, 1);
	assert_int_equal(s.list.items[0].name_len, name_len + 1);
	assert_int_equal(p.malformed, 2);
	assert_true(p.cap <= MS_TEXT_LINE_MAX);
	ms_text_parser_free(&p);
	ms_maplist_free(&s.list);
	free(line);
	free(huge);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_line),
		cmocka_unit_test(test_unnamed_and_special),
		cmocka_unit_test(test_name_bytes),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_stream_any_chunking),
		cmocka_unit_test(test_long_lines),
	};

	return cmocka_run_group_tests_name("maps text parser", tests, NULL, NULL);
}
