/*
 * maps_header.h - the maps view's header line, without curses: the title,
 * backend and filters, then, once the index (maps_model.h) is built, the
 * selection's position, the number of mappings the filters keep, their
 * total size and their resident memory (the whole filtered list, from the
 * index's full walk, not only the rows on screen), and the sort.  Before
 * the first index it counts the rows shown.
 *
 *   pid 42 demo | ioctl | filter x | 3/31 maps, 2.1M, rss 1.2M | sort SIZE
 */
#ifndef MAPSCOPE_TUI_MAPS_HEADER_H
#define MAPSCOPE_TUI_MAPS_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/maps_model.h"

/* rss_known false (no residency, a failed query): the RSS total is left out. */
void tui_format_maps_header(char *buf, size_t size, const struct tui_mapview *vm, const char *title,
			    const char *backend, bool rss_known, uint64_t rss);

#endif
