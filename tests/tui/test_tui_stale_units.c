/*
 * The stale view grouped by systemd unit (key u), without a terminal:
 * entries whose units come from cgroup files as the kernel writes them
 * (ms_unit_parse) are grouped as `stale --restart-plan` groups them, a
 * heading line per group, with the filter, the search, the selection and
 * the detail pane working on the groups, and u again giving the list by
 * process back.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/escape.h"
#include "core/proc/unit.h"
#include "core/procs/proclist.h"
#include "core/stale/stale.h"
#include "tui/columns.h"
#include "tui/stale_cols.h"
#include "tui/stale_detail.h"
#include "tui/stale_model.h"

/* One process, its unit from the cgroup text (NULL: none), with one deleted file. */
static void add(struct tui_staleview *sv, pid_t pid, const char *cmd, const char *cgroup)
{
	static char file[] = "/usr/lib/libssl.so.3 (deleted)";
	struct ms_stale_file item = { .name = file, .name_len = sizeof(file) - 1 };
	struct ms_stale_list list = { &item, 1, 1 };
	struct ms_procrow row = { .pid = pid };
	struct ms_unit unit;

	item.result.verdict = MS_STALE_DELETED;
	row.cmd = (char *)cmd;
	row.cmd_len = strlen(cmd);
	if (cgroup)
		assert_int_equal(ms_unit_parse(cgroup, strlen(cgroup), &unit), 0);
	assert_int_equal(tui_staleview_add(sv, &row, cgroup ? &unit : NULL, &list), 0);
}

/* The text of line i, as drawn (without curses). */
static const char *text_of(const struct tui_staleview *sv, size_t i)
{
	static char text[TUI_LINE_MAX];
	struct tui_stale_layout l;
	struct tui_colset cols;

	tui_colset_default(&cols, TUI_CV_STALE);
	tui_stale_layout_make(&l, &cols, sv, 200, sv->height, MS_ESC_ASCII);
	tui_stale_format_line(text, sizeof(text), &l, sv, tui_staleview_line(sv, i));
	return text;
}

static pid_t pid_of(const struct tui_staleview *sv, size_t i)
{
	return sv->entries[tui_staleview_line(sv, i)->entry].pid;
}

static bool is_heading(const struct tui_staleview *sv, size_t i)
{
	return tui_staleview_line(sv, i)->file == TUI_STALE_UNIT_LINE;
}

/* The view's six processes: two services (one with two), a session, a user unit, one outside any unit, init. */
static void load(struct tui_staleview *sv)
{
	tui_staleview_init(sv, 40);
	add(sv, 300, "nginx: worker", "0::/system.slice/nginx.service\n");
	add(sv, 100, "nginx: master", "0::/system.slice/nginx.service\n");
	add(sv, 200, "bash", "0::/user.slice/user-1000.slice/session-3.scope\n");
	add(sv, 400, "python3 app.py", NULL);
	add(sv, 150, "cron -f", "0::/system.slice/cron.service\n");
	add(sv, 250, "gpg-agent",
	    "0::/user.slice/user-1000.slice/user@1000.service/app.slice/gpg-agent.service\n");
	add(sv, 1, "/sbin/init", "0::/init.scope\n");
	assert_int_equal(tui_staleview_rebuild(sv), 0);
}

static void test_groups_in_plan_order(void **state)
{
	/* Heading, process, file: services by name, then sessions and user units by name, none, init. */
	static const struct {
		pid_t pid;
		const char *heading;
	} want[] = {
		{ 150, "service cron.service (1 process)" },
		{ 100, "service nginx.service (2 processes)" },
		{ 250, "session gpg-agent.service (user@1000.service) (1 process): a user's unit: "
		       "systemctl --user restart it, or log out and in" },
		{ 200, "session session-3.scope (1 process): a user session: log out and in again" },
		{ 400, "none (1 process): outside any unit: restart each by hand" },
		{ 1, "init (1 process): init: systemctl daemon-reexec" },
	};
	struct tui_staleview sv;
	size_t l = 0;

	(void)state;
	load(&sv);
	assert_int_equal(sv.nlines, 14);
	assert_false(is_heading(&sv, 0));
	assert_int_equal(tui_staleview_set_by_unit(&sv, true), 0);
	assert_int_equal(sv.plan.services, 2);
	assert_int_equal(sv.services_shown, 2);
	assert_int_equal(sv.nlines, 14 + 6);
	for (size_t g = 0; g < sizeof(want) / sizeof(want[0]); g++) {
		assert_true(is_heading(&sv, l));
		assert_string_equal(text_of(&sv, l), want[g].heading);
		assert_int_equal(pid_of(&sv, l), want[g].pid);
		l++;
		assert_int_equal(tui_staleview_line(&sv, l)->file, -1);
		assert_int_equal(pid_of(&sv, l), want[g].pid);
		l += 2;
		/* nginx's second process, by PID. */
		if (want[g].pid == 100) {
			assert_int_equal(tui_staleview_line(&sv, l)->file, -1);
			assert_int_equal(pid_of(&sv, l), 300);
			l += 2;
		}
	}
	assert_int_equal(l, sv.nlines);
	tui_staleview_free(&sv);
}

