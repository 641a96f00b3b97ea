/* stale_units.c - the stale view grouped by unit: see stale_units.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tui/stale_units.h"

void tui_stale_units_free(struct tui_staleview *sv)
{
	ms_restart_plan_free(&sv->plan);
	free(sv->plan_procs);
	sv->plan_procs = NULL;
}

int tui_stale_units_build(struct tui_staleview *sv)
{
	struct ms_stale_report report = { 0 };
	struct ms_error err;

	tui_stale_units_free(sv);
	if (!sv->count)
		return 0;
	sv->plan_procs = calloc(sv->count, sizeof(*sv->plan_procs));
	if (!sv->plan_procs)
		return MS_ERR_NOMEM;
	for (size_t i = 0; i < sv->count; i++) {
		const struct tui_stale_entry *e = &sv->entries[i];
		struct ms_stale_proc *p = &sv->plan_procs[i];

		p->pid = e->pid;
		p->has_unit = e->has_unit;
		p->unit = e->unit;
		p->stale_files = e->files.count;
	}
	report.procs = sv->plan_procs;
	report.count = report.capacity = sv->count;
	if (ms_restart_plan_build(&report, &sv->plan, &err) < 0) {
		tui_stale_units_free(sv);
		return MS_ERR_NOMEM;
	}
	return 0;
}

size_t tui_stale_units_entry(const struct tui_staleview *sv, const struct ms_stale_proc *p)
{
	return (size_t)(p - sv->plan_procs);
}
