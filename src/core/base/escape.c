#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"

size_t ms_escape_bound(size_t len)
{
	if (len > (SIZE_MAX - 1) / 4)
		return SIZE_MAX;
	return len * 4 + 1;
}

/* Length of a well-formed UTF-8 sequence at s, and its code point; 0 if none. */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	uint32_t c;
	size_t n, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	if (s[0] < 0xe0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] < 0xf0) {
		n = 3;
		c = s[0] & 0x0f;
	} else {
		n = 4;
		c = s[0] & 0x07;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * Code points that must not reach a terminal raw: the C1 controls, and every
 * character that draws nothing or reorders what follows, so that two
 * different names can never print alike.  That is the Unicode general
 * category Cf (format: soft hyphen, zero-width space and joiners, word
 * joiner, invisible operators, bidi controls, BOM, interlinear annotation,
 * tags; Unicode 15) together with the other Default_Ignorable_Code_Points
 * (combining grapheme joiner, Hangul fillers, variation selectors), and the
 * line and paragraph separators.  Sorted, inclusive.
 */
static const struct {
	uint32_t lo, hi;
} hidden[] = {
	{ 0x0080, 0x009f },   { 0x00ad, 0x00ad },   { 0x034f, 0x034f },   { 0x0600, 0x0605 },
	{ 0x061c, 0x061c },   { 0x06dd, 0x06dd },   { 0x070f, 0x070f },   { 0x0890, 0x0891 },
	{ 0x08e2, 0x08e2 },   { 0x115f, 0x1160 },   { 0x17b4, 0x17b5 },   { 0x180b, 0x180f },
	{ 0x200b, 0x200f },   { 0x2028, 0x202e },   { 0x2060, 0x206f },   { 0x3164, 0x3164 },
	{ 0xfe00, 0xfe0f },   { 0xfeff, 0xfeff },   { 0xffa0, 0xffa0 },   { 0xfff0, 0xfffb },
	{ 0x110bd, 0x110bd }, { 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
	{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
};

static bool dangerous_code_point(uint32_t c)
{
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]) && hidden[i].lo <= c; i++)
		if (c <= hidden[i].hi)
			return true;
	return false;
}

static const char hexdigits[] = "0123456789abcdef";

size_t ms_text_unit(const char *s, size_t len, enum ms_text_kind *kind)
{
	unsigned char b = (unsigned char)s[0];
	uint32_t cp;
	size_t run;

	if (b < 0x20 || b == 0x7f) {
		*kind = MS_TEXT_CONTROL;
		return 1;
	}
	if (b < 0x80) {
		*kind = MS_TEXT_PLAIN;
		return 1;
	}
	run = utf8_decode((const unsigned char *)s, len, &cp);
	if (run == 0) {
		*kind = MS_TEXT_INVALID;
		return 1;
	}
	*kind = dangerous_code_point(cp) ? MS_TEXT_HIDDEN : MS_TEXT_PLAIN;
	return run;
}

size_t ms_escape(const char *src, size_t len, char *dst, size_t dst_size, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0;

	if (dst_size == 0)
		return 0;
	while (i < len) {
		unsigned char b = s[i];
		enum ms_text_kind kind;
		size_t run, k;

		if (b == '\\') {
			if (o + 2 >= dst_size)
				break;
			dst[o++] = '\\';
			dst[o++] = '\\';
			i++;
			continue;
		}
		if (b >= 0x20 && b < 0x7f) {
			if (o + 1 >= dst_size)
				break;
			dst[o++] = (char)b;
			i++;
			continue;
		}
		run = ms_text_unit(src + i, len - i, &kind);
		/* A non-ASCII locale shows no byte past 0x7f: each of a sequence's is escaped. */
		if (kind == MS_TEXT_PLAIN && !(flags & MS_ESC_ASCII)) {
			if (o + run >= dst_size)
				break;
			memcpy(dst + o, s + i, run);
			o += run;
			i += run;
			continue;
		}
		if (o + 4 * run >= dst_size)
			break;
		for (k = 0; k < run; k++) {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hexdigits[s[i + k] >> 4];
			dst[o++] = hexdigits[s[i + k] & 0xf];
		}
		i += run;
	}
	dst[o] = '\0';
	return o;
}

char *ms_escape_dup(const char *src, size_t len, unsigned flags)
{
	size_t size = ms_escape_bound(len);
	char *out;

	if (size == SIZE_MAX)
		return NULL;
	out = malloc(size);
	if (out)
		ms_escape(src, len, out, size, flags);
	return out;
}

char *ms_text_utf8_dup(const char *s, size_t len)
{
	static const char repl[] = MS_TEXT_REPLACEMENT;
	size_t o = 0;
	char *out;

	/* Each byte gives at most the three of U+FFFD. */
	if (len > (SIZE_MAX - 1) / 3 || !(out = malloc(3 * len + 1)))
		return NULL;
	for (size_t i = 0; i < len;) {
		enum ms_text_kind kind;
		size_t run = ms_text_unit(s + i, len - i, &kind);

		if (kind == MS_TEXT_INVALID) {
			memcpy(out + o, repl, sizeof(repl) - 1);
			o += sizeof(repl) - 1;
		} else {
			memcpy(out + o, s + i, run);
			o += run;
		}
		i += run;
	}
	out[o] = '\0';
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t ms_unescape(const char *src, size_t len, char *dst)
{
	size_t i = 0, o = 0;

	while (i < len) {
		if (src[i] != '\\') {
			dst[o++] = src[i++];
			continue;
		}
		if (i + 1 < len && src[i + 1] == '\\') {
			dst[o++] = '\\';
			i += 2;
		} else if (i + 3 < len && src[i + 1] == 'x' && hexval(src[i + 2]) >= 0 &&
			   hexval(src[i + 3]) >= 0) {
			dst[o++] = (char)(hexval(src[i + 2]) << 4 | hexval(src[i + 3]));
			i += 4;
		} else {
			return (size_t)-1;
		}
	}
	dst[o] = '\0';
	return o;
}
