/*
 * Screen tests: draw the explorer's screens into a fixed-size ncurses screen
 * (output to /dev/null), read them back with mvwinnstr and compare with the
 * expected screens in tests/screens/.  MS_UPDATE_SCREENS=1 rewrites them
 * (the screen and the comparison: screenfix.h).
 * Also checks that the key dispatcher and the action table agree.
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
#include "core/files/fileinfo.h"
#include "tui/files_model.h"
#include "tui/keydec.h"
#include "tui/procs_model.h"
#include "tui/stale_model.h"
#include "tui/tui.h"
#include "screenfix.h"

/* Two ticks of a process: a file mapped in between, an anonymous one gone. */
static void sample_model(struct tui_mapview *vm, size_t height)
{
	struct ms_maplist a = { 0 }, b = { 0 };

	tui_mapview_init(vm, 0, height);
	screenfix_push_map(&a, 0x400000, 0x401000, MS_PERM_READ | MS_PERM_EXEC, "/usr/bin/demo", 8, 1234);
	screenfix_push_map(&a, 0x600000, 0x602000, MS_PERM_READ | MS_PERM_WRITE, NULL, 0, 0);
	screenfix_push_map(&a, 0x7f0000000000, 0x7f0000004000, MS_PERM_READ | MS_PERM_WRITE | MS_PERM_SHARED,
		 "/dev/shm/bus\x1b[2J", 0, 77);
	screenfix_push_map(&b, 0x400000, 0x401000, MS_PERM_READ | MS_PERM_EXEC, "/usr/bin/demo", 8, 1234);
	screenfix_push_map(&b, 0x500000, 0x504000, MS_PERM_READ, "/tmp/new file.dat", 8, 99);
	screenfix_push_map(&b, 0x7f0000000000, 0x7f0000004000, MS_PERM_READ | MS_PERM_WRITE | MS_PERM_SHARED,
		 "/dev/shm/bus\x1b[2J", 0, 77);
	tui_mapview_apply(vm, &a, 0, false, true);
	tui_mapview_apply(vm, &b, 0, false, true);
	ms_maplist_free(&a);
	ms_maplist_free(&b);
}

/* A listing sorted by SIZE, largest first, with every row's RSS (a sort by RSS needs them all). */
static void sorted_model_with(struct tui_mapview *vm, size_t height, enum tui_map_sort sort, bool reverse)
{
	struct ms_maplist a = { 0 };
	static const uint64_t rss[] = { 4096, 8192, 0, 16384, 12288 };

	tui_mapview_init(vm, 0, height);
	screenfix_push_map(&a, 0x400000, 0x401000, MS_PERM_READ | MS_PERM_EXEC, "/usr/bin/demo", 8, 1234);
	screenfix_push_map(&a, 0x500000, 0x504000, MS_PERM_READ, "/tmp/new file.dat", 8, 99);
	screenfix_push_map(&a, 0x600000, 0x602000, MS_PERM_READ | MS_PERM_WRITE, NULL, 0, 0);
	screenfix_push_map(&a, 0x700000, 0x708000, MS_PERM_READ | MS_PERM_WRITE, "[heap]", 0, 0);
	screenfix_push_map(&a, 0x7f0000000000, 0x7f0000004000, MS_PERM_READ | MS_PERM_WRITE | MS_PERM_SHARED,
		 "/dev/shm/bus", 0, 77);
	tui_mapview_set_sort(vm, sort, reverse);
	assert_int_equal(tui_mapview_apply_sorted(vm, &a, rss), 0);
	ms_maplist_free(&a);
}

static void size_sorted_model(struct tui_mapview *vm, size_t height)
{
	sorted_model_with(vm, height, TUI_MSORT_SIZE, true);
}

static void name_sorted_model(struct tui_mapview *vm, size_t height)
{
	sorted_model_with(vm, height, TUI_MSORT_NAME, false);
}

/* Names longer than any NAME column: a deep path, escapes near the cut, a huge file name. */
static void long_model(struct tui_mapview *vm, size_t height)
{
	struct ms_maplist a = { 0 };
	char huge[200];

	snprintf(huge, sizeof(huge), "/srv/%060d/%070d.dat", 0, 0);
	tui_mapview_init(vm, 0, height);
	screenfix_push_map(&a, 0x7f0000000000, 0x7f0000010000, MS_PERM_READ | MS_PERM_EXEC,
		 "/opt/python/versions/3.11.7/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so",
		 8, 501);
	screenfix_push_map(&a, 0x7f0000010000, 0x7f0000011000, MS_PERM_READ,
		 "/usr/lib/x86_64-linux-gnu/gconv/\\x\033]0;t\007/libutf16-converter-plugin.so", 8, 502);
	screenfix_push_map(&a, 0x7f0000020000, 0x7f0000021000, MS_PERM_READ, huge, 8, 503);
	screenfix_push_map(&a, 0x7f0000030000, 0x7f0000031000, MS_PERM_READ | MS_PERM_WRITE,
		 "[anon:a-very-long-anonymous-mapping-name-that-loses-its-middle-not-its-end]", 0, 0);
	tui_mapview_apply(vm, &a, 0, false, true);
	ms_maplist_free(&a);
}

