/*
 * safe_text.h - is this text safe to send to a terminal?
 *
 * safe_text_problem says why text is not what escape.h promises: a control
 * byte (0x00-0x1f, 0x7f; a newline too unless allow_newline), a C1 control,
 * an invisible or format character (bidi controls included), a line or
 * paragraph separator, or invalid UTF-8.  NULL when
 * the text is safe.  Header-only: the fuzz targets (tests/fuzz/) and the
 * hostile-input tests share it without linking anything else.
 */
#ifndef MAPSCOPE_TESTS_SAFE_TEXT_H
#define MAPSCOPE_TESTS_SAFE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/*
 * C1, line/paragraph separators, and what draws nothing: Unicode Cf (bidi,
 * zero-width, BOM, soft hyphen, tags) and the default-ignorable fillers and
 * variation selectors.  Pairs of first and last code point.
 */
static inline int safe_text_cp_forbidden(uint32_t cp)
{
	static const uint32_t ranges[] = {
		0x80, 0x9f, 0xad, 0xad, 0x34f, 0x34f, 0x600, 0x605, 0x61c, 0x61c, 0x6dd, 0x6dd,
		0x70f, 0x70f, 0x890, 0x891, 0x8e2, 0x8e2, 0x115f, 0x1160, 0x17b4, 0x17b5,
		0x180b, 0x180f, 0x200b, 0x200f, 0x2028, 0x202e, 0x2060, 0x206f, 0x3164, 0x3164,
		0xfe00, 0xfe0f, 0xfeff, 0xfeff, 0xffa0, 0xffa0, 0xfff0, 0xfffb, 0x110bd, 0x110bd,
		0x110cd, 0x110cd, 0x13430, 0x1343f, 0x1bca0, 0x1bca3, 0x1d173, 0x1d17a,
		0xe0000, 0xe0fff,
	};

	for (size_t i = 0; i + 1 < sizeof(ranges) / sizeof(ranges[0]); i += 2)
		if (cp >= ranges[i] && cp <= ranges[i + 1])
			return 1;
	return 0;
}

/* Decode one UTF-8 sequence strictly; its length, or 0 if invalid. */
static inline size_t safe_text_utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
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

static inline const char *safe_text_problem(const char *text, size_t len, int allow_newline)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = safe_text_utf8_next(s + i, len - i, &cp);

		if (!n)
			return "invalid UTF-8";
		if ((cp < 0x20 && !(allow_newline && cp == '\n')) || cp == 0x7f)
			return "a raw control byte";
		if (safe_text_cp_forbidden(cp))
			return "a C1, format, invisible or separator character";
		i += n;
	}
	return NULL;
}

#endif
