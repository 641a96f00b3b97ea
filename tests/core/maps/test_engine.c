/*
 * The engine against a live process with known mappings, through both
 * backends: exact records, every filter combination, windows, covering
 * lookups, and record-for-record agreement between ioctl and text.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture_client.h"
#include "maps/maps.h"
#include "testutil.h"

struct engine_ctx {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *by_ioctl;
	struct ms_maps *by_text;
};

static struct ms_maps *open_backend(struct ms_proc *proc, enum ms_backend b)
{
	struct ms_maps_opts opts = { .backend = b, .ioctl_fn = NULL };
	struct ms_maps *maps = NULL;
	struct ms_error err;

	if (ms_maps_open(proc, &opts, &maps, &err) < 0)
		fail_msg("open %s: %s", ms_backend_name(b), err.msg);
	assert_int_equal(ms_maps_backend(maps), b);
	return maps;
}

static int setup(void **state)
{
	struct engine_ctx *c = calloc(1, sizeof(*c));
	struct ms_error err;

	assert_non_null(c);
	assert_int_equal(fixture_start(&c->fx), 0);
	if (ms_proc_open(c->fx.pid, &c->proc, &err) < 0)
		fail_msg("%s", err.msg);
	c->by_ioctl = open_backend(c->proc, MS_BACKEND_IOCTL);
	c->by_text = open_backend(c->proc, MS_BACKEND_TEXT);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct engine_ctx *c = *state;

	ms_maps_close(c->by_ioctl);
	ms_maps_close(c->by_text);
	ms_proc_close(c->proc);
	fixture_stop(&c->fx);
	free(c);
	return 0;
}

static void collect(struct ms_maps *maps, unsigned filter, struct ms_maplist *out)
{
	struct ms_error err;

	if (ms_maps_collect(maps, filter, out, &err) < 0)
		fail_msg("collect: %s", err.msg);
}

static void assert_same_as_fixture(const struct fx_map *want, const struct ms_mapping *got,
				   const char *backend)
{
	char perms[5];

	ms_perms_format(got->perms, perms);
	assert_int_equal(got->start, want->start);
	assert_int_equal(got->end, want->end);
	if (strcmp(perms, want->perms))
		fail_msg("%s %s: perms %s, want %s", backend, want->kind, perms, want->perms);
	assert_int_equal(got->offset, want->offset);
	assert_int_equal(got->name_len, want->name_len);
	if (want->name_len)
		assert_memory_equal(got->name, want->name, want->name_len);
	assert_int_equal(got->page_size, (uint64_t)sysconf(_SC_PAGESIZE));
}

static void check_known(struct engine_ctx *c, struct ms_maps *maps)
{
	for (size_t i = 0; i < c->fx.count; i++) {
		const struct fx_map *want = &c->fx.maps[i];
		struct ms_mapping got = { 0 };
		struct ms_error err;

		/* Ask from the middle: the covering mapping must come back. */
		if (ms_maps_at(maps, want->start + (want->end - want->start) / 2, &got, &err) != 0)
			fail_msg("%s: no mapping at %s", ms_backend_name(ms_maps_backend(maps)), want->kind);
		assert_same_as_fixture(want, &got, ms_backend_name(ms_maps_backend(maps)));
		if (want->name && want->name[0] == '/' && strcmp(want->kind, "deleted")) {
			struct stat st;
			unsigned dev_major, dev_minor;

			assert_int_equal(stat(want->name, &st), 0);
			assert_int_equal(got.inode, st.st_ino);
			/* The file system's device, which is stat's except on btrfs. */
			assert_int_equal(tu_mapped_dev(want->name, &dev_major, &dev_minor), 0);
			assert_int_equal(got.dev_major, dev_major);
			assert_int_equal(got.dev_minor, dev_minor);
		}
		if (!want->name) {
			assert_int_equal(got.inode, 0);
			assert_false(ms_mapping_is_file_backed(&got));
		}
		ms_mapping_reset(&got);
	}
}

static void test_known_mappings_ioctl(void **state)
{
	struct engine_ctx *c = *state;

	check_known(c, c->by_ioctl);
}

static void test_known_mappings_text(void **state)
{
	struct engine_ctx *c = *state;

	check_known(c, c->by_text);
}

static bool in_list(const struct ms_maplist *l, uint64_t start)
{
	for (size_t i = 0; i < l->count; i++)
		if (l->items[i].start == start)
			return true;
	return false;
}

