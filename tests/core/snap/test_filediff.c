/*
 * ms_snapshot_diff_files: which files two snapshots map and what changed
 * about each (another file, build ID, package, version, deleted), on
 * snapshots written as /proc/PID/maps text with packages set by hand.
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

#include "maps/maps_parse.h"
#include "snap/filediff.h"

/* A snapshot of the lines; each file line may say its package as "@NAME=VERSION". */
static void snap_of(struct ms_snapshot *snap, const char *boot, const char *const *lines)
{
	size_t n = 0;

	memset(snap, 0, sizeof(*snap));
	snprintf(snap->hdr.boot_id, sizeof(snap->hdr.boot_id), "%s", boot);
	while (lines[n])
		n++;
	snap->pkgs = calloc(n + 1, sizeof(*snap->pkgs));
	assert_non_null(snap->pkgs);
	for (size_t i = 0; i < n; i++) {
		char line[256], *at;
		struct ms_mapping m = { 0 };

		snprintf(line, sizeof(line), "%s", lines[i]);
		at = strchr(line, '@');
		if (at) {
			char *eq = strchr(at, '=');

			*eq = '\0';
			snprintf(snap->pkgs[i].name, sizeof(snap->pkgs[i].name), "%s", at + 1);
			snprintf(snap->pkgs[i].version, sizeof(snap->pkgs[i].version), "%s", eq + 1);
			snap->pkgs[i].found = true;
			at[-1] = '\0';
		}
		assert_int_equal(ms_maps_parse_line(line, strlen(line), &m), 0);
		assert_int_equal(ms_maplist_push(&snap->maps, &m), 0);
	}
}

struct rows {
	char path[8][64];
	enum ms_diff_kind kind[8];
	unsigned changed[8];
	size_t mappings[8];
	size_t n;
};

static int collect(void *ctx, const struct ms_filediff_entry *e)
{
	struct rows *r = ctx;

	assert_true(r->n < 8);
	snprintf(r->path[r->n], sizeof(r->path[0]), "%.*s", (int)e->path_len, e->path);
	r->kind[r->n] = e->kind;
	r->changed[r->n] = e->changed;
	r->mappings[r->n] = (e->new_side.map ? &e->new_side : &e->old_side)->mappings;
	r->n++;
	return 0;
}

static const char *const before[] = {
	"55d0c0000000-55d0c0002000 r--p 00000000 fd:01 100 /usr/bin/prog @prog=1.0",
	"55d0c0002000-55d0c0005000 r-xp 00002000 fd:01 100 /usr/bin/prog @prog=1.0",
	"55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0 [heap]",
	"7f1000000000-7f1000026000 r--p 00000000 fd:01 200 /usr/lib/libssl.so.3 @libssl3=3.0.19-1",
	"7f2000000000-7f2000001000 r--p 00000000 fd:01 300 /usr/lib/libz.so.1 @zlib1g=1.2.13",
	"7f3000000000-7f3000001000 r--p 00000000 fd:01 400 /opt/tool.so",
	"7f4000000000-7f4000001000 r--p 00000000 fd:01 500 /usr/lib/libgone.so @gone=1",
	NULL,
};

/* After an upgrade of libssl3, a rebuilt /opt/tool.so, libz deleted, libgone closed, libnew opened. */
static const char *const after[] = {
	"5612a0000000-5612a0002000 r--p 00000000 fd:01 100 /usr/bin/prog @prog=1.0",
	"5612a0002000-5612a0005000 r-xp 00002000 fd:01 100 /usr/bin/prog @prog=1.0",
	"7f1100000000-7f1100026000 r--p 00000000 fd:01 201 /usr/lib/libssl.so.3 @libssl3=3.0.22-1",
	"7f2100000000-7f2100001000 r--p 00000000 fd:01 300 /usr/lib/libz.so.1 (deleted) @zlib1g=",
	"7f3100000000-7f3100001000 r--p 00000000 fd:01 400 /opt/tool.so",
	"7f5000000000-7f5000001000 r--p 00000000 fd:01 600 /usr/lib/libnew.so @new=2",
	NULL,
};

