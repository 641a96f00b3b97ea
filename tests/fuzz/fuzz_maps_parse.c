/*
 * Fuzz target for the /proc/PID/maps text parser (src/core/maps/maps_parse.h).
 * The input is parsed twice: in one piece, and in chunks whose sizes come
 * from the first byte (a read(2) can end anywhere, even inside a line).
 * Properties: no crash or leak, both parses emit the same records in the
 * same order with the same line and malformed counts, every record agrees
 * with ms_maps_parse_line on its own line, and names are NUL-terminated
 * and never longer than the longest accepted line.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/maps/maps_parse.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int collect(void *ctx, struct ms_mapping *m)
{
	struct ms_maplist *list = ctx;

	if (m->name && (m->name[m->name_len] != '\0' || m->name_len > MS_TEXT_LINE_MAX))
		fuzz_fail("name length or NUL", (const unsigned char *)m->name, m->name_len);
	return ms_maplist_push(list, m);
}

static void parse(const char *text, size_t len, size_t step, struct ms_maplist *out,
		  size_t *lines, size_t *malformed)
{
	struct ms_text_parser p;
	size_t at = 0;

	ms_text_parser_init(&p, collect, out);
	while (at < len) {
		size_t n = len - at < step ? len - at : step;

		if (ms_text_parser_feed(&p, text + at, n) < 0)
			abort();
		at += n;
	}
	if (ms_text_parser_finish(&p) < 0)
		abort();
	*lines = p.lines;
	*malformed = p.malformed;
	ms_text_parser_free(&p);
}

static int same_mapping(const struct ms_mapping *a, const struct ms_mapping *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && a->perms == b->perms &&
	       a->name_len == b->name_len && (a->name == NULL) == (b->name == NULL) &&
	       (!a->name || memcmp(a->name, b->name, a->name_len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_maplist whole = { 0 }, chunked = { 0 };
	size_t lines1, bad1, lines2, bad2, step, i;
	const char *text;

	if (size < 1)
		return 0;
	step = (size_t)data[0] + 1;
	text = (const char *)data + 1;
	size--;

	parse(text, size, size ? size : 1, &whole, &lines1, &bad1);
	parse(text, size, step, &chunked, &lines2, &bad2);
	if (lines1 != lines2 || bad1 != bad2 || whole.count != chunked.count)
		fuzz_fail("chunked parse differs in counts", data, size);
	for (i = 0; i < whole.count; i++)
		if (!same_mapping(&whole.items[i], &chunked.items[i]))
			fuzz_fail("chunked parse differs in a record", data, size);
	if (whole.count + bad1 != lines1)
		fuzz_fail("records plus malformed lines is not the line count", data, size);

	/* Each emitted record matches parsing its line alone. */
	{
		size_t at = 0, rec = 0;

		while (at < size && rec < whole.count) {
			const char *nl = memchr(text + at, '\n', size - at);
			size_t len = nl ? (size_t)(nl - (text + at)) : size - at;
			struct ms_mapping one = { 0 };

			if (len <= MS_TEXT_LINE_MAX && ms_maps_parse_line(text + at, len, &one) == 0) {
				if (!same_mapping(&one, &whole.items[rec]))
					fuzz_fail("ms_maps_parse_line differs from the stream", data, size);
				rec++;
			}
			ms_mapping_reset(&one);
			at += len + 1;
		}
	}
	ms_maplist_free(&whole);
	ms_maplist_free(&chunked);
	return 0;
}
