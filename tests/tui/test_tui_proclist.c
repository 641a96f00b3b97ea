/*
 * The process list: both sources give the same rows, MAPS counts what the
 * engine counts, and the list screen's model filters, sorts and searches.
 * Runs against a real ms-fixture process (MS_FIXTURE).
 */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_client.h"
#include "core/base/error.h"
#include "core/maps/maps.h"
#include "core/procs/proclist.h"
#include "tui/procs_model.h"

/* Start ms-fixture; each test gets its own. */
static int fx_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	assert_int_equal(fixture_start(fx), 0);
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fixture *fx = *state;

	fixture_stop(fx);
	free(fx);
	return 0;
}

static const struct ms_procrow *find(const struct ms_proclist *l, pid_t pid)
{
	size_t i = ms_proclist_find(l, pid);

	return i < l->count ? &l->rows[i] : NULL;
}

static size_t count_maps(pid_t pid, uint64_t *total)
{
	struct ms_maplist list = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	size_t n;

	assert_int_equal(ms_proc_open(pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, NULL, &maps, &err), 0);
	assert_int_equal(ms_maps_collect(maps, 0, &list, &err), 0);
	n = list.count;
	*total = 0;
	for (size_t i = 0; i < n; i++)
		*total += ms_mapping_size(&list.items[i]);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return n;
}

static void test_fixture_row(void **state)
{
	struct fixture *fx = *state;
	struct ms_proclist l = { 0 };
	const struct ms_procrow *r;
	struct ms_error err;
	char want[512];
	uint64_t total;
	size_t n;

	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, MS_PROCLIST_COUNT_MAPS, &l, &err), 0);
	r = find(&l, fx->pid);
	if (!r) {
		fail_msg("the fixture is not in the list");
		return;
	}
	snprintf(want, sizeof(want), "ms-fixture %s", fx->dir);
	assert_string_equal(r->cmd, want);
	assert_int_equal(r->uid, geteuid());
	assert_false(r->kthread);
	assert_int_equal(r->maps_err, 0);
	n = count_maps(fx->pid, &total);
	assert_int_equal(r->nmaps, n);
	assert_int_equal(r->mapped, total);
	ms_proclist_free(&l);
}

/*
 * The user's --backend reaches the counting: the text shows the legacy
 * [vsyscall] page, which PROCMAP_QUERY never reports, so the text backend
 * counts one mapping more where the kernel has that page.
 */
static void test_counts_with_the_backend_asked(void **state)
{
	struct fixture *fx = *state;
	struct ms_proclist l = { 0 };
	const struct ms_procrow *r;
	struct ms_error err;
	size_t by_ioctl, by_text;
	bool vsyscall;
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	vsyscall = getdelim(&text, &len, '\0', f) > 0 && strstr(text, "[vsyscall]");
	free(text);
	fclose(f);
	l.backend = MS_BACKEND_IOCTL;
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, MS_PROCLIST_COUNT_MAPS, &l, &err), 0);
	r = find(&l, fx->pid);
	if (!r)
		fail_msg("the fixture is not in the list");
	by_ioctl = r ? r->nmaps : 0;
	l.backend = MS_BACKEND_TEXT;
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, MS_PROCLIST_COUNT_MAPS, &l, &err), 0);
	r = find(&l, fx->pid);
	if (!r)
		fail_msg("the fixture is not in the list");
	by_text = r ? r->nmaps : 0;
	if (!vsyscall)
		print_message("no [vsyscall] page here: the two backends count alike\n");
	assert_int_equal(by_text, by_ioctl + (vsyscall ? 1 : 0));
	ms_proclist_free(&l);
}

/*
 * libproc2 is loaded when a list is first scanned; where it cannot be (no
 * procps 4 library on the system), the automatic choice is /proc and the
 * list is still whole.
 */
static void test_missing_libproc2_falls_back(void **state)
{
	struct fixture *fx = *state;
	struct ms_proclist l = { 0 };
	struct ms_error err;

	ms_proclist_libproc2_set_soname("libms-test-no-such-library.so.0");
	assert_int_equal(ms_proclist_default_source(), MS_PROCLIST_PROCFS);
	assert_string_equal(ms_proclist_source_name(MS_PROCLIST_AUTO), "proc");
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_LIBPROC2, 0, &l, &err), MS_ERR_NOTSUP);
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_AUTO, 0, &l, &err), 0);
	assert_non_null(find(&l, fx->pid));
	ms_proclist_libproc2_set_soname(NULL);
	ms_proclist_free(&l);
}

