/*
 * maps_cols.c - the maps view's columns (columns.h: width policy) and its
 * rows' text, beside its model (maps_model.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/base/units.h"
#include "tui/columns.h"
#include "tui/format.h"
#include "tui/maps_model.h"
#include "tui/strip.h"

const struct tui_column tui_maps_cols[] = {
	[TUI_MC_RANGE] = TUI_COL("START-END", 25, .heading = "             START-END", .left = true,
			     .sort = TUI_MSORT_ADDRESS, .flags = TUI_COLF_KEEP),
	[TUI_MC_SIZE] = TUI_COL("SIZE", 6, .drop = 6, .sort = TUI_MSORT_SIZE),
	[TUI_MC_RSS] = TUI_COL("RSS", 6, .drop = 5, .sort = TUI_MSORT_RSS, .flags = TUI_COLF_TOGGLED),
	[TUI_MC_PERMS] = TUI_COL("PERMS", 4, .heading = "PERM", .left = true, .drop = 3,
			     .sort = TUI_MSORT_PERMS),
	[TUI_MC_OFFSET] = TUI_COL("OFFSET", 8, .drop = 2, .sort = -1),
	[TUI_MC_DEV] = TUI_COL("DEV", 16, .heading = "DEV:INODE", .left = true, .drop = 1,
			   .sort = TUI_MSORT_INODE),
	/*
	 * Ranked above the others: each of them, and the strip, drop before a
	 * file name on screen is cut, while START-END and the name fit (columns.h).
	 */
	[TUI_MC_NAME] = TUI_COL_PATH("NAME", .drop = 7, .sort = TUI_MSORT_NAME),
};
const size_t tui_maps_ncols = sizeof(tui_maps_cols) / sizeof(tui_maps_cols[0]);

/*
 * The address-space strip (strip.h), apart from the rows at the right
 * edge under its own heading: a space, the rule and its column.  Rank 4:
 * it gives way after PERMS, before RSS and SIZE; it needs a screen
 * TUI_STRIP_MIN_COLS wide.
 */
const struct tui_column tui_maps_band = TUI_COL("the strip", TUI_STRIP_BAND - 1, .heading = "ADDRESS SPACE",
						.drop = 4, .sort = -1, .min_screen = TUI_STRIP_MIN_COLS);

/* A size, blank while unknown (an RSS not yet counted). */
static void known_size_cell(char *out, size_t size, bool known, uint64_t bytes)
{
	if (known)
		ms_format_size(bytes, false, out, size);
}

static void perms_cell(char *out, size_t size, unsigned perms)
{
	if (size >= 5)
		ms_perms_format(perms, out);
}

static void map_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct tui_maprow *r = ctx;
	const struct ms_mapping *m = r->m;

	switch (id) {
	case TUI_MC_RANGE:
		snprintf(out, size, "%12" PRIx64 "-%-12" PRIx64, m->start, m->end);
		break;
	case TUI_MC_SIZE:
		ms_format_size(ms_mapping_size(m), false, out, size);
		break;
	case TUI_MC_RSS: known_size_cell(out, size, r->rss_known, r->rss); break;
	case TUI_MC_PERMS: perms_cell(out, size, m->perms); break;
	case TUI_MC_OFFSET:
		snprintf(out, size, "%8" PRIx64, m->offset);
		break;
	case TUI_MC_DEV:
		snprintf(out, size, "%" PRIu32 ":%" PRIu32 " %" PRIu64, m->dev_major, m->dev_minor,
			 m->inode);
		break;
	default:
		break;
	}
}

size_t tui_format_maprow_cols(char *buf, size_t size, const struct tui_layout *l,
			      const struct tui_maprow *r, unsigned escape_flags)
{
	const struct ms_mapping *m = r->m;
	enum tui_mark mark = r->mark;
	char name[TUI_LINE_MAX];
	size_t at = 0, name_at;

	tui_appendf(buf, size, &at, "%c%c ",
	       mark == TUI_MARK_ADDED ? '+' : mark == TUI_MARK_REMOVED ? '-' : ' ',
	       tui_verdict_flag(r->verdict));
	at = name_at = tui_layout_row(buf, size, at, l, map_cell, r);
	tui_mapping_name(name, sizeof(name), m, escape_flags);
	tui_appendf(buf, size, &at, "%s%s", name, mark == TUI_MARK_REMOVED ? " (removed)" : "");
	return name_at;
}

int tui_map_sort_column(const struct tui_mapview *vm)
{
	size_t n;
	const struct tui_column *c = tui_columns(TUI_CV_MAPS, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].sort == (int)vm->sort)
			return (int)i;
	return -1;
}