/*
 * A name that needs more lines than the pane's usual share takes them from
 * the rows; its \x1b falls at a wrap, and moves to the next line whole.
 */
static void very_long_model(struct tui_mapview *vm, size_t height)
{
	struct ms_maplist a = { 0 };
	char name[512];
	size_t at = (size_t)snprintf(name, sizeof(name), "/home/user");

	for (int i = 0; i < 14; i++)
		at += (size_t)snprintf(name + at, sizeof(name) - at, "/%c%s", 'a' + i,
				       "-directory-with-a-long-name");
	snprintf(name + at, sizeof(name) - at, "/l\033file.so");
	tui_mapview_init(vm, 0, height);
	screenfix_push_map(&a, 0x7f0000000000, 0x7f0000010000, MS_PERM_READ, "/usr/lib/before.so", 8, 500);
	screenfix_push_map(&a, 0x7f0000010000, 0x7f0000020000, MS_PERM_READ | MS_PERM_EXEC, name, 8, 501);
	for (int i = 0; i < 12; i++)
		screenfix_push_map(&a, 0x7f0000100000 + 0x10000 * (uint64_t)i, 0x7f0000101000 + 0x10000 * (uint64_t)i,
			 MS_PERM_READ, "/usr/lib/after.so", 8, 600 + (uint64_t)i);
	tui_mapview_apply(vm, &a, 0, false, true);
	tui_mapview_move(vm, 1);
	ms_maplist_free(&a);
}

static void draw_model(const char *name, int lines, int cols, bool detail, const char *banner,
		       void (*model)(struct tui_mapview *, size_t), size_t hscroll)
{
	struct tui_app app;
	struct tui_mapview vm;
	struct tui_maps_frame f = {
		.title = "pid 42 demo", .backend = "ioctl", .banner = banner,
		.detail = detail, .ioctl_backend = true,
	};
	char *got;

	screenfix_app_init(&app);
	resize_term(lines, cols);
	model(&vm, (size_t)tui_maps_rows(lines, detail));
	vm.hscroll = hscroll;
	f.vm = &vm;
	tui_maps_draw_frame(&app, stdscr, &f, NULL);
	got = screenfix_dump(stdscr);
	screenfix_compare(name, got);
	free(got);
	tui_mapview_free(&vm);
}

static void draw_maps(const char *name, int lines, int cols, bool detail, const char *banner)
{
	draw_model(name, lines, cols, detail, banner, sample_model, 0);
}

/* Long names keep their file name at 80 and 200 columns; Right shows them raw; the pane wraps. */
static void test_maps_long_names(void **state)
{
	(void)state;
	draw_model("maps-long-80x12.txt", 12, 80, false, NULL, long_model, 0);
	draw_model("maps-long-200x12.txt", 12, 200, false, NULL, long_model, 0);
	draw_model("maps-long-80x12-scrolled.txt", 12, 80, false, NULL, long_model, 16);
	draw_model("maps-long-detail-80x24.txt", 24, 80, true, NULL, long_model, 0);
	draw_model("maps-longer-detail-80x24.txt", 24, 80, true, NULL, very_long_model, 0);
}

/* The sample's verdicts, by name: what a real judge would say of those files. */
static int sample_judge(void *ctx, const struct ms_mapping *m, enum ms_stale_verdict *out)
{
	(void)ctx;
	*out = m->name && strstr(m->name, "demo") ? MS_STALE_DELETED :
	       m->name && strstr(m->name, "new file") ? MS_STALE_REPLACED : MS_STALE_IGNORED;
	return 0;
}

/* D and R flags on the rows, and the selected row's verdict in the detail pane. */
static void test_maps_stale_detail_80x24(void **state)
{
	static const struct ms_stale_result deleted = {
		.verdict = MS_STALE_DELETED, .why = "unlinked, and no file is at the path now",
	};
	struct tui_app app;
	struct tui_mapview vm;
	struct tui_maps_frame f = {
		.title = "pid 42 demo", .backend = "ioctl", .detail = true, .ioctl_backend = true,
		.verdict = &deleted,
	};
	char *got;

	(void)state;
	screenfix_app_init(&app);
	resize_term(24, 80);
	sample_model(&vm, (size_t)tui_maps_rows(24, true));
	assert_int_equal(tui_mapview_judge_visible(&vm, sample_judge, NULL), 0);
	f.vm = &vm;
	tui_maps_draw_frame(&app, stdscr, &f, NULL);
	got = screenfix_dump(stdscr);
	screenfix_compare("maps-stale-detail-80x24.txt", got);
	free(got);
	tui_mapview_free(&vm);
}

