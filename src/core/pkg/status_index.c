/* status_index.c - versions from the status file's stanzas the index places: see status_index.h. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/saferead.h"
#include "pkg/pkg_status.h"
#include "pkg/pkgdb.h"
#include "pkg/status_index.h"

/* DIR/status, opened safely, when it is the file pins name; else -1. */
static int open_pinned(const char *dir, const struct ms_pkg_index_pins *pins)
{
	struct ms_error ignored;
	char path[4096];
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s/status", dir) >= (int)sizeof(path))
		return -1;
	fd = ms_open_regular(path, &ignored);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_ino != pins->status[0] || (uint64_t)st.st_size != pins->status[1] ||
	    (uint64_t)st.st_mtim.tv_sec != pins->status[2] || (uint64_t)st.st_mtim.tv_nsec != pins->status[3]) {
		close(fd);
		return -1;
	}
	return fd;
}

int ms_status_index_collect(const char *dir, const struct ms_pkg_index_pins *pins, struct ms_pkg_index_stanza **out,
			    size_t *n)
{
	size_t size = (size_t)pins->status[1], count = 0;
	struct ms_pkg_stanza *st = NULL;
	int fd = open_pinned(dir, pins), rc = 0;
	char *text = NULL;

	*out = NULL;
	*n = 0;
	if (fd < 0)
		return 0;
	if (size && size <= MS_PKGDB_STATUS_MAX && size < UINT32_MAX) {
		text = malloc(size);
		if (!text)
			rc = MS_ERR_NOMEM;
		else if (ms_pread_all(fd, text, size, 0))
			rc = ms_pkg_status_stanzas(text, size, &st, &count);
	}
	close(fd);
	if (rc == 0 && count && !(*out = malloc(count * sizeof(**out))))
		rc = MS_ERR_NOMEM;
	for (size_t i = 0; rc == 0 && i < count; i++)
		(*out)[i] = (struct ms_pkg_index_stanza){ .key = ms_pkg_index_hash(st[i].name, st[i].name_len),
							  .off = (uint32_t)st[i].off,
							  .len = (uint32_t)st[i].len };
	if (rc == 0)
		*n = count;
	free(st);
	free(text);
	return rc;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int by_offset(const void *a, const void *b)
{
	uint32_t x = ((const struct ms_pkg_index_stanza *)a)->off, y = ((const struct ms_pkg_index_stanza *)b)->off;

	return (x > y) - (x < y);
}

/* The first stanza of tab (sorted by key) with key, or n. */
static size_t first_of(const struct ms_pkg_index_stanza *tab, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The stanzas of the packages still wanting a version, in file order, into *pick. */
static int pick_stanzas(const struct ms_pkg_index_stanza *tab, size_t ntab, const struct ms_pkg *out, size_t n,
			struct ms_pkg_index_stanza **pick, size_t *npick)
{
	uint64_t *keys = malloc((n ? n : 1) * sizeof(*keys));
	size_t nkeys = 0, cap = 0;

	*pick = NULL;
	*npick = 0;
	if (!keys)
		return MS_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		if (out[i].found && !out[i].version[0])
			keys[nkeys++] = ms_pkg_index_hash(out[i].name, strnlen(out[i].name, sizeof(out[i].name)));
	if (nkeys)
		qsort(keys, nkeys, sizeof(*keys), by_key);
	for (size_t k = 0; k < nkeys; k++) {
		if (k && keys[k] == keys[k - 1])
			continue;
		for (size_t t = first_of(tab, ntab, keys[k]); t < ntab && tab[t].key == keys[k]; t++) {
			if (*npick == cap) {
				size_t want = cap ? 2 * cap : 16;
				struct ms_pkg_index_stanza *grown = realloc(*pick, want * sizeof(**pick));

				if (!grown) {
					free(keys);
					free(*pick);
					*pick = NULL;
					*npick = 0;
					return MS_ERR_NOMEM;
				}
				*pick = grown;
				cap = want;
			}
			(*pick)[(*npick)++] = tab[t];
		}
	}
	free(keys);
	if (*npick)
		qsort(*pick, *npick, sizeof(**pick), by_offset);
	return 0;
}

/* The picked stanzas read into one text, each ended by a blank line.  1, 0 (cut short) or MS_ERR_NOMEM. */
static int read_stanzas(int fd, const struct ms_pkg_index_stanza *pick, size_t npick, char **text, size_t *len)
{
	size_t total = 0, at = 0;
	char *buf;

	for (size_t i = 0; i < npick; i++)
		total += (size_t)pick[i].len + 2;
	*text = buf = malloc(total ? total : 1);
	*len = 0;
	if (!buf)
		return MS_ERR_NOMEM;
	for (size_t i = 0; i < npick; i++) {
		/* The same stanza under two "Package:" lines: once. */
		if (i && pick[i].off == pick[i - 1].off)
			continue;
		if (!ms_pread_all(fd, buf + at, pick[i].len, (off_t)pick[i].off))
			return 0;
		at += pick[i].len;
		while (at < 2 || buf[at - 1] != '\n' || buf[at - 2] != '\n')
			buf[at++] = '\n';
	}
	*len = at;
	return 1;
}

int ms_status_index_versions(const char *dir, const struct ms_pkg_index *ix, const struct ms_pkg_index_pins *pins,
			     struct ms_pkg *out, size_t n)
{
	struct ms_pkg_index_stanza *tab, *pick = NULL;
	size_t ntab, npick = 0, len = 0;
	char *text = NULL;
	int fd, rc;

	if (ms_pkg_index_stanzas(ix, &tab, &ntab) < 0)
		return 0;
	fd = open_pinned(dir, pins);
	rc = fd < 0 ? 0 : pick_stanzas(tab, ntab, out, n, &pick, &npick);
	if (fd >= 0 && rc == 0)
		rc = read_stanzas(fd, pick, npick, &text, &len);
	if (rc == 1)
		ms_pkg_status_versions(text, len, out, n);
	if (fd >= 0)
		close(fd);
	free(text);
	free(pick);
	free(tab);
	return rc;
}