static void test_upgrade(void **state)
{
	struct ms_snapshot a, b;
	struct ms_diff_summary sum;
	struct rows r = { 0 };

	(void)state;
	snap_of(&a, "boot-1", before);
	snap_of(&b, "boot-1", after);
	a.maps.items[5].build_id_len = b.maps.items[4].build_id_len = 20;
	b.maps.items[4].build_id[19] = 7;
	assert_int_equal(ms_snapshot_diff_files(&a, &b, collect, &r, &sum), 0);
	assert_int_equal(r.n, 5);
	/* In the byte order of the paths. */
	assert_string_equal(r.path[0], "/opt/tool.so");
	assert_int_equal(r.changed[0], MS_FILEDIFF_F_BUILDID);
	assert_string_equal(r.path[1], "/usr/lib/libgone.so");
	assert_int_equal(r.kind[1], MS_DIFF_REMOVED);
	assert_string_equal(r.path[2], "/usr/lib/libnew.so");
	assert_int_equal(r.kind[2], MS_DIFF_ADDED);
	assert_string_equal(r.path[3], "/usr/lib/libssl.so.3");
	assert_int_equal(r.changed[3], MS_FILEDIFF_F_FILE | MS_FILEDIFF_F_VERSION);
	/* The deleted copy's version is unknown: not a version change. */
	assert_string_equal(r.path[4], "/usr/lib/libz.so.1");
	assert_int_equal(r.changed[4], MS_FILEDIFF_F_DELETED);
	assert_int_equal(sum.added, 1);
	assert_int_equal(sum.removed, 1);
	assert_int_equal(sum.changed, 3);
	/* /usr/bin/prog: two mappings, one file, moved and the same. */
	assert_int_equal(sum.unchanged, 1);

	/* Two machines: inode numbers say nothing, versions still do. */
	snprintf(b.hdr.boot_id, sizeof(b.hdr.boot_id), "boot-2");
	memset(&r, 0, sizeof(r));
	assert_int_equal(ms_snapshot_diff_files(&a, &b, collect, &r, &sum), 0);
	assert_int_equal(r.changed[3], MS_FILEDIFF_F_VERSION);

	/* A side that did not look packages up compares none. */
	free(a.pkgs);
	a.pkgs = NULL;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ms_snapshot_diff_files(&a, &b, collect, &r, &sum), 0);
	assert_int_equal(r.n, 4);
	for (size_t i = 0; i < r.n; i++)
		assert_string_not_equal(r.path[i], "/usr/lib/libssl.so.3");
	ms_snapshot_free(&a);
	ms_snapshot_free(&b);
}

/* One path mapped at two places is one file, however far apart its mappings. */
static void test_one_file_many_mappings(void **state)
{
	static const char *const one[] = {
		"10000-11000 r--p 00000000 fd:01 9 /lib/x.so @x=1",
		"20000-21000 r--p 00000000 fd:01 8 /lib/y.so @y=1",
		"30000-31000 r--p 00001000 fd:01 9 /lib/x.so @x=1",
		NULL,
	};
	static const char *const other[] = {
		"40000-41000 r--p 00000000 fd:01 9 /lib/x.so @x=1",
		NULL,
	};
	struct ms_snapshot a, b;
	struct ms_diff_summary sum;
	struct rows r = { 0 };

	(void)state;
	snap_of(&a, "", one);
	snap_of(&b, "", other);
	assert_int_equal(ms_snapshot_diff_files(&a, &b, collect, &r, &sum), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.path[0], "/lib/y.so");
	assert_int_equal(r.kind[0], MS_DIFF_REMOVED);
	assert_int_equal(sum.unchanged, 1);
	memset(&r, 0, sizeof(r));
	assert_int_equal(ms_snapshot_diff_files(&b, &a, collect, &r, &sum), 0);
	assert_int_equal(r.kind[0], MS_DIFF_ADDED);
	ms_snapshot_free(&a);
	ms_snapshot_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upgrade),
		cmocka_unit_test(test_one_file_many_mappings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
