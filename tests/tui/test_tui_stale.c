/*
 * The explorer's stale parts without a terminal, on a real process:
 * tests/stale-child maps two copies of the test libraries from a temp
 * directory; one is then deleted, the other replaced by rename.  Checks the
 * maps view's per-row verdicts (visible rows only, cached until forgotten),
 * the flag letters and the detail line, the process list's STALE count, the
 * stale view's model, the user's ignore file, and the S key's default name.
 */
#define _GNU_SOURCE
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/escape.h"
#include "core/stale/ignore.h"
#include "core/maps/maps.h"
#include "core/procs/proclist.h"
#include "core/stale/stale.h"
#include "fixture_client.h"
#include "testutil.h"
#include "tui/format.h"
#include "tui/maps_model.h"
#include "tui/stale_cols.h"
#include "tui/stale_model.h"
#include "tui/verdicts.h"

struct fx {
	char *dir;
	char *gone;     /* mapped, then deleted */
	char *swapped;  /* mapped, then replaced by rename (so also " (deleted)") */
	time_t unlinked; /* when gone was unlinked: its upgrade's second in dpkg's log */
	struct fixture child;
	struct ms_proc *proc;
	struct ms_maps *maps;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *lib_a = tu_built("libstale-a.so"), *lib_b = tu_built("libstale-b.so");
	char *tmp;
	struct ms_error err;

	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	fx->gone = tu_join(fx->dir, "libgone.so");
	fx->swapped = tu_join(fx->dir, "libswapped.so");
	tmp = tu_join(fx->dir, "incoming.so");
	assert_int_equal(tu_copy(lib_a, fx->gone), 0);
	assert_int_equal(tu_copy(lib_a, fx->swapped), 0);
	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->gone), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->swapped), 0);
	assert_int_equal(unlink(fx->gone), 0);
	fx->unlinked = time(NULL);
	assert_int_equal(tu_copy(lib_b, tmp), 0);
	assert_int_equal(rename(tmp, fx->swapped), 0);
	assert_int_equal(ms_proc_open(fx->child.pid, &fx->proc, &err), 0);
	assert_int_equal(ms_maps_open(fx->proc, NULL, &fx->maps, &err), 0);
	free(tmp);
	free(lib_a);
	free(lib_b);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	ms_maps_close(fx->maps);
	ms_proc_close(fx->proc);
	fixture_stop(&fx->child);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->gone);
	free(fx->swapped);
	free(fx);
	return 0;
}

static bool name_is(const struct ms_mapping *m, const char *path, bool deleted)
{
	char want[4096];

	snprintf(want, sizeof(want), "%s%s", path, deleted ? " (deleted)" : "");
	return m->name && m->name_len == strlen(want) && !memcmp(m->name, want, m->name_len);
}

/* The child's whole map in a view of the given height. */
static void load_view(struct fx *fx, struct tui_mapview *vm, size_t height)
{
	struct ms_maplist all = { 0 };
	struct ms_error err;

	tui_mapview_init(vm, 0, height);
	assert_int_equal(ms_maps_collect(fx->maps, 0, &all, &err), 0);
	assert_true(tui_mapview_apply(vm, &all, 0, false, true) >= 0);
	ms_maplist_free(&all);
}

/* Every column of view on a wide screen (the maps view's RSS off), after x0 of prefix. */
static void all_columns(struct tui_layout *l, enum tui_colview view, int x0)
{
	struct tui_colset set;

	tui_colset_default(&set, view);
	tui_layout_make(l, view, &set, view == TUI_CV_MAPS ? 1u << TUI_MC_RSS : 0, x0, 1000);
}