/*
 * The stale view at 80x24 after an upgrade: each file line keeps its whole
 * file name (and " (deleted)") and the version that runs, a Debian one
 * with a real '~'; a 150-column folder loses its middle, never with '~'.
 */
static void test_stale_view_80x24(void **state)
{
	struct tui_app app;
	struct tui_staleview sv;
	struct ms_procrow a = { .pid = 1377, .user = "www-data" };
	struct ms_unit unit = { .name = "nginx.service", .user_uid = -1 };
	static char ssl[] = "/usr/lib/x86_64-linux-gnu/libssl.so.3 (deleted)", cmd[] = "nginx: worker process";
	char deep[400], *got;
	struct ms_stale_list files = { 0 };
	struct ms_stale_file f[2] = {
		{ .name = ssl, .result = { MS_STALE_REPLACED, "the path holds another file", true } },
		{ .name = deep, .result = { MS_STALE_DELETED, "unlinked, and no file is at the path now", true } },
	};
	struct ms_pkg *p;

	(void)state;
	screenfix_app_init(&app);
	resize_term(24, 80);
	snprintf(deep, sizeof(deep), "/srv/app/releases/%s/libappsame.so.1 (deleted)",
		 "2026-12-01T10-00-00Z-build-0123456789abcdef0123456789abcdef-with-a-long-folder-name-"
		 "that-no-screen-shows-whole-0123456789abcdef0123456789abcdef");
	assert_true(strlen(deep) > 150);
	for (int i = 0; i < 2; i++)
		f[i].name_len = strlen(f[i].name);
	a.cmd = cmd;
	a.cmd_len = strlen(cmd);
	tui_staleview_init(&sv, (size_t)tui_body_lines(24));
	files.items = f;
	files.count = 2;
	assert_int_equal(tui_staleview_add(&sv, &a, &unit, &files), 0);
	/* libssl's package, dated by dpkg's log; the application's copy is not packaged. */
	sv.entries[0].pkgs = calloc(2, sizeof(*sv.entries[0].pkgs));
	assert_non_null(sv.entries[0].pkgs);
	p = &sv.entries[0].pkgs[0];
	p->found = true;
	p->source = MS_PKG_SOURCE_DPKG;
	snprintf(p->name, sizeof(p->name), "libssl3");
	snprintf(p->version, sizeof(p->version), "3.0.22-1~deb12u2");
	p->running_state = MS_PKG_RUNNING_KNOWN;
	snprintf(p->running, sizeof(p->running), "3.0.19-1~deb12u2");
	snprintf(p->running_why, sizeof(p->running_why),
		 "unlinked at 2026-12-01 10:00:00, by dpkg's upgrade from 3.0.19-1~deb12u2 to 3.0.22-1~deb12u2");
	assert_int_equal(tui_staleview_rebuild(&sv), 0);
	sv.scanned = 212;
	tui_staleview_select(&sv, 1);
	tui_stale_draw_frame(&app, stdscr, &sv);
	got = screenfix_dump(stdscr);
	screenfix_compare("stale-80x24.txt", got);
	assert_non_null(strstr(got, "\n  replaced 3.0.19-1~deb12u2 /usr/lib/x86_64-linux-gnu/libssl.so.3 (deleted)\n"));
	assert_non_null(strstr(got, "\n  deleted  -                /srv/app/releases/.../libappsame.so.1 (deleted)\n"));
	/* The only '~' on screen are the versions' own. */
	for (const char *t = got; (t = strchr(t, '~')); t++)
		assert_memory_equal(t, "~deb12u2", 8);
	free(got);
	/* Tab: the package, the version running and installed, and how the running one is known. */
	sv.detail = true;
	tui_staleview_set_height(&sv, (size_t)(tui_body_lines(24) - (tui_body_lines(24) / 2 + 1)));
	tui_stale_draw_frame(&app, stdscr, &sv);
	got = screenfix_dump(stdscr);
	screenfix_compare("stale-detail-80x24.txt", got);
	free(got);
	tui_staleview_free(&sv);
}

