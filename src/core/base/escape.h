/*
 * escape.h - make untrusted bytes safe for a terminal, a file or JSON.
 *
 * Names and command lines come from other processes and may hold any byte.
 * ms_escape turns them into printable text:
 *   - printable ASCII stays, except the backslash, which becomes "\\";
 *   - control bytes (0x00-0x1f, 0x7f), and so every escape sequence, become
 *     "\xNN";
 *   - well-formed UTF-8 stays, except C1 controls (U+0080-U+009F), every
 *     format character (Unicode category Cf: bidi controls, zero-width
 *     space and joiners, U+2060-U+2064, BOM, soft hyphen, tag characters),
 *     the other default-ignorable characters (variation selectors, Hangul
 *     fillers) and the line/paragraph separators, whose bytes become
 *     "\xNN" each;
 *   - invalid UTF-8 (bad lead or continuation bytes, overlong forms,
 *     surrogates, values past U+10FFFF) becomes "\xNN" per byte;
 *   - with MS_ESC_ASCII (a non-UTF-8 locale), every non-ASCII byte becomes
 *     "\xNN".
 * The escape is reversible (ms_unescape), and nothing invisible is left in
 * its output, so two different names never print the same.  The output is always valid UTF-8 and holds no control byte.
 */
#ifndef MAPSCOPE_ESCAPE_H
#define MAPSCOPE_ESCAPE_H

#include <stddef.h>

#define MS_ESC_ASCII 0x1u

/*
 * The formats that carry a name as it is (JSON, OpenMetrics, purls) escape
 * it once, by their own rules, and need to know what ms_escape would hide.
 * ms_text_unit says it for the unit at s (len > 0 bytes): its length (one
 * byte, or one well-formed UTF-8 sequence) and its kind.
 */
enum ms_text_kind {
	MS_TEXT_PLAIN,   /* printable ASCII (the backslash too), or a code point shown as it is */
	MS_TEXT_CONTROL, /* one byte 0x00-0x1f or 0x7f */
	MS_TEXT_HIDDEN,  /* a well-formed code point ms_escape hides: C1, format, invisible */
	MS_TEXT_INVALID, /* one byte that starts no well-formed UTF-8 sequence */
};
size_t ms_text_unit(const char *s, size_t len, enum ms_text_kind *kind);

/* U+FFFD, what a byte that is not UTF-8 becomes where a format must hold UTF-8. */
#define MS_TEXT_REPLACEMENT "\xef\xbf\xbd"

/*
 * A malloc'd copy of len bytes of s, NUL-terminated, with each invalid byte
 * as MS_TEXT_REPLACEMENT, so well-formed UTF-8; NULL when out of memory.
 */
char *ms_text_utf8_dup(const char *s, size_t len);

/* Bytes needed for the worst case of len input bytes, with the NUL. */
size_t ms_escape_bound(size_t len);

/*
 * Escape len bytes of src into dst (dst_size bytes, at least
 * ms_escape_bound(len) to never truncate).  Returns the output length; the
 * output is cut at a whole escape if dst is too small, and always ends in NUL.
 */
size_t ms_escape(const char *src, size_t len, char *dst, size_t dst_size, unsigned flags);

/* Returns a malloc'd escaped copy, or NULL when out of memory. */
char *ms_escape_dup(const char *src, size_t len, unsigned flags);

/*
 * Undo ms_escape.  dst needs len + 1 bytes.  Returns the decoded length, or
 * (size_t)-1 if src is not something ms_escape produces.
 */
size_t ms_unescape(const char *src, size_t len, char *dst);

#endif
