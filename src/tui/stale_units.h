/*
 * stale_units.h - the stale view's grouping by systemd unit (key u): the
 * restart plan of core/stale/restart_plan.h, built from the view's entries
 * (stale_model.h) rather than from a stale report, so the explorer groups
 * exactly as `stale --restart-plan` does and decides nothing itself.
 *
 * tui_stale_units_build gives the plan one record per entry, with what the
 * plan reads of it (PID, unit, its count of stale files: every file an
 * entry keeps is deleted or replaced, so a process whose copies are all
 * same-build is in neither), then groups them.  The plan's records are in
 * the entries' order: tui_stale_units_entry turns one back into its entry.
 * Without curses; O(n log n) in the entries.  0 or MS_ERR_NOMEM (then the
 * view has no plan).
 */
#ifndef MAPSCOPE_TUI_STALE_UNITS_H
#define MAPSCOPE_TUI_STALE_UNITS_H

#include <stddef.h>

#include "tui/stale_model.h"

int tui_stale_units_build(struct tui_staleview *sv);
/* The index in sv->entries of a process of the plan's groups. */
size_t tui_stale_units_entry(const struct tui_staleview *sv, const struct ms_stale_proc *p);
void tui_stale_units_free(struct tui_staleview *sv);

#endif