/* The stale view: a process with a deleted and a replaced file, one without a unit. */
static void test_stale_view_100x10(void **state)
{
	struct tui_app app;
	struct tui_staleview sv;
	struct ms_procrow a = { .pid = 812, .user = "root" }, b = { .pid = 4242, .user = "alice" };
	struct ms_unit unit = { .name = "ssh.service", .user_uid = -1 };
	static char crypto[] = "/lib/libcrypto.so.3 (deleted)", libc[] = "/usr/lib/libc.so.6";
	static char app_exe[] = "/opt/app/bin/app\x1b", sshd[] = "sshd: /usr/sbin/sshd -D";
	static char app_cmd[] = "app\x1b[2J --serve";
	struct ms_stale_list files = { 0 };
	struct ms_stale_file f[3] = {
		{ .name = crypto, .result = { MS_STALE_DELETED, "unlinked, and no file is at the path now", true } },
		{ .name = libc, .result = { MS_STALE_OK, "the path holds the mapped file" } },
		{ .name = app_exe, .is_exe = true,
		  .result = { MS_STALE_REPLACED, "the path holds another file with a different build ID" } },
	};
	char *got;

	(void)state;
	screenfix_app_init(&app);
	resize_term(10, 100);
	for (int i = 0; i < 3; i++)
		f[i].name_len = strlen(f[i].name);
	a.cmd = sshd;
	a.cmd_len = strlen(a.cmd);
	b.cmd = app_cmd;
	b.cmd_len = strlen(b.cmd);
	tui_staleview_init(&sv, (size_t)tui_body_lines(10));
	files.items = f;
	files.count = 2;
	assert_int_equal(tui_staleview_add(&sv, &a, &unit, &files), 0);
	files.items = f + 1;
	assert_int_equal(tui_staleview_add(&sv, &b, NULL, &files), 0);
	/* The second lives in a container: its line says which. */
	sv.entries[1].other_root = true;
	sv.entries[1].has_container = true;
	sv.entries[1].container.engine = "docker";
	snprintf(sv.entries[1].container.name, sizeof(sv.entries[1].container.name), "0123456789ab");
	/* libcrypto's package, as the stale command's PACKAGE column says it. */
	sv.entries[0].pkgs = calloc(2, sizeof(*sv.entries[0].pkgs));
	assert_non_null(sv.entries[0].pkgs);
	sv.entries[0].pkgs[0].found = true;
	snprintf(sv.entries[0].pkgs[0].name, sizeof(sv.entries[0].pkgs[0].name), "libssl3");
	sv.entries[0].pkgs[0].source = MS_PKG_SOURCE_DPKG;
	snprintf(sv.entries[0].pkgs[0].version, sizeof(sv.entries[0].pkgs[0].version), "3.0.22-1~deb12u2");
	/* The process still runs the copy of the version before (dpkg's log says). */
	sv.entries[0].pkgs[0].running_state = MS_PKG_RUNNING_KNOWN;
	snprintf(sv.entries[0].pkgs[0].running, sizeof(sv.entries[0].pkgs[0].running), "3.0.19-1~deb12u2");
	/* And how it knows: the detail pane says so. */
	snprintf(sv.entries[0].pkgs[0].running_why, sizeof(sv.entries[0].pkgs[0].running_why),
		 "unlinked at 2026-12-01 10:00:00, by dpkg's upgrade from 3.0.19-1~deb12u2 to 3.0.22-1~deb12u2");
	assert_int_equal(tui_staleview_rebuild(&sv), 0);
	sv.scanned = 57;
	sv.denied = 1;
	sv.unreadable = 3;
	/* The header says what the ignore rules left out, as `stale` does on stderr. */
	sv.ignored = 2;
	tui_staleview_select(&sv, 2);
	tui_stale_draw_frame(&app, stdscr, &sv);
	got = screenfix_dump(stdscr);
	screenfix_compare("stale-100x10.txt", got);
	free(got);
	/* Tab: the replaced file's whole explanation, wrapped at words, on a narrow screen. */
	resize_term(16, 60);
	tui_staleview_set_height(&sv, 4);
	tui_staleview_select(&sv, 4);
	sv.detail = true;
	tui_stale_draw_frame(&app, stdscr, &sv);
	got = screenfix_dump(stdscr);
	screenfix_compare("stale-detail-60x16.txt", got);
	free(got);
	tui_staleview_select(&sv, 1);
	tui_stale_draw_frame(&app, stdscr, &sv);
	got = screenfix_dump(stdscr);
	screenfix_compare("stale-detail-pkg-60x16.txt", got);
	free(got);
	tui_staleview_free(&sv);
}

static void push_proc(struct ms_proclist *l, pid_t pid, const char *user, char state, bool kthread,
		      const char *cmd)
{
	struct ms_procrow *r;

	l->rows = realloc(l->rows, (l->count + 1) * sizeof(*l->rows));
	assert_non_null(l->rows);
	l->capacity = l->count + 1;
	r = &l->rows[l->count++];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	snprintf(r->user, sizeof(r->user), "%s", user);
	r->state = state;
	r->kthread = kthread;
	r->cmd = strdup(cmd);
	r->cmd_len = strlen(cmd);
	assert_non_null(r->cmd);
}

