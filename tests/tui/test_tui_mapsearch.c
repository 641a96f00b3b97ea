/*
 * The maps view's search (maps_search.h) against a real process: ms-fixture
 * maps needle-a.dat and needle-b.dat, then twenty pad-N.dat files above
 * them, so that the needles lie beyond the window of a small screen at
 * either end.  The model is fed the view's way (maps_feed.h) through the
 * real engine; where each needle lies comes from the fixture's own report
 * of what it mapped, not from the engine.
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

#include "core/maps/maps.h"
#include "core/proc/proc.h"
#include "fixture_client.h"
#include "tui/maps_feed.h"
#include "tui/maps_search.h"

#define PADS 20

struct world {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	uint64_t a, b;         /* needle-a.dat's and needle-b.dat's starts, a < b */
	struct tui_mapview vm; /* a fresh one per test, 3 rows high */
};

static uint64_t extra_start(const struct fixture *fx, const char *name)
{
	for (size_t i = 0; i < fx->count; i++) {
		const struct fx_map *m = &fx->maps[i];

		if (!strcmp(m->kind, "extra") && m->name && strstr(m->name, name))
			return m->start;
	}
	fail_msg("the fixture did not map %s", name);
	return 0;
}

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct ms_error err;

	if (!w || fixture_start(&w->fx) < 0) {
		free(w);
		return -1;
	}
	*state = w;
	if (fixture_command(&w->fx, "mapfile needle-a.dat") < 0 ||
	    fixture_command(&w->fx, "mapfile needle-b.dat") < 0)
		return -1;
	for (int i = 0; i < PADS; i++)
		if (fixture_commandf(&w->fx, "mapfile pad-%d.dat", i) < 0)
			return -1;
	w->a = extra_start(&w->fx, "/needle-a.dat");
	w->b = extra_start(&w->fx, "/needle-b.dat");
	if (w->a >= w->b)
		return -1;
	if (ms_proc_open(w->fx.pid, &w->proc, &err) < 0 ||
	    ms_maps_open(w->proc, NULL, &w->maps, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;

	ms_maps_close(w->maps);
	ms_proc_close(w->proc);
	fixture_stop(&w->fx);
	free(w);
	return 0;
}

static int view_setup(void **state)
{
	struct world *w = *state;
	struct ms_error err;

	tui_mapview_init(&w->vm, 0, 3);
	return tui_mapfeed_refresh(&w->vm, w->maps, false, NULL, &err) < 0 ? -1 : 0;
}

static int view_teardown(void **state)
{
	tui_mapview_free(&((struct world *)*state)->vm);
	return 0;
}

static void refresh(struct world *w)
{
	struct ms_error err;

	assert_true(tui_mapfeed_refresh(&w->vm, w->maps, false, NULL, &err) >= 0);
}

/* Is a mapping starting at start among the rows the model holds (its window)? */
static bool held(const struct tui_mapview *vm, uint64_t start)
{
	for (size_t i = 0; i < vm->nrows; i++)
		if (vm->rows[i].m->start == start)
			return true;
	return false;
}

static int step(struct world *w, const char *text, int dir, bool from_current)
{
	struct ms_error err;
	int rc = tui_mapsearch_step(&w->vm, w->maps, text, dir, from_current, &err);

	assert_true(rc >= 0);
	if (rc == TUI_MSEARCH_MOVED)
		refresh(w);
	return rc;
}

/* The selection is on the mapping starting at start, and its row says so. */
static void assert_selected(const struct world *w, uint64_t start, const char *name)
{
	const struct tui_maprow *r = tui_mapview_selected(&w->vm);

	assert_non_null(r);
	assert_int_equal(w->vm.sel, start);
	assert_int_equal(r->m->start, start);
	assert_non_null(r->m->name);
	assert_non_null(strstr(r->m->name, name));
}

static void go_end(struct world *w)
{
	struct ms_error err;
	int rc = tui_mapview_end(&w->vm);

	assert_true(tui_mapfeed_moved(&w->vm, w->maps, rc, NULL, 0, NULL, &err) >= 0);
	refresh(w);
}

/* From the last mapping, / wraps to the top and finds a needle the window does not hold. */
static void test_forward_finds_beyond_the_window(void **state)
{
	struct world *w = *state;
	uint64_t top;

	go_end(w);
	assert_false(held(&w->vm, w->a));
	assert_false(held(&w->vm, w->b));
	assert_int_equal(step(w, "needle", 1, true), TUI_MSEARCH_MOVED);
	assert_selected(w, w->a, "/needle-a.dat");
	/* The next one is on screen now: selected where it stands. */
	top = w->vm.top;
	assert_int_equal(step(w, "needle", 1, false), TUI_MSEARCH_SHOWN);
	assert_selected(w, w->b, "/needle-b.dat");
	assert_int_equal(w->vm.top, top);
	/* n past the last match wraps to the first. */
	step(w, "needle", 1, false);
	assert_selected(w, w->a, "/needle-a.dat");
	/* Typing on: the selection itself matches first. */
	step(w, "needle-", 1, true);
	assert_selected(w, w->a, "/needle-a.dat");
	step(w, "needle-b", 1, true);
	assert_selected(w, w->b, "/needle-b.dat");
}

/* N from the first mapping wraps to the last match, beyond the window. */
static void test_backward_wraps(void **state)
{
	struct world *w = *state;

	assert_false(held(&w->vm, w->b));
	assert_int_equal(step(w, "needle", -1, false), TUI_MSEARCH_MOVED);
	assert_selected(w, w->b, "/needle-b.dat");
	step(w, "needle", -1, false);
	assert_selected(w, w->a, "/needle-a.dat");
	step(w, "needle", -1, false);
	assert_selected(w, w->b, "/needle-b.dat");
}

/* Only what the view shows is searched: its name filter and kernel filter. */
static void test_filters_bound_the_search(void **state)
{
	struct world *w = *state;
	struct ms_error err;
	uint64_t sel, found = 0;

	tui_mapview_set_name_filter(&w->vm, "needle-b");
	refresh(w);
	step(w, "needle", 1, true);
	assert_selected(w, w->b, "/needle-b.dat");
	/* The only match, whichever way: needle-a is filtered out. */
	assert_int_equal(tui_mapsearch_find(&w->vm, w->maps, "needle", 1, false, &found, &err), 1);
	assert_int_equal(found, w->b);
	assert_int_equal(tui_mapsearch_find(&w->vm, w->maps, "needle", -1, false, &found, &err), 1);
	assert_int_equal(found, w->b);

	tui_mapview_set_name_filter(&w->vm, "");
	tui_mapview_set_filter(&w->vm, MS_FILTER_EXECUTABLE);
	refresh(w);
	sel = w->vm.sel;
	assert_int_equal(step(w, "needle", 1, true), TUI_MSEARCH_NONE);
	assert_int_equal(w->vm.sel, sel);
}

/* Case counts, as in listfind; no match leaves the selection. */
static void test_no_match(void **state)
{
	struct world *w = *state;
	uint64_t sel = w->vm.sel;

	assert_int_equal(step(w, "NEEDLE", 1, true), TUI_MSEARCH_NONE);
	assert_int_equal(step(w, "needle-c", -1, false), TUI_MSEARCH_NONE);
	assert_int_equal(step(w, "", 1, true), TUI_MSEARCH_NONE);
	assert_int_equal(w->vm.sel, sel);
}

/* Sorted by name, the search follows the rows' order. */
static void test_sorted_follows_rows(void **state)
{
	struct world *w = *state;

	tui_mapview_set_sort(&w->vm, TUI_MSORT_NAME, true);
	refresh(w);
	step(w, "needle", 1, true);
	assert_selected(w, w->b, "/needle-b.dat");
	step(w, "needle", 1, false);
	assert_selected(w, w->a, "/needle-a.dat");
	step(w, "needle", 1, false);
	assert_selected(w, w->b, "/needle-b.dat");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forward_finds_beyond_the_window, view_setup,
						view_teardown),
		cmocka_unit_test_setup_teardown(test_backward_wraps, view_setup, view_teardown),
		cmocka_unit_test_setup_teardown(test_filters_bound_the_search, view_setup,
						view_teardown),
		cmocka_unit_test_setup_teardown(test_no_match, view_setup, view_teardown),
		cmocka_unit_test_setup_teardown(test_sorted_follows_rows, view_setup, view_teardown),
	};

	return cmocka_run_group_tests(tests, world_setup, world_teardown);
}
