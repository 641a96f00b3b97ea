/* pyrecord.c - the paths of a RECORD: see pyrecord.h. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "pkg/pyrecord.h"

enum field_end { FIELD_MORE, FIELD_LAST, FIELD_BROKEN };

/* Keep p[0, k) in buf when it fits; *fits goes false for good when not. */
static void put(char *buf, size_t cap, size_t *n, bool *fits, const char *p, size_t k)
{
	if (!buf || k == 0)
		return;
	if (*fits && k < cap - *n) {
		memcpy(buf + *n, p, k);
		*n += k;
	} else {
		*fits = false;
	}
}

/* The end of a record: "\n", "\r" or "\r\n", as Python's csv reader takes them. */
static bool at_line_end(struct ms_pyrecord_iter *it)
{
	char c = it->text[it->pos];

	if (c != '\n' && c != '\r')
		return false;
	it->pos++;
	if (c == '\r' && it->pos < it->len && it->text[it->pos] == '\n')
		it->pos++;
	return true;
}

/*
 * From it->pos, the bytes before the first that is '"' (quoted) or one of
 * ",\r\n" (not).  The first field of a record (first) is searched for
 * with memchr up to its line's end, once per record; later fields byte by
 * byte, so a line of many fields costs its length, not its length times
 * its fields.
 */
static size_t run(const struct ms_pyrecord_iter *it, bool quoted, bool first)
{
	const unsigned char *t = (const unsigned char *)it->text;
	size_t i = it->pos;

	if (quoted) {
		const char *q = memchr(t + i, '"', it->len - i);

		return q ? (size_t)(q - it->text) - i : it->len - i;
	}
	if (!first) {
		while (i < it->len && t[i] != ',' && t[i] != '\n' && t[i] != '\r')
			i++;
		return i - it->pos;
	}
	{
		const char *nl = memchr(t + i, '\n', it->len - i), *comma, *cr;
		size_t end = nl ? (size_t)(nl - it->text) : it->len;

		if ((comma = memchr(t + i, ',', end - i)))
			end = (size_t)(comma - it->text);
		if ((cr = memchr(t + i, '\r', end - i)))
			end = (size_t)(cr - it->text);
		return end - i;
	}
}

/*
 * One field from it->pos, into buf when buf is set.  A quote opens a
 * quoted field only at its start; after its closing quote, what comes up
 * to the delimiter is kept as it is (the csv module's default dialect).
 */
static enum field_end field(struct ms_pyrecord_iter *it, char *buf, size_t cap, size_t *n, bool *fits)
{
	const char *t = it->text;
	size_t k;

	if (it->pos < it->len && t[it->pos] == '"') {
		it->pos++;
		for (;;) {
			k = run(it, true, buf != NULL);
			put(buf, cap, n, fits, t + it->pos, k);
			it->pos += k;
			if (it->pos >= it->len)
				return FIELD_BROKEN;
			if (it->pos + 1 < it->len && t[it->pos + 1] == '"') {
				put(buf, cap, n, fits, "\"", 1);
				it->pos += 2;
				continue;
			}
			it->pos++;
			break;
		}
	}
	k = run(it, false, buf != NULL);
	put(buf, cap, n, fits, t + it->pos, k);
	it->pos += k;
	if (it->pos >= it->len)
		return FIELD_LAST;
	if (t[it->pos] == ',') {
		it->pos++;
		return FIELD_MORE;
	}
	at_line_end(it);
	return FIELD_LAST;
}

bool ms_pyrecord_next(struct ms_pyrecord_iter *it, char *buf, size_t cap, size_t *out_len)
{
	while (it->pos < it->len) {
		size_t n = 0, skipped = 0;
		bool fits = cap > 0, ignored = true;
		enum field_end end = field(it, buf, cap, &n, &fits);
		const char *rest = it->text + it->pos, *nl;

		/* The hash and size fields, quoted nowhere on the line: skip to its end at once. */
		if (end == FIELD_MORE && (nl = memchr(rest, '\n', it->len - it->pos)) &&
		    !memchr(rest, '"', (size_t)(nl - rest)) && !memchr(rest, '\r', (size_t)(nl - rest))) {
			it->pos = (size_t)(nl + 1 - it->text);
			end = FIELD_LAST;
		}
		while (end == FIELD_MORE)
			end = field(it, NULL, 0, &skipped, &ignored);
		if (end == FIELD_BROKEN)
			return false;
		if (fits && n > 0) {
			buf[n] = '\0';
			*out_len = n;
			return true;
		}
	}
	return false;
}

