/*
 * The libraries view's model (tui/libs_model.h) without a terminal, on
 * tables built from real processes: two tests/stale-child processes map
 * one copy of a test library, a third maps another copy, then deleted.
 * Checks the sorts (and I), search (/ n), the filter (\\: only matching
 * rows, kept over the next table, the selection kept), the selected file kept across a
 * table swap (and the row at its place when the file is gone), the
 * process sub-list keeping its process across a swap, and the row text:
 * the D flag, PROCS and VERDICT as `mapscope libs` says them, and a
 * hostile file name escaped.
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
#include <unistd.h>

#include <cmocka.h>

#include "core/maps/fleet.h"
#include "core/stale/stale.h"
#include "fixture_client.h"
#include "testutil.h"
#include "tui/format.h"
#include "tui/libs_model.h"

struct fx {
	char *dir;
	char *lib;   /* mapped by a and b */
	char *gone;  /* mapped by c, then deleted */
	char *gone_name; /* as the kernel names it now */
	struct fixture a, b, c;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *lib_a = tu_built("libstale-a.so");

	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	fx->lib = tu_join(fx->dir, "libms-one.so");
	fx->gone = tu_join(fx->dir, "libms-two.so");
	assert_true(asprintf(&fx->gone_name, "%s (deleted)", fx->gone) > 0);
	assert_int_equal(tu_copy(lib_a, fx->lib), 0);
	assert_int_equal(tu_copy(lib_a, fx->gone), 0);
	assert_int_equal(fixture_start_with(&fx->a, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_start_with(&fx->b, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_start_with(&fx->c, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->a, "dlopen %s", fx->lib), 0);
	assert_int_equal(fixture_commandf(&fx->b, "dlopen %s", fx->lib), 0);
	assert_int_equal(fixture_commandf(&fx->c, "dlopen %s", fx->gone), 0);
	assert_int_equal(unlink(fx->gone), 0);
	free(lib_a);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	fixture_stop(&fx->a);
	fixture_stop(&fx->b);
	fixture_stop(&fx->c);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->lib);
	free(fx->gone);
	free(fx->gone_name);
	free(fx);
	return 0;
}

/* A table of the n processes, added in that order (malloc'd, for tui_libview_apply). */
static struct ms_libtable *table_of(const struct fixture *const *procs, size_t n)
{
	const struct ms_libtable_opts opts = { .what = MS_LIBTABLE_PROCS };
	struct ms_libtable *t = calloc(1, sizeof(*t));
	struct ms_stale_ctx *ctx;
	struct ms_error err;

	assert_non_null(t);
	assert_int_equal(ms_libtable_init(t, &opts, &err), 0);
	assert_int_equal(ms_stale_ctx_new(NULL, &ctx, &err), 0);
	for (size_t i = 0; i < n; i++) {
		struct ms_proc *proc;
		struct ms_maps *maps;

		assert_int_equal(ms_fleet_open_one(procs[i]->pid, MS_BACKEND_AUTO, &proc, &maps, NULL, &err), 0);
		assert_int_equal(ms_libtable_add(t, ctx, proc, maps, &err), 0);
		ms_maps_close(maps);
		ms_proc_close(proc);
	}
	ms_stale_ctx_free(ctx);
	return t;
}

static size_t row_named(const struct tui_libview *lv, const char *name)
{
	for (size_t i = 0; i < lv->count; i++) {
		const struct ms_libtable_row *r = tui_libview_row(lv, i);

		if (r->name_len == strlen(name) && !memcmp(r->name, name, r->name_len))
			return i;
	}
	fail_msg("no row %s", name);
	return 0;
}

static bool selected_is(const struct tui_libview *lv, const char *name)
{
	const struct ms_libtable_row *r = tui_libview_selected(lv);

	return r && r->name_len == strlen(name) && !memcmp(r->name, name, r->name_len);
}

static void all_three(struct fx *fx, struct tui_libview *lv)
{
	const struct fixture *procs[] = { &fx->a, &fx->b, &fx->c };

	tui_libview_init(lv, 5);
	assert_int_equal(tui_libview_apply(lv, table_of(procs, 3)), 0);
}

static void test_sorts(void **state)
{
	struct fx *fx = *state;
	struct tui_libview lv;

	all_three(fx, &lv);
	assert_int_equal(lv.sort, TUI_LIBSORT_PROCS);
	for (size_t i = 1; i < lv.count; i++)
		assert_true(tui_libview_row(&lv, i - 1)->nuses >= tui_libview_row(&lv, i)->nuses);
	assert_true(row_named(&lv, fx->lib) < row_named(&lv, fx->gone_name));
	tui_libview_sort_reverse(&lv);
	for (size_t i = 1; i < lv.count; i++)
		assert_true(tui_libview_row(&lv, i - 1)->nuses <= tui_libview_row(&lv, i)->nuses);
	assert_true(row_named(&lv, fx->lib) > row_named(&lv, fx->gone_name));
	tui_libview_sort_reverse(&lv);
	/* > twice: VERDICT, the deleted copy first. */
	tui_libview_sort_step(&lv, 1);
	tui_libview_sort_step(&lv, 1);
	assert_int_equal(lv.sort, TUI_LIBSORT_VERDICT);
	assert_int_equal(tui_libview_row(&lv, 0)->verdict, MS_STALE_DELETED);
	assert_int_equal(row_named(&lv, fx->gone_name), 0);
	/* < from PROCS wraps round to NAME: bytes in order. */
	tui_libview_set_sort(&lv, TUI_LIBSORT_PROCS, false);
	tui_libview_sort_step(&lv, -1);
	assert_int_equal(lv.sort, TUI_LIBSORT_NAME);
	for (size_t i = 1; i < lv.count; i++) {
		const struct ms_libtable_row *x = tui_libview_row(&lv, i - 1), *y = tui_libview_row(&lv, i);
		size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
		int c = memcmp(x->name, y->name, n);

		assert_true(c < 0 || (c == 0 && x->name_len <= y->name_len));
	}
	tui_libview_free(&lv);
}