static void test_visible_rows_get_verdicts(void **state)
{
	struct fx *fx = *state;
	struct tui_mapview vm;
	struct tui_verdicts vc;
	struct ms_error err;
	size_t deleted = 0, replaced = 0, distinct;
	struct tui_layout maps_all;

	all_columns(&maps_all, TUI_CV_MAPS, TUI_MAPROW_PREFIX);
	load_view(fx, &vm, 1000);
	assert_int_equal(tui_verdicts_init(&vc, NULL, fx->maps, &err), 0);
	assert_int_equal(tui_mapview_judge_visible(&vm, tui_verdicts_judge, &vc), 0);
	for (size_t i = 0; i < vm.nrows; i++) {
		const struct tui_maprow *r = &vm.rows[i];
		char text[TUI_LINE_MAX];

		if (!ms_mapping_is_file_backed(r->m)) {
			assert_int_equal(r->verdict, TUI_VERDICT_NONE);
			continue;
		}
		tui_format_maprow_cols(text, sizeof(text), &maps_all, r, 0);
		if (name_is(r->m, fx->gone, true)) {
			assert_int_equal(r->verdict, MS_STALE_DELETED);
			assert_memory_equal(text, " D ", 3);
			deleted++;
		} else if (name_is(r->m, fx->swapped, true)) {
			assert_int_equal(r->verdict, MS_STALE_REPLACED);
			assert_memory_equal(text, " R ", 3);
			replaced++;
		} else {
			if (ms_stale_verdict_is_stale((enum ms_stale_verdict)r->verdict))
				fail_msg("flagged: %s", text);
			assert_memory_equal(text, "   ", 3);
		}
	}
	assert_int_equal(deleted, 1);
	assert_int_equal(replaced, 1);

	/* One verdict per distinct file; a second pass is served from the cache. */
	distinct = vc.judged;
	assert_true(distinct >= 3 && distinct < vm.nrows);
	assert_int_equal(tui_mapview_judge_visible(&vm, tui_verdicts_judge, &vc), 0);
	assert_int_equal(vc.judged, distinct);
	/* Forgetting (every few ticks, or F5) judges them again. */
	for (int i = 0; i < TUI_VERDICT_FORGET_TICKS - 1; i++)
		assert_false(tui_verdicts_tick(&vc));
	assert_true(tui_verdicts_tick(&vc));
	assert_int_equal(tui_mapview_judge_visible(&vm, tui_verdicts_judge, &vc), 0);
	assert_int_equal(vc.judged, 2 * distinct);
	tui_verdicts_free(&vc);
	tui_mapview_free(&vm);
}

static void test_only_visible_rows_are_judged(void **state)
{
	struct fx *fx = *state;
	struct tui_mapview vm;
	struct tui_verdicts vc;
	struct ms_error err;
	size_t first;

	load_view(fx, &vm, 3);
	assert_int_equal(tui_verdicts_init(&vc, NULL, fx->maps, &err), 0);
	/* Scroll so the first shown row is not the first row. */
	tui_mapview_move(&vm, 5);
	first = tui_mapview_first_shown(&vm);
	assert_true(first > 0);
	assert_true(vm.nrows > first + 3);
	assert_int_equal(tui_mapview_judge_visible(&vm, tui_verdicts_judge, &vc), 0);
	for (size_t i = 0; i < vm.nrows; i++) {
		bool shown = i >= first && i < first + 3;

		if (!shown || !ms_mapping_is_file_backed(vm.rows[i].m))
			assert_int_equal(vm.rows[i].verdict, TUI_VERDICT_NONE);
		else
			assert_int_not_equal(vm.rows[i].verdict, TUI_VERDICT_NONE);
	}
	assert_true(vc.judged <= 3);
	tui_verdicts_free(&vc);
	tui_mapview_free(&vm);
}

static void test_detail_shows_verdict_and_why(void **state)
{
	struct fx *fx = *state;
	struct ms_maplist all = { 0 };
	struct tui_detail_line lines[12];
	const struct ms_stale_result *r = NULL;
	struct tui_verdicts vc;
	struct ms_error err;
	size_t n, i, k;

	assert_int_equal(tui_verdicts_init(&vc, NULL, fx->maps, &err), 0);
	assert_int_equal(ms_maps_collect(fx->maps, 0, &all, &err), 0);
	for (i = 0; i < all.count && !name_is(&all.items[i], fx->gone, true); i++)
		;
	assert_true(i < all.count);
	assert_null(tui_verdicts_find(&vc, &all.items[i]));
	assert_int_equal(tui_verdicts_get(&vc, &all.items[i], &r), 0);
	assert_ptr_equal(tui_verdicts_find(&vc, &all.items[i]), r);
	n = tui_format_detail(lines, 12, &all.items[i], r, true, 0);
	for (k = 0; k < n && strcmp(lines[k].label, "stale"); k++)
		;
	assert_true(k < n);
	assert_string_equal(lines[k].value, "deleted: unlinked, and no file is at the path now");
	/* Without a verdict there is no such line. */
	assert_int_equal(tui_format_detail(lines, 12, &all.items[i], NULL, true, 0), n - 1);
	ms_maplist_free(&all);
	tui_verdicts_free(&vc);
}