static void test_sources_agree(void **state)
{
	struct fixture *fx = *state;
	struct ms_proclist a = { 0 }, b = { 0 }, c = { 0 };
	struct ms_error err;
	size_t compared = 0;

	if (ms_proclist_default_source() != MS_PROCLIST_LIBPROC2) {
		assert_int_equal(ms_proclist_scan(MS_PROCLIST_LIBPROC2, 0, &b, &err), MS_ERR_NOTSUP);
		return;
	}
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, 0, &a, &err), 0);
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_LIBPROC2, 0, &b, &err), 0);
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, 0, &c, &err), 0);
	/*
	 * Processes come, go and exec between scans (make and the other tests
	 * run beside us): compare only those the /proc source saw unchanged
	 * before and after the libproc2 scan.
	 */
	for (size_t i = 0; i < a.count; i++) {
		const struct ms_procrow *x = &a.rows[i], *y = find(&b, x->pid), *z = find(&c, x->pid);

		if (!y || !z || z->uid != x->uid || z->cmd_len != x->cmd_len ||
		    memcmp(z->cmd, x->cmd, x->cmd_len) != 0)
			continue;
		assert_int_equal(x->uid, y->uid);
		assert_string_equal(x->user, y->user);
		assert_int_equal(x->kthread, y->kthread);
		/* A kworker's comm changes as it runs work: only its form is stable. */
		if (x->kthread)
			assert_true(x->cmd[0] == '[' && y->cmd[0] == '[');
		else if (x->pid != getpid())
			assert_string_equal(x->cmd, y->cmd);
		compared++;
	}
	assert_non_null(find(&b, fx->pid));
	assert_true(compared > 1);
	ms_proclist_free(&a);
	ms_proclist_free(&b);
	ms_proclist_free(&c);
}

static size_t index_of(const struct ms_proclist *l, pid_t pid)
{
	size_t i = ms_proclist_find(l, pid);

	if (i == l->count)
		fail_msg("pid %d is not in the process list", (int)pid);
	return i;
}

static void scan(struct ms_proclist *l)
{
	struct ms_error err;

	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, 0, l, &err), 0);
}

/* Count the fixture's row alone; *walked: whether that walked its mappings. */
static const struct ms_procrow *count_one(struct ms_proclist *l, pid_t pid, size_t *walked)
{
	size_t at = index_of(l, pid);

	ms_proclist_count(l, &at, 1, NULL, false);
	*walked = l->walked;
	return &l->rows[at];
}

/* A scan walks nobody's mappings; a count walks only the rows it is given. */
static void test_counts_only_rows_asked(void **state)
{
	struct fixture *fx = *state;
	struct ms_proclist l = { 0 };
	const struct ms_procrow *r;
	size_t walked, counted = 0;
	uint64_t total;

	scan(&l);
	for (size_t i = 0; i < l.count; i++)
		assert_false(l.rows[i].counted);
	r = count_one(&l, fx->pid, &walked);
	assert_int_equal(walked, 1);
	assert_true(r->counted);
	assert_int_equal(r->nmaps, count_maps(fx->pid, &total));
	assert_int_equal(r->mapped, total);
	for (size_t i = 0; i < l.count; i++)
		counted += l.rows[i].counted;
	assert_int_equal(counted, 1);
	ms_proclist_free(&l);
}

/* The screen's model counts the rows on screen (the fixture's among them) and no others. */
static void test_procview_counts_rows_on_screen(void **state)
{
	struct fixture *fx = *state;
	struct tui_procview pv;
	size_t at;

	tui_procview_init(&pv, 0, 3);
	scan(&pv.list);
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	assert_true(pv.nshown > 6);
	for (at = 0; at < pv.nshown && tui_procview_row(&pv, at)->pid != fx->pid; at++)
		;
	assert_true(at < pv.nshown);
	tui_procview_select(&pv, at);
	tui_procview_count_shown(&pv, NULL, false);
	assert_true(tui_procview_selected(&pv)->counted);
	for (size_t i = 0; i < pv.nshown; i++)
		if (i < pv.top_row || i >= pv.top_row + pv.height)
			assert_false(tui_procview_row(&pv, i)->counted);
	assert_true(pv.list.walked >= 1 && pv.list.walked <= 3);
	tui_procview_free(&pv);
}