static void test_search(void **state)
{
	struct fx *fx = *state;
	struct tui_libview lv;
	size_t one, two;

	all_three(fx, &lv);
	tui_libview_select(&lv, 0);
	snprintf(lv.search, sizeof(lv.search), "libms-two");
	assert_true(tui_libview_search(&lv, 1, true));
	assert_true(selected_is(&lv, fx->gone_name));
	/* n over "libms-": the other copy, then back (it wraps). */
	snprintf(lv.search, sizeof(lv.search), "libms-");
	one = row_named(&lv, fx->lib);
	two = row_named(&lv, fx->gone_name);
	assert_true(tui_libview_search(&lv, 1, false));
	assert_int_equal(lv.sel, one);
	assert_true(tui_libview_search(&lv, 1, false));
	assert_int_equal(lv.sel, two);
	snprintf(lv.search, sizeof(lv.search), "no such library here");
	assert_false(tui_libview_search(&lv, 1, false));
	assert_int_equal(lv.sel, two);
	tui_libview_free(&lv);
}

static void test_filter(void **state)
{
	struct fx *fx = *state;
	const struct fixture *procs[] = { &fx->a, &fx->b, &fx->c };
	struct tui_libview lv;
	size_t all;

	all_three(fx, &lv);
	all = lv.count;
	assert_true(all > 2);
	tui_libview_select(&lv, row_named(&lv, fx->gone_name));
	tui_libview_set_filter(&lv, "libms-");
	assert_int_equal(lv.count, 2);
	row_named(&lv, fx->lib);
	assert_true(selected_is(&lv, fx->gone_name));
	/* The next walk's table is filtered alike. */
	assert_int_equal(tui_libview_apply(&lv, table_of(procs, 3)), 0);
	assert_int_equal(lv.count, 2);
	assert_true(selected_is(&lv, fx->gone_name));
	tui_libview_set_filter(&lv, "two");
	assert_int_equal(lv.count, 1);
	assert_true(selected_is(&lv, fx->gone_name));
	tui_libview_set_filter(&lv, "no such library here");
	assert_int_equal(lv.count, 0);
	assert_null(tui_libview_selected(&lv));
	tui_libview_set_filter(&lv, "");
	assert_int_equal(lv.count, all);
	tui_libview_free(&lv);
}

static void test_selection_across_swap(void **state)
{
	struct fx *fx = *state;
	const struct fixture *reversed[] = { &fx->c, &fx->b, &fx->a };
	const struct fixture *a_b[] = { &fx->a, &fx->b };
	const struct fixture *only_c[] = { &fx->c };
	struct tui_libview lv;
	size_t at;

	all_three(fx, &lv);
	tui_libview_set_sort(&lv, TUI_LIBSORT_NAME, false);
	tui_libview_select(&lv, row_named(&lv, fx->lib));
	/* Another walk, another order of rows in the table: the same file. */
	assert_int_equal(tui_libview_apply(&lv, table_of(reversed, 3)), 0);
	assert_true(selected_is(&lv, fx->lib));
	/* By VERDICT the deleted copy is first: gone, every row moves up one, and the file is still selected. */
	tui_libview_set_sort(&lv, TUI_LIBSORT_VERDICT, false);
	at = lv.sel;
	assert_true(at > 0);
	assert_int_equal(tui_libview_apply(&lv, table_of(a_b, 2)), 0);
	assert_true(selected_is(&lv, fx->lib));
	assert_int_equal(lv.sel, at - 1);
	tui_libview_set_sort(&lv, TUI_LIBSORT_NAME, false);
	/* The file no process maps any more: the row now at its place. */
	at = lv.sel;
	assert_int_equal(tui_libview_apply(&lv, table_of(only_c, 1)), 0);
	assert_true(lv.count > 0);
	assert_int_equal(lv.sel, at < lv.count ? at : lv.count - 1);
	assert_false(selected_is(&lv, fx->lib));
	assert_true(lv.top <= lv.sel && lv.sel < lv.top + lv.height);
	tui_libview_free(&lv);
}

