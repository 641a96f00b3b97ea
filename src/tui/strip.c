#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "core/files/filemap.h"
#include "tui/strip.h"

enum tui_strip_kind tui_strip_kind_of(const struct ms_mapping *m)
{
	enum ms_filekind k = ms_filekind_of(m);

	if (k == MS_FILEKIND_HEAP)
		return TUI_STRIP_HEAP;
	if (k == MS_FILEKIND_STACK)
		return TUI_STRIP_STACK;
	if (m->perms & MS_PERM_EXEC)
		return TUI_STRIP_CODE;
	if (k != MS_FILEKIND_FILE)
		return TUI_STRIP_ANON;
	return m->perms & MS_PERM_WRITE ? TUI_STRIP_DATA : TUI_STRIP_FILE;
}

char tui_strip_letter(enum tui_strip_kind kind)
{
	static const char letter[TUI_STRIP_KINDS] = {
		[TUI_STRIP_EMPTY] = ' ', [TUI_STRIP_CODE] = 'c', [TUI_STRIP_DATA] = 'd',
		[TUI_STRIP_FILE] = 'f', [TUI_STRIP_HEAP] = 'h', [TUI_STRIP_STACK] = 's',
		[TUI_STRIP_ANON] = 'a',
	};

	return kind < TUI_STRIP_KINDS ? letter[kind] : '?';
}

unsigned tui_strip_weight(uint64_t size)
{
	uint64_t pages = size >> 12;
	unsigned w = 1;

	while (pages > 1) {
		pages >>= 1;
		w++;
	}
	return w;
}

void tui_strip_init(struct tui_strip *s)
{
	memset(s, 0, sizeof(*s));
}

void tui_strip_free(struct tui_strip *s)
{
	free(s->spans);
	tui_strip_init(s);
}

int tui_strip_build(struct tui_strip *s, const struct ms_maplist *all, const struct tui_mapview *vm)
{
	uint64_t weight = 0;

	s->count = 0;
	s->valid = false;
	for (size_t i = 0; i < all->count; i++) {
		const struct ms_mapping *m = &all->items[i];
		struct tui_strip_span *sp;

		if (!tui_mapview_name_matches(vm, m))
			continue;
		if (tui_grow((void **)&s->spans, &s->cap, s->count, sizeof(*s->spans)) < 0)
			return MS_ERR_NOMEM;
		weight += tui_strip_weight(ms_mapping_size(m));
		sp = &s->spans[s->count++];
		sp->start = m->start;
		sp->end = m->end;
		sp->weight_end = weight;
		sp->kind = tui_strip_kind_of(m);
	}
	s->valid = true;
	return 0;
}

static uint64_t weight_start(const struct tui_strip *s, size_t j)
{
	return j ? s->spans[j - 1].weight_end : 0;
}

/*
 * Cell i of height covers the weights [i*W/height, (i+1)*W/height); scaled
 * by height, everything stays in integers.
 */
void tui_strip_layout(const struct tui_strip *s, struct tui_strip_cell *cells, size_t height)
{
	uint64_t total = s->count ? s->spans[s->count - 1].weight_end : 0;
	size_t j = 0;

	for (size_t i = 0; i < height; i++) {
		uint64_t lo = i * total, hi = (i + 1) * total, best = 0, by_kind[TUI_STRIP_KINDS] = { 0 };

		cells[i].kind = TUI_STRIP_EMPTY;
		cells[i].window = false;
		while (j < s->count && s->spans[j].weight_end * height <= lo)
			j++;
		for (size_t k = j; k < s->count && weight_start(s, k) * height < hi; k++) {
			uint64_t a = weight_start(s, k) * height, b = s->spans[k].weight_end * height;

			by_kind[s->spans[k].kind] += (b < hi ? b : hi) - (a > lo ? a : lo);
		}
		/* By kind, not by mapping: five small code pages outweigh one bigger heap. */
		for (int k = 0; k < TUI_STRIP_KINDS; k++)
			if (by_kind[k] > best) {
				best = by_kind[k];
				cells[i].kind = (enum tui_strip_kind)k;
			}
	}
}

void tui_strip_mark(const struct tui_strip *s, struct tui_strip_cell *cells, size_t height,
		    uint64_t start, uint64_t end)
{
	uint64_t total = s->count ? s->spans[s->count - 1].weight_end : 0;
	size_t lo = 0, hi = s->count;

	if (!total || !height)
		return;
	/* The first span ending after start. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->spans[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < s->count && s->spans[k].start < end; k++) {
		size_t first = (size_t)(weight_start(s, k) * height / total);
		size_t last = (size_t)((s->spans[k].weight_end * height + total - 1) / total);

		for (size_t i = first; i < last && i < height; i++)
			cells[i].window = true;
	}
}
