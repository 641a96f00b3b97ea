/* json_scan.c - top-level string values of a JSON object: see json_scan.h. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/json_scan.h"

/* The longest key compared: longer keys match none asked for (callers ask for short ones). */
#define KEY_MAX 64

struct scan {
	const unsigned char *t;
	size_t len, pos;
};

/* Where a decoded string goes: nowhere (buf NULL), or buf while it fits. */
struct sink {
	char *buf;
	size_t cap, n;
	bool overflow, unfit;
};

static void ws(struct scan *s)
{
	while (s->pos < s->len &&
	       (s->t[s->pos] == ' ' || s->t[s->pos] == '\t' || s->t[s->pos] == '\n' || s->t[s->pos] == '\r'))
		s->pos++;
}

static bool eat(struct scan *s, unsigned char c)
{
	ws(s);
	if (s->pos < s->len && s->t[s->pos] == c) {
		s->pos++;
		return true;
	}
	return false;
}

static void put(struct sink *k, const void *p, size_t n)
{
	if (!k->buf || k->overflow)
		return;
	if (n >= k->cap - k->n) {
		k->overflow = true;
		return;
	}
	memcpy(k->buf + k->n, p, n);
	k->n += n;
}

static void put_utf8(struct sink *k, uint32_t cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	put(k, b, n);
}

/* Four hex digits at s->pos (moved past them) into *v; false when they are not. */
static bool hex4(struct scan *s, uint32_t *v)
{
	*v = 0;
	if (s->len - s->pos < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		unsigned char c = s->t[s->pos++];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (uint32_t)(c - 'A' + 10);
		else
			return false;
	}
	return true;
}

/* "\u" and its digits, at s->pos just past the 'u'; a high surrogate takes the low one after it. */
static bool unicode_escape(struct scan *s, struct sink *k)
{
	uint32_t cp, lo;

	if (!hex4(s, &cp))
		return false;
	if (cp >= 0xd800 && cp <= 0xdbff && s->len - s->pos >= 2 && s->t[s->pos] == '\\' &&
	    s->t[s->pos + 1] == 'u') {
		size_t back = s->pos;

		s->pos += 2;
		if (!hex4(s, &lo))
			return false;
		if (lo >= 0xdc00 && lo <= 0xdfff) {
			put_utf8(k, 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00));
			return true;
		}
		/* Not its pair: this one stands alone, and the next escape is read on its own. */
		s->pos = back;
	}
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0)
		k->unfit = true;
	else
		put_utf8(k, cp);
	return true;
}

/* A string at s->pos (its opening quote), decoded into k; false on a syntax error. */
static bool string(struct scan *s, struct sink *k)
{
	if (!eat(s, '"'))
		return false;
	for (;;) {
		size_t start = s->pos;
		unsigned char c;

		while (s->pos < s->len && s->t[s->pos] != '"' && s->t[s->pos] != '\\' && s->t[s->pos] >= 0x20)
			s->pos++;
		put(k, s->t + start, s->pos - start);
		if (s->pos >= s->len || s->t[s->pos] < 0x20)
			return false;
		if (s->t[s->pos++] == '"')
			return true;
		if (s->pos >= s->len)
			return false;
		c = s->t[s->pos++];
		switch (c) {
		case '"': case '\\': case '/': put(k, &c, 1); break;
		case 'b': put(k, "\b", 1); break;
		case 'f': put(k, "\f", 1); break;
		case 'n': put(k, "\n", 1); break;
		case 'r': put(k, "\r", 1); break;
		case 't': put(k, "\t", 1); break;
		case 'u':
			if (!unicode_escape(s, k))
				return false;
			break;
		default: return false;
		}
	}
}