static const struct ms_procrow *find_row(const struct ms_proclist *l, pid_t pid)
{
	size_t i = ms_proclist_find(l, pid);

	assert_true(i < l->count);
	return &l->rows[i];
}

static void test_proclist_stale_count(void **state)
{
	struct fx *fx = *state;
	struct ms_proclist l = { 0 };
	struct ms_stale_ctx *ctx;
	const struct ms_procrow *row;
	struct ms_error err;
	char text[TUI_LINE_MAX], cell[16];
	struct tui_layout procs_all;
	int stale_x = -1;

	all_columns(&procs_all, TUI_CV_PROCS, 0);
	for (size_t i = 0; i < procs_all.n; i++)
		if (procs_all.id[i] == TUI_PC_STALE)
			stale_x = procs_all.x[i];
	assert_true(stale_x > 0);
	assert_int_equal(ms_stale_ctx_new(NULL, &ctx, &err), 0);
	assert_int_equal(ms_proclist_scan_stale(MS_PROCLIST_PROCFS, MS_PROCLIST_COUNT_MAPS, ctx, &l, &err), 0);
	row = find_row(&l, fx->child.pid);
	assert_true(row->stale_counted);
	assert_int_equal(row->stale, 2);
	tui_format_procrow_cols(text, sizeof(text), &procs_all, row, 0);
	memcpy(cell, text + stale_x, TUI_PROCROW_STALE_W);
	cell[TUI_PROCROW_STALE_W] = '\0';
	assert_string_equal(cell, "     2");
	/* Without a context nothing is counted, and the column says so. */
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, MS_PROCLIST_COUNT_MAPS, &l, &err), 0);
	row = find_row(&l, fx->child.pid);
	assert_false(row->stale_counted);
	tui_format_procrow_cols(text, sizeof(text), &procs_all, row, 0);
	memcpy(cell, text + stale_x, TUI_PROCROW_STALE_W);
	assert_memory_equal(cell, "     -", TUI_PROCROW_STALE_W);
	ms_proclist_free(&l);
	ms_stale_ctx_free(ctx);
}

/* DIR/dpkg.log: a line an hour ago, then the upgrade (PKG:ARCH OLD NEW) now. */
/*
 * dpkg's log with one upgrade at the second the copy was unlinked (within
 * a second is what the log's dating allows: a loaded machine may run the
 * test seconds after its setup).
 */
