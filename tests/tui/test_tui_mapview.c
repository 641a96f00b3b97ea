/* The maps view's model with no terminal: selection, windowing, diff marks, filters. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tui/maps_model.h"

#define PAGE 0x1000u

/* A listing of mappings starting at the given page numbers, one page each. */
static void make_list(struct ms_maplist *list, const unsigned *pages, size_t n)
{
	memset(list, 0, sizeof(*list));
	for (size_t i = 0; i < n; i++) {
		struct ms_mapping m = { 0 };
		char name[32];

		m.start = (uint64_t)pages[i] * PAGE;
		m.end = m.start + PAGE;
		m.perms = 0x1;
		snprintf(name, sizeof(name), "/lib/m%u.so", pages[i]);
		assert_int_equal(ms_mapping_set_name(&m, name, strlen(name)), 0);
		assert_int_equal(ms_maplist_push(list, &m), 0);
	}
}

static int apply(struct tui_mapview *vm, const unsigned *pages, size_t n, uint64_t addr,
		 bool more, bool tick)
{
	struct ms_maplist list;

	make_list(&list, pages, n);
	return tui_mapview_apply(vm, &list, addr, more, tick);
}

static void test_selection_follows_address(void **state)
{
	static const unsigned before[] = { 10, 20, 30, 40 };
	static const unsigned inserted[] = { 5, 10, 15, 20, 30, 40 };
	static const unsigned vanished[] = { 5, 10, 15, 30, 40 };
	struct tui_mapview vm;

	(void)state;
	tui_mapview_init(&vm, 0, 10);
	assert_int_equal(apply(&vm, before, 4, 0, false, true), 1);
	assert_int_equal(tui_mapview_move(&vm, 1), TUI_MV_OK);
	assert_int_equal(vm.sel, 20 * PAGE);
	/* Rows inserted above: the selection stays on the mapping at 20. */
	apply(&vm, inserted, 6, 0, false, true);
	assert_int_equal(tui_mapview_selected(&vm)->m->start, 20 * PAGE);
	assert_int_equal(vm.sel_row, 3);
	/* It vanishes: shown as removed, still selected, then the next one. */
	apply(&vm, vanished, 5, 0, false, true);
	assert_int_equal(tui_mapview_selected(&vm)->mark, TUI_MARK_REMOVED);
	for (int i = 0; i < TUI_MARK_TICKS; i++)
		apply(&vm, vanished, 5, 0, false, true);
	assert_int_equal(tui_mapview_selected(&vm)->m->start, 30 * PAGE);
	assert_int_equal(tui_mapview_selected(&vm)->mark, TUI_MARK_NONE);
	tui_mapview_free(&vm);
}

static void test_added_marked_for_a_few_ticks(void **state)
{
	static const unsigned a[] = { 10, 20 };
	static const unsigned b[] = { 10, 15, 20 };
	struct tui_mapview vm;
	int ticks = 0;

	(void)state;
	tui_mapview_init(&vm, 0, 10);
	apply(&vm, a, 2, 0, false, true);
	assert_int_equal(vm.rows[0].mark, TUI_MARK_NONE);
	assert_int_equal(apply(&vm, b, 3, 0, false, true), 1);
	assert_int_equal(vm.nrows, 3);
	assert_int_equal(vm.rows[1].m->start, 15 * PAGE);
	assert_int_equal(vm.rows[1].mark, TUI_MARK_ADDED);
	assert_int_equal(vm.rows[0].mark, TUI_MARK_NONE);
	while (vm.rows[1].mark == TUI_MARK_ADDED && ticks < 10) {
		apply(&vm, b, 3, 0, false, true);
		ticks++;
	}
	assert_int_equal(ticks, TUI_MARK_TICKS);
	/* Nothing changed and no mark left: the screen need not be redrawn. */
	assert_int_equal(apply(&vm, b, 3, 0, false, true), 0);
	tui_mapview_free(&vm);
}

static void test_removed_ghost_row(void **state)
{
	static const unsigned a[] = { 10, 20, 30 };
	static const unsigned b[] = { 10, 30 };
	struct tui_mapview vm;

	(void)state;
	tui_mapview_init(&vm, 0, 10);
	apply(&vm, a, 3, 0, false, true);
	apply(&vm, b, 2, 0, false, true);
	assert_int_equal(vm.nrows, 3);
	assert_int_equal(vm.rows[1].m->start, 20 * PAGE);
	assert_int_equal(vm.rows[1].mark, TUI_MARK_REMOVED);
	assert_string_equal(vm.rows[1].m->name, "/lib/m20.so");
	/* A new mapping over the old range replaces the ghost. */
	apply(&vm, a, 3, 0, false, true);
	assert_int_equal(vm.nrows, 3);
	assert_int_equal(vm.rows[1].mark, TUI_MARK_ADDED);
	tui_mapview_free(&vm);
}

