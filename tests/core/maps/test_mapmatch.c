/*
 * ms_maplist_match: mappings paired by what they are (file, offset, kind),
 * checked on maps written as /proc/PID/maps text; and its --addresses
 * mode against ms_maplist_diff, the exact-range walk, on random maps.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "maps/mapmatch.h"
#include "maps/maps_parse.h"

/* A list from maps text lines, NULL-terminated. */
static void list_of(struct ms_maplist *list, const char *const *lines)
{
	memset(list, 0, sizeof(*list));
	for (; *lines; lines++) {
		struct ms_mapping m = { 0 };

		assert_int_equal(ms_maps_parse_line(*lines, strlen(*lines), &m), 0);
		assert_int_equal(ms_maplist_push(list, &m), 0);
	}
}

struct seen {
	enum ms_diff_kind kind[64];
	size_t old_idx[64], new_idx[64];
	unsigned changed[64];
	size_t n;
	const struct ms_maplist *a, *b;
};

static int collect(void *ctx, const struct ms_diff_entry *e)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	s->kind[s->n] = e->kind;
	s->old_idx[s->n] = e->old_map ? (size_t)(e->old_map - s->a->items) : SIZE_MAX;
	s->new_idx[s->n] = e->new_map ? (size_t)(e->new_map - s->b->items) : SIZE_MAX;
	s->changed[s->n] = e->changed;
	s->n++;
	return 0;
}

static void match(const struct ms_maplist *a, const struct ms_maplist *b, bool same_boot,
		  struct seen *seen, struct ms_diff_summary *sum)
{
	struct ms_match_opts o = { .same_boot = same_boot };

	memset(seen, 0, sizeof(*seen));
	seen->a = a;
	seen->b = b;
	assert_int_equal(ms_maplist_match(a, b, &o, collect, seen, sum), 0);
}

/* One program twice under ASLR: every region elsewhere, nothing changed. */
static const char *const run1[] = {
	"55d0c0000000-55d0c0002000 r--p 00000000 fd:01 100 /usr/bin/prog",
	"55d0c0002000-55d0c0005000 r-xp 00002000 fd:01 100 /usr/bin/prog",
	"55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0 [heap]",
	"7f0000000000-7f0000001000 ---p 00000000 00:00 0",
	"7f0000001000-7f0000801000 rw-p 00000000 00:00 0",
	"7f0000801000-7f0000802000 ---p 00000000 00:00 0",
	"7f0000802000-7f0001002000 rw-p 00000000 00:00 0",
	"7f1000000000-7f1000026000 r--p 00000000 fd:01 200 /usr/lib/libc.so.6",
	"7f1000026000-7f100017b000 r-xp 00026000 fd:01 200 /usr/lib/libc.so.6",
	"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]",
	NULL,
};
static const char *const run2[] = {
	"5612a0000000-5612a0002000 r--p 00000000 fd:01 100 /usr/bin/prog",
	"5612a0002000-5612a0005000 r-xp 00002000 fd:01 100 /usr/bin/prog",
	"5612a1200000-5612a1221000 rw-p 00000000 00:00 0 [heap]",
	"7f3300000000-7f3300001000 ---p 00000000 00:00 0",
	"7f3300001000-7f3300801000 rw-p 00000000 00:00 0",
	"7f3300801000-7f3300802000 ---p 00000000 00:00 0",
	"7f3300802000-7f3301002000 rw-p 00000000 00:00 0",
	"7f4400000000-7f4400026000 r--p 00000000 fd:01 200 /usr/lib/libc.so.6",
	"7f4400026000-7f440017b000 r-xp 00026000 fd:01 200 /usr/lib/libc.so.6",
	"7ffd10000000-7ffd10021000 rw-p 00000000 00:00 0 [stack]",
	NULL,
};

