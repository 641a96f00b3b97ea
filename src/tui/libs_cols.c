/*
 * libs_cols.c - the libraries view's and a library's processes' columns
 * (columns.h: width policy) and their rows' text, beside their model
 * (libs_model.h): the fact columns' text is the registry's
 * (core/files/facts.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "core/files/facts.h"
#include "tui/columns.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/libs_model.h"

/*
 * The libraries view (L): `mapscope libs`'s columns, NAME last.  At 80
 * columns NAME (its file name whole), PACKAGE, VERSION and PROCS show:
 * the others rank below NAME.
 */
const struct tui_column tui_libs_cols[] = {
	[TUI_LC_PROCS] = TUI_COL("PROCS", 6, .drop = 0, .sort = TUI_LIBSORT_PROCS, .desc = true),
	[TUI_LC_RSS] = TUI_COL("RSS", 6, .drop = 5, .sort = TUI_LIBSORT_RSS, .desc = true),
	[TUI_LC_VERDICT] = TUI_COL_VERDICT(.drop = 4, .sort = TUI_LIBSORT_VERDICT, .desc = true,
					   TUI_FACT(MS_FACT_VERDICT)),
	[TUI_LC_PACKAGE] = TUI_COL_PACKAGE(.drop = 8, .sort = TUI_LIBSORT_PACKAGE,
					   TUI_FACT(MS_FACT_PACKAGE)),
	[TUI_LC_VERSION] = TUI_COL_VERSION("VERSION", .drop = 9, .sort = -1, TUI_FACT(MS_FACT_VERSION)),
	[TUI_LC_INSTALLED] = TUI_COL_VERSION("INSTALLED", .drop = 3, .sort = -1, .flags = TUI_COLF_OFF,
					     TUI_FACT(MS_FACT_INSTALLED)),
	[TUI_LC_SONAME] = TUI_COL_SONAME(.drop = 2, .sort = -1, .flags = TUI_COLF_OFF,
					 TUI_FACT(MS_FACT_SONAME)),
	[TUI_LC_LIBVER] = TUI_COL_VERSION("LIBVER", .drop = 2, .sort = -1, .flags = TUI_COLF_OFF,
					  TUI_FACT(MS_FACT_LIBVER)),
	[TUI_LC_BUILDID] = TUI_COL_BUILDID(.drop = 1, .sort = -1, .flags = TUI_COLF_OFF,
					   TUI_FACT(MS_FACT_BUILDID)),
	/* 12: "other root"; "docker:0123456789ab" is cut */
	[TUI_LC_WHERE] = TUI_COL("WHERE", 12, .left = true, .drop = 1, .sort = -1),
	[TUI_LC_NAME] = TUI_COL_PATH("NAME", .drop = 6, .sort = TUI_LIBSORT_NAME),
};
const size_t tui_libs_ncols = sizeof(tui_libs_cols) / sizeof(tui_libs_cols[0]);

/* The processes of one file (Enter in the libraries view). */
const struct tui_column tui_libprocs_cols[] = {
	[TUI_LPC_PID] = TUI_COL("PID", 7, .drop = 0, .sort = -1),
	[TUI_LPC_MAPS] = TUI_COL("MAPS", 5, .drop = 2, .sort = -1),
	[TUI_LPC_RSS] = TUI_COL("RSS", 6, .drop = 3, .sort = -1),
	[TUI_LPC_WHERE] = TUI_COL("WHERE", 12, .left = true, .drop = 1, .sort = -1),
	[TUI_LPC_COMM] = TUI_COL("COMM", 0, .left = true, .sort = -1),
};
const size_t tui_libprocs_ncols = sizeof(tui_libprocs_cols) / sizeof(tui_libprocs_cols[0]);

struct cell_ctx {
	const struct ms_libtable *t;
	const struct ms_libtable_row *r;
	const struct ms_libtable_use *u;
	unsigned esc;
};

