/*
 * The explorer's detail pane lines for residency, from a real query of the
 * residency fixture: the written region's resident size, the zero-page
 * note for pages only read (or their resident size, where the kernel's
 * smaps shows it gave them real pages), huge pages as smaps reports them, and the
 * line shown when residency is unavailable.  The maps view's RSS column:
 * one query over the rows on screen only, whose numbers are the fixture's
 * known pages, formatted after SIZE; and the rss setting.
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

#include "core/base/units.h"
#include "core/resid/residency.h"
#include "resfix.h"
#include "core/maps/maps.h"
#include "tui/format.h"
#include "tui/maps_model.h"
#include "tui/settings.h"

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

/*
 * Did the kernel map the zero page for the 3 pages anon-read only read, or
 * real pages?  Decided from its own smaps for that mapping, not mapscope's.
 */
static bool read_on_zero_page(const struct fixture *fx)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct smaps_rec sr;

	assert_int_equal(resfix_smaps_of(fx, "anon-read", &sr), 0);
	if (resfix_read_on_zero_page(&sr)) {
		print_message("anon-read: the kernel mapped the zero page (smaps Rss 0)\n");
		return true;
	}
	print_message("anon-read: the kernel allocated real pages on the read faults, no zero page (smaps Rss %llu)\n",
		      (unsigned long long)sr.rss);
	assert_int_equal(sr.rss, 3 * page);
	return false;
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
	ms_format_size(5 * (uint64_t)sysconf(_SC_PAGESIZE), false, size, sizeof(size));
	snprintf(want, sizeof(want), "%s  [pagemap]", size);
	assert_string_equal(lines[0].label, "resident");
	assert_string_equal(lines[0].value, want);
	assert_string_equal(lines[1].value, "0B");
	assert_string_equal(lines[2].value, "none");

	query_kind(proc, &fx, "anon-read", &info);
	n = tui_format_residency(lines, 4, &info, "pagemap");
	ms_format_size(3 * (uint64_t)sysconf(_SC_PAGESIZE), false, size, sizeof(size));
	if (read_on_zero_page(&fx))
		snprintf(want, sizeof(want), "0B (%s more on the zero page)  [pagemap]", size);
	else /* real pages: resident, and no zero-page note */
		snprintf(want, sizeof(want), "%s  [pagemap]", size);
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

struct counted {
	struct ms_residency *res;
	size_t calls;
	size_t asked;
};

static int counted_query(void *ctx, const struct ms_mapping *maps, size_t count,
			 struct ms_resinfo *out)
{
	struct counted *c = ctx;
	struct ms_error err;

	c->calls++;
	c->asked += count;
	return ms_residency_query(c->res, maps, count, out, &err);
}

/* The row of the fixture's mapping of that kind (the test stops without one). */
static const struct tui_maprow *row_of(const struct tui_mapview *vm, const struct fixture *fx,
				       const char *kind)
{
	const struct fx_map *fm = fixture_find(fx, kind);

	for (size_t i = 0; fm && i < vm->nrows; i++)
		if (vm->rows[i].m->start == fm->start)
			return &vm->rows[i];
	fail_msg("no row for %s", kind);
	abort();
}

/* A view model over every mapping of the fixture, height rows on screen. */
static void load_view(struct ms_maps *maps, struct tui_mapview *vm, size_t height)
{
	struct ms_maplist list = { 0 };
	struct ms_error err;

	if (ms_maps_collect(maps, 0, &list, &err) < 0)
		fail_msg("%s", err.msg);
	/* 0: as tall as the whole map (a sanitizer build maps far more). */
	tui_mapview_init(vm, 0, height ? height : list.count);
	assert_true(tui_mapview_apply(vm, &list, 0, false, false) >= 0);
	ms_maplist_free(&list);
}