/*
 * The process list at 80 columns, sorted by RSS: counted rows, one not on
 * screen yet when last counted (blank counts), a zombie and a kernel thread.
 */
static void test_procs_80x10(void **state)
{
	struct tui_app app;
	struct tui_procview pv;
	struct ms_procrow *r;
	char *got;

	(void)state;
	screenfix_app_init(&app);
	resize_term(10, 80);
	tui_procview_init(&pv, 0, (size_t)tui_body_lines(10));
	pv.kthreads = true;
	push_proc(&pv.list, 2, "root", 'S', true, "[kthreadd]");
	push_proc(&pv.list, 812, "root", 'S', false, "sshd: /usr/sbin/sshd -D");
	push_proc(&pv.list, 4242, "alice", 'S', false,
		  "/opt/python/versions/3.11.7/bin/python3.11 -m http.server 8080 --bind 127.0.0.1");
	push_proc(&pv.list, 4300, "alice", 'Z', false, "[defunct-child]");
	push_proc(&pv.list, 5000, "bob", 'S', false, "sleep 600");
	r = &pv.list.rows[0];
	r->maps_err = MS_ERR_NOMM;
	r->maps_why = "kernel";
	r = &pv.list.rows[1];
	r->counted = true;
	r->nmaps = 94;
	r->mapped = 15u << 20;
	r->rss = 6u << 20;
	r->stale_counted = true;
	r = &pv.list.rows[2];
	r->counted = true;
	r->nmaps = 60012;
	r->mapped = 3ull << 30;
	r->rss = 210u << 20;
	r->stale_counted = true;
	r->stale = 2;
	r = &pv.list.rows[3];
	r->maps_err = MS_ERR_EXITED;
	r->maps_why = "zombie";
	pv.list.rows[4].rss = 900u << 10;
	pv.sort_col = TUI_PCOL_RSS;
	pv.reverse = true;
	assert_int_equal(tui_procview_rebuild(&pv), 0);
	tui_procs_draw_frame(&app, stdscr, &pv);
	got = screenfix_dump(stdscr);
	screenfix_compare("procs-80x10.txt", got);
	free(got);
	tui_procview_free(&pv);
}

/* Sorted maps views at 80 columns: the header names the sort, ties go by address. */
static void test_maps_sorted_80x12(void **state)
{
	(void)state;
	draw_model("maps-sorted-size-80x12.txt", 12, 80, false, NULL, size_sorted_model, 0);
	draw_model("maps-sorted-name-80x12.txt", 12, 80, false, NULL, name_sorted_model, 0);
}

/*
 * The address-space strip in the last column beside twelve rows of a
 * process with a big anonymous region, a heap, code and a stack, and the
 * header's totals of the whole list: one letter per kind, the rows on
 * screen in capitals (the dump has no attributes: no colour needed).
 */
