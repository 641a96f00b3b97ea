/*
 * The explorer's pictures without a terminal: the address-space strip's
 * kinds, scale, layout and window (strip.h), and size bars (bars.h).
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

#include "tui/bars.h"
#include "tui/maps_model.h"
#include "tui/strip.h"

#define PAGE 4096ull
#define GIB (1ull << 30)

static struct ms_mapping map(uint64_t start, uint64_t size, unsigned perms, uint64_t inode,
			     const char *name)
{
	struct ms_mapping m = { .start = start, .end = start + size, .perms = perms, .inode = inode,
				.dev_major = inode ? 8 : 0 };

	m.name = (char *)name;
	m.name_len = name ? strlen(name) : 0;
	return m;
}

static void test_strip_kinds(void **state)
{
	struct ms_mapping code = map(0x1000, PAGE, MS_PERM_READ | MS_PERM_EXEC, 5, "/bin/x");
	struct ms_mapping data = map(0x2000, PAGE, MS_PERM_READ | MS_PERM_WRITE, 5, "/bin/x");
	struct ms_mapping file = map(0x3000, PAGE, MS_PERM_READ, 5, "/bin/x");
	struct ms_mapping heap = map(0x4000, PAGE, MS_PERM_READ | MS_PERM_WRITE, 0, "[heap]");
	struct ms_mapping stack = map(0x5000, PAGE, MS_PERM_READ | MS_PERM_WRITE, 0, "[stack]");
	struct ms_mapping anon = map(0x6000, PAGE, MS_PERM_READ | MS_PERM_WRITE, 0, NULL);
	struct ms_mapping jit = map(0x7000, PAGE, MS_PERM_READ | MS_PERM_EXEC, 0, NULL);

	(void)state;
	assert_int_equal(tui_strip_kind_of(&code), TUI_STRIP_CODE);
	assert_int_equal(tui_strip_kind_of(&data), TUI_STRIP_DATA);
	assert_int_equal(tui_strip_kind_of(&file), TUI_STRIP_FILE);
	assert_int_equal(tui_strip_kind_of(&heap), TUI_STRIP_HEAP);
	assert_int_equal(tui_strip_kind_of(&stack), TUI_STRIP_STACK);
	assert_int_equal(tui_strip_kind_of(&anon), TUI_STRIP_ANON);
	assert_int_equal(tui_strip_kind_of(&jit), TUI_STRIP_CODE);
	assert_int_equal(tui_strip_letter(TUI_STRIP_CODE), 'c');
	assert_int_equal(tui_strip_letter(TUI_STRIP_HEAP), 'h');
	assert_int_equal(tui_strip_letter(TUI_STRIP_EMPTY), ' ');
}

static void test_strip_weight(void **state)
{
	(void)state;
	assert_int_equal(tui_strip_weight(PAGE), 1);
	assert_int_equal(tui_strip_weight(2 * PAGE), 2);
	assert_int_equal(tui_strip_weight(3 * PAGE), 2);
	assert_int_equal(tui_strip_weight(2ull << 20), 10);
	assert_int_equal(tui_strip_weight(GIB), 19);
	assert_int_equal(tui_strip_weight(128ull << 40), 36);
}

/*
 * One anonymous GiB (weight 19), then 19 one-page code mappings far above
 * it (weight 19 together): linear in addresses the code would be lost in
 * one cell; by weight each half of the strip is one kind.
 */
static void load(struct ms_maplist *list)
{
	struct ms_mapping m;

	memset(list, 0, sizeof(*list));
	list->items = calloc(20, sizeof(*list->items));
	assert_non_null(list->items);
	list->items[list->count++] = map(0x10000000, GIB, MS_PERM_READ | MS_PERM_WRITE, 0, NULL);
	for (uint64_t i = 0; i < 19; i++) {
		m = map(0x7f0000000000 + i * 2 * PAGE, PAGE, MS_PERM_READ | MS_PERM_EXEC, 9,
			i == 4 ? "/lib/libfour.so" : "/lib/lib.so");
		list->items[list->count++] = m;
	}
}