static void test_processes(void **state)
{
	struct fx *fx = *state;
	const struct ms_libtable_row *r;
	struct tui_libview lv;
	struct tui_libprocs lp;
	struct fixture d;
	pid_t first, second;

	all_three(fx, &lv);
	tui_libview_select(&lv, row_named(&lv, fx->lib));
	tui_libprocs_init(&lp, tui_libview_selected(&lv), 5);
	assert_int_equal(tui_libprocs_sync(&lp, &lv, &r), 0);
	assert_non_null(r);
	assert_int_equal(lp.count, 2);
	first = ms_libtable_proc_of(lv.table, tui_libprocs_use(&lp, r, 0))->pid;
	second = ms_libtable_proc_of(lv.table, tui_libprocs_use(&lp, r, 1))->pid;
	assert_true(first < second);
	assert_true((first == fx->a.pid && second == fx->b.pid) || (first == fx->b.pid && second == fx->a.pid));
	tui_libprocs_move(&lp, lv.table, r, 1);
	assert_int_equal(lp.sel_pid, second);
	/* A walk where the first has gone and another holder came: the same process, now first. */
	assert_int_equal(fixture_start_with(&d, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&d, "dlopen %s", fx->lib), 0);
	{
		const struct fixture *later[] = { &d, second == fx->a.pid ? &fx->a : &fx->b, &fx->c };

		assert_int_equal(tui_libview_apply(&lv, table_of(later, 3)), 0);
	}
	fixture_stop(&d);
	assert_int_equal(tui_libprocs_sync(&lp, &lv, &r), 0);
	assert_non_null(r);
	assert_int_equal(lp.count, 2);
	assert_int_equal(ms_libtable_proc_of(lv.table, tui_libprocs_use(&lp, r, lp.sel))->pid, second);
	tui_libprocs_free(&lp);
	tui_libview_free(&lv);
}

/* The row text: flag, PROCS and VERDICT, NAME last. */
static void test_rows(void **state)
{
	struct fx *fx = *state;
	struct tui_libview lv;
	struct tui_colset set;
	struct tui_layout l;
	char text[TUI_LINE_MAX], want[512];
	size_t at;

	all_three(fx, &lv);
	tui_colset_default(&set, TUI_CV_LIBS);
	tui_layout_make(&l, TUI_CV_LIBS, &set, 0, TUI_LIBROW_PREFIX, 400);
	at = tui_format_librow_cols(text, sizeof(text), &l, lv.table,
				    tui_libview_row(&lv, row_named(&lv, fx->gone_name)), 0);
	assert_int_equal(text[0], 'D');
	assert_string_equal(text + at, fx->gone_name);
	assert_non_null(strstr(text, " deleted "));
	assert_int_equal(atoi(text + 2), 1);
	at = tui_format_librow_cols(text, sizeof(text), &l, lv.table, tui_libview_row(&lv, row_named(&lv, fx->lib)), 0);
	assert_int_equal(text[0], ' ');
	assert_string_equal(text + at, fx->lib);
	assert_int_equal(atoi(text + 2), 2);
	snprintf(want, sizeof(want), " %s ", ms_stale_verdict_name(MS_STALE_OK));
	assert_non_null(strstr(text, want));
	tui_format_libheading_cols(text, sizeof(text), &l, &lv);
	assert_non_null(strstr(text, "PROCSv"));
	tui_libview_free(&lv);
}

/* A library whose name holds an escape sequence and a bidi override: escaped in the row, none left raw. */
static void test_hostile_name(void **state)
{
	struct fx *fx = *state;
	char *lib_a = tu_built("libstale-a.so"), *evil;
	struct tui_libview lv;
	struct tui_colset set;
	struct tui_layout l;
	struct fixture d;
	char text[TUI_LINE_MAX];
	const struct ms_libtable_row *r = NULL;

	evil = tu_join(fx->dir, "lib\033[2J\xe2\x80\xae" "evil.so");
	assert_int_equal(tu_copy(lib_a, evil), 0);
	assert_int_equal(fixture_start_with(&d, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&d, "dlopen %s", evil), 0);
	{
		const struct fixture *only_d[] = { &d };

		tui_libview_init(&lv, 5);
		assert_int_equal(tui_libview_apply(&lv, table_of(only_d, 1)), 0);
	}
	fixture_stop(&d);
	for (size_t i = 0; i < lv.count && !r; i++)
		if (memmem(tui_libview_row(&lv, i)->name, tui_libview_row(&lv, i)->name_len, "evil.so", 7))
			r = tui_libview_row(&lv, i);
	assert_non_null(r);
	tui_colset_default(&set, TUI_CV_LIBS);
	tui_layout_make(&l, TUI_CV_LIBS, &set, 0, TUI_LIBROW_PREFIX, 400);
	tui_format_librow_cols(text, sizeof(text), &l, lv.table, r, 0);
	for (const char *p = text; *p; p++)
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
	assert_null(strstr(text, "\xe2\x80\xae"));
	assert_non_null(strstr(text, "lib\\x1b[2J\\xe2\\x80\\xaeevil.so"));
	tui_libview_free(&lv);
	unlink(evil);
	free(evil);
	free(lib_a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorts),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_selection_across_swap),
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_hostile_name),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