bool ms_pyrecord_egg_next(struct ms_pyrecord_iter *it, const char *eggdir, char *buf, size_t cap,
			  size_t *out_len)
{
	size_t dlen = strlen(eggdir);

	while (it->pos < it->len) {
		const char *line = it->text + it->pos, *nl = memchr(line, '\n', it->len - it->pos);
		size_t llen = nl ? (size_t)(nl - line) : it->len - it->pos, n = 0;

		it->pos += llen + (nl != NULL);
		if (llen > 0 && line[llen - 1] == '\r')
			llen--;
		if (llen == 0 || memchr(line, '\0', llen))
			continue;
		if (line[0] != '/') {
			if (dlen + 1 >= cap)
				continue;
			memcpy(buf, eggdir, dlen);
			buf[dlen] = '/';
			n = dlen + 1;
		}
		if (llen >= cap - n)
			continue;
		memcpy(buf + n, line, llen);
		n += llen;
		buf[n] = '\0';
		*out_len = n;
		return true;
	}
	return false;
}

/* The component of p (len bytes) at or after *r, past its slashes: its start and length; *r moves past it. */
static size_t component(const char *p, size_t len, size_t *r, size_t *start)
{
	while (*r < len && p[*r] == '/')
		(*r)++;
	*start = *r;
	while (*r < len && p[*r] != '/')
		(*r)++;
	return *r - *start;
}

size_t ms_pyrecord_site_of(const char *path, size_t len)
{
	size_t site = 0, r = 0, start;

	while (r < len) {
		size_t clen = component(path, len, &r, &start);

		if (clen == 13 && (!memcmp(path + start, "site-packages", 13) || !memcmp(path + start, "dist-packages", 13)) &&
		    r + 1 < len)
			site = r;
	}
	return site;
}

/*
 * Components of p (len bytes) written back from its start, joined by one
 * slash, without "." or empty ones; ".." drops the one before.  The new
 * length, or SIZE_MAX when a ".." has nothing left to drop.
 */
static size_t normalise(char *p, size_t len)
{
	size_t r = 0, w = 0;

	while (r < len) {
		size_t start, clen = component(p, len, &r, &start);

		if (clen == 0 || (clen == 1 && p[start] == '.'))
			continue;
		if (clen == 2 && p[start] == '.' && p[start + 1] == '.') {
			if (w == 0)
				return SIZE_MAX;
			while (w > 0 && p[w - 1] != '/')
				w--;
			if (w > 0)
				w--;
			continue;
		}
		if (w > 0)
			p[w++] = '/';
		memmove(p + w, p + start, clen);
		w += clen;
	}
	return w;
}

/* Already what normalise makes of it: no empty, "." or ".." component, relative. */
static bool settled(const char *p, size_t len)
{
	if (len == 0 || p[0] == '/' || p[0] == '.' || p[len - 1] == '/')
		return false;
	for (const char *s = memchr(p, '/', len); s; s = memchr(s + 1, '/', len - (size_t)(s + 1 - p)))
		if (s[1] == '/' || s[1] == '.')
			return false;
	return true;
}

size_t ms_pyrecord_site_relative(const char *site, size_t site_len, char *path, size_t len)
{
	bool absolute = len > 0 && path[0] == '/';
	size_t n;

	/* Most lines of a RECORD are: spare them the rewrite. */
	if (settled(path, len))
		return len;
	n = normalise(path, len);

	if (n == SIZE_MAX || n == 0)
		return SIZE_MAX;
	if (absolute) {
		/* Both without their leading slash: "usr/lib/python3/dist-packages/...". */
		while (site_len > 0 && site[0] == '/') {
			site++;
			site_len--;
		}
		if (site_len == 0 || n <= site_len + 1 || memcmp(path, site, site_len) || path[site_len] != '/')
			return SIZE_MAX;
		n -= site_len + 1;
		memmove(path, path + site_len + 1, n);
	}
	return n;
}
