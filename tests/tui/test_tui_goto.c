/*
 * The maps view's g against a real process (ms-fixture): what one press
 * does without curses, as view_maps.c does it: select the mapping at the
 * address (maps_feed.h, tui_mapfeed_goto), refresh the window, and name the
 * code there (symbol_at.h).  A press on an unchanged process must not walk
 * every mapping again, neither for the symbol's index nor for the view's;
 * a library mapped or unmapped since, or a mapping replaced by another of
 * the same size, must still be named right.  The symbols and addresses
 * come from the fixture's own report (dlsym), not from the engine.
 */
#include "config.h"

#include <inttypes.h>
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
#include "testutil.h"
#include "tui/maps_feed.h"
#include "tui/symbol_at.h"

#define PRESSES 100
#define HEIGHT 10

struct world {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct tui_mapview vm;
	struct tui_symbol_at *at; /* NULL when built without libdw */
	struct tui_symbol_text text;
};

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct ms_error err;

	if (!w || fixture_start(&w->fx) < 0) {
		free(w);
		return -1;
	}
	*state = w;
	if (ms_proc_open(w->fx.pid, &w->proc, &err) < 0 ||
	    ms_maps_open(w->proc, NULL, &w->maps, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	tui_mapview_init(&w->vm, 0, HEIGHT);
	if (tui_mapfeed_refresh(&w->vm, w->maps, false, NULL, &err) < 0)
		return -1;
	w->at = tui_symbol_at_new(w->proc, w->maps, false, NULL, NULL, NULL);
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;

	tui_symbol_at_free(w->at);
	tui_mapview_free(&w->vm);
	ms_maps_close(w->maps);
	ms_proc_close(w->proc);
	fixture_stop(&w->fx);
	free(w);
	return 0;
}

/* g ADDR as the view does it: select, refresh, describe.  describe's result (0 without libdw). */
static int press_g(struct world *w, uint64_t addr)
{
	struct ms_error err;
	int rc = tui_mapfeed_goto(&w->vm, w->maps, addr, &err);

	assert_true(rc == 0 || rc == MS_END);
	assert_true(tui_mapfeed_refresh(&w->vm, w->maps, false, NULL, &err) >= 0);
	if (!w->at)
		return 0;
	return tui_symbol_at_describe(w->at, addr, 0, &w->text, &err);
}

static unsigned long collections(const struct world *w)
{
	return w->at ? tui_symbol_at_collections(w->at) : 0;
}

/* The selected mapping covers addr and its name ends with suffix. */
static void assert_selected(const struct world *w, uint64_t addr, const char *suffix)
{
	const struct tui_maprow *r = tui_mapview_selected(&w->vm);
	size_t n = strlen(suffix);

	assert_non_null(r);
	assert_true(r->m->start <= addr && addr < r->m->end);
	assert_true(r->m->name_len >= n);
	assert_memory_equal(r->m->name + r->m->name_len - n, suffix, n);
}

/* /proc/PID/statm's size, text and data pages, as text. */
static void statm_of(const struct world *w, char *out, size_t size)
{
	char path[64], *buf;
	unsigned long long f[7];

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)w->fx.pid);
	buf = tu_slurp(path, NULL);
	assert_non_null(buf);
	assert_int_equal(sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
				&f[4], &f[5], &f[6]), 7);
	snprintf(out, size, "%llu %llu %llu", f[0], f[3], f[5]);
	free(buf);
}

/*
 * 100 presses on a process that does not change, over its known mappings,
 * its last one (the screen is pulled up from there) and its known symbol:
 * one whole collection for the symbols and at most one index walk.
 */
static void test_unchanged_collects_once(void **state)
{
	struct world *w = *state;
	struct ms_maplist all = { 0 };
	struct ms_error err;
	uint64_t addrs[64];
	size_t n = 0;

	assert_int_equal(ms_maps_collect(w->maps, 0, &all, &err), 0);
	assert_true(all.count > HEIGHT);
	addrs[n++] = all.items[all.count - 1].start;
	ms_maplist_free(&all);
	addrs[n++] = w->fx.sym_addr + 0x10;
	for (size_t i = 0; i < w->fx.count && n < sizeof(addrs) / sizeof(addrs[0]); i++)
		addrs[n++] = w->fx.maps[i].start;
	for (int i = 0; i < PRESSES; i++) {
		uint64_t addr = addrs[(size_t)i % n];

		assert_int_equal(press_g(w, addr), 0);
		assert_false(tui_mapview_short(&w->vm));
		if (w->at && addr == w->fx.sym_addr + 0x10)
			assert_string_equal(w->text.symbol, "ms_fixture_sym_target+0x10");
	}
	assert_true(w->vm.index_walks <= 1);
	if (w->at)
		assert_int_equal(collections(w), 1);
}

/* A library loaded since the last press is named; once unloaded, nothing is. */
static void test_library_mapped_and_unmapped(void **state)
{
	struct world *w = *state;
	char *lib = tu_built("libstale-a.so");
	uint64_t addr;

	if (!w->at)
		skip();
	assert_int_equal(press_g(w, w->fx.sym_addr + 0x10), 0);
	assert_string_equal(w->text.symbol, "ms_fixture_sym_target+0x10");
	assert_int_equal(collections(w), 1);

	assert_int_equal(fixture_commandf(&w->fx, "dlopen %s stale_lib_answer", lib), 0);
	free(lib);
	assert_string_equal(w->fx.sym_name, "stale_lib_answer");
	addr = w->fx.sym_addr;
	assert_int_equal(press_g(w, addr), 0);
	assert_string_equal(w->text.symbol, "stale_lib_answer+0x0");
	assert_selected(w, addr, "/libstale-a.so");
	assert_int_equal(collections(w), 2);

	assert_int_equal(fixture_command(&w->fx, "dlclose"), 0);
	assert_int_equal(press_g(w, addr), MS_END);
	assert_int_equal(collections(w), 3);

	/* Unchanged again: the index is used as it is. */
	assert_int_equal(press_g(w, addr), MS_END);
	assert_int_equal(press_g(w, w->fx.maps[0].start), 0);
	assert_int_equal(collections(w), 3);
}

/*
 * An anonymous mapping replaced by a file mapping of the same size and
 * permissions: statm does not move, so only the query at the address
 * tells the index is stale there.
 */
static void test_same_size_replacement(void **state)
{
	struct world *w = *state;
	const struct fx_map *area;
	char before[96], after[96];
	uint64_t addr;

	if (!w->at)
		skip();
	assert_int_equal(fixture_command(&w->fx, "churn 8"), 0);
	assert_non_null(area = fixture_find(&w->fx, "churn"));
	addr = area->start;
	assert_int_equal(fixture_commandf(&w->fx, "anon %" PRIx64 " 4 r", addr), 0);
	assert_int_equal(press_g(w, addr), 0);
	assert_string_equal(w->text.why, "not a file mapping");
	assert_int_equal(collections(w), 1);

	statm_of(w, before, sizeof(before));
	assert_int_equal(fixture_commandf(&w->fx, "file %" PRIx64 " 4 r 0", addr), 0);
	statm_of(w, after, sizeof(after));
	assert_string_equal(before, after);
	assert_int_equal(press_g(w, addr), 0);
	assert_string_not_equal(w->text.why, "not a file mapping");
	assert_selected(w, addr, "/churn.dat");
	assert_int_equal(collections(w), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unchanged_collects_once, world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(test_library_mapped_and_unmapped, world_setup,
						world_teardown),
		cmocka_unit_test_setup_teardown(test_same_size_replacement, world_setup, world_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
