/* stale_cols.c - the stale view's columns and lines: see stale_cols.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/files/facts.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/stale_cols.h"

/* Drop ranks: FILES goes first, then USER; PID stays, it is what Enter opens. */
const struct tui_column tui_stale_cols[TUI_SC_COUNT] = {
	[TUI_SC_PID] = { .name = "PID", .width = 7, .left = false, .drop = 0, .sort = -1 },
	[TUI_SC_USER] = { .name = "USER", .width = 8, .left = true, .drop = 2, .sort = -1 },
	[TUI_SC_FILES] = { .name = "FILES", .width = 5, .left = false, .drop = 1, .sort = -1 },
	[TUI_SC_LAST] = { .name = "UNIT", .width = 0, .left = true, .drop = 0, .sort = -1 },
};

/* A file line is indented under its process by little: at 80 columns the name needs the room. */
#define FILE_INDENT 2

static void put(char *buf, size_t size, size_t *at, const char *s, size_t n)
{
	if (*at + 1 >= size)
		return;
	if (n > size - 1 - *at)
		n = size - 1 - *at;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

static void spaces(char *buf, size_t size, size_t *at, int n)
{
	while (n-- > 0)
		put(buf, size, at, " ", 1);
}

/* The escaped VERSION of file line `line` into out; returns its columns. */
static int version_text(const struct tui_staleview *sv, const struct tui_stale_line *line,
			unsigned escape_flags, char *out, size_t size)
{
	const struct tui_stale_entry *e = &sv->entries[line->entry];
	char buf[MS_FACT_TEXT_MAX];
	struct ms_fact_src src;
	const char *raw;
	size_t len;
	int cols;

	tui_staleview_fact_src(sv, e, (size_t)line->file, &src);
	raw = ms_fact_text(MS_FACT_VERSION, &src, 0, buf, sizeof(buf), &len);
	if (!len)
		raw = "-", len = 1;
	len = ms_escape(raw, len, out, size, escape_flags);
	tui_text_fit(out, len, (int)size, &cols);
	return cols;
}

void tui_stale_layout_make(struct tui_stale_layout *sl, const struct tui_colset *s,
			   const struct tui_staleview *sv, int width, size_t rows, unsigned escape_flags)
{
	char text[4 * MS_PKG_VERSION_MAX + 1];
	int widest = 1, room;

	memset(sl, 0, sizeof(*sl));
	sl->escape_flags = escape_flags;
	tui_layout_make(&sl->cols, TUI_CV_STALE, s, 0, 0, width);
	sl->indent = FILE_INDENT;
	for (size_t i = 0; i < rows; i++) {
		const struct tui_stale_line *line = tui_staleview_line(sv, sv->top_row + i);
		int cols;

		if (!line)
			break;
		if (line->file < 0)
			continue;
		cols = version_text(sv, line, escape_flags, text, sizeof(text));
		if (cols > widest)
			widest = cols;
	}
	/* The name gives way to the version, down to its floor. */
	room = width - sl->indent - (TUI_STALE_VERDICT_W + 1) - 1 - TUI_STALE_NAME_MIN;
	sl->version_w = widest <= room ? widest : room > 1 ? room : 1;
}

/* VERSION in exactly w columns: padded, or (past the name's floor only) cut with the ellipsis. */
static void put_version(char *buf, size_t size, size_t *at, const char *v, int w, unsigned escape_flags)
{
	char cut[TUI_LINE_MAX];
	int cols;
	size_t n = tui_cut_end(v, strlen(v), w, tui_ellipsis(escape_flags), cut, sizeof(cut));

	tui_units_fit(cut, n, w, &cols);
	put(buf, size, at, cut, n);
	spaces(buf, size, at, w - cols);
}

static void stale_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct tui_stale_entry *e = ctx;

	switch (id) {
	case TUI_SC_PID: snprintf(out, size, "%d", (int)e->pid); break;
	case TUI_SC_USER: snprintf(out, size, "%s", e->user); break;
	case TUI_SC_FILES: snprintf(out, size, "%zu", e->files.count); break;
	default: break;
	}
}