/*
 * A process is walked again only when its mappings moved: an idle one keeps
 * its count through scans without a walk; one that maps a file is recounted.
 */
static void test_recounts_only_on_change(void **state)
{
	struct fixture *fx = *state;
	struct ms_proclist l = { 0 };
	const struct ms_procrow *r;
	size_t walked, before;
	uint64_t total;

	scan(&l);
	r = count_one(&l, fx->pid, &walked);
	assert_int_equal(walked, 1);
	before = r->nmaps;
	/* The next scan carries the count over, before anything is counted. */
	scan(&l);
	r = &l.rows[index_of(&l, fx->pid)];
	assert_true(r->counted);
	assert_int_equal(r->nmaps, before);
	r = count_one(&l, fx->pid, &walked);
	assert_int_equal(walked, 0);
	assert_int_equal(r->nmaps, before);

	assert_int_equal(fixture_command(fx, "mapfile grown.dat"), 0);
	scan(&l);
	r = count_one(&l, fx->pid, &walked);
	assert_int_equal(walked, 1);
	assert_int_equal(r->nmaps, count_maps(fx->pid, &total));
	assert_true(r->nmaps > before);
	assert_int_equal(r->mapped, total);
	ms_proclist_free(&l);
}

/* resident pages of /proc/PID/statm, in bytes */
static uint64_t statm_rss(pid_t pid)
{
	unsigned long long size, resident;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu %llu", &size, &resident), 2);
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* RSS is statm's resident size, from either source; an idle fixture keeps it. */
static void test_rss_is_statm_resident(void **state)
{
	static const enum ms_proclist_source srcs[] = { MS_PROCLIST_PROCFS, MS_PROCLIST_LIBPROC2 };
	struct fixture *fx = *state;

	for (size_t s = 0; s < 2; s++) {
		struct ms_proclist l = { 0 };
		struct ms_error err;
		int rc = ms_proclist_scan(srcs[s], 0, &l, &err);
		const struct ms_procrow *r;

		if (rc == MS_ERR_NOTSUP)
			continue;
		assert_int_equal(rc, 0);
		r = &l.rows[index_of(&l, fx->pid)];
		assert_true(r->rss > 0);
		assert_int_equal(r->rss, statm_rss(fx->pid));
		ms_proclist_free(&l);
	}
}

/*
 * A child that exited and was not reaped is a zombie, not "exited", from
 * either source, and is not walked.
 */
static void test_zombie_shows_as_zombie(void **state)
{
	static const enum ms_proclist_source srcs[] = { MS_PROCLIST_PROCFS, MS_PROCLIST_LIBPROC2 };
	struct fixture *fx = *state;

	fixture_kill(fx, false);
	for (size_t s = 0; s < 2; s++) {
		struct ms_proclist l = { 0 };
		const struct ms_procrow *r;
		struct ms_error err;
		size_t walked;
		int rc = ms_proclist_scan(srcs[s], 0, &l, &err);

		if (rc == MS_ERR_NOTSUP)
			continue;
		assert_int_equal(rc, 0);
		r = count_one(&l, fx->pid, &walked);
		assert_int_equal(r->state, 'Z');
		assert_int_equal(walked, 0);
		assert_true(r->maps_err != 0);
		assert_string_equal(r->maps_why, "zombie");
		ms_proclist_free(&l);
	}
}

static void push(struct ms_proclist *l, pid_t pid, uid_t uid, bool kthread, size_t nmaps,
		 const char *cmd)
{
	struct ms_procrow *r;

	l->rows = realloc(l->rows, (l->count + 1) * sizeof(*l->rows));
	assert_non_null(l->rows);
	r = &l->rows[l->count++];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->uid = uid;
	snprintf(r->user, sizeof(r->user), "u%u", (unsigned)uid);
	r->kthread = kthread;
	r->nmaps = nmaps;
	r->counted = nmaps != 0; /* 0: never counted, MAPS blank */
	r->cmd = strdup(cmd);
	r->cmd_len = strlen(cmd);
}

static void test_procview(void **state)
{
	struct tui_procview pv;

	(void)state;
	tui_procview_init(&pv, 1000, 10);
	push(&pv.list, 2, 0, true, 0, "[kthreadd]");
	push(&pv.list, 10, 1000, false, 30, "vim notes");
	push(&pv.list, 20, 0, false, 90, "sshd");
	push(&pv.list, 30, 1000, false, 50, "bash");
	pv.list.capacity = pv.list.count;
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	/* A user's own processes, no kernel threads, by PID. */
	assert_int_equal(pv.nshown, 2);
	assert_int_equal(tui_procview_row(&pv, 0)->pid, 10);
	tui_procview_move(&pv, 1);
	assert_int_equal(pv.sel, 30);
	pv.all_users = true;
	pv.kthreads = true;
	tui_procview_rebuild(&pv);
	assert_int_equal(pv.nshown, 4);
	assert_int_equal(tui_procview_selected(&pv)->pid, 30);
	pv.sort_col = TUI_PCOL_MAPS;
	pv.reverse = true;
	tui_procview_rebuild(&pv);
	assert_int_equal(tui_procview_row(&pv, 0)->pid, 20);
	assert_int_equal(tui_procview_selected(&pv)->pid, 30);
	snprintf(pv.search, sizeof(pv.search), "vim");
	assert_true(tui_procview_search(&pv, 1, true));
	assert_int_equal(pv.sel, 10);
	snprintf(pv.search, sizeof(pv.search), "nothing");
	assert_false(tui_procview_search(&pv, 1, false));
	assert_int_equal(pv.sel, 10);
	tui_procview_free(&pv);
}

/* Pids of the rows in display order, as "3 5 1 ...". */
static void order_of(const struct tui_procview *pv, char *out, size_t size)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < pv->nshown && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%d", i ? " " : "",
				       (int)tui_procview_row(pv, i)->pid);
}