static void check_filters(struct engine_ctx *c, struct ms_maps *maps)
{
	struct ms_maplist all = { 0 };
	static const unsigned bits[] = {
		MS_FILTER_READABLE, MS_FILTER_WRITABLE, MS_FILTER_EXECUTABLE,
		MS_FILTER_SHARED, MS_FILTER_FILE_BACKED,
	};

	collect(maps, 0, &all);
	for (unsigned combo = 0; combo < 32; combo++) {
		struct ms_maplist got = { 0 };
		unsigned filter = 0;
		size_t expected = 0, j = 0;

		for (unsigned b = 0; b < 5; b++)
			if (combo & (1u << b))
				filter |= bits[b];
		collect(maps, filter, &got);
		/* Exactly the unfiltered records that match, in order. */
		for (size_t i = 0; i < all.count; i++) {
			if (!ms_mapping_matches(&all.items[i], filter))
				continue;
			expected++;
			if (j >= got.count)
				fail_msg("filter 0x%x: missing mapping at %llx", filter,
					 (unsigned long long)all.items[i].start);
			assert_int_equal(got.items[j].start, all.items[i].start);
			assert_int_equal(got.items[j].end, all.items[i].end);
			j++;
		}
		assert_int_equal(got.count, expected);
		/* And the fixture's own mappings are in iff they should be. */
		for (size_t k = 0; k < c->fx.count; k++)
			if (in_list(&got, c->fx.maps[k].start) != fixture_map_matches(&c->fx.maps[k], filter))
				fail_msg("filter 0x%x (%s): fixture mapping %s wrongly %s", filter,
					 ms_backend_name(ms_maps_backend(maps)), c->fx.maps[k].kind,
					 in_list(&got, c->fx.maps[k].start) ? "included" : "left out");
		ms_maplist_free(&got);
	}
	ms_maplist_free(&all);
}

static void test_filters_ioctl(void **state)
{
	struct engine_ctx *c = *state;

	check_filters(c, c->by_ioctl);
}

static void test_filters_text(void **state)
{
	struct engine_ctx *c = *state;

	check_filters(c, c->by_text);
}

static bool is_vsyscall(const struct ms_mapping *m)
{
	return m->name && !strcmp(m->name, "[vsyscall]");
}

static void test_backends_agree(void **state)
{
	struct engine_ctx *c = *state;
	struct ms_maplist a = { 0 }, b = { 0 };
	size_t i = 0, j = 0, with_build_id = 0;
	unsigned fields = ms_maps_set_fields(c->by_ioctl, MS_FIELDS_ALL);

	collect(c->by_ioctl, 0, &a);
	collect(c->by_text, 0, &b);
	while (i < a.count || j < b.count) {
		if (j < b.count && is_vsyscall(&b.items[j])) {
			j++;
			continue;
		}
		assert_true(i < a.count && j < b.count);
		assert_false(is_vsyscall(&a.items[i]));
		assert_int_equal(a.items[i].start, b.items[j].start);
		assert_int_equal(a.items[i].end, b.items[j].end);
		assert_int_equal(a.items[i].perms, b.items[j].perms);
		assert_int_equal(a.items[i].offset, b.items[j].offset);
		assert_int_equal(a.items[i].inode, b.items[j].inode);
		assert_int_equal(a.items[i].dev_major, b.items[j].dev_major);
		assert_int_equal(a.items[i].dev_minor, b.items[j].dev_minor);
		assert_int_equal(a.items[i].page_size, b.items[j].page_size);
		assert_int_equal(a.items[i].name_len, b.items[j].name_len);
		if (a.items[i].name_len)
			assert_memory_equal(a.items[i].name, b.items[j].name, a.items[i].name_len);
		assert_int_equal(b.items[j].build_id_len, 0);
		if (a.items[i].build_id_len)
			with_build_id++;
		i++;
		j++;
	}
	/* The fixture binary and libc carry GNU build IDs; the ioctl must show them. */
	assert_true(with_build_id >= 2);
	ms_maps_set_fields(c->by_ioctl, fields);
	ms_maplist_free(&a);
	ms_maplist_free(&b);
}