static void test_toggle_keeps_selection(void **state)
{
	struct tui_staleview sv;
	struct tui_detail_line d[TUI_STALE_DETAIL_LINES];
	size_t n;

	(void)state;
	load(&sv);
	/* The nginx worker's file line, by process first (the 1st entry). */
	tui_staleview_select(&sv, 1);
	assert_int_equal(sv.sel_pid, 300);
	assert_int_equal(tui_staleview_set_by_unit(&sv, true), 0);
	assert_int_equal(pid_of(&sv, sv.sel_row), 300);
	assert_int_equal(tui_staleview_line(&sv, sv.sel_row)->file, 0);
	/* A heading: Enter opens its first process; the pane tells the unit and what to run. */
	tui_staleview_select(&sv, 3);
	assert_true(is_heading(&sv, 3));
	assert_int_equal(tui_staleview_selected_pid(&sv), 100);
	n = tui_format_stale_detail(d, TUI_STALE_DETAIL_LINES, &sv, MS_ESC_ASCII);
	assert_int_equal(n, 4);
	assert_string_equal(d[0].value, "nginx.service");
	assert_string_equal(d[1].value, "service");
	assert_string_equal(d[2].value, "100 300");
	assert_string_equal(d[3].value, "systemctl restart nginx.service");
	/* Back by process: the heading's process is selected, and no heading is left. */
	assert_int_equal(tui_staleview_set_by_unit(&sv, false), 0);
	assert_int_equal(sv.nlines, 14);
	assert_int_equal(pid_of(&sv, sv.sel_row), 100);
	for (size_t i = 0; i < sv.nlines; i++)
		assert_false(is_heading(&sv, i));
	tui_staleview_free(&sv);
}

static void test_filter_and_search_by_unit(void **state)
{
	struct tui_staleview sv;

	(void)state;
	load(&sv);
	assert_int_equal(tui_staleview_set_by_unit(&sv, true), 0);
	/* A command line: that process under its heading, nothing else. */
	assert_int_equal(tui_staleview_set_filter(&sv, "python"), 0);
	assert_int_equal(sv.nlines, 3);
	assert_string_equal(text_of(&sv, 0), "none (1 process): outside any unit: restart each by hand");
	assert_int_equal(pid_of(&sv, 1), 400);
	/* A unit's name: the whole unit, though no command line has it. */
	assert_int_equal(tui_staleview_set_filter(&sv, "nginx.serv"), 0);
	assert_int_equal(sv.nlines, 5);
	assert_true(is_heading(&sv, 0));
	assert_int_equal(pid_of(&sv, 3), 300);
	/* A heading counts its processes shown, and stands for the first of them. */
	assert_int_equal(tui_staleview_set_filter(&sv, "worker"), 0);
	assert_int_equal(sv.nlines, 3);
	assert_string_equal(text_of(&sv, 0), "service nginx.service (1 process)");
	assert_int_equal(pid_of(&sv, 0), 300);
	assert_int_equal(tui_staleview_set_filter(&sv, "nginx.serv"), 0);
	/* The services to restart: those shown. */
	assert_int_equal(sv.services_shown, 1);
	assert_int_equal(tui_staleview_set_filter(&sv, "python"), 0);
	assert_int_equal(sv.services_shown, 0);
	assert_int_equal(tui_staleview_set_filter(&sv, ""), 0);
	assert_int_equal(sv.services_shown, 2);
	/* Search stops at a heading by its unit's name. */
	tui_staleview_select(&sv, 0);
	snprintf(sv.search, sizeof(sv.search), "session-3");
	assert_true(tui_staleview_search(&sv, 1, false));
	assert_true(is_heading(&sv, sv.sel_row));
	assert_int_equal(pid_of(&sv, sv.sel_row), 200);
	tui_staleview_free(&sv);
}

/* A unit's name is the process's to choose below a delegated cgroup: escaped in the heading. */
static void test_heading_escapes(void **state)
{
	struct tui_staleview sv;

	(void)state;
	tui_staleview_init(&sv, 10);
	add(&sv, 500, "evil", "0::/system.slice/x\x1b[2J.service\n");
	assert_int_equal(tui_staleview_set_by_unit(&sv, true), 0);
	assert_string_equal(text_of(&sv, 0), "service x\\x1b[2J.service (1 process)");
	tui_staleview_free(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_in_plan_order),
		cmocka_unit_test(test_toggle_keeps_selection),
		cmocka_unit_test(test_filter_and_search_by_unit),
		cmocka_unit_test(test_heading_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
