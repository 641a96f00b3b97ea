/*
 * strip.h - the maps view's address-space strip: one screen column at the
 * right edge that stands for the process's whole address space, so you
 * see where the big regions lie and where the rows on screen are.  No
 * curses: this says which strip cell covers which mappings; view_strip.c
 * draws it.
 *
 * Scale.  Linear over the address space would be useless (128 TiB, where
 * a library is a few pages and the gaps are terabytes), so the strip
 * follows the mappings in address order, leaves the gaps out, and gives
 * each mapping a weight by its order of magnitude: 1 + log2 of its pages
 * (a 4 KiB page weighs 1, 2 MiB weighs 10, 1 GiB weighs 19).  The strip's
 * cells split the summed weight evenly: small regions stay visible and big
 * ones take visibly more.  A cell shows the kind that weighs most in it
 * (summed over its mappings).
 *
 * Kinds: code (executable), data (a file's writable mapping), file (a
 * file's other mappings), heap, stack, anonymous (the rest).  Each has a
 * letter (c d f h s a) and a colour; the cells holding a mapping shown on
 * screen are the window, drawn in capitals and reverse video, so the strip
 * reads without colour (NO_COLOR, monochrome terminals).
 *
 * It is built from the view's index listing (tui_strip_build, every few
 * ticks with the index, never every tick), with the same kernel and name
 * filters as the rows.  Laying it out for a height and marking the window
 * is linear in the mappings, with no query.
 */
#ifndef MAPSCOPE_TUI_STRIP_H
#define MAPSCOPE_TUI_STRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/maps/mapping.h"
#include "tui/maps_model.h"

enum tui_strip_kind {
	TUI_STRIP_EMPTY,   /* no mapping: an empty strip */
	TUI_STRIP_CODE,
	TUI_STRIP_DATA,
	TUI_STRIP_FILE,
	TUI_STRIP_HEAP,
	TUI_STRIP_STACK,
	TUI_STRIP_ANON,
	TUI_STRIP_KINDS,
};

#define TUI_STRIP_MIN_COLS 40 /* narrower screens keep the column for the rows */
#define TUI_STRIP_BAND 3 /* its cells of the line: a space, the rule, the strip (view_strip.h) */

struct tui_strip_span {
	uint64_t start, end;
	uint64_t weight_end;      /* summed weights up to and with this mapping */
	enum tui_strip_kind kind;
};

struct tui_strip {
	struct tui_strip_span *spans; /* address order */
	size_t count, cap;
	bool valid;
};

struct tui_strip_cell {
	enum tui_strip_kind kind;
	bool window;              /* holds a mapping shown on screen */
};

enum tui_strip_kind tui_strip_kind_of(const struct ms_mapping *m);
/* The letter of a kind: 'c', 'd', 'f', 'h', 's', 'a'; ' ' for EMPTY. */
char tui_strip_letter(enum tui_strip_kind kind);
/* A mapping's weight: 1 + log2 of its pages. */
unsigned tui_strip_weight(uint64_t size);

void tui_strip_init(struct tui_strip *s);
void tui_strip_free(struct tui_strip *s);

/* Take the mappings of all (address order) that vm's name filter keeps; 0 or MS_ERR_NOMEM. */
int tui_strip_build(struct tui_strip *s, const struct ms_maplist *all, const struct tui_mapview *vm);

/*
 * Lay the strip out over height cells: each cell's kind, no window yet.
 * Then mark, for each live row on screen, the cells of the mappings that
 * overlap [start, end).
 */
void tui_strip_layout(const struct tui_strip *s, struct tui_strip_cell *cells, size_t height);
void tui_strip_mark(const struct tui_strip *s, struct tui_strip_cell *cells, size_t height,
		    uint64_t start, uint64_t end);

#endif
