/*
 * The files view's refresh (files_feed.h) against a real process, fed the
 * view's way: ms-fixture is quiet, or maps, unmaps and mprotects while the
 * test ticks the feed, and the feed's walk counters say when the whole
 * process was read again and why.
 *   - quiet: between the periodic walks, ticks read nothing whole;
 *   - a file mapped or unmapped shows at the next tick, the selection
 *     staying on its file;
 *   - an mprotect that leaves statm as it was (read-only to executable and
 *     back) inside a row on screen shows at the next tick, found by the
 *     on-screen check; the same change in a row off screen walks nothing
 *     until the row comes on screen;
 *   - the mapping after a row's last is checked with it;
 *   - a big row is checked a share per tick, the small rows beside it whole;
 *   - under a name filter, the same.
 * What the rows should say comes from the fixture's commands, not from the
 * engine.
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
#include <unistd.h>

#include <cmocka.h>

#include "core/maps/maps.h"
#include "core/proc/proc.h"
#include "fixture_client.h"
#include "tui/files_feed.h"
#include "tui/maps_model.h"

#define CHURN_PAGES 640

struct world {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct tui_fileview fv;
	struct tui_filefeed ff;
	uint64_t churn; /* an unmapped area the fixture maps churn.dat into */
	uint64_t page;
};

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	const struct fx_map *area;
	struct ms_error err;

	if (!w || fixture_start(&w->fx) < 0) {
		free(w);
		return -1;
	}
	*state = w;
	w->page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (fixture_commandf(&w->fx, "churn %d", CHURN_PAGES) < 0 ||
	    !(area = fixture_find(&w->fx, "churn")))
		return -1;
	w->churn = area->start;
	if (ms_proc_open(w->fx.pid, &w->proc, &err) < 0 ||
	    ms_maps_open(w->proc, NULL, &w->maps, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	/* Every row on screen unless a test makes it smaller. */
	tui_fileview_init(&w->fv, 200);
	tui_filefeed_init(&w->ff, 0);
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;

	if (!w)
		return 0;
	tui_fileview_free(&w->fv);
	ms_maps_close(w->maps);
	ms_proc_close(w->proc);
	fixture_stop(&w->fx);
	free(w);
	return 0;
}

/* One refresh; the result (1 walked, 0 not). */
static int tick(struct world *w, bool timer)
{
	struct ms_error err;
	int rc = tui_filefeed_refresh(&w->ff, &w->fv, w->maps, timer, &err);

	if (rc < 0)
		fail_msg("refresh: %s", err.msg);
	return rc;
}

static size_t walks(const struct world *w)
{
	size_t n = 0;

	for (int i = 0; i < TUI_FW_COUNT; i++)
		n += w->ff.walks[i];
	return n;
}

/* The row whose name ends in suffix, or NULL. */
static const struct ms_filerow *row_named(const struct world *w, const char *suffix)
{
	size_t n = strlen(suffix);

	for (size_t i = 0; i < w->fv.fm.count; i++) {
		const struct ms_filerow *r = &w->fv.fm.rows[i];

		if (r->name && r->name_len >= n && !memcmp(r->name + r->name_len - n, suffix, n))
			return r;
	}
	return NULL;
}

static size_t row_index(const struct world *w, const char *suffix)
{
	const struct ms_filerow *r = row_named(w, suffix);

	assert_non_null(r);
	return (size_t)(r - w->fv.fm.rows);
}

static const struct ms_filerow *row_of_kind(const struct world *w, enum ms_filekind kind)
{
	for (size_t i = 0; i < w->fv.fm.count; i++)
		if (w->fv.fm.rows[i].kind == kind)
			return &w->fv.fm.rows[i];
	return NULL;
}

/* The next tick walks, for the change the on-screen check saw (the n-th such walk). */
static void assert_walks_for_change(struct world *w, size_t n)
{
	assert_int_equal(tick(w, true), 1);
	assert_int_equal(w->ff.walks[TUI_FW_CHANGED], n);
}

/* The anonymous row has an executable mapping now. */
static void assert_anon_executable(const struct world *w)
{
	const struct ms_filerow *anon = row_of_kind(w, MS_FILEKIND_ANON);

	assert_true(anon && (anon->perms & MS_PERM_EXEC));
}

/* Quiet: the first walk, then only the periodic ones; the check still queries. */
static void test_quiet_ticks_walk_only_periodically(void **state)
{
	struct world *w = *state;
	unsigned period, ticks;

	assert_int_equal(tick(w, false), 1);
	assert_int_equal(w->ff.walks[TUI_FW_ASKED], 1);
	assert_true(w->fv.fm.count > 3);
	period = tui_filefeed_period(&w->fv);
	assert_int_equal(period, TUI_INDEX_TICKS + w->fv.list.count / 1000);
	ticks = 3 * period + period / 2;
	for (unsigned t = 1; t <= ticks; t++) {
		int walked = tick(w, true);

		/* A walk exactly when the period is up, and at no other tick. */
		assert_int_equal(walked, t % period == 0);
		/* Key presses between ticks read nothing either. */
		assert_int_equal(tick(w, false), 0);
	}
	assert_int_equal(w->ff.walks[TUI_FW_PERIODIC], ticks / period);
	assert_int_equal(w->ff.walks[TUI_FW_STATM], 0);
	assert_int_equal(w->ff.walks[TUI_FW_CHANGED], 0);
	assert_int_equal(walks(w), 1 + ticks / period);
	/* The ticks between did look: every mapping on screen, each tick. */
	assert_true(w->ff.checked >= (size_t)(ticks - ticks / period) * w->fv.list.count);
}

/* A file mapped shows at the next tick, and goes at the next after it is unmapped. */
static void test_file_mapped_and_unmapped_shows(void **state)
{
	struct world *w = *state;
	const struct fx_map *extra;
	const struct ms_filerow *r;
	size_t before;

	assert_int_equal(tick(w, false), 1);
	assert_null(row_named(w, "/fresh.dat"));
	/* Keep the selection on shared.dat across the walks. */
	tui_fileview_select(&w->fv, row_index(w, "/shared.dat"));
	before = walks(w);
	assert_int_equal(fixture_command(&w->fx, "mapfile fresh.dat"), 0);
	extra = fixture_find(&w->fx, "extra");
	assert_non_null(extra);
	assert_int_equal(tick(w, true), 1);
	r = row_named(w, "/fresh.dat");
	assert_non_null(r);
	assert_int_equal(r->mappings, 1);
	assert_int_equal(r->size, extra->end - extra->start);
	assert_int_equal(r->first_addr, extra->start);
	assert_int_equal(walks(w), before + 1);
	/* statm's size moved: that said so before any row was checked. */
	assert_int_equal(w->ff.walks[TUI_FW_STATM], 1);
	r = tui_fileview_selected(&w->fv);
	assert_non_null(r);
	assert_true(r->name_len > 11 && !memcmp(r->name + r->name_len - 11, "/shared.dat", 11));

	assert_int_equal(fixture_commandf(&w->fx, "unmapat %" PRIx64 " %" PRIu64, extra->start,
					  (extra->end - extra->start) / w->page), 0);
	assert_int_equal(tick(w, true), 1);
	assert_null(row_named(w, "/fresh.dat"));
	assert_int_equal(walks(w), before + 2);
	assert_int_equal(w->ff.walks[TUI_FW_STATM], 2);
	r = tui_fileview_selected(&w->fv);
	assert_non_null(r);
	assert_true(r->name_len > 11 && !memcmp(r->name + r->name_len - 11, "/shared.dat", 11));
	/* Then quiet again: no walk. */
	assert_int_equal(tick(w, true), 0);
}

/*
 * Read-only to read-execute and back: statm's size, text and data stay as
 * they were, so only the on-screen check can see it.
 */
static void test_change_in_row_on_screen_shows_next_tick(void **state)
{
	struct world *w = *state;
	const struct ms_filerow *r;
	struct ms_statm before, after;
	struct ms_error err;

	assert_int_equal(fixture_commandf(&w->fx, "file %" PRIx64 " 2 r 0", w->churn), 0);
	assert_int_equal(tick(w, false), 1);
	r = row_named(w, "/churn.dat");
	assert_non_null(r);
	assert_int_equal(r->perms, MS_PERM_READ);
	assert_int_equal(ms_proc_statm(w->proc, &before, &err), 0);
	assert_int_equal(fixture_commandf(&w->fx, "protect %" PRIx64 " 2 rx", w->churn), 0);
	assert_int_equal(ms_proc_statm(w->proc, &after, &err), 0);
	assert_true(before.size == after.size && before.text == after.text && before.data == after.data);

	assert_walks_for_change(w, 1);
	assert_int_equal(w->ff.walks[TUI_FW_STATM], 0);
	r = row_named(w, "/churn.dat");
	assert_non_null(r);
	assert_int_equal(r->perms, MS_PERM_READ | MS_PERM_EXEC);
	assert_int_equal(r->mappings, 1);

	/* Half of it back to read-only: two mappings now, in the row at the next tick. */
	assert_int_equal(fixture_commandf(&w->fx, "protect %" PRIx64 " 1 r", w->churn), 0);
	assert_walks_for_change(w, 2);
	r = row_named(w, "/churn.dat");
	assert_int_equal(r->mappings, 2);
	assert_int_equal(r->size, 2 * w->page);
	assert_int_equal(tick(w, true), 0);
}

/* The same change in a row off screen waits for the row to come on screen (or the period). */
static void test_change_off_screen_waits_for_the_screen(void **state)
{
	struct world *w = *state;
	const struct ms_filerow *anon;
	size_t churn_row, anon_row;

	/*
	 * A read-only anonymous mapping, and churn.dat two pages above it: the
	 * check of churn.dat's row starts at the end of the mapping before.
	 */
	assert_int_equal(fixture_commandf(&w->fx, "anon %" PRIx64 " 2 r", w->churn), 0);
	assert_int_equal(fixture_commandf(&w->fx, "file %" PRIx64 " 2 r 0", w->churn + 4 * w->page), 0);
	tui_fileview_set_height(&w->fv, 1);
	assert_int_equal(tick(w, false), 1);
	anon = row_of_kind(w, MS_FILEKIND_ANON);
	assert_non_null(anon);
	anon_row = (size_t)(anon - w->fv.fm.rows);
	churn_row = row_index(w, "/churn.dat");
	tui_fileview_select(&w->fv, churn_row);

	assert_int_equal(fixture_commandf(&w->fx, "protect %" PRIx64 " 2 rx", w->churn), 0);
	for (unsigned t = 0; t + 2 < tui_filefeed_period(&w->fv); t++)
		assert_int_equal(tick(w, true), 0);
	assert_int_equal(walks(w), 1);

	tui_fileview_select(&w->fv, anon_row);
	assert_walks_for_change(w, 1);
	assert_anon_executable(w);
}

/*
 * The mapping right after a row's run is asked for too (so that one put in
 * the gap there shows): a new mapping in place of it, of the same size and
 * as writable, leaves statm as it was and is still seen at the next tick.
 */
static void test_mapping_after_the_row_is_checked(void **state)
{
	struct world *w = *state;

	assert_int_equal(fixture_commandf(&w->fx, "file %" PRIx64 " 2 r 0", w->churn), 0);
	assert_int_equal(fixture_commandf(&w->fx, "anon %" PRIx64 " 2 r", w->churn + 4 * w->page), 0);
	tui_fileview_set_height(&w->fv, 1);
	assert_int_equal(tick(w, false), 1);
	tui_fileview_select(&w->fv, row_index(w, "/churn.dat"));
	assert_int_equal(tick(w, true), 0);
	assert_int_equal(fixture_commandf(&w->fx, "anon %" PRIx64 " 2 rx", w->churn + 4 * w->page), 0);
	assert_walks_for_change(w, 1);
	assert_anon_executable(w);
}

/*
 * Under a name filter the check reads each run's span, with what the
 * filter leaves out inside it, and no further: quiet ticks still walk
 * nothing, and a change in a matching row shows at the next tick.
 */
static void test_name_filter(void **state)
{
	struct world *w = *state;
	const struct ms_filerow *r;
	uint64_t file = w->churn + 4 * w->page;

	/* An anonymous mapping between churn.dat's two, which the filter leaves out. */
	assert_int_equal(fixture_commandf(&w->fx, "file %" PRIx64 " 1 r 0", w->churn), 0);
	assert_int_equal(fixture_commandf(&w->fx, "anon %" PRIx64 " 1 r", w->churn + 2 * w->page), 0);
	assert_int_equal(fixture_commandf(&w->fx, "file %" PRIx64 " 1 r 1", file), 0);
	snprintf(w->fv.filter, sizeof(w->fv.filter), "churn");
	assert_int_equal(tick(w, false), 1);
	assert_int_equal(w->fv.fm.count, 1);
	r = row_named(w, "/churn.dat");
	assert_true(r && r->mappings == 2);
	for (int t = 0; t < 3; t++)
		assert_int_equal(tick(w, true), 0);
	/* Each tick read the row's span, its three mappings, and nothing before or after. */
	assert_int_equal(w->ff.checked, 3 * 3);
	assert_int_equal(fixture_commandf(&w->fx, "protect %" PRIx64 " 1 rx", file), 0);
	assert_walks_for_change(w, 1);
	r = row_named(w, "/churn.dat");
	assert_true(r && r->perms == (MS_PERM_READ | MS_PERM_EXEC));
}

/*
 * A row bigger than TUI_FILES_ROW_SMALL (BIG one-page anonymous mappings,
 * a page apart) is checked TUI_FILES_CHECK_BIG mappings a tick, in turn;
 * a file's row beside it is still checked whole at every tick.
 */
#define BIG 300

static void test_big_row_checked_a_share_per_tick(void **state)
{
	struct world *w = *state;
	const struct ms_filerow *r;
	uint64_t file = w->churn + (2 * BIG + 4) * w->page;
	size_t before, rounds = (BIG + TUI_FILES_CHECK_BIG - 1) / TUI_FILES_CHECK_BIG, t;

	for (int i = 0; i < BIG; i++)
		assert_int_equal(fixture_commandf(&w->fx, "anon %" PRIx64 " 1 r",
						  w->churn + 2 * (uint64_t)i * w->page), 0);
	assert_int_equal(fixture_commandf(&w->fx, "file %" PRIx64 " 2 r 0", file), 0);
	assert_int_equal(tick(w, false), 1);
	r = row_of_kind(w, MS_FILEKIND_ANON);
	assert_true(r && r->mappings > BIG);
	assert_true(BIG > TUI_FILES_CHECK_BIG && BIG < 2 * TUI_FILES_CHECK_BIG);

	/* One tick asks for the share of the big row and every other mapping, not all. */
	before = w->ff.checked;
	assert_int_equal(tick(w, true), 0);
	assert_true(w->ff.checked - before >= TUI_FILES_CHECK_BIG);
	assert_true(w->ff.checked - before < w->fv.list.count);

	/* churn.dat's row: at the next tick. */
	assert_int_equal(fixture_commandf(&w->fx, "protect %" PRIx64 " 2 rx", file), 0);
	assert_walks_for_change(w, 1);

	/* The anonymous mapping the walk's first share does not reach: within the rounds. */
	assert_int_equal(fixture_commandf(&w->fx, "protect %" PRIx64 " 1 rx",
					  w->churn + 2 * (uint64_t)(BIG - 1) * w->page), 0);
	for (t = 1; t <= rounds + 1 && !tick(w, true); t++)
		;
	assert_true(t > 1 && t <= rounds + 1);
	assert_int_equal(w->ff.walks[TUI_FW_CHANGED], 2);
	assert_int_equal(w->ff.walks[TUI_FW_STATM], 0);
	assert_anon_executable(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_quiet_ticks_walk_only_periodically, world_setup,
						world_teardown),
		cmocka_unit_test_setup_teardown(test_file_mapped_and_unmapped_shows, world_setup,
						world_teardown),
		cmocka_unit_test_setup_teardown(test_change_in_row_on_screen_shows_next_tick,
						world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(test_change_off_screen_waits_for_the_screen,
						world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(test_mapping_after_the_row_is_checked, world_setup,
						world_teardown),
		cmocka_unit_test_setup_teardown(test_big_row_checked_a_share_per_tick, world_setup,
						world_teardown),
		cmocka_unit_test_setup_teardown(test_name_filter, world_setup, world_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
