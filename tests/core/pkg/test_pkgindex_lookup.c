/*
 * Lookups in the negative index of dpkg's lists (pkgindex.h) at sizes
 * the database tests never reach: ms_pkg_index_may_hold reads one page of
 * hashes where a path's hash should sit, then bisects what is left.
 *   - 150,000 hashes of real paths: every path is held, no other path is;
 *   - the same paths among 300,000 hashes packed at both ends of the
 *     range, so that the first guess always misses and only the
 *     bisection finds them (and finds nothing else);
 *   - indexes of 1, 511, 512 and 513 hashes: one window, and one more;
 *   - an index cut short after it was opened: it says nothing (every
 *     path may be held), the lists then answer.
 * The index is written by ms_pkg_index_write, which needs root and a
 * directory only root may change (tu_root_tmpdir): as another user the
 * tests skip, and say so.
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

#include "pkg/pkgindex.h"
#include "testutil.h"

#define NPATHS 150000
#define NPACKED 150000 /* at each end */

struct fx {
	char *dir;
	char *index;
	struct ms_pkg_index_pins pins;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	*state = fx;
	fx->dir = tu_root_tmpdir();
	if (!fx->dir) {
		print_message("not root, or the current directory is not root's alone: no index can be written\n");
		return 0;
	}
	fx->index = tu_join(fx->dir, "dpkg-paths");
	/* Any pins: the index is opened with the ones it was written with. */
	fx->pins.info[1] = 4242;
	fx->pins.info_ctime[0] = 1700000000;
	fx->pins.nlists = 7;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->dir)
		tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->index);
	free(fx);
	return 0;
}

static void path_of(char *buf, size_t size, const char *kind, size_t i)
{
	snprintf(buf, size, "/usr/lib/x86_64-linux-gnu/%s/lib%zu.so.%zu", kind, i, i % 7);
}

static uint64_t hash_of(const char *kind, size_t i)
{
	char path[128];

	path_of(path, sizeof(path), kind, i);
	return ms_pkg_index_hash(path, strlen(path));
}

/* A new array of count hashes, the first n those of the "held" paths, the rest 0. */
static uint64_t *held_hashes(size_t count, size_t n)
{
	uint64_t *h = calloc(count ? count : 1, sizeof(*h));

	assert_non_null(h);
	for (size_t i = 0; i < n; i++)
		h[i] = hash_of("held", i);
	return h;
}

/* Write hashes (count of them, sorted by the writer) as the index and open it. */
static void write_open(const struct fx *fx, uint64_t *hashes, size_t count, struct ms_pkg_index *ix)
{
	struct ms_pkg_index_build b = { .hashes = hashes, .count = count, .cap = count };

	assert_int_equal(ms_pkg_index_write(fx->index, &fx->pins, &b, NULL), 0);
	assert_true(ms_pkg_index_open(fx->index, &fx->pins, ix));
	assert_true(ix->open);
}

/* Are the first n "held" paths held, and none of the first n "absent" ones? */
static void check(const struct ms_pkg_index *ix, size_t n)
{
	size_t missed = 0, wrong = 0;
	char path[128];

	for (size_t i = 0; i < n; i++) {
		path_of(path, sizeof(path), "held", i);
		missed += !ms_pkg_index_may_hold(ix, path, strlen(path));
		path_of(path, sizeof(path), "absent", i);
		wrong += ms_pkg_index_may_hold(ix, path, strlen(path));
	}
	assert_int_equal(missed, 0);
	assert_int_equal(wrong, 0);
}

static void need_root(const struct fx *fx)
{
	if (!fx->dir)
		skip();
}

static void test_many_spread(void **state)
{
	struct fx *fx = *state;
	struct ms_pkg_index ix;
	uint64_t *h;

	need_root(fx);
	h = held_hashes(NPATHS, NPATHS);
	write_open(fx, h, NPATHS, &ix);
	assert_int_equal(ix.count, NPATHS);
	check(&ix, NPATHS);
	ms_pkg_index_close(&ix);
	assert_false(ix.open);
	free(h);
}

static void test_packed_at_both_ends(void **state)
{
	struct fx *fx = *state;
	size_t n = 2000, count = n + 2 * NPACKED;
	struct ms_pkg_index ix;
	uint64_t *h;

	need_root(fx);
	h = held_hashes(count, n);
	/* Below and above every path's hash (these are all far from both ends). */
	for (size_t i = 0; i < NPACKED; i++) {
		h[n + i] = i;
		h[n + NPACKED + i] = UINT64_MAX - i;
	}
	for (size_t i = 0; i < n; i++)
		assert_true(h[i] >= NPACKED && h[i] <= UINT64_MAX - NPACKED);
	write_open(fx, h, count, &ix);
	check(&ix, n);
	ms_pkg_index_close(&ix);
	free(h);
}

static void test_window_edges(void **state)
{
	static const size_t sizes[] = { 1, 511, 512, 513, 1025 };
	struct fx *fx = *state;

	need_root(fx);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct ms_pkg_index ix;
		uint64_t *h = held_hashes(sizes[s], sizes[s]);

		write_open(fx, h, sizes[s], &ix);
		check(&ix, sizes[s]);
		ms_pkg_index_close(&ix);
		free(h);
	}
}

static void test_cut_short_says_nothing(void **state)
{
	struct fx *fx = *state;
	struct ms_pkg_index ix;
	char path[128];
	uint64_t *h;

	need_root(fx);
	h = held_hashes(4096, 4096);
	write_open(fx, h, 4096, &ix);
	/* Cut in place, behind the open index's back: no fault, no answer. */
	assert_int_equal(truncate(fx->index, MS_PKG_INDEX_HEADER + 8), 0);
	for (size_t i = 0; i < 64; i++) {
		path_of(path, sizeof(path), "absent", i);
		assert_true(ms_pkg_index_may_hold(&ix, path, strlen(path)));
	}
	ms_pkg_index_close(&ix);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_many_spread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packed_at_both_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_short_says_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
