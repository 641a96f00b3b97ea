/*
 * Snapshots: what is written reads back equal to the live listing of the
 * fixture, names survive byte for byte, edge values survive, two snapshots
 * around a mapfile and an unmap differ by exactly those, and malformed files
 * give a positioned error instead of a crash.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/maps/mapdiff.h"
#include "core/maps/maps.h"
#include "core/snap/snapshot.h"
#include "snapfix.h"

static void assert_same_mapping(const struct ms_mapping *a, const struct ms_mapping *b)
{
	assert_int_equal(a->start, b->start);
	assert_int_equal(a->end, b->end);
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->page_size, b->page_size);
	assert_int_equal(a->inode, b->inode);
	assert_int_equal(a->dev_major, b->dev_major);
	assert_int_equal(a->dev_minor, b->dev_minor);
	assert_int_equal(a->perms, b->perms);
	assert_int_equal(a->name_truncated, b->name_truncated);
	assert_int_equal(a->name_len, b->name_len);
	if (a->name_len)
		assert_memory_equal(a->name, b->name, a->name_len);
	else
		assert_null(b->name);
	assert_int_equal(a->build_id_len, b->build_id_len);
	assert_memory_equal(a->build_id, b->build_id, a->build_id_len);
}

static void open_fixture(struct snapfix_env *e, enum ms_backend backend, struct ms_proc **proc,
			 struct ms_maps **maps)
{
	struct ms_maps_opts mo = { .backend = backend, .ioctl_fn = NULL };
	struct ms_error err;

	assert_int_equal(ms_proc_open(e->fx.pid, proc, &err), 0);
	assert_int_equal(ms_maps_open(*proc, &mo, maps, &err), 0);
}

static void readback(void **state, enum ms_backend backend)
{
	struct snapfix_env *e = *state;
	struct ms_maplist live = { 0 };
	struct ms_snapshot snap;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	char *path = tu_join(e->dir, "snap.json");
	char exe[PATH_MAX];
	ssize_t n;
	bool created = false;

	open_fixture(e, backend, &proc, &maps);
	assert_int_equal(ms_snapshot_save(maps, path, NULL, &created, &err), 0);
	assert_true(created);
	ms_maps_set_fields(maps, MS_FIELDS_ALL);
	assert_int_equal(ms_maps_collect(maps, 0, &live, &err), 0);
	assert_int_equal(ms_snapshot_load(path, &snap, &err), 0);

	assert_int_equal(snap.hdr.pid, e->fx.pid);
	assert_int_equal(snap.hdr.start_time, ms_proc_stat_at_open(proc)->start_time);
	assert_int_equal(snap.hdr.backend, ms_maps_backend(maps));
	assert_int_equal(snap.hdr.backend, backend);
	assert_true(snap.hdr.kernel[0] != '\0');
	assert_true(strlen(snap.hdr.time) >= 20);
	/* cmdline: "ms-fixture\0DIR\0", NULs and all. */
	{
		const char *bin = "ms-fixture";
		size_t want = strlen(bin) + 1 + strlen(e->dir) + 1;

		assert_int_equal(snap.hdr.cmdline_len, want);
		assert_memory_equal(snap.hdr.cmdline, bin, strlen(bin) + 1);
		assert_memory_equal(snap.hdr.cmdline + strlen(bin) + 1, e->dir, strlen(e->dir) + 1);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe));
	assert_true(n > 0);
	assert_non_null(snap.hdr.exe);
	assert_non_null(strstr(snap.hdr.exe, "ms-fixture"));

	assert_int_equal(snap.maps.count, live.count);
	assert_true(live.count > e->fx.count);
	for (size_t i = 0; i < live.count; i++)
		assert_same_mapping(&live.items[i], &snap.maps.items[i]);

	ms_snapshot_free(&snap);
	ms_maplist_free(&live);
	ms_maps_close(maps);
	ms_proc_close(proc);
	free(path);
}

static void test_readback_ioctl(void **state)
{
	readback(state, MS_BACKEND_IOCTL);
}

static void test_readback_text(void **state)
{
	readback(state, MS_BACKEND_TEXT);
}