static void test_aslr_is_no_change(void **state)
{
	struct ms_maplist a, b;
	struct ms_diff_summary sum;
	struct seen seen;
	struct ms_match_opts by_address = { .by_address = true };

	(void)state;
	list_of(&a, run1);
	list_of(&b, run2);
	match(&a, &b, true, &seen, &sum);
	assert_int_equal(seen.n, 0);
	assert_int_equal(sum.unchanged, a.count);
	assert_int_equal(sum.moved, a.count);
	assert_int_equal(sum.added + sum.removed + sum.changed, 0);
	/* By exact range the two differ everywhere. */
	assert_int_equal(ms_maplist_match(&a, &b, &by_address, NULL, NULL, &sum), 0);
	assert_int_equal(sum.added, b.count);
	assert_int_equal(sum.removed, a.count);
	ms_maplist_free(&a);
	ms_maplist_free(&b);
}

/* The heap grew: one change, its size; a thread's stack went: one removal. */
static void test_heap_growth_and_anon_order(void **state)
{
	static const char *const later[] = {
		"55d0c0000000-55d0c0002000 r--p 00000000 fd:01 100 /usr/bin/prog",
		"55d0c0002000-55d0c0005000 r-xp 00002000 fd:01 100 /usr/bin/prog",
		"55d0c0a00000-55d0c0a42000 rw-p 00000000 00:00 0 [heap]",
		"7f0000000000-7f0000001000 ---p 00000000 00:00 0",
		"7f0000001000-7f0000801000 rw-p 00000000 00:00 0",
		"7f1000000000-7f1000026000 r--p 00000000 fd:01 200 /usr/lib/libc.so.6",
		"7f1000026000-7f100017b000 r-xp 00026000 fd:01 200 /usr/lib/libc.so.6",
		"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]",
		NULL,
	};
	struct ms_maplist a, b;
	struct ms_diff_summary sum;
	struct seen seen;

	(void)state;
	list_of(&a, run1);
	list_of(&b, later);
	match(&a, &b, true, &seen, &sum);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.kind[0], MS_DIFF_CHANGED);
	assert_int_equal(seen.old_idx[0], 2);
	assert_int_equal(seen.new_idx[0], 2);
	assert_int_equal(seen.changed[0], MS_DIFF_F_SIZE);
	/* The first guard and stack keep their place above the program: the second ones went. */
	assert_int_equal(seen.kind[1], MS_DIFF_REMOVED);
	assert_int_equal(seen.old_idx[1], 5);
	assert_int_equal(seen.kind[2], MS_DIFF_REMOVED);
	assert_int_equal(seen.old_idx[2], 6);
	assert_int_equal(sum.changed, 1);
	assert_int_equal(sum.removed, 2);
	assert_int_equal(sum.added, 0);
	assert_int_equal(sum.unchanged, 7);
	assert_int_equal(sum.moved, 0);
	ms_maplist_free(&a);
	ms_maplist_free(&b);
}

/* Match two maps given as text, same boot; the lists are freed, the entries' indexes kept. */
static void match_text(const char *const *before, const char *const *after, struct seen *seen,
		       struct ms_diff_summary *sum)
{
	struct ms_maplist a, b;

	list_of(&a, before);
	list_of(&b, after);
	match(&a, &b, true, seen, sum);
	ms_maplist_free(&a);
	ms_maplist_free(&b);
}

/*
 * A middle thread ended: its guard page and stack are the ones removed,
 * though the others of their kind follow in address order; they keep
 * their place above the program, so they pair by their neighbourhood.
 */
