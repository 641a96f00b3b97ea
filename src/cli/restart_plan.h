/*
 * restart_plan.h - `mapscope stale --restart-plan`: a stale report grouped
 * by unit (core/stale/restart_plan.h), as text for people or JSON (-J).
 * The services come first, each with its processes and their deleted or
 * replaced files, then one `systemctl restart` line for all of them, then
 * apart what restarting services cannot fix: other units, user sessions,
 * processes outside any unit and PID 1 (`systemctl daemon-reexec`).  It
 * prints commands and runs none.  Everything from processes is escaped
 * here, at the edge.
 */
#ifndef MAPSCOPE_CLI_RESTART_PLAN_H
#define MAPSCOPE_CLI_RESTART_PLAN_H

#include "cli/cli.h"
#include "core/stale/stale_report.h"

/* CLI_EXIT_OK, or CLI_EXIT_USAGE on a write or memory error (reported). */
int restart_plan_print(const struct ms_stale_report *r, const struct cli_opts *o);

#endif