/* Every fixture mapping, odd names included, is in the file byte for byte. */
static void test_names_lossless(void **state)
{
	struct snapfix_env *e = *state;
	char *path = tu_join(e->dir, "names.json");
	struct ms_snapshot snap;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	size_t checked = 0;

	open_fixture(e, MS_BACKEND_AUTO, &proc, &maps);
	assert_int_equal(ms_snapshot_save(maps, path, NULL, NULL, &err), 0);
	assert_int_equal(ms_snapshot_load(path, &snap, &err), 0);
	for (size_t i = 0; i < e->fx.count; i++) {
		const struct fx_map *fm = &e->fx.maps[i];
		size_t k = ms_maplist_lower_bound(&snap.maps, fm->start);

		assert_true(k < snap.maps.count);
		assert_int_equal(snap.maps.items[k].start, fm->start);
		assert_int_equal(snap.maps.items[k].end, fm->end);
		assert_int_equal(snap.maps.items[k].offset, fm->offset);
		assert_int_equal(snap.maps.items[k].name_len, fm->name_len);
		if (fm->name_len)
			assert_memory_equal(snap.maps.items[k].name, fm->name, fm->name_len);
		checked++;
	}
	assert_non_null(fixture_find(&e->fx, "newline"));
	assert_non_null(fixture_find(&e->fx, "escape"));
	assert_true(checked >= 10);
	{
		/* The raw escape byte never reaches the file. */
		char *text = tu_slurp(path, NULL);

		assert_non_null(text);
		assert_null(strchr(text, '\x1b'));
		assert_non_null(strstr(text, "\\\\x1b[31mred"));
		free(text);
	}
	ms_snapshot_free(&snap);
	ms_maps_close(maps);
	ms_proc_close(proc);
	free(path);
}

/* Values the fixture cannot produce: top addresses, huge inodes, NULs, bad UTF-8. */
static void test_edge_values_roundtrip(void **state)
{
	static const char name1[] = "a\0b\\c\xff\xfe\n\xe2\x80\xae(deleted)";
	struct ms_snapshot in = { 0 }, out;
	struct ms_mapping m = { 0 };
	struct ms_error err;
	char *text;
	size_t len;

	(void)state;
	in.hdr.pid = 42;
	in.hdr.start_time = 123456789ULL;
	in.hdr.backend = MS_BACKEND_TEXT;
	strcpy(in.hdr.time, "2026-01-02T03:04:05.000000006Z");
	strcpy(in.hdr.kernel, "6.18.0-test");
	in.hdr.cmdline = malloc(5);
	memcpy(in.hdr.cmdline, "x\0\x1b\0", 5);
	in.hdr.cmdline_len = 5;
	in.hdr.cmdline_truncated = true;

	m.start = 0x1000;
	m.end = 0x3000;
	m.perms = MS_PERM_READ | MS_PERM_SHARED;
	m.offset = 0xfffffffffffff000ULL;
	m.inode = 0xffffffffffffffffULL;
	m.dev_major = 4095;
	m.dev_minor = 1048575;
	m.page_size = 2 * 1024 * 1024;
	m.build_id_len = MS_BUILD_ID_MAX;
	for (int i = 0; i < MS_BUILD_ID_MAX; i++)
		m.build_id[i] = (unsigned char)(0xf0 + i);
	assert_int_equal(ms_mapping_set_name(&m, name1, sizeof(name1) - 1), 0);
	assert_int_equal(ms_maplist_push(&in.maps, &m), 0);
	memset(&m, 0, sizeof(m));
	m.start = 0xffffffffff600000ULL;
	m.end = 0xffffffffff601000ULL;
	m.perms = MS_PERM_EXEC;
	m.name_truncated = true;
	assert_int_equal(ms_maplist_push(&in.maps, &m), 0);

	assert_int_equal(ms_snapshot_dump(&in, &text, &len, &err), 0);
	assert_int_equal(text[len - 1], '\n');
	assert_int_equal(ms_snapshot_parse(text, len, "mem", &out, &err), 0);
	assert_int_equal(out.hdr.pid, 42);
	assert_int_equal(out.hdr.start_time, 123456789ULL);
	assert_int_equal(out.hdr.backend, MS_BACKEND_TEXT);
	assert_string_equal(out.hdr.time, in.hdr.time);
	assert_string_equal(out.hdr.kernel, in.hdr.kernel);
	assert_int_equal(out.hdr.cmdline_len, 5);
	assert_memory_equal(out.hdr.cmdline, in.hdr.cmdline, 5);
	assert_true(out.hdr.cmdline_truncated);
	assert_null(out.hdr.exe);
	assert_int_equal(out.maps.count, 2);
	for (size_t i = 0; i < 2; i++)
		assert_same_mapping(&in.maps.items[i], &out.maps.items[i]);
	free(text);
	ms_snapshot_free(&in);
	ms_snapshot_free(&out);
}

