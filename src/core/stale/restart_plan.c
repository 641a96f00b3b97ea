#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stale/restart_plan.h"

const char *ms_plan_kind_name(enum ms_plan_kind k)
{
	static const char *const names[MS_PLAN_KIND_COUNT] = {
		[MS_PLAN_SERVICE] = "service", [MS_PLAN_OTHER_UNIT] = "unit",
		[MS_PLAN_SESSION] = "session", [MS_PLAN_NO_UNIT] = "none",
		[MS_PLAN_INIT] = "init",
	};

	return (unsigned)k < MS_PLAN_KIND_COUNT ? names[k] : "none";
}

const char *ms_plan_advice(const struct ms_plan_group *g)
{
	switch (g->kind) {
	case MS_PLAN_OTHER_UNIT: return "not a service: restart what started it";
	case MS_PLAN_SESSION:
		return g->unit && g->unit->user_uid >= 0 ? "a user's unit: systemctl --user restart it, or log out and in"
							 : "a user session: log out and in again";
	case MS_PLAN_NO_UNIT: return "outside any unit: restart each by hand";
	case MS_PLAN_INIT: return "init: systemctl daemon-reexec";
	default: return NULL;
	}
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

enum ms_plan_kind ms_plan_kind_of(const struct ms_stale_proc *p)
{
	const char *name = p->unit.name;

	if (p->pid == 1)
		return MS_PLAN_INIT;
	if (!p->has_unit || !name[0])
		return MS_PLAN_NO_UNIT;
	/* A user's units come and go with the user's manager: restarting them is the user's. */
	if (p->unit.user_uid >= 0 || !strncmp(name, "session-", 8) ||
	    ms_unit_user_manager_uid(name, strlen(name)) >= 0)
		return MS_PLAN_SESSION;
	return has_suffix(name, ".service") ? MS_PLAN_SERVICE : MS_PLAN_OTHER_UNIT;
}

bool ms_plan_same_unit(const struct ms_stale_proc *a, const struct ms_stale_proc *b)
{
	return a->has_unit == b->has_unit && a->unit.user_uid == b->unit.user_uid &&
	       !strcmp(a->unit.name, b->unit.name);
}

static int ref_cmp(const void *x, const void *y)
{
	const struct ms_stale_proc *a = *(const struct ms_stale_proc *const *)x;
	const struct ms_stale_proc *b = *(const struct ms_stale_proc *const *)y;
	enum ms_plan_kind ka = ms_plan_kind_of(a), kb = ms_plan_kind_of(b);
	int c;

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ka != MS_PLAN_NO_UNIT && ka != MS_PLAN_INIT) {
		c = strcmp(a->unit.name, b->unit.name);
		if (c)
			return c;
		if (a->unit.user_uid != b->unit.user_uid)
			return a->unit.user_uid < b->unit.user_uid ? -1 : 1;
	}
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* Processes with no unit, and PID 1, make one group each kind, whatever their cgroups say. */
static bool same_group(const struct ms_stale_proc *a, const struct ms_stale_proc *b)
{
	enum ms_plan_kind k = ms_plan_kind_of(a);

	if (k != ms_plan_kind_of(b))
		return false;
	return k == MS_PLAN_NO_UNIT || k == MS_PLAN_INIT || ms_plan_same_unit(a, b);
}

int ms_restart_plan_build(const struct ms_stale_report *r, struct ms_restart_plan *plan,
			  struct ms_error *err)
{
	size_t n = 0;

	memset(plan, 0, sizeof(*plan));
	for (size_t i = 0; i < r->count; i++)
		n += r->procs[i].stale_files > 0;
	if (!n)
		return 0;
	plan->refs = calloc(n, sizeof(*plan->refs));
	plan->groups = calloc(n, sizeof(*plan->groups));
	if (!plan->refs || !plan->groups) {
		ms_restart_plan_free(plan);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "stale: out of memory");
	}
	n = 0;
	for (size_t i = 0; i < r->count; i++)
		if (r->procs[i].stale_files)
			plan->refs[n++] = &r->procs[i];
	qsort(plan->refs, n, sizeof(*plan->refs), ref_cmp);
	for (size_t a = 0, b; a < n; a = b) {
		struct ms_plan_group *g = &plan->groups[plan->count++];

		for (b = a + 1; b < n && same_group(plan->refs[a], plan->refs[b]); b++)
			;
		g->kind = ms_plan_kind_of(plan->refs[a]);
		g->unit = g->kind == MS_PLAN_NO_UNIT || g->kind == MS_PLAN_INIT ? NULL : &plan->refs[a]->unit;
		g->procs = &plan->refs[a];
		g->count = b - a;
		plan->services += g->kind == MS_PLAN_SERVICE;
	}
	return 0;
}

void ms_restart_plan_free(struct ms_restart_plan *plan)
{
	free(plan->refs);
	free(plan->groups);
	memset(plan, 0, sizeof(*plan));
}