static void test_diff_only_where_both_windows_looked(void **state)
{
	static const unsigned first[] = { 10, 20, 30 };
	static const unsigned longer[] = { 10, 20, 30, 40, 50 };
	struct tui_mapview vm;

	(void)state;
	tui_mapview_init(&vm, 0, 10);
	/* The first window stopped at its maximum: past 30 it knows nothing. */
	apply(&vm, first, 3, 0, true, true);
	apply(&vm, longer, 5, 0, false, true);
	for (size_t i = 0; i < vm.nrows; i++)
		assert_int_equal(vm.rows[i].mark, TUI_MARK_NONE);
	tui_mapview_free(&vm);
}

static void test_filter_change_forgets_marks(void **state)
{
	static const unsigned a[] = { 10, 20 };
	static const unsigned b[] = { 20 };
	struct tui_mapview vm;

	(void)state;
	tui_mapview_init(&vm, 0, 10);
	apply(&vm, a, 2, 0, false, true);
	tui_mapview_set_filter(&vm, MS_FILTER_EXECUTABLE);
	assert_int_equal(vm.filter, MS_FILTER_EXECUTABLE);
	apply(&vm, b, 1, 0, false, true);
	assert_int_equal(vm.nrows, 1);
	assert_int_equal(vm.rows[0].mark, TUI_MARK_NONE);
	tui_mapview_free(&vm);
}

static void test_window_follows_the_screen(void **state)
{
	unsigned pages[40], all_pages[60];
	struct ms_maplist all;
	struct tui_mapview vm;

	(void)state;
	for (unsigned i = 0; i < 60; i++)
		all_pages[i] = 100 + 2 * i;
	memcpy(pages, all_pages + 20, sizeof(pages));
	tui_mapview_init(&vm, 0, 5);
	/* What a tick asks for depends on the screen, not the process. */
	assert_int_equal(tui_mapview_window_size(&vm), 2 * 5 + TUI_WINDOW_MARGIN);
	vm.top = all_pages[20] * PAGE;
	apply(&vm, pages, 18, vm.top, true, true);
	assert_int_equal(vm.sel, all_pages[20] * PAGE);
	/* Down within the screen: no query. */
	assert_int_equal(tui_mapview_move(&vm, 4), TUI_MV_OK);
	/* Past the last screen line: the window moves to the new first row. */
	assert_int_equal(tui_mapview_move(&vm, 1), TUI_MV_REQUERY);
	assert_int_equal(vm.top, all_pages[21] * PAGE);
	apply(&vm, pages + 1, 18, vm.top, true, true);
	assert_int_equal(vm.sel, all_pages[25] * PAGE);
	assert_int_equal(vm.sel_row, 4);
	/* Above the window needs the index; with it, the window moves up. */
	assert_int_equal(tui_mapview_move(&vm, -4), TUI_MV_OK);
	assert_int_equal(tui_mapview_move(&vm, -1), TUI_MV_NEED_INDEX);
	make_list(&all, all_pages, 60);
	assert_int_equal(tui_mapview_apply_index(&vm, &all), 0);
	assert_int_equal(vm.nstarts, 60);
	assert_int_equal(vm.total_size, 60 * PAGE);
	assert_int_equal(tui_mapview_move(&vm, -1), TUI_MV_REQUERY);
	assert_int_equal(vm.top, all_pages[20] * PAGE);
	assert_int_equal(vm.sel, all_pages[20] * PAGE);
	assert_int_equal(tui_mapview_position(&vm), 21);
	/* End: the last screenful, the last mapping selected. */
	assert_int_equal(tui_mapview_end(&vm), TUI_MV_REQUERY);
	assert_int_equal(vm.top, all_pages[55] * PAGE);
	assert_int_equal(vm.sel, all_pages[59] * PAGE);
	assert_int_equal(tui_mapview_home(&vm), TUI_MV_REQUERY);
	assert_int_equal(vm.top, 0);
	ms_maplist_free(&all);
	tui_mapview_free(&vm);
}

/*
 * Sorted by RSS: every mapping is a row, in that order, with its RSS; moving
 * needs no query; the selection keeps its mapping across listings; back in
 * address order the window starts at the selection again.
 */
