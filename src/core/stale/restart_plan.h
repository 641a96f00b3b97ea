/*
 * restart_plan.h - what to restart after an upgrade: a stale report
 * (stale_report.h) grouped by the systemd unit of each process.
 *
 * Only processes with a deleted or replaced file take part; a same-build
 * copy is the same code, so a process whose only other copies are
 * same-build is left out, where needrestart would restart it.
 *
 * Each group is one kind of answer:
 *   - a system service (a .service unit of the system manager, other than
 *     a user manager): `systemctl restart UNIT`;
 *   - another system unit (a scope, a mount, a socket's helper...): what
 *     started it must start it again;
 *   - a user's session or user units (session-*.scope, user@UID.service,
 *     anything a user manager runs): the user logs out and in again, or
 *     restarts them with `systemctl --user`;
 *   - processes outside any unit (no systemd, the root cgroup);
 *   - the init process (PID 1): `systemctl daemon-reexec`.
 * A unit name is what the process's cgroup path says (unit.h): raw bytes,
 * escape before display.  PID 1 is always the init group, whatever its
 * cgroup says.
 *
 * Grouping sorts references to the report's processes (kind, unit name,
 * user, PID): O(n log n) in the stale processes, whatever their names.
 * The plan points into the report, which must outlive it.  Nothing is run.
 * Errors: ms_restart_plan_build returns 0 or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_RESTART_PLAN_H
#define MAPSCOPE_RESTART_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "stale/stale_report.h"

enum ms_plan_kind {
	MS_PLAN_SERVICE,
	MS_PLAN_OTHER_UNIT,
	MS_PLAN_SESSION,
	MS_PLAN_NO_UNIT,
	MS_PLAN_INIT,
	MS_PLAN_KIND_COUNT,
};

struct ms_plan_group {
	enum ms_plan_kind kind;
	const struct ms_unit *unit;              /* NULL for MS_PLAN_NO_UNIT and MS_PLAN_INIT */
	const struct ms_stale_proc *const *procs; /* by PID */
	size_t count;
};

struct ms_restart_plan {
	struct ms_plan_group *groups; /* by kind, then unit name and user */
	size_t count;
	size_t services;              /* groups of kind MS_PLAN_SERVICE, the first ones */
	const struct ms_stale_proc **refs; /* storage of the groups' procs */
};

/*
 * "service", "unit", "session", "none", "init": one word each, the same in
 * JSON and in the explorer.
 */
const char *ms_plan_kind_name(enum ms_plan_kind k);

/*
 * What to do about group g that a `systemctl restart` of the services does
 * not do: one line, the same in every front end; NULL for a service.
 */
const char *ms_plan_advice(const struct ms_plan_group *g);

/* The kind of answer for process p (one with something stale). */
enum ms_plan_kind ms_plan_kind_of(const struct ms_stale_proc *p);

/* True when unit names are equal (name and user): one group. */
bool ms_plan_same_unit(const struct ms_stale_proc *a, const struct ms_stale_proc *b);

int ms_restart_plan_build(const struct ms_stale_report *r, struct ms_restart_plan *plan,
			  struct ms_error *err);
void ms_restart_plan_free(struct ms_restart_plan *plan);

#endif
