/* pkgnote.c - the ELF package note of a file: see pkgnote.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "elf/elfnote.h"
#include "elf/pkgnote.h"

/* The keys we read, and where each goes. */
enum key { KEY_TYPE, KEY_NAME, KEY_VERSION, KEY_ARCH, KEY_OSCPE, KEY_COUNT };

static const char *const key_names[KEY_COUNT] = { "type", "name", "version", "architecture", "osCpe" };

/* Longer than every key of ours, so a longer key is known not to be one. */
#define KEY_BUF 16

struct parser {
	const unsigned char *s;
	size_t len;
	size_t at;
	struct ms_error *err;
};

static int fail(struct parser *p, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The reason holds only our own words and the offset: no byte of the note. */
static int fail(struct parser *p, int code, const char *fmt, ...)
{
	char what[MS_ERRMSG_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ms_error_set(p->err, code, 0, "package note: %s (byte %zu of its JSON)", what, p->at);
}

static void skip_space(struct parser *p)
{
	while (p->at < p->len && (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' ||
				  p->s[p->at] == '\r'))
		p->at++;
}

/* Append len bytes to a field of cap bytes (room for the NUL kept); false once it is full. */
static bool put(char *out, size_t cap, size_t *n, const char *bytes, size_t len)
{
	if (!out)
		return true;
	if (*n + len >= cap)
		return false;
	memcpy(out + *n, bytes, len);
	*n += len;
	out[*n] = '\0';
	return true;
}

static int hex4(struct parser *p, uint32_t *v)
{
	*v = 0;
	if (p->len - p->at < 4)
		return fail(p, MS_ERR_PROTO, "a \\u escape cut short");
	for (int i = 0; i < 4; i++) {
		unsigned char c = p->s[p->at++];
		unsigned d = c >= '0' && c <= '9' ? c - '0' + 0u : c >= 'a' && c <= 'f' ? c - 'a' + 10u :
			     c >= 'A' && c <= 'F' ? c - 'A' + 10u : 16u;

		if (d > 15)
			return fail(p, MS_ERR_PROTO, "a \\u escape with a non-hex digit");
		*v = *v << 4 | d;
	}
	return 0;
}

/* \uXXXX at p->at (after the backslash and 'u'), a surrogate pair joined; as UTF-8 in utf8, *n bytes. */
static int unicode_escape(struct parser *p, char utf8[4], size_t *n)
{
	uint32_t cp, lo;
	int rc = hex4(p, &cp);

	if (rc < 0)
		return rc;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(p, MS_ERR_PROTO, "a lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->len - p->at < 2 || p->s[p->at] != '\\' || p->s[p->at + 1] != 'u')
			return fail(p, MS_ERR_PROTO, "a high surrogate without its low half");
		p->at += 2;
		if ((rc = hex4(p, &lo)) < 0)
			return rc;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(p, MS_ERR_PROTO, "a high surrogate without its low half");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return fail(p, MS_ERR_PROTO, "a NUL in a string");
	if (cp < 0x80) {
		utf8[0] = (char)cp;
		*n = 1;
	} else if (cp < 0x800) {
		utf8[0] = (char)(0xc0 | cp >> 6);
		utf8[1] = (char)(0x80 | (cp & 0x3f));
		*n = 2;
	} else if (cp < 0x10000) {
		utf8[0] = (char)(0xe0 | cp >> 12);
		utf8[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		utf8[2] = (char)(0x80 | (cp & 0x3f));
		*n = 3;
	} else {
		utf8[0] = (char)(0xf0 | cp >> 18);
		utf8[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		utf8[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		utf8[3] = (char)(0x80 | (cp & 0x3f));
		*n = 4;
	}
	return 0;
}

/*
 * The string at p->at (its opening quote), decoded into out (cap bytes;
 * out NULL: checked only).  *fits false when it is longer than out holds;
 * the string is checked to its end either way.
 */
static int string(struct parser *p, char *out, size_t cap, bool *fits)
{
	size_t n = 0;

	*fits = true;
	if (out)
		out[0] = '\0';
	p->at++;
	for (;;) {
		unsigned char c;
		char bytes[4];
		size_t len = 1;

		if (p->at >= p->len)
			return fail(p, MS_ERR_PROTO, "a string without its closing quote");
		c = p->s[p->at];
		if (c == '"') {
			p->at++;
			return 0;
		}
		if (c < 0x20)
			return fail(p, MS_ERR_PROTO, "a control byte in a string");
		if (c == '\\') {
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			const char *at;

			if (p->len - p->at < 2)
				return fail(p, MS_ERR_PROTO, "a string without its closing quote");
			c = p->s[p->at + 1];
			p->at += 2;
			if (c == 'u') {
				int rc = unicode_escape(p, bytes, &len);

				if (rc < 0)
					return rc;
			} else if (c && (at = strchr(from, c))) {
				bytes[0] = to[at - from];
			} else {
				p->at -= 2;
				return fail(p, MS_ERR_PROTO, "an unknown escape in a string");
			}
		} else if (c >= 0x80) {
			enum ms_text_kind kind;

			len = ms_text_unit((const char *)p->s + p->at, p->len - p->at, &kind);
			if (kind == MS_TEXT_INVALID)
				return fail(p, MS_ERR_PROTO, "a string that is not UTF-8");
			memcpy(bytes, p->s + p->at, len);
			p->at += len;
		} else {
			bytes[0] = (char)c;
			p->at++;
		}
		if (*fits && !put(out, cap, &n, bytes, len))
			*fits = false;
	}
}

static bool is_digit(const struct parser *p)
{
	return p->at < p->len && p->s[p->at] >= '0' && p->s[p->at] <= '9';
}

/* RFC 8259's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(struct parser *p)
{
	if (p->s[p->at] == '-')
		p->at++;
	if (!is_digit(p))
		return fail(p, MS_ERR_PROTO, "a malformed number");
	if (p->s[p->at++] != '0')
		while (is_digit(p))
			p->at++;
	if (p->at < p->len && p->s[p->at] == '.') {
		p->at++;
		if (!is_digit(p))
			return fail(p, MS_ERR_PROTO, "a malformed number");
		while (is_digit(p))
			p->at++;
	}
	if (p->at < p->len && (p->s[p->at] == 'e' || p->s[p->at] == 'E')) {
		p->at++;
		if (p->at < p->len && (p->s[p->at] == '+' || p->s[p->at] == '-'))
			p->at++;
		if (!is_digit(p))
			return fail(p, MS_ERR_PROTO, "a malformed number");
		while (is_digit(p))
			p->at++;
	}
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->at < n || memcmp(p->s + p->at, word, n) != 0)
		return fail(p, MS_ERR_PROTO, "not a JSON value");
	p->at += n;
	return 0;
}

static int members(struct parser *p, unsigned depth, struct ms_pkgnote *out);

/* Any value at p->at (space skipped before it), checked and skipped. */
static int value(struct parser *p, unsigned depth)
{
	bool fits;

	skip_space(p);
	if (p->at >= p->len)
		return fail(p, MS_ERR_PROTO, "a value is missing");
	switch (p->s[p->at]) {
	case '"': return string(p, NULL, 0, &fits);
	case '{': return members(p, depth + 1, NULL);
	case '[': {
		int rc;

		if (depth + 1 > MS_PKGNOTE_DEPTH_MAX)
			return fail(p, MS_ERR_LIMIT, "nested deeper than %u", MS_PKGNOTE_DEPTH_MAX);
		p->at++;
		skip_space(p);
		if (p->at < p->len && p->s[p->at] == ']') {
			p->at++;
			return 0;
		}
		for (;;) {
			if ((rc = value(p, depth + 1)) < 0)
				return rc;
			skip_space(p);
			if (p->at < p->len && p->s[p->at] == ',') {
				p->at++;
				continue;
			}
			if (p->at < p->len && p->s[p->at] == ']') {
				p->at++;
				return 0;
			}
			return fail(p, MS_ERR_PROTO, "an array without ',' or ']'");
		}
	}
	case 't': return literal(p, "true");
	case 'f': return literal(p, "false");
	case 'n': return literal(p, "null");
	default: return number(p);
	}
}

static enum key key_of(const char *key, bool fits)
{
	for (int k = 0; fits && k < KEY_COUNT; k++)
		if (!strcmp(key, key_names[k]))
			return (enum key)k;
	return KEY_COUNT;
}

static char *field_of(struct ms_pkgnote *out, enum key k, size_t *cap)
{
	switch (k) {
	case KEY_TYPE: *cap = sizeof(out->type); return out->type;
	case KEY_NAME: *cap = sizeof(out->name); return out->name;
	case KEY_VERSION: *cap = sizeof(out->version); return out->version;
	case KEY_ARCH: *cap = sizeof(out->architecture); return out->architecture;
	case KEY_OSCPE: *cap = sizeof(out->os_cpe); return out->os_cpe;
	case KEY_COUNT: break;
	}
	return NULL;
}

/* A key of ours at the top level: a string, read once. */
static int our_value(struct parser *p, enum key k, unsigned *seen, struct ms_pkgnote *out)
{
	size_t cap;
	char *field = field_of(out, k, &cap);
	bool fits;
	int rc;

	if (*seen & 1u << k)
		return fail(p, MS_ERR_PROTO, "\"%s\" is given twice", key_names[k]);
	*seen |= 1u << k;
	skip_space(p);
	if (p->at >= p->len || p->s[p->at] != '"')
		return fail(p, MS_ERR_PROTO, "\"%s\" is not a string", key_names[k]);
	if ((rc = string(p, field, cap, &fits)) < 0)
		return rc;
	if (!fits)
		return fail(p, MS_ERR_LIMIT, "\"%s\" is longer than %zu bytes", key_names[k], cap - 1);
	return 0;
}

/* An object at p->at ('{'); out: the top level, whose keys of ours are read. */
static int members(struct parser *p, unsigned depth, struct ms_pkgnote *out)
{
	unsigned seen = 0;
	int rc;

	if (depth > MS_PKGNOTE_DEPTH_MAX)
		return fail(p, MS_ERR_LIMIT, "nested deeper than %u", MS_PKGNOTE_DEPTH_MAX);
	p->at++;
	skip_space(p);
	if (p->at < p->len && p->s[p->at] == '}') {
		p->at++;
		return 0;
	}
	for (;;) {
		char key[KEY_BUF];
		bool fits;
		enum key k;

		skip_space(p);
		if (p->at >= p->len || p->s[p->at] != '"')
			return fail(p, MS_ERR_PROTO, "an object key is not a string");
		if ((rc = string(p, key, sizeof(key), &fits)) < 0)
			return rc;
		skip_space(p);
		if (p->at >= p->len || p->s[p->at] != ':')
			return fail(p, MS_ERR_PROTO, "an object key without ':'");
		p->at++;
		k = out ? key_of(key, fits) : KEY_COUNT;
		rc = k == KEY_COUNT ? value(p, depth) : our_value(p, k, &seen, out);
		if (rc < 0)
			return rc;
		skip_space(p);
		if (p->at < p->len && p->s[p->at] == ',') {
			p->at++;
			continue;
		}
		if (p->at < p->len && p->s[p->at] == '}') {
			p->at++;
			return 0;
		}
		return fail(p, MS_ERR_PROTO, "an object without ',' or '}'");
	}
}

int ms_pkgnote_desc(const unsigned char *desc, size_t len, struct ms_pkgnote *out, struct ms_error *err)
{
	const unsigned char *nul = memchr(desc, '\0', len);
	struct parser p = { .s = desc, .len = nul ? (size_t)(nul - desc) : len, .err = err };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!nul)
		return ms_error_set(err, MS_ERR_PROTO, 0, "package note: its JSON is not NUL-terminated");
	skip_space(&p);
	if (p.at >= p.len || p.s[p.at] != '{')
		return fail(&p, MS_ERR_PROTO, "not a JSON object");
	rc = members(&p, 1, out);
	if (rc == 0) {
		skip_space(&p);
		if (p.at < p.len)
			rc = fail(&p, MS_ERR_PROTO, "bytes after the object");
	}
	if (rc == 0 && !out->name[0])
		rc = ms_error_set(err, MS_ERR_PROTO, 0, "package note: it names no package");
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}

struct found {
	struct ms_pkgnote *out;
	struct ms_error *err;
	int rc;
};

/* The first package note is the answer, whatever its JSON says. */
static bool take_note(void *arg, const unsigned char *desc, size_t descsz)
{
	struct found *f = arg;

	f->rc = ms_pkgnote_desc(desc, descsz, f->out, f->err);
	return true;
}

static int parse(const unsigned char *buf, size_t size, bool halt, struct ms_pkgnote *out, struct ms_error *err)
{
	struct found f = { out, err, 0 };
	const struct ms_elfnote_want want = {
		.name = MS_PKGNOTE_OWNER, .namesz = sizeof(MS_PKGNOTE_OWNER), .type = MS_PKGNOTE_TYPE,
		.what = "package note", .limit = MS_PKGNOTE_READ_MAX, .take = take_note, .arg = &f,
		.loaded_only = true, .halt_out_of_reach = halt,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ms_elfnote_find(buf, size < MS_PKGNOTE_READ_MAX ? size : MS_PKGNOTE_READ_MAX, &want, err);
	return rc < 0 ? rc : f.rc;
}

int ms_pkgnote_parse(const unsigned char *buf, size_t size, struct ms_pkgnote *out, struct ms_error *err)
{
	return parse(buf, size, false, out, err);
}

int ms_pkgnote_read_fd(int fd, struct ms_pkgnote *out, struct ms_error *err)
{
	unsigned char *buf = malloc(MS_PKGNOTE_READ_MAX);
	size_t have;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = ms_elfnote_pread(fd, buf, MS_PKGNOTE_FIRST_READ, &have, err);
	/*
	 * The first part answers alone when it is the whole file, or when
	 * nothing the walk met before its answer lay beyond it; else read on.
	 */
	if (rc == 0)
		rc = parse(buf, have, have == MS_PKGNOTE_FIRST_READ, out, err);
	if (rc == MS_ERR_LIMIT && have == MS_PKGNOTE_FIRST_READ) {
		/* The first part's "beyond" is no answer: the whole read gives its own, or none. */
		ms_error_clear(err);
		rc = ms_elfnote_pread(fd, buf, MS_PKGNOTE_READ_MAX, &have, err);
		if (rc == 0)
			rc = parse(buf, have, false, out, err);
	}
	free(buf);
	return rc;
}
