#include "config.h"

#include <string.h>

#include "core/maps/mapdiff.h"
#include "tui/files_feed.h"
#include "tui/maps_model.h"

void tui_filefeed_init(struct tui_filefeed *ff, unsigned filter)
{
	memset(ff, 0, sizeof(*ff));
	ff->filter = filter;
	ff->due = true;
}

void tui_filefeed_invalidate(struct tui_filefeed *ff)
{
	ff->due = true;
}

unsigned tui_filefeed_period(const struct tui_fileview *fv)
{
	return TUI_INDEX_TICKS + (unsigned)(fv->list.count / 1000);
}

/* Read statm; did size, text or data move since the last read?  Unreadable: no. */
static bool statm_moved(struct tui_filefeed *ff, struct ms_maps *maps)
{
	struct ms_statm now;
	struct ms_error err;
	bool had = ff->have_statm;

	ff->have_statm = ms_proc_statm(ms_maps_proc(maps), &now, &err) == 0;
	if (!ff->have_statm)
		return false;
	if (had && (now.size != ff->statm.size || now.text != ff->statm.text ||
		    now.data != ff->statm.data)) {
		ff->statm = now;
		return true;
	}
	ff->statm = now;
	return false;
}

/* What one tick's check asks for: the rows on screen, and how much of the big ones. */
struct check {
	const struct tui_fileview *fv;
	size_t from, n;     /* the rows on screen */
	size_t big_left;    /* mappings of big rows still to ask for this tick */
};

static bool row_big(const struct tui_fileview *fv, size_t row)
{
	return fv->fm.rows[row].mappings > TUI_FILES_ROW_SMALL;
}

/* Is list[i] asked for this tick? */
static bool wanted(const struct check *c, size_t i)
{
	size_t row = c->fv->fm.row_of[i];

	return row >= c->from && row - c->from < c->n && (!row_big(c->fv, row) || c->big_left);
}

/*
 * Ask again for list[s, s + len): 1 if the answer differs, 0 if not, or a
 * negative ms_errcode.  Without a name filter one window from the end of
 * the mapping before, one past the run (the gaps on both sides are seen).
 * With one, the gaps hold what the filter leaves out, maybe much: only the
 * run's own span is read.  *fetched counts the mappings the queries returned.
 */
static int check_run(const struct tui_filefeed *ff, const struct tui_fileview *fv,
		     struct ms_maps *maps, size_t s, size_t len, size_t *fetched,
		     struct ms_error *err)
{
	const struct ms_maplist *list = &fv->list;
	bool named = fv->filter[0] != '\0';
	size_t want = len + 1, expect = named ? len : list->count - s < want ? list->count - s : want;
	/* A borrowed view of the list's part: never freed. */
	struct ms_maplist old = { list->items + s, expect, expect };
	struct ms_maplist now = { 0 };
	struct ms_diff_summary sum;
	uint64_t addr = named ? list->items[s].start : s ? list->items[s - 1].end : 0;
	uint64_t stop = named ? list->items[s + len - 1].end : UINT64_MAX;
	bool more = true;
	int rc = 0;

	while (more && (named ? addr < stop : now.count < want)) {
		size_t before = now.count, asked = named ? want : want - now.count, kept = before;

		rc = ms_maps_window(maps, addr, ff->filter, asked, &now, err);
		if (rc < 0)
			break;
		more = now.count - before == asked;
		*fetched += now.count - before;
		if (now.count > before)
			addr = now.items[now.count - 1].end;
		/* As the grouping did: without the mappings the name filter leaves out. */
		for (size_t i = before; i < now.count; i++) {
			if (tui_fileview_keeps(fv, &now.items[i]) && now.items[i].start < stop)
				now.items[kept++] = now.items[i];
			else
				ms_mapping_reset(&now.items[i]);
		}
		now.count = kept;
	}
	if (rc == 0) {
		ms_maplist_diff(&old, &now, NULL, NULL, &sum);
		rc = sum.added || sum.removed || sum.changed;
	}
	ms_maplist_free(&now);
	return rc;
}

/*
 * The mappings of the rows on screen, in runs of consecutive ones: all of
 * the small rows', and TUI_FILES_CHECK_BIG of the big rows' from where the
 * last tick stopped.  1: one differs, 0: none, or a negative ms_errcode.
 */
static int check_on_screen(struct tui_filefeed *ff, const struct tui_fileview *fv,
			   struct ms_maps *maps, struct ms_error *err)
{
	struct check c = { fv, 0, 0, TUI_FILES_CHECK_BIG };
	size_t count = fv->list.count, i, scanned = 0, fetched = 0, cursor;
	int rc = 0;

	tui_fileview_visible(fv, &c.from, &c.n);
	if (!count || !c.n)
		return 0;
	/* Once round the list from the cursor, where the big rows' share starts. */
	i = cursor = ff->cursor < count ? ff->cursor : 0;
	while (rc == 0 && scanned < count) {
		size_t s = i, len = 0;

		if (!wanted(&c, i)) {
			scanned++;
			i = i + 1 < count ? i + 1 : 0;
			continue;
		}
		/* A run ends at the list's end: the scan goes on from 0. */
		while (i < count && scanned < count && wanted(&c, i)) {
			if (row_big(fv, fv->fm.row_of[i])) {
				c.big_left--;
				cursor = i + 1;
			}
			i++;
			scanned++;
			len++;
		}
		rc = check_run(ff, fv, maps, s, len, &fetched, err);
		if (i == count)
			i = 0;
	}
	ff->cursor = cursor;
	ff->checked += fetched;
	return rc;
}

/* Collect every mapping and regroup; statm first, so a change during the walk shows next tick. */
static int walk(struct tui_filefeed *ff, struct tui_fileview *fv, struct ms_maps *maps,
		enum tui_filewalk why, struct ms_error *err)
{
	struct ms_maplist fresh = { 0 };
	int rc;

	ff->have_statm = false;
	statm_moved(ff, maps);
	rc = ms_maps_collect(maps, ff->filter, &fresh, err);
	if (rc == 0)
		rc = tui_fileview_apply(fv, &fresh, err);
	ms_maplist_free(&fresh);
	ff->walks[why]++;
	ff->age = 0;
	ff->cursor = 0;
	ff->due = rc < 0;
	return rc < 0 ? rc : 1;
}

int tui_filefeed_refresh(struct tui_filefeed *ff, struct tui_fileview *fv, struct ms_maps *maps,
			 bool timer, struct ms_error *err)
{
	int rc;

	if (ff->due)
		return walk(ff, fv, maps, TUI_FW_ASKED, err);
	if (!timer)
		return 0;
	if (++ff->age >= tui_filefeed_period(fv))
		return walk(ff, fv, maps, TUI_FW_PERIODIC, err);
	if (statm_moved(ff, maps))
		return walk(ff, fv, maps, TUI_FW_STATM, err);
	rc = check_on_screen(ff, fv, maps, err);
	if (rc <= 0)
		return rc;
	return walk(ff, fv, maps, TUI_FW_CHANGED, err);
}
