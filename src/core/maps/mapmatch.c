#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hash.h"
#include "maps/mapmatch.h"

#define NONE SIZE_MAX

struct key {
	const char *name;
	size_t len;
	uint64_t a, b; /* offset and kind, or start and end */
	/* Pass 1 (anonymous and special memory): the file mapping just below, and how far above it. */
	const char *near;
	size_t near_len;
	uint64_t near_off, dist;
};

/* Is m a file mapping (a path)? */
static bool is_file(const struct ms_mapping *m)
{
	return m->name_len && m->name[0] == '/';
}

/* One side's list, with the file mapping just below each mapping (pass 1's neighbourhood). */
struct side {
	const struct ms_maplist *list;
	size_t *below; /* per mapping: the index of the nearest file mapping under it, or NONE */
};

enum pass {
	PASS_NEAR,  /* non-file mappings, by kind and neighbourhood */
	PASS_PLAIN, /* what is left, by kind alone, in address order */
};

static struct key key_of(const struct side *sd, size_t i, bool by_address, enum pass pass)
{
	const struct ms_mapping *m = &sd->list->items[i];
	struct key k = { m->name ? m->name : "", 0, 0, 0, "", 0, 0, 0 };

	if (by_address) {
		k.a = m->start;
		k.b = m->end;
	} else if (is_file(m)) {
		k.len = ms_mapping_name_undeleted(m->name, m->name_len);
		k.a = m->offset;
		k.b = m->perms & MS_PERM_SHARED;
	} else {
		k.len = m->name_len;
		k.b = m->perms;
		if (pass == PASS_NEAR && sd->below[i] != NONE) {
			const struct ms_mapping *f = &sd->list->items[sd->below[i]];

			k.near = f->name;
			k.near_len = ms_mapping_name_undeleted(f->name, f->name_len);
			k.near_off = f->offset;
			k.dist = m->start - f->end;
		} else if (pass == PASS_NEAR) {
			k.dist = m->start;
		}
	}
	return k;
}

static bool key_equal(const struct key *x, const struct key *y)
{
	return x->a == y->a && x->b == y->b && x->len == y->len && !memcmp(x->name, y->name, x->len) &&
	       x->near_off == y->near_off && x->dist == y->dist && x->near_len == y->near_len &&
	       !memcmp(x->near, y->near, x->near_len);
}

static uint64_t key_hash(const struct key *k)
{
	uint64_t h = ms_hash_mix(ms_hash_mix(ms_hash_bytes(ms_hash_seed(), k->name, k->len), k->a), k->b);

	return ms_hash_mix(ms_hash_mix(ms_hash_bytes(h, k->near, k->near_len), k->near_off), k->dist);
}

/* One key's old mappings, in address order: a queue linked through next[]. */
struct group {
	size_t head, tail; /* head: the next one to pair; NONE when empty */
	size_t first;      /* its first member, whose key the group has */
};

struct pairing {
	struct group *groups;
	size_t slots;
	size_t *next;    /* per old mapping */
	size_t *partner; /* per new mapping: its old one, or NONE */
	bool *paired;    /* per old mapping */
	struct side old_side, new_side;
	bool by_address;
	enum pass pass;
};

static struct group *group_of(struct pairing *p, const struct key *k)
{
	size_t mask = p->slots - 1;

	for (size_t i = key_hash(k) & mask;; i = (i + 1) & mask) {
		struct group *g = &p->groups[i];
		struct key gk;

		if (g->first == NONE)
			return g;
		gk = key_of(&p->old_side, g->first, p->by_address, p->pass);
		if (key_equal(&gk, k))
			return g;
	}
}

/* Does this pass pair mapping m (not paired yet)? */
static bool in_pass(const struct pairing *p, const struct ms_mapping *m)
{
	return p->pass == PASS_PLAIN || !is_file(m);
}

/* One pass: the old mappings not paired yet, grouped by key, each group taken in address order. */
static void pair_pass(struct pairing *p)
{
	const struct ms_maplist *old_list = p->old_side.list, *new_list = p->new_side.list;

	for (size_t i = 0; i < p->slots; i++)
		p->groups[i] = (struct group){ NONE, NONE, NONE };
	for (size_t i = 0; i < old_list->count; i++) {
		struct key k;
		struct group *g;

		if (p->paired[i] || !in_pass(p, &old_list->items[i]))
			continue;
		k = key_of(&p->old_side, i, p->by_address, p->pass);
		g = group_of(p, &k);
		p->next[i] = NONE;
		if (g->first == NONE)
			g->first = g->head = i;
		else
			p->next[g->tail] = i;
		g->tail = i;
	}
	for (size_t j = 0; j < new_list->count; j++) {
		struct key k;
		struct group *g;

		if (p->partner[j] != NONE || !in_pass(p, &new_list->items[j]))
			continue;
		k = key_of(&p->new_side, j, p->by_address, p->pass);
		g = group_of(p, &k);
		p->partner[j] = g->head;
		if (g->head != NONE) {
			p->paired[g->head] = true;
			g->head = p->next[g->head];
		}
	}
}

static size_t *below_of(const struct ms_maplist *list)
{
	size_t *below = malloc((list->count + 1) * sizeof(*below));
	size_t last = NONE;

	for (size_t i = 0; below && i < list->count; i++) {
		below[i] = last;
		if (is_file(&list->items[i]))
			last = i;
	}
	return below;
}

