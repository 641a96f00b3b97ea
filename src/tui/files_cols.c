/*
 * files_cols.c - the files view's columns (columns.h: width policy) and
 * its rows' text, beside its model (files_model.h): the fact columns'
 * text is the registry's (core/files/facts.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "core/files/facts.h"
#include "tui/columns.h"
#include "tui/elide.h"
#include "tui/files_model.h"
#include "tui/format.h"

/*
 * The files view: the fact columns as the libraries view has them.
 * PACKAGE, VERSION and VERDICT go last; versions are never cut.
 */
const struct tui_column tui_files_cols[] = {
	[TUI_FC_MAPS] = TUI_COL("MAPS", 5, .drop = 6, .sort = MS_FILESORT_MAPS, .desc = true),
	[TUI_FC_SIZE] = TUI_COL("SIZE", 6, .drop = 0, .sort = MS_FILESORT_SIZE, .desc = true),
	[TUI_FC_RSS] = TUI_COL("RSS", 6, .drop = 7, .sort = MS_FILESORT_RSS, .desc = true,
			   .flags = TUI_COLF_TOGGLED, TUI_FACT(MS_FACT_RSS)),
	/* 11: "r--,r-x,rw-", a library's usual sets (filemap.h) */
	[TUI_FC_PERMS] = TUI_COL("PERMS", 11, .left = true, .drop = 5, .sort = -1),
	[TUI_FC_VERDICT] = TUI_COL_VERDICT(.drop = 9, .sort = -1, TUI_FACT(MS_FACT_VERDICT)),
	[TUI_FC_PACKAGE] = TUI_COL_PACKAGE(.drop = 10, .sort = -1, TUI_FACT(MS_FACT_PACKAGE)),
	[TUI_FC_VERSION] = TUI_COL_VERSION("VERSION", .drop = 11, .sort = -1, TUI_FACT(MS_FACT_VERSION)),
	[TUI_FC_FILEVER] = TUI_FACT_COL("FILEVER", 9, .drop = 4, .sort = -1, .flags = TUI_COLF_OFF,
				    .cut = TUI_CUT_NEVER, TUI_FACT(MS_FACT_FILEVER)),
	[TUI_FC_SONAME] = TUI_COL_SONAME(.drop = 3, .sort = -1, .min_screen = TUI_FILEVIEW_SONAME_COLS,
					 TUI_FACT(MS_FACT_SONAME)),
	/* "GLIBCXX_3.4.30": chosen in the chooser (C) */
	[TUI_FC_LIBVER] = TUI_COL_VERSION("LIBVER", .drop = 2, .sort = -1, .flags = TUI_COLF_OFF,
					  TUI_FACT(MS_FACT_LIBVER)),
	[TUI_FC_BUILDID] = TUI_COL_BUILDID(.drop = 1, .sort = -1, .min_screen = TUI_FILEVIEW_BUILDID_COLS,
					   TUI_FACT(MS_FACT_BUILDID)),
	[TUI_FC_NAME] = TUI_COL_PATH("NAME", .drop = 8, .sort = MS_FILESORT_NAME),
};
const size_t tui_files_ncols = sizeof(tui_files_cols) / sizeof(tui_files_cols[0]);
_Static_assert(sizeof(tui_files_cols) / sizeof(tui_files_cols[0]) <= TUI_COLS_MAX, "TUI_COLS_MAX");

void tui_format_fileheading_cols(char *buf, size_t size, const struct tui_layout *l,
				 const struct tui_fileview *fv)
{
	tui_layout_heading_by_key(buf, size, l, (int)fv->sort, fv->reverse,
				  fv->sort == MS_FILESORT_ADDR ? "NAME (address order)" : NULL);
}

static void file_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct ms_filerow *r = ctx;
	struct ms_fact_src src;

	if (tui_column_fact(TUI_CV_FILES, id) >= 0) {
		ms_fact_src_fileinfo(&src, &r->info);
		tui_fact_cell(out, size, (enum ms_fact)tui_column_fact(TUI_CV_FILES, id), &src);
		return;
	}
	switch (id) {
	case TUI_FC_MAPS: snprintf(out, size, "%zu", r->mappings); break;
	case TUI_FC_SIZE: ms_format_size(r->size, false, out, size); break;
	case TUI_FC_PERMS: ms_permsets_format(r->perm_sets, out, size); break;
	default: break;
	}
}

void tui_fileview_want(const struct tui_fileview *fv, unsigned escape_flags, int cap, int *want)
{
	const char *mark = tui_ellipsis(escape_flags);

	size_t from, n;

	tui_fileview_visible(fv, &from, &n);
	for (size_t i = from; i < from + n; i++) {
		const struct ms_filerow *r = &fv->fm.rows[i];
		char name[TUI_LINE_MAX];
		size_t len;
		const char *raw = ms_filerow_name(r, &len);
		int w;

		len = ms_escape(raw, len, name, sizeof(name), escape_flags);
		w = tui_elide_want(name, len, mark);
		tui_layout_want(want, TUI_CV_FILES, file_cell, r);
		if (w <= cap && w > want[TUI_FC_NAME])
			want[TUI_FC_NAME] = w;
	}
}

size_t tui_format_filerow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_filerow *r, unsigned escape_flags)
{
	const char *name;
	size_t at, len, name_at;

	buf[0] = '\0';
	at = name_at = tui_layout_row(buf, size, 0, l, file_cell, r);
	name = ms_filerow_name(r, &len);
	if (at < size)
		at += ms_escape(name, len, buf + at, size - at, escape_flags);
	return name_at;
}
