/*
 * The explorer's detail pane lines for residency, from a real query of the
 * residency fixture: the written region's resident size, the zero-page
 * note for pages only read, huge pages as smaps reports them, and the
 * line shown when residency is unavailable.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "core/residency.h"
#include "resfix.h"
#include "tui/format.h"

static void query_kind(struct ms_proc *proc, const struct fixture *fx, const char *kind,
		       struct ms_resinfo *out)
{
	const struct fx_map *fm = fixture_find(fx, kind);
	struct ms_mapping m = { 0 };
	struct ms_residency *res = NULL;
	struct ms_error err;

	assert_non_null(fm);
	m.start = fm->start;
	m.end = fm->end;
	m.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (ms_residency_open(proc, NULL, &res, &err) < 0 || ms_residency_query(res, &m, 1, out, &err) < 0)
		fail_msg("%s", err.msg);
	ms_residency_close(res);
}

static void test_detail_lines(void **state)
{
	struct tui_detail_line lines[4];
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_resinfo info;
	struct ms_error err;
	char want[128], size[32];
	size_t n;

	(void)state;
	assert_int_equal(resfix_start(&fx), 0);
	if (ms_proc_open(fx.pid, &proc, &err) < 0)
		fail_msg("%s", err.msg);

	query_kind(proc, &fx, "anon-written", &info);
	n = tui_format_residency(lines, 4, &info, "pagemap");
	assert_int_equal(n, 3);
	cli_format_size(5 * (uint64_t)sysconf(_SC_PAGESIZE), false, size, sizeof(size));
	snprintf(want, sizeof(want), "%s  [pagemap]", size);
	assert_string_equal(lines[0].label, "resident");
	assert_string_equal(lines[0].value, want);
	assert_string_equal(lines[1].value, "0B");
	assert_string_equal(lines[2].value, "none");

	query_kind(proc, &fx, "anon-read", &info);
	n = tui_format_residency(lines, 4, &info, "pagemap");
	cli_format_size(3 * (uint64_t)sysconf(_SC_PAGESIZE), false, size, sizeof(size));
	snprintf(want, sizeof(want), "0B (%s more on the zero page)  [pagemap]", size);
	assert_string_equal(lines[0].value, want);

	query_kind(proc, &fx, "thp-written", &info);
	tui_format_residency(lines, 4, &info, "pagemap");
	if (info.huge)
		assert_string_equal(lines[2].value, "2M (transparent huge pages)");
	else
		assert_string_equal(lines[2].value, "none");

	/* Room for one line only: the resident line comes first. */
	assert_int_equal(tui_format_residency(lines, 1, &info, "smaps"), 1);
	assert_int_equal(tui_format_residency(lines, 4, NULL, "pagemap"), 1);
	assert_string_equal(lines[0].value, "unavailable");
	ms_proc_close(proc);
	fixture_stop(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detail_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
