#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "pkg/listlines.h"
#include "pkg/pathtable.h"
#include "pkg/pkg_status.h"

/* The directories merged /usr made aliases, each both ways. */
static const char *const merged[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/" };

/* Keyed per run (hash.h): the wanted paths are named by the processes judged. */
static struct ms_pkg_want *slot_for(struct ms_pkg_table *t, const char *s, size_t len)
{
	size_t i = (size_t)ms_hash_bytes(ms_hash_seed(), s, len) & t->mask;

	while (t->slots[i].path && (t->slots[i].len != len || memcmp(t->slots[i].path, s, len)))
		i = (i + 1) & t->mask;
	return &t->slots[i];
}

/* Chain idx to spelling s (its own path, kind 0, or its alias, kind 1). */
static void add(struct ms_pkg_table *t, const char *s, size_t len, size_t idx, int kind, char *own)
{
	struct ms_pkg_want *w = slot_for(t, s, len);

	if (!w->path) {
		*w = (struct ms_pkg_want){ .path = s, .len = len, .head = { MS_PKG_NO_IDX, MS_PKG_NO_IDX }, .own = own };
		t->len_wanted[len % MS_PKG_LEN_BUCKETS] = 1;
	} else {
		free(own);
	}
	t->next[kind][idx] = w->head[kind];
	w->head[kind] = idx;
}

/* The other spelling of a path under merged /usr, malloc'd; NULL if none. */
char *ms_pkg_alias_of(const char *p, size_t len, size_t *alias_len)
{
	for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
		size_t m = strlen(merged[i]);
		char *a;

		if (len > 4 + m && !memcmp(p, "/usr", 4) && !memcmp(p + 4, merged[i], m)) {
			*alias_len = len - 4;
			return strndup(p + 4, len - 4);
		}
		if (len > m && !memcmp(p, merged[i], m)) {
			a = malloc(len + 5);
			if (!a)
				return NULL;
			memcpy(a, "/usr", 4);
			memcpy(a + 4, p, len);
			a[len + 4] = '\0';
			*alias_len = len + 4;
			return a;
		}
	}
	return NULL;
}

int ms_pkg_table_init(struct ms_pkg_table *t, const char *const *paths, const size_t *lens, size_t n)
{
	size_t size = 16;

	while (size < 4 * n)
		size *= 2;
	t->slots = calloc(size, sizeof(*t->slots));
	t->next[0] = calloc(n ? n : 1, sizeof(*t->next[0]));
	t->next[1] = calloc(n ? n : 1, sizeof(*t->next[1]));
	if (!t->slots || !t->next[0] || !t->next[1])
		return MS_ERR_NOMEM;
	t->mask = size - 1;
	t->left = 0;
	for (size_t i = 0; i < n; i++) {
		size_t alen;
		char *alias;

		/* Answered already (a diverted path): not looked for. */
		if (!paths[i])
			continue;
		t->left++;
		add(t, paths[i], lens[i], i, 0, NULL);
		alias = ms_pkg_alias_of(paths[i], lens[i], &alen);
		if (alias)
			add(t, alias, alen, i, 1, alias);
	}
	return 0;
}

void ms_pkg_table_free(struct ms_pkg_table *t)
{
	for (size_t i = 0; t->slots && i <= t->mask; i++)
		free(t->slots[i].own);
	free(t->slots);
	free(t->next[0]);
	free(t->next[1]);
}

/* The package's name in a list file's name, PACKAGE[:ARCH].list: its length. */
size_t ms_pkg_name_len(const char *file)
{
	const char *colon = strchr(file, ':');

	return colon ? (size_t)(colon - file) : strlen(file) - strlen(".list");
}

/* Spelling w is in list file (index file_idx): it owns every path spelled so, unless an earlier list does. */
static void found_in(struct ms_pkg_table *t, const struct ms_pkg_want *w, const char *file, size_t file_idx,
		     struct ms_pkg *out, size_t *owner)
{
	const char *colon = strchr(file, ':');
	size_t base = strlen(file) - strlen(".list"), plen = ms_pkg_name_len(file);

	for (int kind = 0; kind < 2; kind++)
		for (size_t i = w->head[kind]; i != MS_PKG_NO_IDX; i = t->next[kind][i]) {
			struct ms_pkg *p = &out[i];

			if (t->excl && t->excl[i] && t->excl_len[i] == plen && !memcmp(t->excl[i], file, plen))
				continue;

			/* Files are read in any order; the list whose name sorts first wins. */
			if (p->found && owner[i] <= file_idx)
				continue;
			if (!p->found)
				t->left--;
			p->found = true;
			p->source = MS_PKG_SOURCE_DPKG;
			owner[i] = file_idx;
			memset(p->arch, 0, sizeof(p->arch));
			ms_pkg_copy_field(p->name, sizeof(p->name), file, plen);
			if (colon)
				ms_pkg_copy_field(p->arch, sizeof(p->arch), colon + 1, base - (size_t)(colon + 1 - file));
		}
}

/* Every line of one list file that names a wanted path: that path is the package's. */
void ms_pkg_table_scan(struct ms_pkg_table *t, const char *text, const uint32_t *lengths, size_t nlines,
		      const char *file, size_t file_idx, struct ms_pkg *out, size_t *owner)
{
	size_t pos = 0;

	for (size_t line = 0; line < nlines; pos += lengths[line++] + 1) {
		size_t n = lengths[line];
		struct ms_pkg_want *w = n && t->len_wanted[n % MS_PKG_LEN_BUCKETS] ? slot_for(t, text + pos, n) : NULL;

		if (w && w->path)
			found_in(t, w, file, file_idx, out, owner);
	}
}

/* Split then scan, with *lengths (*cap entries) grown as needed. */
size_t ms_pkg_table_split_scan(struct ms_pkg_table *t, const char *text, size_t len, uint32_t **lengths, size_t *cap,
		       const char *file, size_t file_idx, struct ms_pkg *out, size_t *owner)
{
	size_t n;

	while ((n = ms_pkg_split_lines(text, len, *lengths, *cap)) == SIZE_MAX) {
		size_t want = *cap ? *cap * 2 : 4096;
		uint32_t *grown = want < SIZE_MAX / sizeof(**lengths) ? realloc(*lengths, want * sizeof(**lengths))
								     : NULL;

		if (!grown)
			return SIZE_MAX;
		*lengths = grown;
		*cap = want;
	}
	ms_pkg_table_scan(t, text, *lengths, n, file, file_idx, out, owner);
	return n;
}
