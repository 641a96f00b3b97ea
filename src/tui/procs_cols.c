/*
 * procs_cols.c - the process list's columns (columns.h: width policy) and
 * its rows' text, beside its model (procs_model.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "tui/columns.h"
#include "tui/format.h"
#include "tui/procs_model.h"

/* Drop ranks say which column goes first on a narrow screen. */
const struct tui_column tui_procs_cols[] = {
	[TUI_PC_PID] = TUI_COL("PID", 7, .drop = 0, .sort = TUI_PCOL_PID),
	[TUI_PC_USER] = TUI_COL("USER", 8, .left = true, .drop = 3, .sort = TUI_PCOL_USER),
	[TUI_PC_MAPS] = TUI_COL("MAPS", 6, .drop = 1, .sort = TUI_PCOL_MAPS),
	[TUI_PC_MAPPED] = TUI_COL("MAPPED", 9, .drop = 2, .sort = TUI_PCOL_MAPPED),
	[TUI_PC_RSS] = TUI_COL("RSS", 7, .drop = 4, .sort = TUI_PCOL_RSS),
	[TUI_PC_STALE] = TUI_COL("STALE", 6, .drop = 5, .sort = TUI_PCOL_STALE),
	[TUI_PC_COMMAND] = TUI_COL("COMMAND", 0, .left = true, .sort = TUI_PCOL_COMMAND),
};
const size_t tui_procs_ncols = sizeof(tui_procs_cols) / sizeof(tui_procs_cols[0]);

static void proc_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct ms_procrow *r = ctx;

	switch (id) {
	case TUI_PC_PID:
		snprintf(out, size, "%d", (int)r->pid);
		break;
	case TUI_PC_USER:
		snprintf(out, size, "%s", r->user);
		break;
	case TUI_PC_MAPS:
		if (r->maps_err)
			snprintf(out, size, "-");
		else if (r->counted)
			snprintf(out, size, "%zu", r->nmaps);
		break;
	case TUI_PC_MAPPED:
		if (r->maps_err)
			snprintf(out, size, "%s", r->maps_why ? r->maps_why : "?");
		else if (r->counted)
			ms_format_size(r->mapped, false, out, size);
		break;
	case TUI_PC_RSS:
		if (r->kthread || r->state == 'Z')
			snprintf(out, size, "-");
		else
			ms_format_size(r->rss, false, out, size);
		break;
	case TUI_PC_STALE:
		if (r->stale_counted)
			snprintf(out, size, "%zu", r->stale);
		else
			snprintf(out, size, r->counted || r->maps_err ? "-" : "");
		break;
	default:
		break;
	}
}

size_t tui_format_procrow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_procrow *r, unsigned escape_flags)
{
	char cmd[TUI_LINE_MAX];
	size_t at, cmd_at;

	buf[0] = '\0';
	at = cmd_at = tui_layout_row(buf, size, 0, l, proc_cell, r);
	ms_escape(r->cmd, r->cmd_len, cmd, sizeof(cmd), escape_flags);
	if (r->other_root) {
		char where[4 * MS_CONTAINER_NAME_MAX + 32];

		if (r->has_container)
			ms_container_describe(&r->container, escape_flags, where, sizeof(where));
		else
			snprintf(where, sizeof(where), "other root");
		tui_appendf(buf, size, &at, "[%s] ", where);
	}
	tui_appendf(buf, size, &at, "%s", cmd);
	return cmd_at;
}

void tui_format_procheading_cols(char *buf, size_t size, const struct tui_layout *l, int sort_col,
				 bool reverse)
{
	/* The table's ids are the sort columns' (columns.c); ascending unless reversed. */
	tui_layout_heading(buf, size, l, sort_col, reverse, NULL);
}
