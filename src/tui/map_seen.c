#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "core/base/grow.h"
#include "tui/map_seen.h"

void tui_seen_range(const struct ms_maplist *list, uint64_t addr, bool more, uint64_t *lo,
		    uint64_t *hi)
{
	*lo = list->count && list->items[0].start < addr ? list->items[0].start : addr;
	*hi = more && list->count ? list->items[list->count - 1].end : UINT64_MAX;
}

/* The part of list overlapping [lo, hi), as a borrowed slice. */
static struct ms_maplist slice(const struct ms_maplist *list, uint64_t lo, uint64_t hi)
{
	struct ms_maplist s = { 0 };
	size_t i = ms_maplist_lower_bound(list, lo), j;

	for (j = i; j < list->count && list->items[j].start < hi; j++)
		;
	s.items = list->items + i;
	s.count = j - i;
	s.capacity = s.count;
	return s;
}

static void gen_clear(struct tui_seen_gen *g)
{
	ms_maplist_clear(&g->known);
	g->nspans = 0;
}

static void gen_free(struct tui_seen_gen *g)
{
	ms_maplist_free(&g->known);
	free(g->spans);
	memset(g, 0, sizeof(*g));
}

void tui_seen_forget(struct tui_seen *s)
{
	gen_clear(&s->cur);
	gen_clear(&s->prev);
}

void tui_seen_free(struct tui_seen *s)
{
	gen_free(&s->cur);
	gen_free(&s->prev);
}

static int diff_piece(const struct tui_seen_gen *g, const struct ms_maplist *list, uint64_t a,
		      uint64_t b, ms_diff_fn fn, void *ctx)
{
	struct ms_maplist was = slice(&g->known, a, b), now = slice(list, a, b);

	return ms_maplist_diff(&was, &now, fn, ctx, NULL);
}

/* [a, b) less the current generation's spans, piece by piece, against the previous one. */
static int diff_prev(const struct tui_seen *s, const struct ms_maplist *list, uint64_t a,
		     uint64_t b, ms_diff_fn fn, void *ctx)
{
	for (size_t i = 0; i < s->cur.nspans && a < b; i++) {
		const struct tui_span *c = &s->cur.spans[i];
		int rc;

		if (c->hi <= a)
			continue;
		if (c->lo >= b)
			break;
		if (c->lo > a && (rc = diff_piece(&s->prev, list, a, c->lo, fn, ctx)))
			return rc;
		a = c->hi;
	}
	return a < b ? diff_piece(&s->prev, list, a, b, fn, ctx) : 0;
}

/* Only in the parts of [lo, hi) seen before: the newest generation there. */
static int compare(const struct tui_seen *s, const struct ms_maplist *list, uint64_t lo,
		   uint64_t hi, ms_diff_fn fn, void *ctx)
{
	for (size_t i = 0; i < s->cur.nspans; i++) {
		uint64_t a = s->cur.spans[i].lo > lo ? s->cur.spans[i].lo : lo;
		uint64_t b = s->cur.spans[i].hi < hi ? s->cur.spans[i].hi : hi;
		int rc = a < b ? diff_piece(&s->cur, list, a, b, fn, ctx) : 0;

		if (rc)
			return rc;
	}
	for (size_t i = 0; i < s->prev.nspans; i++) {
		uint64_t a = s->prev.spans[i].lo > lo ? s->prev.spans[i].lo : lo;
		uint64_t b = s->prev.spans[i].hi < hi ? s->prev.spans[i].hi : hi;
		int rc = a < b ? diff_prev(s, list, a, b, fn, ctx) : 0;

		if (rc)
			return rc;
	}
	return 0;
}

static int add_span(struct tui_seen_gen *g, uint64_t lo, uint64_t hi)
{
	size_t i = 0, j;

	while (i < g->nspans && g->spans[i].hi < lo)
		i++;
	for (j = i; j < g->nspans && g->spans[j].lo <= hi; j++) {
		lo = g->spans[j].lo < lo ? g->spans[j].lo : lo;
		hi = g->spans[j].hi > hi ? g->spans[j].hi : hi;
	}
	/* spans[i, j) merge into one. */
	if (i == j) {
		if (ms_grow((void **)&g->spans, &g->spans_cap, g->nspans, sizeof(*g->spans), 8) < 0)
			return MS_ERR_NOMEM;
		memmove(g->spans + i + 1, g->spans + i, (g->nspans - i) * sizeof(*g->spans));
		g->nspans++;
	} else {
		memmove(g->spans + i + 1, g->spans + j, (g->nspans - j) * sizeof(*g->spans));
		g->nspans -= j - i - 1;
	}
	g->spans[i] = (struct tui_span){ lo, hi };
	return 0;
}

/* known := known outside [lo, hi), list inside it. */
static int remember(struct tui_seen_gen *g, const struct ms_maplist *list, uint64_t lo, uint64_t hi)
{
	struct ms_maplist merged = { 0 };
	size_t k = 0;
	int rc = 0;

	merged.capacity = g->known.count + list->count;
	merged.items = calloc(merged.capacity ? merged.capacity : 1, sizeof(*merged.items));
	if (!merged.items)
		return MS_ERR_NOMEM;
	for (; k < g->known.count && g->known.items[k].end <= lo; k++)
		merged.items[merged.count++] = g->known.items[k];
	for (size_t i = 0; i < list->count && rc == 0; i++)
		if (list->items[i].end > lo && list->items[i].start < hi)
			rc = ms_mapping_copy(&merged.items[merged.count++], &list->items[i]);
	for (; k < g->known.count; k++) {
		if (g->known.items[k].start >= hi)
			merged.items[merged.count++] = g->known.items[k];
		else
			free(g->known.items[k].name); /* replaced by the listing */
	}
	free(g->known.items);
	g->known = merged;
	return rc;
}

int tui_seen_observe(struct tui_seen *s, const struct ms_maplist *list, uint64_t lo, uint64_t hi,
		     bool restart, ms_diff_fn fn, void *ctx)
{
	int rc;

	if (restart) {
		struct tui_seen_gen old = s->prev;

		s->prev = s->cur;
		s->cur = old;
		gen_clear(&s->cur);
	}
	rc = fn ? compare(s, list, lo, hi, fn, ctx) : 0;
	if (rc)
		return rc;
	if (lo >= hi)
		return 0;
	rc = remember(&s->cur, list, lo, hi);
	if (rc == 0)
		rc = add_span(&s->cur, lo, hi);
	if (rc < 0)
		tui_seen_forget(s);
	return rc;
}
