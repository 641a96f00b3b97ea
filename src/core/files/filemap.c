#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files/filemap.h"

static const char *const kind_names[] = {
	[MS_FILEKIND_FILE] = "file",
	[MS_FILEKIND_HEAP] = "heap",
	[MS_FILEKIND_STACK] = "stack",
	[MS_FILEKIND_ANON] = "anon",
	[MS_FILEKIND_ANON_NAMED] = "anon-named",
	[MS_FILEKIND_SPECIAL] = "special",
};

const char *ms_filekind_name(enum ms_filekind kind)
{
	return (unsigned)kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : "?";
}

static const char *const sort_names[MS_FILESORT_COUNT] = {
	[MS_FILESORT_ADDR] = "address",
	[MS_FILESORT_SIZE] = "SIZE",
	[MS_FILESORT_RSS] = "RSS",
	[MS_FILESORT_MAPS] = "MAPS",
	[MS_FILESORT_NAME] = "NAME",
};

const char *ms_filesort_name(enum ms_filesort key)
{
	return (unsigned)key < MS_FILESORT_COUNT ? sort_names[key] : "?";
}

const char *ms_filerow_name(const struct ms_filerow *row, size_t *len)
{
	static const char anon[] = "[anonymous]";

	if (!row->name_len) {
		*len = sizeof(anon) - 1;
		return anon;
	}
	*len = row->name_len;
	return row->name;
}

/* A cell read from the file: "" when there is none (or not asked), "?" when unknown. */
static const char *read_cell(const struct ms_fileinfo *info, int rc, const char *text)
{
	if (!info->described || rc == MS_END)
		return "";
	return rc == 0 ? text : "?";
}

const char *ms_fileinfo_soname_text(const struct ms_fileinfo *info)
{
	return read_cell(info, info->soname_rc, info->soname);
}

const char *ms_fileinfo_libver_text(const struct ms_fileinfo *info)
{
	return read_cell(info, info->libver_rc, info->libver);
}

static bool has_prefix(const struct ms_mapping *m, const char *prefix)
{
	size_t n = strlen(prefix);

	return m->name_len >= n && !memcmp(m->name, prefix, n);
}

enum ms_filekind ms_filekind_of(const struct ms_mapping *m)
{
	if (m->inode || m->dev_major || m->dev_minor)
		return MS_FILEKIND_FILE;
	if (!m->name_len)
		return MS_FILEKIND_ANON;
	if (m->name_len == 6 && !memcmp(m->name, "[heap]", 6))
		return MS_FILEKIND_HEAP;
	if (m->name_len == 7 && !memcmp(m->name, "[stack]", 7))
		return MS_FILEKIND_STACK;
	if (has_prefix(m, "[anon:"))
		return MS_FILEKIND_ANON_NAMED;
	if (m->name[0] == '[')
		return MS_FILEKIND_SPECIAL;
	/* A name without a device: memfd-like oddities and anon_inode:...; by name. */
	return MS_FILEKIND_SPECIAL;
}

/* What identifies a row: its kind, and device and inode, or its name. */
struct key {
	enum ms_filekind kind;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	const char *name;
	size_t name_len;
};

static void key_of_mapping(const struct ms_mapping *m, struct key *k)
{
	memset(k, 0, sizeof(*k));
	k->kind = ms_filekind_of(m);
	if (k->kind == MS_FILEKIND_FILE) {
		k->dev_major = m->dev_major;
		k->dev_minor = m->dev_minor;
		k->inode = m->inode;
	} else if (k->kind == MS_FILEKIND_ANON_NAMED || k->kind == MS_FILEKIND_SPECIAL) {
		k->name = m->name;
		k->name_len = m->name_len;
	}
}