static void test_middle_stack_removed(void **state)
{
	static const char *const three[] = {
		"55d0c0002000-55d0c0005000 r-xp 00002000 fd:01 100 /usr/bin/prog",
		"7f0000000000-7f0000001000 ---p 00000000 00:00 0",
		"7f0000001000-7f0000801000 rw-p 00000000 00:00 0",
		"7f0000801000-7f0000802000 ---p 00000000 00:00 0",
		"7f0000802000-7f0001002000 rw-p 00000000 00:00 0",
		"7f0001002000-7f0001003000 ---p 00000000 00:00 0",
		"7f0001003000-7f0001803000 rw-p 00000000 00:00 0",
		"7f1000026000-7f100017b000 r-xp 00026000 fd:01 200 /usr/lib/libc.so.6",
		NULL,
	};
	static const char *const two[] = {
		"55d0c0002000-55d0c0005000 r-xp 00002000 fd:01 100 /usr/bin/prog",
		"7f0000000000-7f0000001000 ---p 00000000 00:00 0",
		"7f0000001000-7f0000801000 rw-p 00000000 00:00 0",
		"7f0001002000-7f0001003000 ---p 00000000 00:00 0",
		"7f0001003000-7f0001803000 rw-p 00000000 00:00 0",
		"7f1000026000-7f100017b000 r-xp 00026000 fd:01 200 /usr/lib/libc.so.6",
		NULL,
	};
	struct ms_diff_summary sum;
	struct seen seen;

	(void)state;
	match_text(three, two, &seen, &sum);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.kind[0], MS_DIFF_REMOVED);
	assert_int_equal(seen.old_idx[0], 3);
	assert_int_equal(seen.kind[1], MS_DIFF_REMOVED);
	assert_int_equal(seen.old_idx[1], 4);
	assert_int_equal(sum.unchanged, 6);
	assert_int_equal(sum.moved, 0);
}

/* A new region below two unchanged ones of its kind is the one added; they stay unchanged. */
static void test_new_region_below(void **state)
{
	static const char *const before[] = {
		"55d0c0002000-55d0c0005000 r-xp 00002000 fd:01 100 /usr/bin/prog",
		"7f0000100000-7f0000102000 rw-p 00000000 00:00 0",
		"7f0000200000-7f000020d000 rw-p 00000000 00:00 0",
		NULL,
	};
	static const char *const after[] = {
		"55d0c0002000-55d0c0005000 r-xp 00002000 fd:01 100 /usr/bin/prog",
		"7f0000000000-7f000000b000 rw-p 00000000 00:00 0",
		"7f0000100000-7f0000102000 rw-p 00000000 00:00 0",
		"7f0000200000-7f000020d000 rw-p 00000000 00:00 0",
		NULL,
	};
	struct ms_diff_summary sum;
	struct seen seen;

	(void)state;
	match_text(before, after, &seen, &sum);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.kind[0], MS_DIFF_ADDED);
	assert_int_equal(seen.new_idx[0], 1);
	assert_int_equal(sum.unchanged, 3);
	assert_int_equal(sum.changed, 0);
}

/* Another file at the path, a deleted one, new permissions, a rebuild. */
static void test_file_changes(void **state)
{
	static const char *const before[] = {
		"7f1000000000-7f1000026000 r--p 00000000 fd:01 200 /usr/lib/libc.so.6",
		"7f2000000000-7f2000001000 r--p 00000000 fd:01 300 /usr/lib/libz.so.1",
		"7f3000000000-7f3000001000 r--p 00001000 fd:01 400 /opt/data",
		"7f3000002000-7f3000003000 r--s 00001000 fd:01 400 /opt/data",
		NULL,
	};
	static const char *const after[] = {
		"7f1100000000-7f1100026000 r--p 00000000 fd:01 201 /usr/lib/libc.so.6",
		"7f2100000000-7f2100001000 r--p 00000000 fd:01 300 /usr/lib/libz.so.1 (deleted)",
		"7f3000000000-7f3000001000 r-xp 00001000 fd:01 400 /opt/data",
		NULL,
	};
	struct ms_maplist a, b;
	struct ms_diff_summary sum;
	struct seen seen;

	(void)state;
	list_of(&a, before);
	list_of(&b, after);
	a.items[0].build_id_len = b.items[0].build_id_len = 20;
	b.items[0].build_id[0] = 1;
	match(&a, &b, true, &seen, &sum);
	assert_int_equal(seen.n, 4);
	assert_int_equal(seen.changed[0], MS_DIFF_F_INODE | MS_DIFF_F_BUILDID);
	assert_int_equal(seen.changed[1], MS_DIFF_F_NAME);
	assert_int_equal(seen.kind[2], MS_DIFF_CHANGED);
	assert_int_equal(seen.changed[2], MS_DIFF_F_PERMS);
	/* Shared and private mappings of one file are two kinds. */
	assert_int_equal(seen.kind[3], MS_DIFF_REMOVED);
	assert_int_equal(seen.old_idx[3], 3);
	assert_int_equal(sum.moved, 2);

	/* Another boot: inode numbers say nothing, the build ID still does. */
	match(&a, &b, false, &seen, &sum);
	assert_int_equal(seen.changed[0], MS_DIFF_F_BUILDID);
	ms_maplist_free(&a);
	ms_maplist_free(&b);
}

