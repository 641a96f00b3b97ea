/* pyrecord.c - the paths of a RECORD: see pyrecord.h. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "pkg/pyrecord.h"

enum field_end { FIELD_MORE, FIELD_LAST, FIELD_BROKEN };

/* Keep c in buf when it fits; *fits goes false for good when not. */
static void put(char *buf, size_t cap, size_t *n, bool *fits, char c)
{
	if (!buf)
		return;
	if (*n + 1 < cap)
		buf[(*n)++] = c;
	else
		*fits = false;
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
 * One field from it->pos, into buf when buf is set.  A quote opens a
 * quoted field only at its start; after its closing quote, what comes up
 * to the delimiter is kept as it is (the csv module's default dialect).
 */
static enum field_end field(struct ms_pyrecord_iter *it, char *buf, size_t cap, size_t *n, bool *fits)
{
	const char *t = it->text;

	if (it->pos < it->len && t[it->pos] == '"') {
		it->pos++;
		for (;;) {
			if (it->pos >= it->len)
				return FIELD_BROKEN;
			if (t[it->pos] == '"') {
				if (it->pos + 1 < it->len && t[it->pos + 1] == '"') {
					put(buf, cap, n, fits, '"');
					it->pos += 2;
					continue;
				}
				it->pos++;
				break;
			}
			put(buf, cap, n, fits, t[it->pos++]);
		}
	}
	while (it->pos < it->len) {
		if (t[it->pos] == ',') {
			it->pos++;
			return FIELD_MORE;
		}
		if (at_line_end(it))
			return FIELD_LAST;
		put(buf, cap, n, fits, t[it->pos++]);
	}
	return FIELD_LAST;
}

bool ms_pyrecord_next(struct ms_pyrecord_iter *it, char *buf, size_t cap, size_t *out_len)
{
	while (it->pos < it->len) {
		size_t n = 0, skipped = 0;
		bool fits = cap > 0, ignored = true;
		enum field_end end = field(it, buf, cap, &n, &fits);

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

/*
 * Components of p (len bytes) written back from its start, joined by one
 * slash, without "." or empty ones; ".." drops the one before.  The new
 * length, or SIZE_MAX when a ".." has nothing left to drop.
 */
static size_t normalise(char *p, size_t len)
{
	size_t r = 0, w = 0;

	while (r < len) {
		size_t start, clen;

		while (r < len && p[r] == '/')
			r++;
		start = r;
		while (r < len && p[r] != '/')
			r++;
		clen = r - start;
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

size_t ms_pyrecord_site_relative(const char *site, size_t site_len, char *path, size_t len)
{
	bool absolute = len > 0 && path[0] == '/';
	size_t n = normalise(path, len);

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