struct bad_doc {
	const char *text;
	const char *want; /* a substring of the message */
};

static void test_malformed(void **state)
{
	static const char head[] = "{\"mapscope\": \"snapshot\", \"version\": 1, "
				   "\"header\": {\"pid\": 7}, \"mappings\": [";
	static const struct bad_doc docs[] = {
		{ "", "bad.json:1:0: not valid JSON" },
		{ "{\n  \"mapscope\": \"snapshot\",\n  \"version\": 1,\n  \"header\": {\n", "bad.json:5:" },
		{ "{\"mapscope\": \"snapshot\",\n \"version\": 1,,}", "bad.json:2:15: not valid JSON" },
		{ "\x7f\x45\x4c\x46\x02\x01", "bad.json:1:1: not valid JSON" },
		{ "[1, 2, 3]", "not a mapscope snapshot" },
		{ "{\"mapscope\": \"recording\", \"version\": 1}", "not a mapscope snapshot" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 99}", "unknown version" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 1, \"mappings\": []}", "\"header\" must be an object" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 1, \"header\": {\"pid\": -1}, \"mappings\": []}", "\"pid\" must be" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 1, \"header\": {\"pid\": 7}}", "\"mappings\" must be an array" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 1, \"mapscope\": \"snapshot\"}", "duplicate" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 2, \"header\": {\"pid\": 7}, \"packages\": {\"source\": \"dpkg\"}, \"mappings\": []}", "\"packages\" needs version 3" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 3, \"header\": {\"pid\": 7}, \"packages\": 5, \"mappings\": []}", "\"packages\" must be an object" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 3, \"header\": {\"pid\": 7}, \"packages\": {}, \"mappings\": [{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"package\": \"libc6\", \"package_version\": \"1\", \"package_source\": \"cargo\"}]}", "\"package_source\" must be dpkg, rpm, python or npm" },
		/* Found by fuzz-snapshot: the name read before a bad package leaked. */
		{ "{\"mapscope\": \"snapshot\", \"version\": 3, \"header\": {\"pid\": 7}, \"packages\": {}, \"mappings\": [{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"name\": \"/usr/lib/x.so\", \"package\": \"x\", \"package_version\": \"1 2\", \"package_source\": \"dpkg\"}]}", "mapping 1: \"package_version\" must be" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 3, \"header\": {\"pid\": 7, \"boot_id\": \"x\\u001b\"}, \"mappings\": []}", "\"boot_id\" must be" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 3, \"header\": {\"pid\": 7}, \"packages\": {\"source\": \"dpkg\"}, \"mappings\": [{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"package\": \"libc6\\u001b[2J\", \"package_version\": \"1\"}]}", "mapping 1: \"package\" must be" },
		{ "{\"mapscope\": \"snapshot\", \"version\": 3, \"header\": {\"pid\": 7}, \"packages\": {\"source\": \"dpkg\"}, \"mappings\": [{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"package\": \"libc6\"}]}", "mapping 1: \"package_version\" must be" },
	};
	static const struct bad_doc maps[] = {
		{ "1]}", "mapping 1 is not an object" },
		{ "{\"start\": \"1000\", \"end\": \"2000\"}]}", "mapping 1: \"perms\"" },
		{ "{\"start\": \"xyz\", \"end\": \"2000\", \"perms\": \"r--p\"}]}", "mapping 1: \"start\" must be a hex string" },
		{ "{\"start\": 4096, \"end\": \"2000\", \"perms\": \"r--p\"}]}", "\"start\" must be a hex string" },
		{ "{\"start\": \"10000000000000000\", \"end\": \"2000\", \"perms\": \"r--p\"}]}", "\"start\" must be a hex string" },
		{ "{\"start\": \"2000\", \"end\": \"1000\", \"perms\": \"r--p\"}]}", "\"end\" must be above" },
		{ "{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"rwxq\"}]}", "\"perms\"" },
		{ "{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"name\": \"bad\\\\q\"}]}", "\"name\" must be text as mapscope escapes it" },
		{ "{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"name\": 5}]}", "\"name\" must be a string or null" },
		{ "{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"inode\": -3}]}", "\"inode\" must be a non-negative integer" },
		{ "{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"build_id\": \"abc\"}]}", "\"build_id\"" },
		{ "{\"start\": \"1000\", \"end\": \"2000\", \"perms\": \"r--p\", \"dev_major\": 99999999999}]}", "32-bit device" },
		{ "{\"start\": \"1000\", \"end\": \"3000\", \"perms\": \"r--p\"}, {\"start\": \"2000\", \"end\": \"4000\", \"perms\": \"r--p\"}]}", "mapping 2: out of address order" },
	};
	struct ms_snapshot snap;
	struct ms_error err;
	char buf[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_true(ms_snapshot_parse(docs[i].text, strlen(docs[i].text), "bad.json", &snap, &err) < 0);
		assert_int_equal(err.code, MS_ERR_INVAL);
		if (!strstr(err.msg, docs[i].want))
			fail_msg("doc %zu: \"%s\" lacks \"%s\"", i, err.msg, docs[i].want);
		assert_int_equal(snap.maps.count, 0);
	}
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", head, maps[i].text);
		memset(&err, 0, sizeof(err));
		assert_true(ms_snapshot_parse(buf, strlen(buf), "bad.json", &snap, &err) < 0);
		if (!strstr(err.msg, maps[i].want))
			fail_msg("mapping doc %zu: \"%s\" lacks \"%s\"", i, err.msg, maps[i].want);
	}
	/* Deep nesting ends in an error, not a stack overflow. */
	{
		size_t depth = 100000;
		char *deep = malloc(2 * depth + 1);

		memset(deep, '[', depth);
		memset(deep + depth, ']', depth);
		deep[2 * depth] = '\0';
		assert_true(ms_snapshot_parse(deep, 2 * depth, "deep.json", &snap, &err) < 0);
		assert_non_null(strstr(err.msg, "deep.json:1:"));
		free(deep);
	}
	/* A missing file names itself. */
	assert_true(ms_snapshot_load("/nonexistent/snap.json", &snap, &err) < 0);
	assert_non_null(strstr(err.msg, "/nonexistent/snap.json: cannot read"));
}