static void test_strip_layout(void **state)
{
	struct ms_maplist list;
	struct tui_mapview vm;
	struct tui_strip s;
	struct tui_strip_cell cells[38];
	size_t windows = 0;

	(void)state;
	load(&list);
	tui_mapview_init(&vm, 0, 10);
	tui_strip_init(&s);
	assert_int_equal(tui_strip_build(&s, &list, &vm), 0);
	assert_int_equal(s.count, 20);

	tui_strip_layout(&s, cells, 2);
	assert_int_equal(cells[0].kind, TUI_STRIP_ANON);
	assert_int_equal(cells[1].kind, TUI_STRIP_CODE);
	tui_strip_layout(&s, cells, 38);
	for (size_t i = 0; i < 38; i++) {
		assert_int_equal(cells[i].kind, i < 19 ? TUI_STRIP_ANON : TUI_STRIP_CODE);
		assert_false(cells[i].window);
	}

	/* The fifth library page is shown: exactly its cell is the window. */
	tui_strip_mark(&s, cells, 38, list.items[5].start, list.items[5].end);
	for (size_t i = 0; i < 38; i++)
		windows += cells[i].window;
	assert_int_equal(windows, 1);
	assert_true(cells[19 + 4].window);
	/* The GiB shown marks the whole first half. */
	tui_strip_mark(&s, cells, 38, list.items[0].start, list.items[0].end);
	for (size_t i = 0; i < 19; i++)
		assert_true(cells[i].window);
	/* An address in no mapping marks nothing more. */
	tui_strip_layout(&s, cells, 38);
	tui_strip_mark(&s, cells, 38, 0x1000, 0x2000);
	tui_strip_mark(&s, cells, 38, 0xffff00000000, 0xffff00001000);
	for (size_t i = 0; i < 38; i++)
		assert_false(cells[i].window);

	/* The name filter keeps one mapping: the whole strip is that one. */
	tui_mapview_set_name_filter(&vm, "libfour");
	assert_int_equal(tui_strip_build(&s, &list, &vm), 0);
	assert_int_equal(s.count, 1);
	tui_strip_layout(&s, cells, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(cells[i].kind, TUI_STRIP_CODE);

	/* Nothing matches: an empty strip. */
	tui_mapview_set_name_filter(&vm, "nothing");
	assert_int_equal(tui_strip_build(&s, &list, &vm), 0);
	tui_strip_layout(&s, cells, 5);
	tui_strip_mark(&s, cells, 5, 0, UINT64_MAX);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(cells[i].kind, TUI_STRIP_EMPTY);
		assert_false(cells[i].window);
	}
	tui_strip_free(&s);
	tui_mapview_free(&vm);
	free(list.items);
}

/* More cells than weight: every cell still shows the mapping under it. */
static void test_strip_tall(void **state)
{
	struct ms_maplist list = { 0 };
	struct tui_mapview vm;
	struct tui_strip s;
	struct tui_strip_cell cells[50];

	(void)state;
	list.items = calloc(2, sizeof(*list.items));
	assert_non_null(list.items);
	list.items[list.count++] = map(0x1000, PAGE, MS_PERM_READ, 3, "/a");
	list.items[list.count++] = map(0x9000, PAGE, MS_PERM_READ | MS_PERM_WRITE, 0, "[stack]");
	tui_mapview_init(&vm, 0, 10);
	tui_strip_init(&s);
	assert_int_equal(tui_strip_build(&s, &list, &vm), 0);
	tui_strip_layout(&s, cells, 50);
	for (size_t i = 0; i < 50; i++)
		assert_int_equal(cells[i].kind, i < 25 ? TUI_STRIP_FILE : TUI_STRIP_STACK);
	tui_strip_mark(&s, cells, 50, 0x9000, 0xa000);
	for (size_t i = 0; i < 50; i++)
		assert_int_equal(cells[i].window, i >= 25);
	tui_strip_free(&s);
	tui_mapview_free(&vm);
	free(list.items);
}

static void test_bar_format(void **state)
{
	char bar[TUI_BAR_W + 1];

	(void)state;
	tui_bar_format(bar, 5, 10, true);
	assert_string_equal(bar, "[####    ]");
	tui_bar_format(bar, 10, 10, true);
	assert_string_equal(bar, "[########]");
	tui_bar_format(bar, 1, 1ull << 40, true);
	assert_string_equal(bar, "[#       ]");
	tui_bar_format(bar, 0, 10, true);
	assert_string_equal(bar, "[        ]");
	tui_bar_format(bar, 7, 10, false);
	assert_string_equal(bar, "[        ]");
	tui_bar_format(bar, UINT64_MAX, UINT64_MAX, true);
	assert_string_equal(bar, "[########]");
	tui_bar_format(bar, UINT64_MAX / 2, UINT64_MAX, true);
	assert_string_equal(bar, "[####    ]");
}

static void test_bar_insert(void **state)
{
	char row[64] = "  1   4K /usr/lib/libc.so.6";
	char heading[80] = " MAPS  SIZEv PERMS SONAME NAMEv (x)";
	char tiny[12] = "12 NAME";
	size_t at;

	(void)state;
	at = tui_bar_insert(row, sizeof(row), 9, 3, 4, true);
	assert_string_equal(row, "  1   4K [######  ] /usr/lib/libc.so.6");
	assert_int_equal(at, 9 + TUI_BAR_W + 1);
	tui_bar_insert_heading(heading, sizeof(heading), "NAME");
	assert_string_equal(heading, " MAPS  SIZEv PERMS SONAME BAR        NAMEv (x)");
	/* No room: the row is left as it was. */
	assert_int_equal(tui_bar_insert(tiny, sizeof(tiny), 3, 1, 1, true), 3);
	assert_string_equal(tiny, "12 NAME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_kinds),
		cmocka_unit_test(test_strip_weight),
		cmocka_unit_test(test_strip_layout),
		cmocka_unit_test(test_strip_tall),
		cmocka_unit_test(test_bar_format),
		cmocka_unit_test(test_bar_insert),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