static void test_maps_strip_80x12(void **state)
{
	struct tui_app app;
	struct tui_mapview vm;
	struct tui_strip strip;
	struct ms_maplist all = { 0 }, window = { 0 };
	struct tui_maps_frame f = { .title = "pid 42 demo", .backend = "ioctl", .ioctl_backend = true,
				    .rss_total_known = true, .rss_total = 5u << 20 };
	char *got;

	(void)state;
	screenfix_app_init(&app);
	resize_term(12, 80);
	screenfix_push_map(&all, 0x400000, 0x401000, MS_PERM_READ, "/usr/bin/demo", 8, 1234);
	screenfix_push_map(&all, 0x401000, 0x40a000, MS_PERM_READ | MS_PERM_EXEC, "/usr/bin/demo", 8, 1234);
	screenfix_push_map(&all, 0x40a000, 0x40c000, MS_PERM_READ | MS_PERM_WRITE, "/usr/bin/demo", 8, 1234);
	screenfix_push_map(&all, 0x500000, 0x580000, MS_PERM_READ | MS_PERM_WRITE, "[heap]", 0, 0);
	screenfix_push_map(&all, 0x7e0000000000, 0x7e0040000000, MS_PERM_READ | MS_PERM_WRITE, NULL, 0, 0);
	for (uint64_t i = 0; i < 14; i++)
		screenfix_push_map(&all, 0x7f0000000000 + i * 0x10000, 0x7f0000004000 + i * 0x10000,
			 i % 2 ? MS_PERM_READ : MS_PERM_READ | MS_PERM_EXEC, "/usr/lib/libx.so", 8, 500 + i);
	screenfix_push_map(&all, 0x7ffc00000000, 0x7ffc00021000, MS_PERM_READ | MS_PERM_WRITE, "[stack]", 0, 0);
	tui_mapview_init(&vm, 0, (size_t)tui_maps_rows(12, false));
	assert_int_equal(tui_mapview_apply_index(&vm, &all), 0);
	for (size_t i = 0; i < all.count; i++)
		screenfix_push_map(&window, all.items[i].start, all.items[i].end, all.items[i].perms,
			 all.items[i].name, all.items[i].dev_major, all.items[i].inode);
	tui_mapview_apply(&vm, &window, 0, false, true);
	tui_strip_init(&strip);
	assert_int_equal(tui_strip_build(&strip, &all, &vm), 0);
	f.vm = &vm;
	f.strip = &strip;
	tui_maps_draw_frame(&app, stdscr, &f, NULL);
	got = screenfix_dump(stdscr);
	screenfix_compare("maps-strip-80x12.txt", got);
	free(got);

	/* At the end: the window is the strip's bottom; the header counts the same totals. */
	assert_int_equal(tui_mapview_end(&vm), TUI_MV_REQUERY);
	ms_maplist_free(&window);
	for (size_t i = 0; i < all.count; i++)
		if (all.items[i].end > vm.top)
			screenfix_push_map(&window, all.items[i].start, all.items[i].end, all.items[i].perms,
				 all.items[i].name, all.items[i].dev_major, all.items[i].inode);
	tui_mapview_apply(&vm, &window, vm.top, false, true);
	tui_maps_draw_frame(&app, stdscr, &f, NULL);
	got = screenfix_dump(stdscr);
	screenfix_compare("maps-strip-end-80x12.txt", got);
	free(got);
	tui_strip_free(&strip);
	tui_mapview_free(&vm);
	ms_maplist_free(&all);
	ms_maplist_free(&window);
}