static void key_of_row(const struct ms_filerow *r, struct key *k)
{
	memset(k, 0, sizeof(*k));
	k->kind = r->kind;
	if (r->kind == MS_FILEKIND_FILE) {
		k->dev_major = r->dev_major;
		k->dev_minor = r->dev_minor;
		k->inode = r->inode;
	} else if (r->kind == MS_FILEKIND_ANON_NAMED || r->kind == MS_FILEKIND_SPECIAL) {
		k->name = r->name;
		k->name_len = r->name_len;
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	for (int b = 0; b < 8; b++) {
		h ^= (v >> (8 * b)) & 0xff;
		h *= 1099511628211ull; /* FNV-1a */
	}
	return h;
}

static uint64_t key_hash(const struct key *k)
{
	uint64_t h = mix(1469598103934665603ull, (uint64_t)k->kind);

	h = mix(h, ((uint64_t)k->dev_major << 32) | k->dev_minor);
	h = mix(h, k->inode);
	for (size_t i = 0; i < k->name_len; i++) {
		h ^= (unsigned char)k->name[i];
		h *= 1099511628211ull;
	}
	return h;
}

static bool key_equal(const struct key *a, const struct key *b)
{
	return a->kind == b->kind && a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->inode == b->inode && a->name_len == b->name_len &&
	       (!a->name_len || !memcmp(a->name, b->name, a->name_len));
}

/* The slot holding k, or the empty one where it would go. */
static size_t *slot_for(const struct ms_filemap *fm, const struct key *k, size_t *probes)
{
	size_t mask = fm->nslots - 1, i = (size_t)key_hash(k) & mask;

	for (;;) {
		size_t *s = &fm->slots[i];
		struct key other;

		if (!*s)
			return s;
		if (probes)
			(*probes)++;
		key_of_row(&fm->rows[*s - 1], &other);
		if (key_equal(k, &other))
			return s;
		i = (i + 1) & mask;
	}
}

static int rehash(struct ms_filemap *fm)
{
	size_t want = 16;

	while (want < 2 * (fm->count + 1))
		want *= 2;
	if (want <= fm->nslots && fm->slots) {
		memset(fm->slots, 0, fm->nslots * sizeof(*fm->slots));
	} else {
		free(fm->slots);
		fm->slots = calloc(want, sizeof(*fm->slots));
		fm->nslots = fm->slots ? want : 0;
		if (!fm->slots)
			return MS_ERR_NOMEM;
	}
	for (size_t i = 0; i < fm->count; i++) {
		struct key k;

		key_of_row(&fm->rows[i], &k);
		*slot_for(fm, &k, NULL) = i + 1;
	}
	return 0;
}

const struct ms_filerow *ms_filemap_find(const struct ms_filemap *fm, const struct ms_filerow *row)
{
	struct key k;
	size_t *s;

	if (!fm || !fm->nslots)
		return NULL;
	key_of_row(row, &k);
	s = slot_for(fm, &k, NULL);
	return *s ? &fm->rows[*s - 1] : NULL;
}

static int new_row(struct ms_filemap *fm, const struct ms_mapping *m, size_t index)
{
	struct ms_filerow *r = &fm->rows[fm->count];

	memset(r, 0, sizeof(*r));
	r->kind = ms_filekind_of(m);
	if (m->name_len) {
		r->name = malloc(m->name_len + 1);
		if (!r->name)
			return MS_ERR_NOMEM;
		memcpy(r->name, m->name, m->name_len);
		r->name[m->name_len] = '\0';
		r->name_len = m->name_len;
	}
	r->name_ambiguous = m->name_ambiguous;
	r->dev_major = m->dev_major;
	r->dev_minor = m->dev_minor;
	r->inode = m->inode;
	r->first = index;
	r->first_addr = m->start;
	r->first_end = m->end;
	fm->count++;
	return 0;
}

static int grow_rows(struct ms_filemap *fm, size_t *cap)
{
	size_t want = *cap ? 2 * *cap : 64;
	struct ms_filerow *rows = realloc(fm->rows, want * sizeof(*rows));

	if (!rows)
		return MS_ERR_NOMEM;
	fm->rows = rows;
	*cap = want;
	return 0;
}

void ms_filemap_free(struct ms_filemap *fm)
{
	for (size_t i = 0; i < fm->count; i++)
		free(fm->rows[i].name);
	free(fm->rows);
	free(fm->row_of);
	free(fm->slots);
	memset(fm, 0, sizeof(*fm));
}

int ms_filemap_build(struct ms_filemap *fm, const struct ms_maplist *list,
		     const struct ms_filemap *prev, struct ms_error *err)
{
	size_t cap = 0;

	ms_filemap_free(fm);
	fm->row_of = calloc(list->count ? list->count : 1, sizeof(*fm->row_of));
	fm->nmaps = list->count;
	if (!fm->row_of)
		goto nomem;
	/* Sized for the worst case (a row per mapping) up front: no rehash while grouping. */
	fm->nslots = 16;
	while (fm->nslots < 2 * (list->count + 1))
		fm->nslots *= 2;
	fm->slots = calloc(fm->nslots, sizeof(*fm->slots));
	if (!fm->slots)
		goto nomem;
	for (size_t i = 0; i < list->count; i++) {
		const struct ms_mapping *m = &list->items[i];
		struct key k;
		size_t *s;
		struct ms_filerow *r;

		key_of_mapping(m, &k);
		s = slot_for(fm, &k, &fm->probes);
		if (!*s) {
			if (fm->count == cap && grow_rows(fm, &cap) < 0)
				goto nomem;
			if (new_row(fm, m, i) < 0)
				goto nomem;
			*s = fm->count;
		}
		r = &fm->rows[*s - 1];
		r->mappings++;
		r->size += ms_mapping_size(m);
		r->perms |= m->perms;
		r->perm_sets |= (uint16_t)(1u << (m->perms & 0xfu));
		fm->row_of[i] = *s - 1;
	}
	for (size_t i = 0; prev && i < fm->count; i++) {
		const struct ms_filerow *old = ms_filemap_find(prev, &fm->rows[i]);

		if (old && old->info.described) {
			fm->rows[i].info = old->info;
			fm->rows[i].info.rss_known = false;
		}
	}
	return 0;
nomem:
	ms_filemap_free(fm);
	return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory grouping mappings into files");
}

/* Files by name first, then the anonymous kinds in their enum order, each by name. */
static int cmp_name(const struct ms_filerow *a, const struct ms_filerow *b)
{
	size_t n;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	n = a->name_len < b->name_len ? a->name_len : b->name_len;
	c = n ? memcmp(a->name, b->name, n) : 0;
	if (c)
		return c;
	return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

struct sort_ctx {
	enum ms_filesort key;
	bool reverse;
};

static int cmp_rows(const struct ms_filerow *a, const struct ms_filerow *b, const struct sort_ctx *c)
{
	int r = 0;

	switch (c->key) {
	case MS_FILESORT_SIZE: r = -cmp_u64(a->size, b->size); break;
	case MS_FILESORT_RSS: r = -cmp_u64(a->info.rss_known ? a->info.rss : 0,
					   b->info.rss_known ? b->info.rss : 0); break;
	case MS_FILESORT_MAPS: r = -cmp_u64(a->mappings, b->mappings); break;
	case MS_FILESORT_NAME: r = cmp_name(a, b); break;
	default: break;
	}
	if (c->reverse)
		r = -r;
	/* Ties, and the address order itself, by the first mapping: stable. */
	return r ? r : cmp_u64(a->first_addr, b->first_addr);
}

/* Merge sort of row indexes: no qsort_r context games, stable, n log n. */
static void merge_sort(size_t *idx, size_t *tmp, size_t n, const struct ms_filerow *rows,
		       const struct sort_ctx *c)
{
	size_t half = n / 2, i = 0, j = half, k = 0;

	if (n < 2)
		return;
	merge_sort(idx, tmp, half, rows, c);
	merge_sort(idx + half, tmp, n - half, rows, c);
	while (i < half || j < n)
		tmp[k++] = j >= n || (i < half && cmp_rows(&rows[idx[i]], &rows[idx[j]], c) <= 0) ?
			   idx[i++] : idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

int ms_filemap_sort(struct ms_filemap *fm, enum ms_filesort key, bool reverse)
{
	struct sort_ctx c = { key, reverse };
	size_t *idx, *tmp, *where;
	struct ms_filerow *sorted;

	if (fm->count < 2)
		return 0;
	idx = malloc(fm->count * sizeof(*idx));
	tmp = malloc(fm->count * sizeof(*tmp));
	sorted = malloc(fm->count * sizeof(*sorted));
	if (!idx || !tmp || !sorted) {
		free(idx);
		free(tmp);
		free(sorted);
		return MS_ERR_NOMEM;
	}
	for (size_t i = 0; i < fm->count; i++)
		idx[i] = i;
	merge_sort(idx, tmp, fm->count, fm->rows, &c);
	where = tmp; /* old index -> new index */
	for (size_t i = 0; i < fm->count; i++) {
		sorted[i] = fm->rows[idx[i]];
		where[idx[i]] = i;
	}
	for (size_t i = 0; i < fm->nmaps; i++)
		fm->row_of[i] = where[fm->row_of[i]];
	free(fm->rows);
	fm->rows = sorted;
	free(idx);
	free(tmp);
	return rehash(fm);
}

bool ms_permsets_wx(uint16_t perm_sets)
{
	for (unsigned p = 0; p < 16; p++)
		if ((perm_sets & (1u << p)) && (p & MS_PERM_WRITE) && (p & MS_PERM_EXEC))
			return true;
	return false;
}

void ms_permsets_format(uint16_t perm_sets, char *buf, size_t size)
{
	char text[16][6];
	size_t n = 0, at = 0;

	for (unsigned p = 0; p < 16; p++) {
		char *t;

		if (!(perm_sets & (1u << p)))
			continue;
		t = text[n++];
		ms_perms_format(p, t);
		/* Private is the usual case: only a shared set keeps its fourth letter. */
		if (t[3] == 'p')
			t[3] = '\0';
		if ((p & MS_PERM_WRITE) && (p & MS_PERM_EXEC))
			strcat(t, "!");
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(text[j - 1], text[j]) > 0; j--) {
			char tmp[6];

			memcpy(tmp, text[j], sizeof(tmp));
			memcpy(text[j], text[j - 1], sizeof(tmp));
			memcpy(text[j - 1], tmp, sizeof(tmp));
		}
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < n && at < size; i++) {
		int k = snprintf(buf + at, size - at, "%s%s", i ? "," : "", text[i]);

		if (k < 0)
			break;
		at += (size_t)k;
	}
}
