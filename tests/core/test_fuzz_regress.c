/*
 * Regressions found by the fuzz targets (tests/fuzz/): each input here once
 * broke a property the target checks, and the test fails if it comes back.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/snap/record.h"
#include "core/snap/snapshot.h"
#ifdef HAVE_LIBDW
#include "core/elf/symbols.h"
#endif

/* No byte below 0x20, no DEL, nothing past ASCII: a message fit for stderr. */
static void assert_plain_ascii(const char *msg)
{
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			fail_msg("raw byte 0x%02x in message \"%s\"", *p, msg);
}

/*
 * fuzz-snapshot: jansson's "invalid token near '...'" quoted a raw control
 * byte of the file (0x1c here, an ESC just as well) into the error message
 * that `mapscope diff` prints.  Now the quote is dropped whole (the rule:
 * no byte of a file that may not be ours in a message).
 */
static void test_snapshot_json_error_is_escaped(void **state)
{
	static const char doc[] = "{\"mapscope\": \"snapshot\", \"version\": 1,\x1c\"header\": {}}";
	static const char osc[] = "{\"a\": \x1b]52;c;SGk=\x07}";
	struct ms_snapshot snap;
	struct ms_error err = { 0 };

	(void)state;
	assert_int_equal(ms_snapshot_parse(doc, sizeof(doc) - 1, "f.json", &snap, &err), MS_ERR_INVAL);
	assert_non_null(strstr(err.msg, "not valid JSON"));
	assert_null(strstr(err.msg, "near '"));
	assert_plain_ascii(err.msg);

	assert_int_equal(ms_snapshot_parse(osc, sizeof(osc) - 1, "f.json", &snap, &err), MS_ERR_INVAL);
	assert_null(strstr(err.msg, "52;c;SGk="));
	assert_plain_ascii(err.msg);
}

/* The recording reader builds the same message from its own json_loadb. */
static void test_recording_json_error_is_escaped(void **state)
{
	static const char rec[] = "{\"mapscope\": \x1b[2J\x07}\n";
	struct ms_maplist list = { 0 };
	struct ms_error err = { 0 };
	size_t records = 0;

	(void)state;
	assert_int_equal(ms_recording_replay(rec, sizeof(rec) - 1, "r.jsonl", 0, 0, &list,
					     &records, &err), MS_ERR_INVAL);
	assert_non_null(strstr(err.msg, "not a mapscope recording"));
	assert_plain_ascii(err.msg);
	ms_maplist_free(&list);
}

#ifdef HAVE_LIBDW
/*
 * fuzz-symbols (tests/fuzz/corpus/symbols/end-past-top): a relocatable
 * file with a symbol whose end lies past the top of the address space
 * (value + size wraps).  libdw names it at the last address, 0xff..ff; the
 * symbol index stopped looking there, as no end it had stored lay above
 * that address, and named nothing.
 */
static void test_symbol_ending_past_top(void **state)
{
	const char *src = getenv("srcdir");
	struct ms_error err = { 0 };
	struct ms_symbols *s;
	struct ms_symbol sym;
	unsigned char buf[4096];
	char *path;
	FILE *f;
	size_t len;

	(void)state;
	assert_true(asprintf(&path, "%s/tests/fuzz/corpus/symbols/end-past-top", src ? src : ".") > 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	free(path);
	assert_int_equal(ms_symbols_image_new(buf, len, 0x10000000, &s, &err), 0);
	assert_int_equal(ms_symbols_lookup(s, UINT64_MAX, MS_SYMBOLS_NAME, &sym), 0);
	assert_non_null(sym.name);
	assert_string_equal(sym.name, "outer_weal");
	assert_int_equal(ms_symbols_image_check(s, &err), 0);
	ms_symbols_free(s);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_json_error_is_escaped),
		cmocka_unit_test(test_recording_json_error_is_escaped),
#ifdef HAVE_LIBDW
		cmocka_unit_test(test_symbol_ending_past_top),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