static size_t digits(struct scan *s)
{
	size_t start = s->pos;

	while (s->pos < s->len && s->t[s->pos] >= '0' && s->t[s->pos] <= '9')
		s->pos++;
	return s->pos - start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number(struct scan *s)
{
	if (s->pos < s->len && s->t[s->pos] == '-')
		s->pos++;
	if (s->pos < s->len && s->t[s->pos] == '0')
		s->pos++;
	else if (digits(s) == 0)
		return false;
	if (s->pos < s->len && s->t[s->pos] == '.') {
		s->pos++;
		if (digits(s) == 0)
			return false;
	}
	if (s->pos < s->len && (s->t[s->pos] == 'e' || s->t[s->pos] == 'E')) {
		s->pos++;
		if (s->pos < s->len && (s->t[s->pos] == '+' || s->t[s->pos] == '-'))
			s->pos++;
		if (digits(s) == 0)
			return false;
	}
	return true;
}

static bool word(struct scan *s, const char *w)
{
	size_t n = strlen(w);

	if (s->len - s->pos < n || memcmp(s->t + s->pos, w, n))
		return false;
	s->pos += n;
	return true;
}

/* A key and its colon, the key decoded into k. */
static bool key(struct scan *s, struct sink *k)
{
	return string(s, k) && eat(s, ':');
}

/*
 * One value at s->pos, walked through and not kept, its containers on a
 * stack of depth bytes at most ('{' or '['), so a deep nesting costs no
 * C stack.  0, or MS_JSON_ERR_*.
 */
static int skip_value(struct scan *s, size_t depth_max)
{
	unsigned char stack[MS_JSON_DEPTH];
	size_t depth = 0;
	struct sink none = { 0 };

	for (;;) {
		unsigned char c;

		ws(s);
		if (s->pos >= s->len)
			return MS_JSON_ERR_SYNTAX;
		c = s->t[s->pos];
		if (c == '{' || c == '[') {
			if (depth == depth_max)
				return MS_JSON_ERR_DEPTH;
			stack[depth++] = c;
			s->pos++;
			if (eat(s, c == '{' ? '}' : ']')) {
				depth--;
			} else {
				if (c == '{' && !key(s, &none))
					return MS_JSON_ERR_SYNTAX;
				continue;
			}
		} else if (c == '"') {
			if (!string(s, &none))
				return MS_JSON_ERR_SYNTAX;
		} else if (!(c == 't' ? word(s, "true") : c == 'f' ? word(s, "false") : c == 'n' ? word(s, "null") :
								 number(s))) {
			return MS_JSON_ERR_SYNTAX;
		}
		/* A value ended: close what it ends, or go on to the next one. */
		for (;;) {
			if (depth == 0)
				return 0;
			if (eat(s, ',')) {
				if (stack[depth - 1] == '{' && !key(s, &none))
					return MS_JSON_ERR_SYNTAX;
				break;
			}
			if (!eat(s, stack[depth - 1] == '{' ? '}' : ']'))
				return MS_JSON_ERR_SYNTAX;
			depth--;
		}
	}
}

/* The value of a key asked for, into f. */
static int field_value(struct scan *s, struct ms_json_field *f)
{
	struct sink k = { .buf = f->out, .cap = f->cap };
	bool twice = f->state != MS_JSON_ABSENT;

	ws(s);
	if (s->pos < s->len && s->t[s->pos] == '"') {
		if (!string(s, &k))
			return MS_JSON_ERR_SYNTAX;
		f->state = k.overflow || k.unfit ? MS_JSON_UNFIT : MS_JSON_STRING;
		f->len = k.n;
	} else {
		int rc = skip_value(s, MS_JSON_DEPTH - 1);

		if (rc < 0)
			return rc;
		f->state = MS_JSON_OTHER;
	}
	if (twice)
		f->state = MS_JSON_TWICE;
	if (f->state != MS_JSON_STRING) {
		f->out[0] = '\0';
		f->len = 0;
	} else {
		f->out[f->len] = '\0';
	}
	return 0;
}

int ms_json_scan(const char *text, size_t len, struct ms_json_field *fields, size_t nfields)
{
	struct scan s = { .t = (const unsigned char *)text, .len = len };

	for (size_t i = 0; i < nfields; i++) {
		fields[i].state = MS_JSON_ABSENT;
		fields[i].len = 0;
		fields[i].out[0] = '\0';
	}
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		s.pos = 3;
	if (!eat(&s, '{'))
		return MS_JSON_ERR_SYNTAX;
	if (!eat(&s, '}')) {
		do {
			char name[KEY_MAX];
			struct sink k = { .buf = name, .cap = sizeof(name) };
			struct ms_json_field *f = NULL;
			int rc;

			if (!key(&s, &k))
				return MS_JSON_ERR_SYNTAX;
			for (size_t i = 0; !k.overflow && !k.unfit && i < nfields && !f; i++)
				if (strlen(fields[i].key) == k.n && !memcmp(fields[i].key, name, k.n))
					f = &fields[i];
			rc = f ? field_value(&s, f) : skip_value(&s, MS_JSON_DEPTH - 1);
			if (rc < 0)
				return rc;
		} while (eat(&s, ','));
		if (!eat(&s, '}'))
			return MS_JSON_ERR_SYNTAX;
	}
	ws(&s);
	return s.pos == len ? 0 : MS_JSON_ERR_SYNTAX;
}