static void write_dpkg_log(const char *dir, const char *upgrade, time_t now)
{
	char text[512], stamp[2][32], *path = tu_join(dir, "dpkg.log");
	time_t then = now - 3600;
	struct tm tm;

	strftime(stamp[0], sizeof(stamp[0]), "%Y-%m-%d %H:%M:%S", localtime_r(&then, &tm));
	strftime(stamp[1], sizeof(stamp[1]), "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	snprintf(text, sizeof(text), "%s startup archives unpack\n%s upgrade %s\n", stamp[0], stamp[1], upgrade);
	assert_int_equal(tu_spit(path, text), 0);
	free(path);
}

static void test_staleview_lists_the_child(void **state)
{
	struct fx *fx = *state;
	struct ms_proclist all = { 0 }, one = { 0 };
	struct tui_staleview sv;
	struct ms_stale_ctx *ctx;
	struct ms_error err;
	size_t i, seen = 0;
	char text[TUI_LINE_MAX], *pkgdb, *info, *list, *status;
	struct tui_stale_layout layout;
	struct tui_colset cols;
	const char *running;

	assert_int_equal(ms_stale_ctx_new(NULL, &ctx, &err), 0);
	assert_int_equal(ms_proclist_scan(MS_PROCLIST_PROCFS, 0, &all, &err), 0);
	/* Only the child (and ourselves, which must be skipped), not the whole machine. */
	i = ms_proclist_find(&all, fx->child.pid);
	assert_true(i < all.count);
	one.rows = &all.rows[i];
	one.count = 1;
	tui_staleview_init(&sv, 10);
	/* A dpkg database that says a package owns the deleted library, as the stale command reads it. */
	pkgdb = tu_join(fx->dir, "dpkg");
	info = tu_join(pkgdb, "info");
	list = tu_join(info, "libgone1:amd64.list");
	status = tu_join(pkgdb, "status");
	assert_int_equal(mkdir(pkgdb, 0755), 0);
	assert_int_equal(mkdir(info, 0755), 0);
	snprintf(text, sizeof(text), "/.\n%s\n", fx->gone);
	assert_int_equal(tu_spit(list, text), 0);
	assert_int_equal(tu_spit(status, "Package: libgone1\nStatus: install ok installed\n"
					 "Architecture: amd64\nVersion: 2.4-1\n"), 0);
	sv.pkgdb_dir = pkgdb;
	/* dpkg's log: the package was upgraded after the child mapped it. */
	write_dpkg_log(pkgdb, "libgone1:amd64 2.3-1 2.4-1", fx->unlinked);
	sv.dpkglog_dir = pkgdb;
	assert_int_equal(tui_staleview_scan(&sv, ctx, &one, MS_BACKEND_AUTO, fx->child.pid, &err), 0);
	assert_int_equal(sv.count, 0);
	assert_int_equal(tui_staleview_scan(&sv, ctx, &one, MS_BACKEND_AUTO, getpid(), &err), 0);
	assert_int_equal(sv.count, 1);
	assert_int_equal(sv.scanned, 1);
	assert_int_equal(sv.entries[0].pid, fx->child.pid);
	assert_int_equal(sv.entries[0].files.count, 2);
	assert_int_equal(sv.nlines, 3);
	assert_int_equal(sv.lines[0].file, -1);
	/* A wide screen: every column, and VERSION as wide as the widest version. */
	tui_colset_default(&cols, TUI_CV_STALE);
	tui_stale_layout_make(&layout, &cols, &sv, 400, sv.height, 0);
	/* As root the log is trusted (it is root's, as dpkg's is); otherwise it is not. */
	running = geteuid() == 0 ? "2.3-1" : "unknown";
	assert_int_equal(layout.version_w, (int)strlen(running));
	for (i = 1; i < sv.nlines; i++) {
		const struct ms_stale_file *f = &sv.entries[0].files.items[sv.lines[i].file];
		char want[TUI_LINE_MAX];
		size_t at = tui_stale_format_line(text, sizeof(text), &layout, &sv, &sv.lines[i]);

		if (f->result.verdict == MS_STALE_DELETED) {
			/* The version of the copy that runs, then the name; the package and reason are in the pane. */
			snprintf(want, sizeof(want), "deleted  %s %s (deleted)", running, fx->gone);
			assert_string_equal(text + layout.indent, want);
			assert_string_equal(text + at, want + strlen(want) - strlen(fx->gone) - strlen(" (deleted)"));
			assert_null(strstr(text, "libgone1"));
			seen |= 1;
		} else {
			assert_int_equal(f->result.verdict, MS_STALE_REPLACED);
			/* No package owns it: a dash, as the column is never blank. */
			snprintf(want, sizeof(want), "replaced %-*s %s (deleted)", (int)strlen(running), "-", fx->swapped);
			assert_string_equal(text + layout.indent, want);
			seen |= 2;
		}
	}
	assert_int_equal(seen, 3);
	/* Remembered: the next scans do not read the database again, until F5 forgets. */
	tu_rmtree(pkgdb);
	assert_int_equal(tui_staleview_scan(&sv, ctx, &one, MS_BACKEND_AUTO, getpid(), &err), 0);
	assert_non_null(tui_staleview_package(&sv.entries[0], sv.entries[0].files.items[0].result.verdict ==
							     MS_STALE_DELETED ? 0 : 1));
	tui_staleview_forget_packages(&sv);
	assert_int_equal(tui_staleview_scan(&sv, ctx, &one, MS_BACKEND_AUTO, getpid(), &err), 0);
	assert_null(tui_staleview_package(&sv.entries[0], 0));
	assert_null(tui_staleview_package(&sv.entries[0], 1));
	/* The selection stays on the same line across a rescan, and names the process. */
	tui_staleview_select(&sv, 2);
	assert_int_equal(tui_staleview_scan(&sv, ctx, &one, MS_BACKEND_AUTO, getpid(), &err), 0);
	assert_int_equal(sv.sel_row, 2);
	assert_int_equal(tui_staleview_selected_pid(&sv), fx->child.pid);
	tui_staleview_free(&sv);
	ms_proclist_free(&all);
	ms_stale_ctx_free(ctx);
	free(pkgdb);
	free(info);
	free(list);
	free(status);
}

static void test_user_ignore_file(void **state)
{
	char *dir = tu_tmpdir(), *sub, *conf;
	struct ms_ignore *ign = NULL, *def = NULL;
	struct ms_error err;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	sub = tu_join(dir, "mapscope");
	conf = tu_join(sub, "stale-ignore.conf");
	setenv("XDG_CONFIG_HOME", dir, 1);
	/* No file: the built-in defaults. */
	assert_int_equal(ms_ignore_load_user(&ign, &err), 0);
	assert_int_equal(ms_ignore_default(&def, &err), 0);
	assert_int_equal(ms_ignore_count(ign), ms_ignore_count(def));
	ms_ignore_free(ign);
	/* The user's file wins. */
	assert_int_equal(mkdir(sub, 0700), 0);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs("# mine\n/opt/scratch/* my scratch files\n", f);
	fclose(f);
	assert_int_equal(ms_ignore_load_user(&ign, &err), 0);
	assert_int_equal(ms_ignore_count(ign), 1);
	assert_string_equal(ms_ignore_match(ign, "/opt/scratch/x.so", 17), "my scratch files");
	ms_ignore_free(ign);
	/* A broken one is an error naming it, not a silent fallback. */
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs("/opt/no-reason\n", f);
	fclose(f);
	assert_true(ms_ignore_load_user(&ign, &err) < 0);
	assert_non_null(strstr(err.msg, conf));
	unsetenv("XDG_CONFIG_HOME");
	ms_ignore_free(def);
	unlink(conf);
	tu_rmtree(dir);
	free(conf);
	free(sub);
	free(dir);
}

static void test_snapshot_default_name(void **state)
{
	char name[128];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	tui_format_snapshot_name(name, sizeof(name), 4242, (time_t)1700000000);
	assert_string_equal(name, "mapscope-4242-20231114-221320.json");
}

/* One process of the stale view: its command line and its stale files' names. */
static void add_entry(struct tui_staleview *sv, pid_t pid, const char *cmd, const char *const *files)
{
	struct ms_procrow row = { 0 };
	struct ms_stale_file items[4];
	struct ms_stale_list list = { items, 0, 4 };

	memset(items, 0, sizeof(items));
	row.pid = pid;
	row.cmd = (char *)cmd;
	row.cmd_len = strlen(cmd);
	for (; files[list.count]; list.count++) {
		items[list.count].name = (char *)files[list.count];
		items[list.count].name_len = strlen(files[list.count]);
		items[list.count].result.verdict = MS_STALE_DELETED;
	}
	assert_int_equal(tui_staleview_add(sv, &row, NULL, &list), 0);
}

static pid_t line_pid(const struct tui_staleview *sv, size_t i)
{
	return sv->entries[tui_staleview_line(sv, i)->entry].pid;
}

/* \\ and / n N in the stale view: by command line or file name; the selection stays. */
static void test_staleview_filter_and_search(void **state)
{
	static const char *const ssl[] = { "/usr/lib/libssl.so.3", "/usr/lib/libcrypto.so.3", NULL };
	static const char *const z[] = { "/usr/lib/libz.so.1", NULL };
	struct tui_staleview sv;

	(void)state;
	tui_staleview_init(&sv, 3);
	add_entry(&sv, 100, "nginx -g daemon", ssl);
	add_entry(&sv, 200, "python3 app.py", z);
	add_entry(&sv, 300, "sshd: user", ssl);
	assert_int_equal(tui_staleview_rebuild(&sv), 0);
	assert_int_equal(sv.nlines, 8);
	/* The last line selected, at the bottom of a 3-line screen. */
	tui_staleview_select(&sv, 7);
	assert_int_equal(sv.top_row, 5);
	/* A file name: each process with only its matching files. */
	assert_int_equal(tui_staleview_set_filter(&sv, "libcrypto"), 0);
	assert_int_equal(sv.nlines, 4);
	assert_int_equal(line_pid(&sv, 0), 100);
	assert_int_equal(tui_staleview_line(&sv, 1)->file, 1);
	assert_int_equal(line_pid(&sv, 2), 300);
	/* sshd's libcrypto line is still selected, and the screen is full. */
	assert_int_equal(sv.sel_pid, 300);
	assert_int_equal(sv.sel_file, 1);
	assert_int_equal(sv.top_row, 1);
	/* A command line: the process with all its files. */
	assert_int_equal(tui_staleview_set_filter(&sv, "python"), 0);
	assert_int_equal(sv.nlines, 2);
	assert_int_equal(line_pid(&sv, 0), 200);
	assert_int_equal(sv.top_row, 0);
	assert_true(sv.sel_row < sv.nlines);
	assert_int_equal(tui_staleview_set_filter(&sv, "nothing like it"), 0);
	assert_int_equal(sv.nlines, 0);
	assert_int_equal(tui_staleview_set_filter(&sv, ""), 0);
	assert_int_equal(sv.nlines, 8);
	/* Search: the next line whose command or file contains the text, wrapping. */
	tui_staleview_select(&sv, 0);
	snprintf(sv.search, sizeof(sv.search), "libssl");
	assert_true(tui_staleview_search(&sv, 1, false));
	assert_int_equal(sv.sel_row, 1);
	assert_true(tui_staleview_search(&sv, 1, false));
	assert_int_equal(line_pid(&sv, sv.sel_row), 300);
	assert_true(tui_staleview_search(&sv, 1, false));
	assert_int_equal(sv.sel_row, 1);
	assert_true(tui_staleview_search(&sv, -1, false));
	assert_int_equal(line_pid(&sv, sv.sel_row), 300);
	snprintf(sv.search, sizeof(sv.search), "sshd");
	assert_true(tui_staleview_search(&sv, 1, true));
	assert_int_equal(tui_staleview_line(&sv, sv.sel_row)->file, -1);
	assert_int_equal(line_pid(&sv, sv.sel_row), 300);
	snprintf(sv.search, sizeof(sv.search), "absent");
	assert_false(tui_staleview_search(&sv, 1, false));
	tui_staleview_free(&sv);
}

/*
 * A version longer than an 80-column line can give (a Python distribution's
 * METADATA is its user's to write) is the one thing cut: past the name's
 * floor, with "..." (ASCII) and never inside an escape; the file name and
 * " (deleted)" stay whole, and the version's escape bytes are escaped.
 */
static void test_staleline_hostile_version(void **state)
{
	struct tui_staleview sv;
	struct ms_procrow row = { .pid = 4242, .user = "alice" };
	static char name[] = "/home/alice/.venv/lib/_native.so (deleted)", cmd[] = "python3 app.py";
	struct ms_stale_file file = { .name = name, .result = { MS_STALE_DELETED, "unlinked", true } };
	struct ms_stale_list files = { .items = &file, .count = 1 };
	struct tui_stale_layout layout;
	struct tui_colset cols;
	struct ms_pkg *p;
	char text[TUI_LINE_MAX];
	size_t at;

	(void)state;
	file.name_len = strlen(name);
	row.cmd = cmd;
	row.cmd_len = strlen(cmd);
	tui_staleview_init(&sv, 10);
	assert_int_equal(tui_staleview_add(&sv, &row, NULL, &files), 0);
	p = sv.entries[0].pkgs = malloc(sizeof(*p));
	assert_non_null(p);
	*p = (struct ms_pkg){ .found = true, .source = MS_PKG_SOURCE_PYTHON, .name = "native" };
	/* As long as a version may be: "1.0~rc1", an escape sequence, then nines. */
	memset(p->version, '9', sizeof(p->version) - 1);
	memcpy(p->version, "1.0~rc1\x1b[2J", 11);
	assert_int_equal(tui_staleview_rebuild(&sv), 0);
	tui_colset_default(&cols, TUI_CV_STALE);
	tui_stale_layout_make(&layout, &cols, &sv, 80, sv.height, MS_ESC_ASCII);
	assert_int_equal(layout.version_w, 80 - layout.indent - (TUI_STALE_VERDICT_W + 1) - 1 - TUI_STALE_NAME_MIN);
	at = tui_stale_format_line(text, sizeof(text), &layout, &sv, &sv.lines[1]);
	assert_string_equal(text + at, name);
	assert_int_equal((int)at, layout.indent + TUI_STALE_VERDICT_W + 1 + layout.version_w + 1);
	/* The version: its start, escaped, then the cut mark right before the name. */
	assert_memory_equal(text + layout.indent + TUI_STALE_VERDICT_W + 1, "1.0~rc1\\x1b[2J99", 16);
	assert_memory_equal(text + at - 4, "... ", 4);
	assert_null(strchr(text, '\x1b'));
	tui_staleview_free(&sv);
}

/* A process whose one deleted file's copy runs package version `version` (dpkg's). */
static void add_versioned(struct tui_staleview *sv, pid_t pid, const char *name, const char *version)
{
	const char *const files[] = { name, NULL };
	struct tui_stale_entry *e;

	add_entry(sv, pid, "app", files);
	e = &sv->entries[sv->count - 1];
	e->files.items[0].result.path_ours = true;
	e->pkgs = calloc(1, sizeof(*e->pkgs));
	assert_non_null(e->pkgs);
	*e->pkgs = (struct ms_pkg){ .found = true, .source = MS_PKG_SOURCE_DPKG };
	snprintf(e->pkgs->name, sizeof(e->pkgs->name), "libapp1");
	snprintf(e->pkgs->version, sizeof(e->pkgs->version), "%s", version);
	e->pkgs->running_state = MS_PKG_RUNNING_KNOWN;
	snprintf(e->pkgs->running, sizeof(e->pkgs->running), "%s", version);
}

/*
 * VERSION is as wide as the versions on the lines drawn: a long one far
 * below the screen (or below the rows the detail pane leaves) takes no
 * room from the file names on screen, and widens the column once shown.
 */
static void test_stale_version_width_on_screen(void **state)
{
	static const char name[] = "/usr/lib/x86_64-linux-gnu/libappcore.so.1 (deleted)";
	static const char far[] = "4.18.0-553.27.1.el9_5.x86_64+debug-1~bpo12+1";
	struct tui_stale_layout layout;
	struct tui_colset cols;
	struct tui_staleview sv;
	char text[TUI_LINE_MAX];
	size_t at;

	(void)state;
	/* The model's height is the whole list; 4 lines are drawn (a pane below). */
	tui_staleview_init(&sv, 40);
	for (pid_t pid = 100; pid < 110; pid++)
		add_versioned(&sv, pid, name, pid == 108 ? far : "3.0.19-1~deb12u2");
	assert_int_equal(tui_staleview_rebuild(&sv), 0);
	assert_int_equal(sv.nlines, 20);
	tui_colset_default(&cols, TUI_CV_STALE);
	tui_stale_layout_make(&layout, &cols, &sv, 80, 4, MS_ESC_ASCII);
	assert_int_equal(layout.version_w, (int)strlen("3.0.19-1~deb12u2"));
	at = tui_stale_format_line(text, sizeof(text), &layout, &sv, &sv.lines[1]);
	assert_string_equal(text + at, name);
	assert_int_equal((int)strlen(text), layout.indent + TUI_STALE_VERDICT_W + 1 + 16 + 1 + (int)strlen(name));
	assert_true((int)strlen(text) <= 80);
	/* Scrolled to it: the column widens to the whole version, never cut, and the name gives way. */
	tui_staleview_set_height(&sv, 4);
	tui_staleview_select(&sv, 17);
	assert_int_equal(sv.top_row, 14);
	tui_stale_layout_make(&layout, &cols, &sv, 80, 4, MS_ESC_ASCII);
	assert_int_equal(layout.version_w, (int)strlen(far));
	at = tui_stale_format_line(text, sizeof(text), &layout, &sv, &sv.lines[17]);
	assert_non_null(strstr(text, far));
	tui_staleview_free(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_staleview_filter_and_search),
		cmocka_unit_test(test_visible_rows_get_verdicts),
		cmocka_unit_test(test_only_visible_rows_are_judged),
		cmocka_unit_test(test_detail_shows_verdict_and_why),
		cmocka_unit_test(test_proclist_stale_count),
		cmocka_unit_test(test_staleview_lists_the_child),
	};
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_user_ignore_file),
		cmocka_unit_test(test_snapshot_default_name),
		cmocka_unit_test(test_staleline_hostile_version),
		cmocka_unit_test(test_stale_version_width_on_screen),
	};
	int failed = cmocka_run_group_tests(tests, setup, teardown);

	return failed | cmocka_run_group_tests(plain, NULL, NULL);
}