/* A process with libraries, a deleted one, a long path and the anonymous kinds. */
static void files_model(struct tui_fileview *fv, size_t height)
{
	struct ms_maplist l = { 0 };
	struct ms_error err;
	static const char libz[] = "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13";
	static const char libc[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	static const char ssl[] = "/opt/python/versions/3.11.7/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so";
	static const char gone[] = "/usr/lib/libcrypto.so.3 (deleted)";

	tui_fileview_init(fv, height);
	screenfix_push_map(&l, 0x400000, 0x401000, MS_PERM_READ, "/usr/bin/app", 8, 11);
	screenfix_push_map(&l, 0x401000, 0x405000, MS_PERM_READ | MS_PERM_EXEC, "/usr/bin/app", 8, 11);
	screenfix_push_map(&l, 0x600000, 0x621000, MS_PERM_READ | MS_PERM_WRITE, "[heap]", 0, 0);
	screenfix_push_map(&l, 0x7f0000000000, 0x7f0000010000, MS_PERM_READ | MS_PERM_WRITE, NULL, 0, 0);
	screenfix_push_map(&l, 0x7f0000100000, 0x7f0000128000, MS_PERM_READ, libc, 8, 20);
	screenfix_push_map(&l, 0x7f0000128000, 0x7f00002bd000, MS_PERM_READ | MS_PERM_EXEC, libc, 8, 20);
	screenfix_push_map(&l, 0x7f00002bd000, 0x7f00002c1000, MS_PERM_READ | MS_PERM_WRITE, libc, 8, 20);
	screenfix_push_map(&l, 0x7f0000300000, 0x7f0000312000, MS_PERM_READ | MS_PERM_EXEC, libz, 8, 21);
	screenfix_push_map(&l, 0x7f0000400000, 0x7f0000420000, MS_PERM_READ | MS_PERM_EXEC, gone, 8, 22);
	screenfix_push_map(&l, 0x7f0000500000, 0x7f0000508000, MS_PERM_READ | MS_PERM_EXEC, ssl, 8, 23);
	screenfix_push_map(&l, 0x7f0000600000, 0x7f0000601000, MS_PERM_READ | MS_PERM_WRITE, "[anon:arena]", 0, 0);
	screenfix_push_map(&l, 0x7ffc00000000, 0x7ffc00021000, MS_PERM_READ | MS_PERM_WRITE, "[stack]", 0, 0);
	screenfix_push_map(&l, 0x7ffc00100000, 0x7ffc00102000, MS_PERM_READ | MS_PERM_EXEC, "[vdso]", 0, 0);
	assert_int_equal(tui_fileview_apply(fv, &l, &err), 0);
	for (size_t i = 0; i < fv->fm.count; i++) {
		struct ms_filerow *r = &fv->fm.rows[i];

		r->info.described = true;
		r->info.asked = MS_FILEINFO_SONAME | MS_FILEINFO_LIBVER | MS_FILEINFO_BUILD_ID;
		r->info.soname_rc = MS_END;
		if (r->kind != MS_FILEKIND_FILE)
			continue;
		r->info.verdict_known = true;
		r->info.verdict.verdict = r->inode == 22 ? MS_STALE_DELETED : MS_STALE_OK;
		ms_version_from_name(r->name, r->name_len, r->info.filever);
		r->info.build_id_len = r->inode == 20 ? 20 : 0;
		for (int b = 0; b < 20; b++)
			r->info.build_id[b] = (unsigned char)(0xa0 + b);
		if (r->inode == 20 || r->inode == 21) {
			r->info.soname_rc = 0;
			snprintf(r->info.soname, sizeof(r->info.soname), "%s", r->inode == 20 ? "libc.so.6" : "libz.so.1");
		} else if (r->inode == 22) {
			r->info.soname_rc = MS_ERR_LIMIT;
		}
		/* Packages: libc's and zlib's installed, libcrypto's old copy of unknown version, the rest none. */
		r->info.pkg_known = true;
		if (r->inode >= 20 && r->inode <= 22) {
			struct ms_pkg *p = &r->info.pkg;

			p->found = true;
			p->source = MS_PKG_SOURCE_DPKG;
			snprintf(p->name, sizeof(p->name), "%s",
				 r->inode == 20 ? "libc6" : r->inode == 21 ? "zlib1g" : "libssl3");
			snprintf(p->version, sizeof(p->version), "%s",
				 r->inode == 20 ? "2.36-9+deb12u14" : r->inode == 21 ? "1:1.2.13.dfsg-1" : "3.0.22-1");
			if (r->inode == 22)
				p->running_state = MS_PKG_RUNNING_UNKNOWN;
		}
	}
	ms_maplist_free(&l);
}

static void draw_files(const char *name, int lines, int cols, void (*change)(struct tui_fileview *))
{
	struct tui_app app;
	struct tui_fileview fv;
	char *got;

	screenfix_app_init(&app);
	resize_term(lines, cols);
	files_model(&fv, (size_t)tui_body_lines(lines));
	if (change)
		change(&fv);
	tui_files_draw_frame(&app, stdscr, &fv, "pid 4242 app");
	got = screenfix_dump(stdscr);
	screenfix_compare(name, got);
	free(got);
	tui_fileview_free(&fv);
}

/* By name, the fourth row selected, with the RSS column. */
static void files_by_name_rss(struct tui_fileview *fv)
{
	tui_fileview_set_rss(fv, true);
	for (size_t i = 0; i < fv->fm.count; i++) {
		fv->fm.rows[i].info.rss_known = true;
		fv->fm.rows[i].info.rss = fv->fm.rows[i].size / 2;
	}
	while (fv->sort != MS_FILESORT_NAME)
		tui_fileview_sort_step(fv, 1);
	tui_fileview_select(fv, 3);
}

static void test_files_80x16(void **state)
{
	(void)state;
	draw_files("files-80x16.txt", 16, 80, NULL);
}

static void test_files_200x16(void **state)
{
	(void)state;
	draw_files("files-200x16.txt", 16, 200, NULL);
}

static void test_files_by_name_80x16(void **state)
{
	(void)state;
	draw_files("files-name-rss-80x16.txt", 16, 80, files_by_name_rss);
}

static void test_maps_80x12(void **state)
{
	(void)state;
	draw_maps("maps-80x12.txt", 12, 80, false, NULL);
}

static void test_maps_detail_80x24(void **state)
{
	(void)state;
	draw_maps("maps-detail-80x24.txt", 24, 80, true, NULL);
}

static void test_maps_20x5_banner(void **state)
{
	(void)state;
	draw_maps("maps-20x5.txt", 5, 20, false, "pid 42 exited: showing the last data");
}

static void test_too_small(void **state)
{
	(void)state;
	draw_maps("too-small-19x5.txt", 5, 19, false, NULL);
}

static void test_help_80x40(void **state)
{
	struct tui_app app;
	struct tui_view *h;
	char *got;

	(void)state;
	screenfix_app_init(&app);
	resize_term(40, 80);
	h = tui_help_new(&app, TUI_SCOPE_MAPS);
	assert_non_null(h);
	h->ops->draw(&app, h, stdscr);
	got = screenfix_dump(stdscr);
	screenfix_compare("help-maps-80x40.txt", got);
	free(got);
	h->ops->destroy(h);
}

/* Every key named in the table dispatches to its action, in its scope. */
static void test_dispatch_matches_table(void **state)
{
	size_t n;
	const struct tui_action_info *a = tui_actions(&n);

	(void)state;
	assert_int_equal(n, TUI_ACT_COUNT - 1);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, 'x'), TUI_ACT_FILTER_EXEC);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, KEY_DOWN), TUI_ACT_DOWN);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, 'j'), TUI_ACT_DOWN);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, '\r'), TUI_ACT_DETAIL);
	assert_int_equal(tui_key_action(TUI_SCOPE_PROCS, '\r'), TUI_ACT_OPEN);
	assert_int_equal(tui_key_action(TUI_SCOPE_PROCS, 'x'), TUI_ACT_NONE);
	assert_int_equal(tui_key_action(TUI_SCOPE_PROCS, KEY_F(5)), TUI_ACT_REFRESH);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, 'L' & 0x1f), TUI_ACT_REFRESH);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, '\\'), TUI_ACT_FILTER_NAME);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, 'S'), TUI_ACT_SNAPSHOT);
	assert_int_equal(tui_key_action(TUI_SCOPE_PROCS, 'S'), TUI_ACT_NONE);
	assert_int_equal(tui_key_action(TUI_SCOPE_PROCS, 'D'), TUI_ACT_STALE_VIEW);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, 'D'), TUI_ACT_STALE_VIEW);
	assert_int_equal(tui_key_action(TUI_SCOPE_STALE, '\r'), TUI_ACT_STALE_OPEN);
	assert_int_equal(tui_key_action(TUI_SCOPE_STALE, 'q'), TUI_ACT_QUIT);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, 'F'), TUI_ACT_FILES_VIEW);
	assert_int_equal(tui_key_action(TUI_SCOPE_PROCS, 'F'), TUI_ACT_NONE);
	assert_int_equal(tui_key_action(TUI_SCOPE_FILES, '\r'), TUI_ACT_FILES_JUMP);
	assert_int_equal(tui_key_action(TUI_SCOPE_FILES, '>'), TUI_ACT_FILES_SORT_NEXT);
	assert_int_equal(tui_key_action(TUI_SCOPE_FILES, '<'), TUI_ACT_FILES_SORT_PREV);
	assert_int_equal(tui_key_action(TUI_SCOPE_FILES, 'I'), TUI_ACT_FILES_SORT_REVERSE);
	assert_int_equal(tui_key_action(TUI_SCOPE_FILES, TUI_KEY_ESC), TUI_ACT_BACK);
	/* What the escape decoder reads, and VT220's Find and Select. */
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, TUI_KEY_END), TUI_ACT_END);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, TUI_KEY_HOME), TUI_ACT_HOME);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, KEY_SELECT), TUI_ACT_END);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, KEY_FIND), TUI_ACT_HOME);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, TUI_KEY_PGDN), TUI_ACT_PAGE_DOWN);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, TUI_KEY_F(1)), TUI_ACT_HELP);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, TUI_KEY_ESC), TUI_ACT_BACK);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, TUI_KEY_ALT + 'x'), TUI_ACT_NONE);
	assert_int_equal(tui_key_action(TUI_SCOPE_MAPS, TUI_KEY_WITH(TUI_KEY_UP, TUI_MOD_CTRL)),
			 TUI_ACT_NONE);
	for (size_t i = 0; i < n; i++) {
		const char *k = a[i].keys;

		/* Single-character keys resolve back to their own action. */
		if (strlen(k) == 1 || k[1] == ' ')
			assert_int_equal(tui_key_action(a[i].scope == TUI_SCOPE_ALL ? TUI_SCOPE_MAPS : a[i].scope,
							(unsigned char)k[0]) == a[i].id ||
					 (a[i].scope == TUI_SCOPE_ALL &&
					  tui_key_action(TUI_SCOPE_PROCS, (unsigned char)k[0]) == a[i].id), 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_80x12),
		cmocka_unit_test(test_maps_detail_80x24),
		cmocka_unit_test(test_maps_stale_detail_80x24),
		cmocka_unit_test(test_stale_view_100x10),
		cmocka_unit_test(test_stale_view_80x24),
		cmocka_unit_test(test_maps_20x5_banner),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_help_80x40),
		cmocka_unit_test(test_dispatch_matches_table),
		cmocka_unit_test(test_maps_long_names),
		cmocka_unit_test(test_procs_80x10),
		cmocka_unit_test(test_maps_sorted_80x12),
		cmocka_unit_test(test_maps_strip_80x12),
		cmocka_unit_test(test_files_80x16),
		cmocka_unit_test(test_files_200x16),
		cmocka_unit_test(test_files_by_name_80x16),
	};

	return cmocka_run_group_tests(tests, screenfix_term_setup, screenfix_term_teardown);
}