static void test_sorted_rows(void **state)
{
	static const unsigned pages[] = { 10, 20, 30, 40, 50, 60, 70 };
	static const uint64_t rss[] = { 3, 9, 1, 7, 5, 9, 2 };
	struct ms_maplist all;
	struct tui_mapview vm;

	(void)state;
	tui_mapview_init(&vm, 0, 3);
	assert_false(tui_mapview_sorted(&vm));
	tui_mapview_set_sort(&vm, TUI_MSORT_RSS, true);
	assert_true(tui_mapview_sorted(&vm));
	assert_false(vm.have_window);
	make_list(&all, pages, 7);
	assert_int_equal(tui_mapview_apply_sorted(&vm, &all, rss), 0);
	assert_int_equal(vm.nrows, 7);
	assert_int_equal(vm.nstarts, 7);
	/* Descending RSS; the tie (9) by address, descending too. */
	assert_int_equal(vm.rows[0].m->start, 60 * PAGE);
	assert_int_equal(vm.rows[1].m->start, 20 * PAGE);
	assert_int_equal(vm.rows[2].m->start, 40 * PAGE);
	assert_int_equal(vm.rows[6].m->start, 30 * PAGE);
	assert_true(vm.rows[0].rss_known && vm.rows[0].rss == 9);
	/* Past the screen and to the end: all rows are here, no query. */
	assert_int_equal(tui_mapview_move(&vm, 4), TUI_MV_OK);
	assert_int_equal(vm.sel, 10 * PAGE);
	assert_int_equal(tui_mapview_position(&vm), 5);
	assert_int_equal(tui_mapview_end(&vm), TUI_MV_OK);
	assert_int_equal(vm.sel, 30 * PAGE);
	/* A new listing (the periodic recount) keeps the selected mapping. */
	tui_mapview_move(&vm, -2);
	assert_int_equal(vm.sel, 10 * PAGE);
	make_list(&all, pages, 7);
	assert_int_equal(tui_mapview_apply_sorted(&vm, &all, rss), 0);
	assert_int_equal(tui_mapview_selected(&vm)->m->start, 10 * PAGE);
	/* By NAME, ascending: /lib/m10.so ... /lib/m70.so. */
	tui_mapview_set_sort(&vm, TUI_MSORT_NAME, false);
	make_list(&all, pages, 7);
	assert_int_equal(tui_mapview_apply_sorted(&vm, &all, NULL), 0);
	assert_int_equal(vm.rows[0].m->start, 10 * PAGE);
	assert_int_equal(vm.rows[6].m->start, 70 * PAGE);
	assert_false(vm.rows[0].rss_known);
	/* Address order again: windowed, from the selection. */
	tui_mapview_set_sort(&vm, TUI_MSORT_ADDRESS, false);
	assert_false(tui_mapview_sorted(&vm));
	assert_int_equal(vm.top, 10 * PAGE);
	assert_int_equal(apply(&vm, pages, 7, vm.top, true, true), 1);
	assert_int_equal(tui_mapview_move(&vm, 3), TUI_MV_REQUERY);
	tui_mapview_free(&vm);
}

static void test_name_filter(void **state)
{
	static const unsigned a[] = { 10, 20, 30, 120 };
	struct ms_maplist all;
	struct tui_mapview vm;

	(void)state;
	tui_mapview_init(&vm, 0, 10);
	apply(&vm, a, 4, 0, false, true);
	tui_mapview_set_name_filter(&vm, "m1");
	assert_int_equal(vm.nrows, 2);
	assert_string_equal(vm.rows[0].m->name, "/lib/m10.so");
	assert_string_equal(vm.rows[1].m->name, "/lib/m120.so");
	make_list(&all, a, 4);
	tui_mapview_apply_index(&vm, &all);
	assert_int_equal(vm.nstarts, 2);
	tui_mapview_set_name_filter(&vm, "");
	assert_int_equal(vm.nrows, 4);
	ms_maplist_free(&all);
	tui_mapview_free(&vm);
}

static void test_click_selects(void **state)
{
	static const unsigned a[] = { 10, 20, 30 };
	struct tui_mapview vm;

	(void)state;
	tui_mapview_init(&vm, 0, 10);
	apply(&vm, a, 3, 0, false, true);
	assert_true(tui_mapview_click(&vm, 2));
	assert_int_equal(vm.sel, 30 * PAGE);
	assert_false(tui_mapview_click(&vm, 3));
	assert_int_equal(vm.sel, 30 * PAGE);
	tui_mapview_free(&vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selection_follows_address),
		cmocka_unit_test(test_added_marked_for_a_few_ticks),
		cmocka_unit_test(test_removed_ghost_row),
		cmocka_unit_test(test_diff_only_where_both_windows_looked),
		cmocka_unit_test(test_filter_change_forgets_marks),
		cmocka_unit_test(test_window_follows_the_screen),
		cmocka_unit_test(test_name_filter),
		cmocka_unit_test(test_sorted_rows),
		cmocka_unit_test(test_click_selects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
