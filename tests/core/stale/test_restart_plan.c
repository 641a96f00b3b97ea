/*
 * The restart plan's grouping (stale/restart_plan.h) over a stale report
 * whose units come from the real cgroup parser (proc/unit.h): each kind of
 * answer (service, other unit, a user's session or user units, outside any
 * unit, init), the groups' order (services first, then by kind and unit
 * name), the processes of a group by PID, one group for all processes
 * outside any unit, and a process with nothing deleted or replaced (its
 * copies same-build only) left out.  tests/test_restart_plan.sh runs the
 * same on real processes in real cgroups.
 */
#include "config.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proc/unit.h"
#include "stale/restart_plan.h"

struct holder {
	pid_t pid;
	const char *cgroup; /* /proc/PID/cgroup text; NULL: outside any unit */
	size_t stale_files;
};

static const struct holder holders[] = {
	{ 1, "0::/init.scope\n", 1 },
	{ 300, "0::/system.slice/nginx.service\n", 2 },
	{ 200, "0::/system.slice/nginx.service\n", 1 },
	/* Same-build copies only: the same code runs, no restart needed. */
	{ 210, "0::/system.slice/nginx.service\n", 0 },
	{ 250, "0::/system.slice/cron.service\n", 1 },
	{ 400, "0::/system.slice/docker-0123abcd.scope\n", 1 },
	{ 600, "0::/user.slice/user-1000.slice/session-3.scope\n", 1 },
	{ 610, "0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n", 1 },
	/* A delegated subtree names a "service" of its own: still the scope's. */
	{ 420, "0::/system.slice/docker-0123abcd.scope/sshd.service\n", 1 },
	{ 501, NULL, 1 },
	{ 500, "0::/\n", 1 },
	{ 520, NULL, 0 },
};
#define NHOLDERS (sizeof(holders) / sizeof(holders[0]))

static void report_of(struct ms_stale_report *r, struct ms_stale_proc *procs)
{
	memset(r, 0, sizeof(*r));
	memset(procs, 0, NHOLDERS * sizeof(*procs));
	for (size_t i = 0; i < NHOLDERS; i++) {
		struct ms_stale_proc *p = &procs[i];

		p->pid = holders[i].pid;
		p->stale_files = holders[i].stale_files;
		p->unit.user_uid = -1;
		if (holders[i].cgroup) {
			int rc = ms_unit_parse(holders[i].cgroup, strlen(holders[i].cgroup), &p->unit);

			assert_true(rc == 0 || rc == MS_END);
			p->has_unit = rc == 0;
		}
	}
	r->procs = procs;
	r->count = NHOLDERS;
}

/* Group g is of kind k, named unit (NULL: none), with exactly the PIDs given, in that order. */
static void group_is(const struct ms_restart_plan *plan, size_t g, enum ms_plan_kind k, const char *unit,
		     const pid_t *pids, size_t n)
{
	const struct ms_plan_group *grp;

	assert_true(g < plan->count);
	grp = &plan->groups[g];
	assert_string_equal(ms_plan_kind_name(grp->kind), ms_plan_kind_name(k));
	if (unit) {
		assert_non_null(grp->unit);
		assert_string_equal(grp->unit->name, unit);
	} else {
		assert_null(grp->unit);
	}
	assert_int_equal(grp->count, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(grp->procs[i]->pid, pids[i]);
}

/* The plan of the holders (none with anything stale when none_stale); it points into procs. */
static void plan_of(struct ms_stale_proc *procs, bool none_stale, struct ms_restart_plan *plan)
{
	struct ms_stale_report r;
	struct ms_error err;

	report_of(&r, procs);
	for (size_t i = 0; none_stale && i < NHOLDERS; i++)
		procs[i].stale_files = 0;
	assert_int_equal(ms_restart_plan_build(&r, plan, &err), 0);
}

static void test_groups(void **state)
{
	struct ms_stale_proc procs[NHOLDERS];
	struct ms_restart_plan plan;

	(void)state;
	plan_of(procs, false, &plan);
	/* Services first, by name; the same-build holder 210 is not in nginx's. */
	assert_int_equal(plan.services, 2);
	group_is(&plan, 0, MS_PLAN_SERVICE, "cron.service", (pid_t[]){ 250 }, 1);
	group_is(&plan, 1, MS_PLAN_SERVICE, "nginx.service", (pid_t[]){ 200, 300 }, 2);
	group_is(&plan, 2, MS_PLAN_OTHER_UNIT, "docker-0123abcd.scope", (pid_t[]){ 400, 420 }, 2);
	/* A user's session and user units: the user's to restart, whatever their suffix. */
	assert_int_equal(plan.groups[3].kind, MS_PLAN_SESSION);
	assert_int_equal(plan.groups[4].kind, MS_PLAN_SESSION);
	group_is(&plan, 3, MS_PLAN_SESSION, "foo.service", (pid_t[]){ 610 }, 1);
	assert_int_equal(plan.groups[3].unit->user_uid, 1000);
	group_is(&plan, 4, MS_PLAN_SESSION, "session-3.scope", (pid_t[]){ 600 }, 1);
	/* Outside any unit: one group, the root cgroup's process with the one that has none. */
	group_is(&plan, 5, MS_PLAN_NO_UNIT, NULL, (pid_t[]){ 500, 501 }, 2);
	group_is(&plan, 6, MS_PLAN_INIT, NULL, (pid_t[]){ 1 }, 1);
	assert_int_equal(plan.count, 7);
	ms_restart_plan_free(&plan);
}

/* Nothing deleted or replaced anywhere: an empty plan, nothing allocated. */
static void test_nothing_stale(void **state)
{
	struct ms_stale_proc procs[NHOLDERS];
	struct ms_restart_plan plan;

	(void)state;
	plan_of(procs, true, &plan);
	assert_int_equal(plan.count, 0);
	assert_int_equal(plan.services, 0);
	assert_null(plan.groups);
	ms_restart_plan_free(&plan);
}

/* PID 1 is init whatever its cgroup claims. */
static void test_init_whatever_cgroup(void **state)
{
	struct ms_stale_proc p = { .pid = 1, .stale_files = 1, .unit.user_uid = -1 };
	const char cg[] = "0::/system.slice/fake.service\n";

	(void)state;
	assert_int_equal(ms_unit_parse(cg, strlen(cg), &p.unit), 0);
	p.has_unit = true;
	assert_int_equal(ms_plan_kind_of(&p), MS_PLAN_INIT);
	p.pid = 2;
	assert_int_equal(ms_plan_kind_of(&p), MS_PLAN_SERVICE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_nothing_stale),
		cmocka_unit_test(test_init_whatever_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