static int stop_at_first(void *ctx, const struct ms_diff_entry *e)
{
	(void)e;
	++*(int *)ctx;
	return 7;
}

static void test_callback_stops(void **state)
{
	struct ms_maplist a, b;
	int calls = 0;

	(void)state;
	list_of(&a, run1);
	list_of(&b, (const char *const[]){ "10000-11000 r--p 00000000 00:00 0", NULL });
	assert_int_equal(ms_maplist_match(&a, &b, NULL, stop_at_first, &calls, NULL), 7);
	assert_int_equal(calls, 1);
	ms_maplist_free(&a);
	ms_maplist_free(&b);
}

/* A random map on 24 slots: some taken, of random size, perms, file and name. */
static void random_list(struct ms_maplist *list, unsigned *seed)
{
	static const char *const names[] = { NULL, "[heap]", "/lib/a.so", "/lib/b.so", "/lib/a.so (deleted)" };

	memset(list, 0, sizeof(*list));
	for (uint64_t slot = 0; slot < 24; slot++) {
		struct ms_mapping m = { 0 };
		const char *name = names[rand_r(seed) % 5];

		if (rand_r(seed) % 3 == 0)
			continue;
		m.start = 0x100000 + slot * 0x10000 + (uint64_t)(rand_r(seed) % 2) * 0x1000;
		m.end = m.start + 0x1000 * (uint64_t)(1 + rand_r(seed) % 3);
		m.perms = (unsigned)rand_r(seed) % 16;
		m.offset = name && name[0] == '/' ? 0x1000 * (uint64_t)(rand_r(seed) % 2) : 0;
		m.inode = name && name[0] == '/' ? 1 + (uint64_t)(rand_r(seed) % 2) : 0;
		if (name)
			assert_int_equal(ms_mapping_set_name(&m, name, strlen(name)), 0);
		assert_int_equal(ms_maplist_push(list, &m), 0);
	}
}

/* --addresses gives ms_maplist_diff's entries, in its order. */
static void test_by_address_is_the_exact_walk(void **state)
{
	unsigned seed0 = (unsigned)time(NULL);
	struct ms_match_opts by_address = { .by_address = true };

	(void)state;
	for (unsigned round = 0; round < 500; round++) {
		unsigned seed = seed0 + round;
		struct ms_maplist a, b;
		struct ms_diff_summary s1, s2;
		struct seen want = { 0 }, got = { 0 };

		random_list(&a, &seed);
		random_list(&b, &seed);
		want.a = got.a = &a;
		want.b = got.b = &b;
		assert_int_equal(ms_maplist_diff(&a, &b, collect, &want, &s1), 0);
		assert_int_equal(ms_maplist_match(&a, &b, &by_address, collect, &got, &s2), 0);
		if (want.n != got.n || memcmp(want.kind, got.kind, sizeof(want.kind)) ||
		    memcmp(want.old_idx, got.old_idx, sizeof(want.old_idx)) ||
		    memcmp(want.new_idx, got.new_idx, sizeof(want.new_idx)) ||
		    memcmp(want.changed, got.changed, sizeof(want.changed)) || s1.added != s2.added ||
		    s1.removed != s2.removed || s1.changed != s2.changed || s1.unchanged != s2.unchanged)
			fail_msg("seed %u: --addresses differs from ms_maplist_diff", seed0 + round);
		ms_maplist_free(&a);
		ms_maplist_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aslr_is_no_change),
		cmocka_unit_test(test_heap_growth_and_anon_order),
		cmocka_unit_test(test_middle_stack_removed),
		cmocka_unit_test(test_new_region_below),
		cmocka_unit_test(test_file_changes),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_by_address_is_the_exact_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