static void save_now(struct snapfix_env *e, const char *name, struct ms_snapshot *snap)
{
	char *path = tu_join(e->dir, name);
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;

	open_fixture(e, MS_BACKEND_AUTO, &proc, &maps);
	assert_int_equal(ms_snapshot_save(maps, path, NULL, NULL, &err), 0);
	assert_int_equal(ms_snapshot_load(path, snap, &err), 0);
	ms_maps_close(maps);
	ms_proc_close(proc);
	free(path);
}

struct seen {
	struct ms_diff_entry e[8];
	uint64_t start[8];
	size_t n;
};

static int collect(void *ctx, const struct ms_diff_entry *entry)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		s->e[s->n] = *entry;
		s->start[s->n] = (entry->new_map ? entry->new_map : entry->old_map)->start;
	}
	s->n++;
	return 0;
}

static void test_diff_two_snapshots(void **state)
{
	struct snapfix_env *e = *state;
	struct ms_snapshot before, after;
	struct ms_diff_summary sum;
	const struct fx_map *gone = fixture_find(&e->fx, "file-rx");
	const struct fx_map *added;
	struct seen seen = { 0 };
	char cmd[64];

	assert_non_null(gone);
	save_now(e, "before.json", &before);
	assert_int_equal(fixture_command(&e->fx, "mapfile added.dat"), 0);
	snprintf(cmd, sizeof(cmd), "unmap %lx", (unsigned long)gone->start);
	assert_int_equal(fixture_command(&e->fx, cmd), 0);
	added = fixture_find(&e->fx, "extra");
	assert_non_null(added);
	save_now(e, "after.json", &after);

	assert_int_equal(ms_maplist_diff(&before.maps, &after.maps, collect, &seen, &sum), 0);
	assert_int_equal(sum.added, 1);
	assert_int_equal(sum.removed, 1);
	assert_int_equal(sum.changed, 0);
	assert_int_equal(sum.unchanged, before.maps.count - 1);
	assert_int_equal(seen.n, 2);
	for (size_t i = 0; i < 2; i++) {
		if (seen.e[i].kind == MS_DIFF_ADDED) {
			assert_int_equal(seen.start[i], added->start);
			assert_int_equal(seen.e[i].new_map->name_len, added->name_len);
			assert_memory_equal(seen.e[i].new_map->name, added->name, added->name_len);
		} else {
			assert_int_equal(seen.e[i].kind, MS_DIFF_REMOVED);
			assert_int_equal(seen.start[i], gone->start);
			assert_int_equal(seen.e[i].old_map->end, gone->end);
		}
	}
	ms_snapshot_free(&before);
	ms_snapshot_free(&after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_readback_ioctl, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_readback_text, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_names_lossless, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test(test_edge_values_roundtrip),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test_setup_teardown(test_diff_two_snapshots, snapfix_env_setup, snapfix_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