static void where_cell(const struct cell_ctx *c, const struct ms_libtable_proc *p, char *out,
		       size_t size)
{
	char where[4 * MS_CONTAINER_NAME_MAX + 32];

	tui_libwhere_text(c->t, p, c->esc, where, sizeof(where));
	snprintf(out, size, "%s", where);
}

static void lib_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct cell_ctx *c = ctx;
	const struct ms_libtable_row *r = c->r;
	struct ms_fact_src src;

	if (tui_column_fact(TUI_CV_LIBS, id) >= 0) {
		ms_libtable_row_facts(c->t, r, &src);
		tui_fact_cell(out, size, (enum ms_fact)tui_column_fact(TUI_CV_LIBS, id), &src);
		return;
	}
	switch (id) {
	case TUI_LC_PROCS: snprintf(out, size, "%zu", r->nuses); break;
	case TUI_LC_RSS:
		if (ms_libtable_row_res_known(r))
			ms_format_size(r->rss, false, out, size);
		break;
	case TUI_LC_WHERE:
		if (r->host)
			snprintf(out, size, "host");
		else
			where_cell(c, &c->t->procs[r->where_proc], out, size);
		break;
	default:
		break;
	}
}

void tui_libview_want(const struct tui_libview *lv, unsigned escape_flags, int cap, int *want)
{
	const char *mark = tui_ellipsis(escape_flags);

	for (size_t i = lv->top; i < lv->count && i < lv->top + lv->height; i++) {
		const struct ms_libtable_row *r = tui_libview_row(lv, i);
		struct cell_ctx c = { lv->table, r, NULL, escape_flags };
		char name[TUI_LINE_MAX];
		size_t len = ms_escape(r->name, r->name_len, name, sizeof(name), escape_flags);
		int w = tui_elide_want(name, len, mark);

		tui_layout_want(want, TUI_CV_LIBS, lib_cell, &c);
		if (w <= cap && w > want[TUI_LC_NAME])
			want[TUI_LC_NAME] = w;
	}
}

void tui_format_libheading_cols(char *buf, size_t size, const struct tui_layout *l,
				const struct tui_libview *lv)
{
	tui_layout_heading_by_key(buf, size, l, (int)lv->sort, lv->reverse, NULL);
}

size_t tui_format_librow_cols(char *buf, size_t size, const struct tui_layout *l,
			      const struct ms_libtable *t, const struct ms_libtable_row *r,
			      unsigned escape_flags)
{
	struct cell_ctx c = { t, r, NULL, escape_flags };
	size_t at, name_at;

	snprintf(buf, size, "%c ", tui_verdict_flag(r->verdict));
	at = name_at = tui_layout_row(buf, size, TUI_LIBROW_PREFIX, l, lib_cell, &c);
	if (at < size)
		ms_escape(r->name, r->name_len, buf + at, size - at, escape_flags);
	return name_at;
}

static void proc_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct cell_ctx *c = ctx;
	const struct ms_libtable_proc *p = ms_libtable_proc_of(c->t, c->u);

	switch (id) {
	case TUI_LPC_PID: snprintf(out, size, "%d", (int)p->pid); break;
	case TUI_LPC_MAPS: snprintf(out, size, "%zu", c->u->mappings); break;
	case TUI_LPC_RSS:
		if (c->u->res_known)
			ms_format_size(c->u->rss, false, out, size);
		break;
	case TUI_LPC_WHERE: where_cell(c, p, out, size); break;
	default: break;
	}
}

size_t tui_format_libproc_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_libtable *t, const struct ms_libtable_use *u,
			       unsigned escape_flags)
{
	struct cell_ctx c = { t, NULL, u, escape_flags };
	const struct ms_libtable_proc *p = ms_libtable_proc_of(t, u);
	size_t at, comm_at;

	buf[0] = '\0';
	at = comm_at = tui_layout_row(buf, size, 0, l, proc_cell, &c);
	if (at < size)
		ms_escape(p->comm, strnlen(p->comm, sizeof(p->comm)), buf + at, size - at, escape_flags);
	return comm_at;
}