static int pair(struct pairing *p, const struct ms_maplist *old_list,
		const struct ms_maplist *new_list, bool by_address)
{
	size_t slots = 16;

	while (slots < 2 * old_list->count)
		slots *= 2;
	p->old_side.list = old_list;
	p->new_side.list = new_list;
	p->by_address = by_address;
	p->groups = malloc(slots * sizeof(*p->groups));
	p->next = calloc(old_list->count + 1, sizeof(*p->next));
	p->paired = calloc(old_list->count + 1, sizeof(*p->paired));
	p->partner = malloc((new_list->count + 1) * sizeof(*p->partner));
	p->old_side.below = below_of(old_list);
	p->new_side.below = below_of(new_list);
	if (!p->groups || !p->next || !p->paired || !p->partner || !p->old_side.below || !p->new_side.below)
		return MS_ERR_NOMEM;
	p->slots = slots;
	for (size_t j = 0; j < new_list->count; j++)
		p->partner[j] = NONE;
	if (!by_address) {
		p->pass = PASS_NEAR;
		pair_pass(p);
	}
	p->pass = PASS_PLAIN;
	pair_pass(p);
	return 0;
}

static unsigned differences(const struct ms_mapping *a, const struct ms_mapping *b,
			    const struct ms_match_opts *opts)
{
	unsigned d = ms_mapping_differences(a, b);

	if (opts->by_address)
		return d;
	/* The key holds the offset (files) and the name up to " (deleted)". */
	d &= ~MS_DIFF_F_OFFSET;
	if (!opts->same_boot)
		d &= ~(MS_DIFF_F_DEV | MS_DIFF_F_INODE);
	if (ms_mapping_size(a) != ms_mapping_size(b))
		d |= MS_DIFF_F_SIZE;
	return d;
}

static int emit(ms_diff_fn fn, void *ctx, enum ms_diff_kind kind, const struct ms_mapping *o,
		const struct ms_mapping *n, unsigned changed)
{
	struct ms_diff_entry e = { kind, o, n, changed };

	return fn ? fn(ctx, &e) : 0;
}

/* The old mappings below upto that no new one took, as REMOVED; *cursor moves on. */
static int flush_removed(const struct pairing *p, const struct ms_maplist *old_list, size_t upto,
			 size_t *cursor, ms_diff_fn fn, void *ctx, struct ms_diff_summary *s)
{
	int rc = 0;

	for (; rc == 0 && *cursor < upto; (*cursor)++)
		if (!p->paired[*cursor]) {
			s->removed++;
			rc = emit(fn, ctx, MS_DIFF_REMOVED, &old_list->items[*cursor], NULL, 0);
		}
	return rc;
}

/* Does a come before b in ms_maplist_diff's order (by start, then end)? */
static bool before(const struct ms_mapping *a, const struct ms_mapping *b)
{
	return a->start < b->start || (a->start == b->start && a->end < b->end);
}

static int walk(const struct pairing *p, const struct ms_maplist *old_list,
		const struct ms_maplist *new_list, const struct ms_match_opts *opts, ms_diff_fn fn,
		void *ctx, struct ms_diff_summary *s)
{
	size_t cursor = 0;
	int rc = 0;

	for (size_t j = 0; rc == 0 && j < new_list->count; j++) {
		const struct ms_mapping *b = &new_list->items[j], *a;
		unsigned d;

		if (p->partner[j] == NONE) {
			if (opts->by_address) {
				size_t upto = cursor;

				while (upto < old_list->count && before(&old_list->items[upto], b))
					upto++;
				rc = flush_removed(p, old_list, upto, &cursor, fn, ctx, s);
				if (rc)
					break;
			}
			s->added++;
			rc = emit(fn, ctx, MS_DIFF_ADDED, NULL, b, 0);
			continue;
		}
		rc = flush_removed(p, old_list, p->partner[j], &cursor, fn, ctx, s);
		if (rc)
			break;
		a = &old_list->items[p->partner[j]];
		d = differences(a, b, opts);
		s->moved += a->start != b->start;
		if (d)
			s->changed++;
		else
			s->unchanged++;
		if (d || opts->report_unchanged)
			rc = emit(fn, ctx, MS_DIFF_CHANGED, a, b, d);
	}
	if (rc == 0)
		rc = flush_removed(p, old_list, old_list->count, &cursor, fn, ctx, s);
	return rc;
}

int ms_maplist_match(const struct ms_maplist *old_list, const struct ms_maplist *new_list,
		     const struct ms_match_opts *opts, ms_diff_fn fn, void *ctx,
		     struct ms_diff_summary *summary)
{
	static const struct ms_match_opts none;
	struct pairing p = { 0 };
	struct ms_diff_summary s = { 0 };
	int rc;

	if (!opts)
		opts = &none;
	rc = pair(&p, old_list, new_list, opts->by_address);
	if (rc == 0)
		rc = walk(&p, old_list, new_list, opts, fn, ctx, &s);
	free(p.groups);
	free(p.next);
	free(p.partner);
	free(p.paired);
	free(p.old_side.below);
	free(p.new_side.below);
	if (summary)
		*summary = s;
	return rc;
}
