/*
 * maps_search.h - the maps view's search (/ n N), without curses.
 *
 * The search moves the selection to the next (or previous) mapping whose
 * name contains a text, wrapping around, with listfind's matching: raw
 * bytes of the name, case-sensitive, an unnamed mapping matching only the
 * empty text.  Only mappings the view would show are candidates: those the
 * kernel filter (vm->filter) and the name filter (vm->name_filter) keep.
 *
 * In the address order the view holds only a window, so the rows on screen
 * are not the list: the search asks the engine.  Forward, it walks from the
 * selection to the first match after it (at it when from_current, which
 * typing uses), then, wrapping, from the lowest address up to the
 * selection.  Backward it walks from the lowest address, keeping the last
 * match before the selection, else the last of all.  A match among the rows
 * on screen is selected where it stands; one elsewhere is selected the way
 * g (go to address) does: the window moves to start at it
 * (tui_mapview_goto), so the caller must query again.
 * Sorted, every mapping is already a row: the search goes through the rows
 * in their order (listfind.h), with no query.
 *
 * Each call is one or two walks of the address space; the selection is
 * not changed when nothing matches.  Removed ghost rows are never matches.
 */
#ifndef MAPSCOPE_TUI_MAPS_SEARCH_H
#define MAPSCOPE_TUI_MAPS_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/maps/maps.h"
#include "tui/maps_model.h"

/*
 * The start of the mapping the search lands on: dir > 0 the next, dir < 0
 * the previous, from the selection (the selection itself first when
 * from_current).  1 with *start set, 0 when none matches (or text is
 * empty), or a negative ms_errcode with err filled.
 */
int tui_mapsearch_find(const struct tui_mapview *vm, struct ms_maps *maps, const char *text,
		       int dir, bool from_current, uint64_t *start, struct ms_error *err);

/* What tui_mapsearch_step did. */
enum {
	TUI_MSEARCH_NONE = 0,  /* nothing matches: the selection stays */
	TUI_MSEARCH_SHOWN = 1, /* selected among the rows shown */
	TUI_MSEARCH_MOVED = 2, /* the window moved to the match: query again */
};

/* Find as above and select it: a TUI_MSEARCH_*, or a negative ms_errcode. */
int tui_mapsearch_step(struct tui_mapview *vm, struct ms_maps *maps, const char *text,
		       int dir, bool from_current, struct ms_error *err);

#endif