/* By MAPS, rows not counted come last both ways; a sort change selects the first row and keeps it. */
static void test_procview_sort(void **state)
{
	static const size_t maps[] = { 30, 0, 10, 0, 20, 0 };
	struct tui_procview pv;
	char order[64];

	(void)state;
	tui_procview_init(&pv, 1000, 10);
	for (pid_t pid = 1; pid <= 6; pid++)
		push(&pv.list, pid, 1000, false, maps[pid - 1], "cmd");
	pv.list.capacity = pv.list.count;
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	tui_procview_select(&pv, 5);
	tui_procview_sort(&pv, TUI_PCOL_MAPS, false);
	order_of(&pv, order, sizeof(order));
	assert_string_equal(order, "3 5 1 2 4 6");
	assert_int_equal(pv.sel, 3);
	tui_procview_sort(&pv, TUI_PCOL_MAPS, true);
	order_of(&pv, order, sizeof(order));
	assert_string_equal(order, "1 5 3 6 4 2");
	assert_int_equal(pv.sel_row, 0);
	assert_int_equal(pv.sel, 1);
	/* A count arrives and re-sorts: the selection stays on the first row. */
	pv.list.rows[1].counted = true;
	pv.list.rows[1].nmaps = 99;
	tui_procview_rebuild(&pv);
	assert_int_equal(pv.sel, 2);
	/* Once the user moves, the selection follows its process again. */
	tui_procview_move(&pv, 1);
	assert_int_equal(pv.sel, 1);
	pv.list.rows[3].counted = true;
	pv.list.rows[3].nmaps = 98;
	tui_procview_rebuild(&pv);
	assert_int_equal(pv.sel, 1);
	assert_int_equal(pv.sel_row, 2);
	/* A process that cannot be read ("-") sorts with the blanks. */
	pv.list.rows[0].maps_err = MS_ERR_NOACCESS;
	tui_procview_sort(&pv, TUI_PCOL_MAPS, false);
	order_of(&pv, order, sizeof(order));
	assert_string_equal(order, "3 5 4 2 1 6");
	tui_procview_free(&pv);
}