/* The unit, "-" without one, and where a process under another root lives. */
static size_t where_text(const struct tui_stale_entry *e, unsigned escape_flags, char *unit, size_t size)
{
	size_t n;

	if (e->has_unit)
		n = ms_unit_describe(&e->unit, escape_flags, unit, size);
	else
		n = (size_t)snprintf(unit, size, "-");
	if (e->other_root && n + 3 < size) {
		unit[n++] = ' ';
		unit[n++] = '[';
		if (e->has_container)
			n += ms_container_describe(&e->container, escape_flags, unit + n, size - n - 1);
		else
			n += (size_t)snprintf(unit + n, size - n - 1, "other root");
		n += (size_t)snprintf(unit + n, size - n, "]");
	}
	return n < size ? n : size - 1;
}

static size_t process_line(char *buf, size_t size, const struct tui_stale_layout *sl,
			   const struct tui_stale_entry *e)
{
	char text[TUI_LINE_MAX], unit[4 * MS_UNIT_MAX + 4 * MS_CONTAINER_NAME_MAX + 64];
	size_t at, last_at, n;

	at = last_at = tui_layout_row(buf, size, 0, &sl->cols, stale_cell, e);
	n = where_text(e, sl->escape_flags, unit, sizeof(unit));
	put(buf, size, &at, unit, n);
	put(buf, size, &at, "  ", 2);
	n = ms_escape(e->cmd, e->cmd_len, text, sizeof(text), sl->escape_flags);
	put(buf, size, &at, text, n);
	return last_at;
}

static size_t file_line(char *buf, size_t size, const struct tui_stale_layout *sl,
			const struct tui_staleview *sv, const struct tui_stale_line *line)
{
	const struct ms_stale_file *f = &sv->entries[line->entry].files.items[line->file];
	const char *verdict = ms_stale_verdict_name(f->result.verdict);
	char text[TUI_LINE_MAX], version[4 * MS_PKG_VERSION_MAX + 1];
	int pad = TUI_STALE_VERDICT_W + 1 - (int)strlen(verdict);
	size_t at = 0, last_at, n;

	spaces(buf, size, &at, sl->indent);
	put(buf, size, &at, verdict, strlen(verdict));
	spaces(buf, size, &at, pad > 0 ? pad : 1);
	version_text(sv, line, sl->escape_flags, version, sizeof(version));
	put_version(buf, size, &at, version, sl->version_w, sl->escape_flags);
	put(buf, size, &at, " ", 1);
	last_at = at;
	n = ms_escape(f->name, f->name_len, text, sizeof(text), sl->escape_flags);
	put(buf, size, &at, text, n);
	return last_at;
}

/* "KIND UNIT (N processes): ADVICE", N those shown, the unit escaped; the last column is the whole line. */
static size_t unit_line(char *buf, size_t size, const struct tui_stale_layout *sl, const struct ms_plan_group *g,
			size_t shown)
{
	char unit[4 * MS_UNIT_MAX + 32] = "";
	const char *say = ms_plan_advice(g);

	if (g->unit)
		ms_unit_describe(g->unit, sl->escape_flags, unit, sizeof(unit));
	snprintf(buf, size, "%s%s%s (%zu %s)%s%s", ms_plan_kind_name(g->kind), unit[0] ? " " : "", unit, shown,
		 shown == 1 ? "process" : "processes", say ? ": " : "", say ? say : "");
	return 0;
}

size_t tui_stale_format_line(char *buf, size_t size, const struct tui_stale_layout *sl,
			     const struct tui_staleview *sv, const struct tui_stale_line *line)
{
	const struct ms_plan_group *g = tui_staleview_line_group(sv, line);

	if (!size)
		return 0;
	buf[0] = '\0';
	if (g)
		return unit_line(buf, size, sl, g, line->shown);
	if (line->file < 0)
		return process_line(buf, size, sl, &sv->entries[line->entry]);
	return file_line(buf, size, sl, sv, line);
}

void tui_stale_format_heading(char *buf, size_t size, const struct tui_stale_layout *sl)
{
	tui_layout_heading(buf, size, &sl->cols, -1, false, "UNIT  COMMAND / VERDICT  VERSION  FILE");
}
