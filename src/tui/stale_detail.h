/*
 * stale_detail.h - the stale view's detail pane (Tab), without curses: the
 * selected line's process or file with everything the one-line row may
 * cut or leaves out: the whole name, the explanation (WHY), and the
 * package facts (core/files/facts.h: package, source, the version running,
 * the version installed, how the running one is known), escaped, for
 * tui_draw_pane to wrap whole.  A unit's heading (by unit) gives the
 * unit, its kind, its processes' PIDs and what to do: the systemctl
 * command for a service, else the restart plan's advice.
 */
#ifndef MAPSCOPE_TUI_STALE_DETAIL_H
#define MAPSCOPE_TUI_STALE_DETAIL_H

#include <stddef.h>

#include "tui/format.h"
#include "tui/stale_model.h"

#define TUI_STALE_DETAIL_LINES 9

/* The selected line's detail lines (at most n); 0 with no selection. */
size_t tui_format_stale_detail(struct tui_detail_line *lines, size_t n, const struct tui_staleview *sv,
			       unsigned escape_flags);

#endif