/* The maps view's default columns on a wide screen, RSS on or off (R). */
static void maps_columns(struct tui_layout *l, bool rss)
{
	struct tui_colset set;

	tui_colset_default(&set, TUI_CV_MAPS);
	tui_layout_make(l, TUI_CV_MAPS, &set, rss ? 0 : 1u << TUI_MC_RSS, TUI_MAPROW_PREFIX, 1000);
}

static void test_rss_column(void **state)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct counted c = { 0 };
	struct tui_mapview vm;
	const struct tui_maprow *r;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	struct fixture fx;
	struct tui_layout with_rss, without;
	char text[TUI_LINE_MAX], size[32];

	(void)state;
	assert_int_equal(resfix_start(&fx), 0);
	if (ms_proc_open(fx.pid, &proc, &err) < 0 || ms_maps_open(proc, NULL, &maps, &err) < 0 ||
	    ms_residency_open(proc, NULL, &c.res, &err) < 0)
		fail_msg("%s", err.msg);

	/* Every row on screen: one query for all of them. */
	load_view(maps, &vm, 0);
	assert_true(vm.nrows > 8);
	assert_int_equal(tui_mapview_residency_visible(&vm, counted_query, &c), 0);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.asked, vm.nrows);
	r = row_of(&vm, &fx, "anon-written");
	assert_true(r->rss_known);
	assert_int_equal(r->rss, 5 * page);
	r = row_of(&vm, &fx, "anon-read");
	assert_true(r->rss_known);
	if (read_on_zero_page(&fx))
		assert_int_equal(r->rss, 0); /* the zero page is not resident memory */
	else
		assert_int_equal(r->rss, 3 * page); /* real pages are */
	r = row_of(&vm, &fx, "file-partial");
	assert_int_equal(r->rss, 2 * page);

	/* The column sits after SIZE; its heading too. */
	r = row_of(&vm, &fx, "anon-written");
	maps_columns(&with_rss, true);
	maps_columns(&without, false);
	tui_format_maprow_cols(text, sizeof(text), &with_rss, r, 0);
	ms_format_size(5 * page, false, size, sizeof(size));
	assert_non_null(strstr(text, size));
	assert_true(strstr(text, size) > strstr(text, "32K")); /* SIZE: 8 pages */
	tui_layout_heading(text, sizeof(text), &with_rss, -1, false, NULL);
	assert_non_null(strstr(text, "  SIZE    RSS PERM"));
	tui_layout_heading(text, sizeof(text), &without, -1, false, NULL);
	assert_null(strstr(text, "RSS"));
	tui_mapview_free(&vm);

	/* Three rows on screen: three asked for, the rest left unknown. */
	c.calls = c.asked = 0;
	load_view(maps, &vm, 3);
	assert_int_equal(tui_mapview_residency_visible(&vm, counted_query, &c), 0);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.asked, 3);
	assert_true(vm.rows[0].rss_known);
	assert_false(vm.rows[3].rss_known);
	tui_format_maprow_cols(text, sizeof(text), &with_rss, &vm.rows[3], 0);
	ms_format_size(vm.rows[3].m->end - vm.rows[3].m->start, false, size, sizeof(size));
	snprintf(size + strlen(size), sizeof(size) - strlen(size), "        "); /* a blank cell */
	assert_non_null(strstr(text, size));
	tui_mapview_free(&vm);

	ms_residency_close(c.res);
	ms_maps_close(maps);
	ms_proc_close(proc);
	fixture_stop(&fx);
}

static void test_rss_setting(void **state)
{
	struct tui_settings cfg;

	(void)state;
	tui_settings_defaults(&cfg);
	assert_false(cfg.rss);
	assert_int_equal(tui_settings_parse(&cfg, "rss = yes\n", 10, NULL, NULL), 0);
	assert_true(cfg.rss);
	assert_int_equal(tui_settings_parse(&cfg, "rss = maybe\n", 12, NULL, NULL), 1);
	assert_true(cfg.rss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detail_lines),
		cmocka_unit_test(test_rss_column),
		cmocka_unit_test(test_rss_setting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