static void check_window(struct engine_ctx *c, struct ms_maps *maps)
{
	struct ms_maplist all = { 0 }, win = { 0 };
	const struct fx_map *first = fixture_find(&c->fx, "file-rx");
	struct ms_error err;
	size_t idx;

	assert_non_null(first);
	collect(maps, 0, &all);
	idx = ms_maplist_lower_bound(&all, first->start);
	assert_true(idx + 3 <= all.count);
	assert_int_equal(ms_maps_window(maps, first->start, 0, 3, &win, &err), 0);
	assert_int_equal(win.count, 3);
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(win.items[k].start, all.items[idx + k].start);
		assert_int_equal(win.items[k].end, all.items[idx + k].end);
	}
	/* A window past the last mapping is empty, not an error. */
	ms_maplist_clear(&win);
	assert_int_equal(ms_maps_window(maps, UINT64_MAX, 0, 3, &win, &err), 0);
	assert_int_equal(win.count, 0);
	ms_maplist_free(&all);
	ms_maplist_free(&win);
}

static void test_window_ioctl(void **state)
{
	check_window(*state, ((struct engine_ctx *)*state)->by_ioctl);
}

static void test_window_text(void **state)
{
	check_window(*state, ((struct engine_ctx *)*state)->by_text);
}

static void check_gaps(struct engine_ctx *c, struct ms_maps *maps)
{
	const struct fx_map *guard = fixture_find(&c->fx, "guard");
	const struct fx_map *shared = fixture_find(&c->fx, "file-shared");
	struct ms_mapping m = { 0 };
	struct ms_error err;

	assert_non_null(guard);
	assert_non_null(shared);
	/* The page after file-shared is a gap: nothing covers it... */
	assert_int_equal(ms_maps_at(maps, shared->end, &m, &err), MS_END);
	/* ...and the next mapping is the guard. */
	assert_int_equal(ms_maps_next(maps, shared->end, 0, &m, &err), 0);
	assert_int_equal(m.start, guard->start);
	/* Filters apply while walking: from anon-rw, the next shared one is file-shared. */
	assert_int_equal(ms_maps_next(maps, fixture_find(&c->fx, "anon-rw")->start, MS_FILTER_SHARED, &m, &err), 0);
	assert_int_equal(m.start, shared->start);
	ms_mapping_reset(&m);
}

static void test_gaps_ioctl(void **state)
{
	check_gaps(*state, ((struct engine_ctx *)*state)->by_ioctl);
}

static void test_gaps_text(void **state)
{
	check_gaps(*state, ((struct engine_ctx *)*state)->by_text);
}

static void test_named_anon(void **state)
{
	struct engine_ctx *c = *state;
	const struct fx_map *named = fixture_find(&c->fx, "anon-named");
	struct ms_mapping m = { 0 };
	struct ms_error err;

	if (c->fx.anon_named_skipped) {
		printf("# skipped: named anonymous mapping: kernel without CONFIG_ANON_VMA_NAME (%s)\n",
		       c->fx.skip_reason);
		skip();
	}
	assert_non_null(named);
	assert_int_equal(ms_maps_at(c->by_ioctl, named->start, &m, &err), 0);
	assert_string_equal(m.name, "[anon:ms-fixture]");
	assert_false(ms_mapping_is_file_backed(&m));
	ms_mapping_reset(&m);
}

static void test_long_and_hostile_names(void **state)
{
	struct engine_ctx *c = *state;
	const char *kinds[] = { "long", "newline", "escape", "space", "deleted" };

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const struct fx_map *want = fixture_find(&c->fx, kinds[k]);
		struct ms_maps *backends[] = { c->by_ioctl, c->by_text };

		assert_non_null(want);
		for (size_t b = 0; b < 2; b++) {
			struct ms_mapping m = { 0 };
			struct ms_error err;

			assert_int_equal(ms_maps_at(backends[b], want->start, &m, &err), 0);
			assert_int_equal(m.name_len, want->name_len);
			assert_memory_equal(m.name, want->name, want->name_len);
			assert_false(m.name_truncated);
			ms_mapping_reset(&m);
		}
	}
	assert_true(fixture_find(&c->fx, "long")->name_len > 300);
}

static void test_new_mapping_appears(void **state)
{
	struct engine_ctx *c = *state;
	struct ms_maplist before = { 0 }, after = { 0 };
	const struct fx_map *extra;

	collect(c->by_ioctl, MS_FILTER_FILE_BACKED, &before);
	assert_int_equal(fixture_command(&c->fx, "mapfile appeared.dat"), 0);
	extra = &c->fx.maps[c->fx.count - 1];
	assert_string_equal(extra->kind, "extra");
	assert_false(in_list(&before, extra->start));
	collect(c->by_ioctl, MS_FILTER_FILE_BACKED, &after);
	assert_true(in_list(&after, extra->start));
	assert_int_equal(after.count, before.count + 1);
	ms_maplist_free(&before);
	ms_maplist_free(&after);
	ms_maplist_clear(&after);
	collect(c->by_text, MS_FILTER_FILE_BACKED, &after);
	assert_true(in_list(&after, extra->start));
	ms_maplist_free(&after);
}

