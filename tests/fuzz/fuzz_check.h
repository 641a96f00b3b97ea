/*
 * fuzz_check.h - properties the fuzz targets share.
 *
 * fuzz_check_safe_text aborts (so libFuzzer records a crash) when text that
 * is meant for a terminal holds a control byte, a C1 control, a bidi
 * control, a line/paragraph separator or invalid UTF-8: the promise of
 * escape.h, which every message built from untrusted input must keep too.
 * Header-only, so each target stays one translation unit plus the code
 * under test.
 */
#ifndef MAPSCOPE_FUZZ_CHECK_H
#define MAPSCOPE_FUZZ_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_fail(const char *why, const unsigned char *s, size_t len)
{
	fprintf(stderr, "fuzz property broken: %s (%zu bytes)\n", why, len);
	abort();
}

static inline int fuzz_cp_forbidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x2028 || cp == 0x2029;
}

/* Decode one UTF-8 sequence strictly; its length, or 0 if invalid. */
static inline size_t fuzz_utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n, i;
	uint32_t v, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, v = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3, v = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, v = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

static inline void fuzz_check_safe_text(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = fuzz_utf8_next(s + i, len - i, &cp);

		if (!n)
			fuzz_fail("invalid UTF-8 in output", s, len);
		if (cp < 0x20 || cp == 0x7f)
			fuzz_fail("raw control byte in output", s, len);
		if (fuzz_cp_forbidden(cp))
			fuzz_fail("C1, bidi or separator character in output", s, len);
		i += n;
	}
}

#endif
