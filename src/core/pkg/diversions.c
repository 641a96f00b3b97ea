#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/saferead.h"
#include "pkg/diversions.h"

/* The next line of text at *pos: its start and length; false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*line = text + *pos;
	nl = memchr(*line, '\n', len - *pos);
	*n = nl ? (size_t)(nl - *line) : len - *pos;
	*pos += *n + 1;
	return true;
}

int ms_pkg_diversions_parse(const char *text, size_t len, struct ms_pkg_diversions *d)
{
	size_t pos = 0, cap = 0;

	d->items = NULL;
	d->count = 0;
	while (d->count < MS_PKG_DIVERSIONS) {
		struct ms_pkg_diversion v;

		if (!next_line(text, len, &pos, &v.from, &v.from_len) || !next_line(text, len, &pos, &v.to, &v.to_len) ||
		    !next_line(text, len, &pos, &v.by, &v.by_len))
			break;
		if (v.by_len == 1 && v.by[0] == ':')
			v.by = NULL, v.by_len = 0;
		if (!v.from_len || !v.to_len)
			continue;
		if (ms_grow((void **)&d->items, &cap, d->count, sizeof(*d->items), 16) < 0) {
			free(d->items);
			d->items = NULL;
			d->count = 0;
			return MS_ERR_NOMEM;
		}
		d->items[d->count++] = v;
	}
	return 0;
}

int ms_pkg_diversions_read(const char *dir, struct ms_pkg_diversions *d)
{
	struct ms_error ignored;
	char path[4096];
	size_t len;
	int rc;

	memset(d, 0, sizeof(*d));
	if (snprintf(path, sizeof(path), "%s/diversions", dir) >= (int)sizeof(path) ||
	    ms_read_regular(path, MS_PKG_DIVERSIONS_MAX, &d->text, &len, &ignored) < 0)
		return 0;
	rc = ms_pkg_diversions_parse(d->text, len, d);
	if (rc < 0)
		ms_pkg_diversions_free(d);
	return rc;
}

void ms_pkg_diversions_free(struct ms_pkg_diversions *d)
{
	free(d->items);
	free(d->text);
	memset(d, 0, sizeof(*d));
}

static bool same(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

static bool names(const char *p, size_t len, const char *path, size_t plen, const char *alias, size_t alen)
{
	return same(p, len, path, plen) || (alias && same(p, len, alias, alen));
}

const struct ms_pkg_diversion *ms_pkg_diversion_of(const struct ms_pkg_diversions *d, const char *path,
						   size_t len, const char *alias, size_t alias_len, bool *is_from)
{
	for (int want_from = 1; want_from >= 0; want_from--)
		for (size_t i = 0; i < d->count; i++) {
			const struct ms_pkg_diversion *v = &d->items[i];

			if (want_from ? names(v->from, v->from_len, path, len, alias, alias_len)
				      : names(v->to, v->to_len, path, len, alias, alias_len)) {
				*is_from = want_from;
				return v;
			}
		}
	return NULL;
}