static void test_fields_left_out(void **state)
{
	struct engine_ctx *c = *state;
	struct ms_maplist all = { 0 }, bare = { 0 };
	size_t named = 0, with_id = 0;

	/* Names by default; a build ID costs a read of the file, so only when asked. */
	assert_int_equal(ms_maps_set_fields(c->by_ioctl, MS_FIELDS_ALL), MS_FIELD_NAME);
	collect(c->by_ioctl, 0, &all);
	assert_int_equal(ms_maps_set_fields(c->by_ioctl, MS_FIELD_NAME), MS_FIELDS_ALL);
	collect(c->by_ioctl, 0, &bare);
	for (size_t i = 0; i < bare.count; i++) {
		assert_int_equal(bare.items[i].build_id_len, 0);
		assert_int_equal(bare.items[i].name_len, all.items[i].name_len);
		if (all.items[i].build_id_len)
			with_id++;
	}
	assert_true(with_id > 0);
	ms_maplist_clear(&bare);
	ms_maps_set_fields(c->by_ioctl, 0);
	collect(c->by_ioctl, 0, &bare);
	assert_int_equal(bare.count, all.count);
	for (size_t i = 0; i < bare.count; i++) {
		assert_null(bare.items[i].name);
		assert_false(bare.items[i].name_truncated);
		assert_int_equal(bare.items[i].inode, all.items[i].inode);
		assert_int_equal(bare.items[i].end, all.items[i].end);
		if (all.items[i].name_len)
			named++;
	}
	assert_true(named > 0);
	ms_maps_set_fields(c->by_ioctl, MS_FIELD_NAME);
	ms_maplist_free(&all);
	ms_maplist_free(&bare);
}

static void check_exec(enum ms_backend backend)
{
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_mapping m = { 0 };
	struct ms_error err;

	assert_int_equal(fixture_start(&fx), 0);
	assert_int_equal(ms_proc_open(fx.pid, &proc, &err), 0);
	maps = open_backend(proc, backend);
	assert_int_equal(ms_maps_next(maps, 0, 0, &m, &err), 0);
	assert_int_equal(fixture_exec(&fx), 0);
	assert_int_equal(ms_maps_next(maps, 0, 0, &m, &err), MS_ERR_EXECED);
	assert_int_equal(err.code, MS_ERR_EXECED);
	assert_int_equal(ms_maps_reopen(maps, &err), 0);
	/* The new image's mappings, not the old ones. */
	assert_int_equal(ms_maps_at(maps, fixture_find(&fx, "file-rx")->start, &m, &err), 0);
	assert_int_equal(m.offset, fixture_find(&fx, "file-rx")->offset);
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
	fixture_stop(&fx);
}

static void test_exec_ioctl(void **state)
{
	(void)state;
	check_exec(MS_BACKEND_IOCTL);
}

static void test_exec_text(void **state)
{
	(void)state;
	check_exec(MS_BACKEND_TEXT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_mappings_ioctl),
		cmocka_unit_test(test_known_mappings_text),
		cmocka_unit_test(test_filters_ioctl),
		cmocka_unit_test(test_filters_text),
		cmocka_unit_test(test_backends_agree),
		cmocka_unit_test(test_window_ioctl),
		cmocka_unit_test(test_window_text),
		cmocka_unit_test(test_gaps_ioctl),
		cmocka_unit_test(test_gaps_text),
		cmocka_unit_test(test_named_anon),
		cmocka_unit_test(test_long_and_hostile_names),
		cmocka_unit_test(test_new_mapping_appears),
		cmocka_unit_test(test_fields_left_out),
	};
	const struct CMUnitTest exec_tests[] = {
		cmocka_unit_test(test_exec_ioctl),
		cmocka_unit_test(test_exec_text),
	};
	int failed = cmocka_run_group_tests_name("engine", tests, setup, teardown);

	return failed + cmocka_run_group_tests_name("exec", exec_tests, NULL, NULL);
}
