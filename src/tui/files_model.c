#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/files_model.h"

void tui_fileview_init(struct tui_fileview *fv, size_t height)
{
	memset(fv, 0, sizeof(*fv));
	fv->sort = MS_FILESORT_SIZE;
	fv->height = height ? height : 1;
}

void tui_fileview_free(struct tui_fileview *fv)
{
	ms_filemap_free(&fv->fm);
	ms_maplist_free(&fv->list);
}

static void keep_visible(struct tui_fileview *fv)
{
	if (fv->sel < fv->top)
		fv->top = fv->sel;
	else if (fv->sel >= fv->top + fv->height)
		fv->top = fv->sel - fv->height + 1;
	if (fv->fm.count <= fv->height)
		fv->top = 0;
	else if (fv->top > fv->fm.count - fv->height)
		fv->top = fv->fm.count - fv->height;
}

void tui_fileview_select(struct tui_fileview *fv, size_t row)
{
	if (!fv->fm.count) {
		fv->sel = fv->top = 0;
		return;
	}
	fv->sel = row < fv->fm.count ? row : fv->fm.count - 1;
	keep_visible(fv);
}

void tui_fileview_move(struct tui_fileview *fv, long delta)
{
	long target = (long)fv->sel + delta;

	tui_fileview_select(fv, target < 0 ? 0 : (size_t)target);
}

bool tui_fileview_click(struct tui_fileview *fv, size_t line)
{
	if (line >= fv->height || fv->top + line >= fv->fm.count)
		return false;
	tui_fileview_select(fv, fv->top + line);
	return true;
}

void tui_fileview_set_height(struct tui_fileview *fv, size_t height)
{
	fv->height = height ? height : 1;
	keep_visible(fv);
}

const struct ms_filerow *tui_fileview_selected(const struct tui_fileview *fv)
{
	return fv->fm.count ? &fv->fm.rows[fv->sel] : NULL;
}

void tui_fileview_visible(const struct tui_fileview *fv, size_t *from, size_t *n)
{
	*from = fv->top;
	*n = fv->fm.count > fv->top ? fv->fm.count - fv->top : 0;
	if (*n > fv->height)
		*n = fv->height;
}

int tui_fileview_resort(struct tui_fileview *fv)
{
	struct ms_filerow key = { 0 };
	const struct ms_filerow *again;
	bool had = fv->fm.count > 0;
	int rc;

	if (had) {
		key = fv->fm.rows[fv->sel];
		key.name = key.name_len ? strndup(key.name, key.name_len) : NULL;
		if (key.name_len && !key.name)
			return MS_ERR_NOMEM;
	}
	rc = ms_filemap_sort(&fv->fm, fv->sort, fv->reverse);
	if (rc == 0 && had && (again = ms_filemap_find(&fv->fm, &key)))
		tui_fileview_select(fv, (size_t)(again - fv->fm.rows));
	else
		tui_fileview_select(fv, fv->sel);
	free(key.name);
	return rc;
}

bool tui_fileview_keeps(const struct tui_fileview *fv, const struct ms_mapping *m)
{
	return !fv->filter[0] || tui_find_in(m->name, m->name_len, fv->filter);
}

/* Drop the mappings whose name lacks the filter, keeping address order. */
static void keep_matching(struct ms_maplist *list, const struct tui_fileview *fv)
{
	size_t kept = 0;

	if (!fv->filter[0])
		return;
	for (size_t i = 0; i < list->count; i++) {
		struct ms_mapping *m = &list->items[i];

		if (tui_fileview_keeps(fv, m))
			list->items[kept++] = *m;
		else
			ms_mapping_reset(m);
	}
	list->count = kept;
}

static bool row_has_search(const void *ctx, size_t row)
{
	const struct tui_fileview *fv = ctx;

	return tui_find_in(fv->fm.rows[row].name, fv->fm.rows[row].name_len, fv->search);
}

bool tui_fileview_search(struct tui_fileview *fv, int dir, bool from_current)
{
	size_t row;

	if (!fv->fm.count || !fv->search[0])
		return false;
	row = tui_find_row(fv->fm.count, fv->sel, dir, from_current, row_has_search, fv);
	if (row >= fv->fm.count)
		return false;
	tui_fileview_select(fv, row);
	return true;
}

int tui_fileview_apply(struct tui_fileview *fv, struct ms_maplist *fresh, struct ms_error *err)
{
	struct ms_filemap next = { 0 };
	struct ms_filerow key = { 0 };
	const struct ms_filerow *again;
	bool had = fv->fm.count > 0;
	int rc;

	keep_matching(fresh, fv);
	if (ms_filemap_build(&next, fresh, &fv->fm, err) < 0)
		return MS_ERR_NOMEM;
	if (had)
		key = fv->fm.rows[fv->sel];
	rc = ms_filemap_sort(&next, fv->sort, fv->reverse);
	if (rc < 0) {
		ms_filemap_free(&next);
		return ms_error_set(err, rc, 0, "out of memory sorting files");
	}
	/* key's name points into the old map: look it up before freeing that. */
	again = had ? ms_filemap_find(&next, &key) : NULL;
	ms_filemap_free(&fv->fm);
	ms_maplist_free(&fv->list);
	fv->fm = next;
	fv->list = *fresh;
	memset(fresh, 0, sizeof(*fresh));
	tui_fileview_select(fv, again ? (size_t)(again - fv->fm.rows) : fv->sel);
	return 0;
}

static bool sort_allowed(const struct tui_fileview *fv, enum ms_filesort key)
{
	return key != MS_FILESORT_RSS || fv->rss_column;
}

void tui_fileview_sort_step(struct tui_fileview *fv, int dir)
{
	int key = (int)fv->sort;

	do
		key = (key + (dir < 0 ? MS_FILESORT_COUNT - 1 : 1)) % MS_FILESORT_COUNT;
	while (!sort_allowed(fv, (enum ms_filesort)key));
	fv->sort = (enum ms_filesort)key;
	tui_fileview_resort(fv);
}

void tui_fileview_sort_reverse(struct tui_fileview *fv)
{
	fv->reverse = !fv->reverse;
	tui_fileview_resort(fv);
}

void tui_fileview_set_rss(struct tui_fileview *fv, bool on)
{
	fv->rss_column = on;
	if (!on && fv->sort == MS_FILESORT_RSS)
		tui_fileview_sort_step(fv, 1);
}
