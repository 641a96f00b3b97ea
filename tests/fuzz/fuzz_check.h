/*
 * fuzz_check.h - properties the fuzz targets share.
 *
 * fuzz_check_safe_text aborts (so libFuzzer records a crash) when text that
 * is meant for a terminal is not safe by tests/safe_text.h: the promise of
 * escape.h, which every message built from untrusted input must keep too.
 * Header-only, so each target stays one translation unit plus the code
 * under test.
 */
#ifndef MAPSCOPE_FUZZ_CHECK_H
#define MAPSCOPE_FUZZ_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

static inline void fuzz_fail(const char *why, const unsigned char *s, size_t len)
{
	fprintf(stderr, "fuzz property broken: %s (%zu bytes)\n", why, len);
	abort();
}

static inline void fuzz_check_safe_text(const char *text, size_t len)
{
	const char *why = safe_text_problem(text, len, 0);

	if (why)
		fuzz_fail(why, (const unsigned char *)text, len);
}

/* Cut data at newlines like a log file and hand each line (no newline) to each_line. */
static inline void fuzz_each_line(const uint8_t *data, size_t size,
				  void (*each_line)(const char *line, size_t len, const uint8_t *data, size_t size))
{
	const char *at = (const char *)data, *end = at + size;

	while (at < end) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		size_t len = nl ? (size_t)(nl - at) : (size_t)(end - at);

		each_line(at, len, data, size);
		at += len + (nl ? 1 : 0);
	}
}

#endif