/* \\ keeps only matching command lines: the selection stays, else the nearest; the screen is full. */
static void test_procview_filter(void **state)
{
	struct tui_procview pv;
	char cmd[32];

	(void)state;
	tui_procview_init(&pv, 1000, 4);
	for (pid_t pid = 1; pid <= 20; pid++) {
		snprintf(cmd, sizeof(cmd), "%s %d", pid % 2 ? "odd" : "even", (int)pid);
		push(&pv.list, pid, 1000, false, 1, cmd);
	}
	pv.list.capacity = pv.list.count;
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	tui_procview_select(&pv, 19); /* PID 20, the last row, at the bottom of the screen */
	assert_int_equal(pv.top_row, 16);
	assert_int_equal(tui_procview_set_filter(&pv, "even"), 0);
	assert_int_equal(pv.nshown, 10);
	assert_int_equal(pv.sel, 20);
	/* Ten rows left: the last four fill the screen, none blank. */
	assert_int_equal(pv.top_row, 6);
	assert_int_equal(pv.sel_row, 9);
	/* The selected process filtered out: the row at its place, the nearest. */
	tui_procview_select(&pv, 2); /* PID 6 */
	assert_int_equal(tui_procview_set_filter(&pv, "odd"), 0);
	assert_int_equal(pv.nshown, 10);
	assert_int_equal(tui_procview_selected(&pv)->pid, 5);
	assert_true(pv.top_row <= pv.sel_row && pv.sel_row < pv.top_row + pv.height);
	/* Search moves within the filtered rows only. */
	snprintf(pv.search, sizeof(pv.search), "1");
	assert_true(tui_procview_search(&pv, 1, false));
	assert_int_equal(pv.sel, 11);
	assert_true(tui_procview_search(&pv, -1, false));
	assert_int_equal(pv.sel, 1);
	assert_int_equal(tui_procview_set_filter(&pv, ""), 0);
	assert_int_equal(pv.nshown, 20);
	assert_int_equal(pv.sel, 1);
	tui_procview_free(&pv);
}

/* Back from a maps view: its process is selected and on screen, before or after a scan. */
static void test_procview_reveal(void **state)
{
	struct tui_procview pv;

	(void)state;
	tui_procview_init(&pv, 1000, 3);
	/* Started as `mapscope PID`: nothing scanned yet when the view closes. */
	assert_int_equal(tui_procview_reveal(&pv, 70), 0);
	for (pid_t pid = 10; pid <= 80; pid += 10)
		push(&pv.list, pid, 1000, false, 1, "sh");
	pv.list.capacity = pv.list.count;
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	assert_int_equal(tui_procview_selected(&pv)->pid, 70);
	assert_true(pv.top_row <= pv.sel_row && pv.sel_row < pv.top_row + pv.height);
	/* Someone else's process, and a kernel thread: the filters widen to show them. */
	push(&pv.list, 90, 0, false, 1, "sshd");
	push(&pv.list, 5, 0, true, 0, "[kworker]");
	pv.list.capacity = pv.list.count;
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	assert_int_equal(tui_procview_reveal(&pv, 90), 0);
	assert_true(pv.all_users);
	assert_int_equal(tui_procview_selected(&pv)->pid, 90);
	assert_int_equal(tui_procview_reveal(&pv, 5), 0);
	assert_true(pv.kthreads);
	assert_int_equal(tui_procview_selected(&pv)->pid, 5);
	assert_int_equal(pv.top_row, 0);
	/* Once shown, a later rescan does not widen anything again. */
	pv.all_users = false;
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	assert_false(pv.all_users);
	tui_procview_free(&pv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procview_filter),
		cmocka_unit_test(test_procview_sort),
		cmocka_unit_test_setup_teardown(test_fixture_row, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_counts_with_the_backend_asked, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_missing_libproc2_falls_back, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sources_agree, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_counts_only_rows_asked, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_procview_counts_rows_on_screen, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_recounts_only_on_change, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rss_is_statm_resident, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_zombie_shows_as_zombie, fx_setup, fx_teardown),
		cmocka_unit_test(test_procview),
		cmocka_unit_test(test_procview_reveal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
