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

void tui_seen_forget(struct tui_seen *s)
{
	ms_maplist_clear(&s->known);
	s->nspans = 0;
}

void tui_seen_free(struct tui_seen *s)
{
	ms_maplist_free(&s->known);
	free(s->spans);
	memset(s, 0, sizeof(*s));
}

/* Only in the parts of [lo, hi) seen before. */
static int compare(const struct tui_seen *s, const struct ms_maplist *list, uint64_t lo,
		   uint64_t hi, ms_diff_fn fn, void *ctx)
{
	for (size_t i = 0; i < s->nspans; i++) {
		uint64_t a = s->spans[i].lo > lo ? s->spans[i].lo : lo;
		uint64_t b = s->spans[i].hi < hi ? s->spans[i].hi : hi;
		struct ms_maplist was, now;
		int rc;

		if (a >= b)
			continue;
		was = slice(&s->known, a, b);
		now = slice(list, a, b);
		rc = ms_maplist_diff(&was, &now, fn, ctx, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

static int add_span(struct tui_seen *s, uint64_t lo, uint64_t hi)
{
	size_t i = 0, j;

	while (i < s->nspans && s->spans[i].hi < lo)
		i++;
	for (j = i; j < s->nspans && s->spans[j].lo <= hi; j++) {
		lo = s->spans[j].lo < lo ? s->spans[j].lo : lo;
		hi = s->spans[j].hi > hi ? s->spans[j].hi : hi;
	}
	/* spans[i, j) merge into one. */
	if (i == j) {
		if (ms_grow((void **)&s->spans, &s->spans_cap, s->nspans, sizeof(*s->spans), 8) < 0)
			return MS_ERR_NOMEM;
		memmove(s->spans + i + 1, s->spans + i, (s->nspans - i) * sizeof(*s->spans));
		s->nspans++;
	} else {
		memmove(s->spans + i + 1, s->spans + j, (s->nspans - j) * sizeof(*s->spans));
		s->nspans -= j - i - 1;
	}
	s->spans[i] = (struct tui_span){ lo, hi };
	return 0;
}

/* known := known outside [lo, hi), list inside it. */
static int remember(struct tui_seen *s, const struct ms_maplist *list, uint64_t lo, uint64_t hi)
{
	struct ms_maplist merged = { 0 };
	size_t k = 0;
	int rc = 0;

	merged.capacity = s->known.count + list->count;
	merged.items = calloc(merged.capacity ? merged.capacity : 1, sizeof(*merged.items));
	if (!merged.items)
		return MS_ERR_NOMEM;
	for (; k < s->known.count && s->known.items[k].end <= lo; k++)
		merged.items[merged.count++] = s->known.items[k];
	for (size_t i = 0; i < list->count && rc == 0; i++)
		if (list->items[i].end > lo && list->items[i].start < hi)
			rc = ms_mapping_copy(&merged.items[merged.count++], &list->items[i]);
	for (; k < s->known.count; k++) {
		if (s->known.items[k].start >= hi)
			merged.items[merged.count++] = s->known.items[k];
		else
			free(s->known.items[k].name); /* replaced by the listing */
	}
	free(s->known.items);
	s->known = merged;
	return rc;
}

int tui_seen_observe(struct tui_seen *s, const struct ms_maplist *list, uint64_t lo, uint64_t hi,
		     bool restart, ms_diff_fn fn, void *ctx)
{
	int rc = fn ? compare(s, list, lo, hi, fn, ctx) : 0;

	if (rc)
		return rc;
	if (restart)
		tui_seen_forget(s);
	if (lo >= hi)
		return 0;
	rc = remember(s, list, lo, hi);
	if (rc == 0)
		rc = add_span(s, lo, hi);
	if (rc < 0)
		tui_seen_forget(s);
	return rc;
}
