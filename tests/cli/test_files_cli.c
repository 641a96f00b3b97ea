/*
 * `mapscope list PID --by-file` against the core grouping (filemap.h): in
 * -J and in -r, every row the core makes is printed once with its kind,
 * mapping count, size, permission union and inode; the fixture's file
 * mapped twice is one row of two; libc shows its SONAME and version, and
 * its package.
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
#include <jansson.h>

#include "core/files/filemap.h"
#include "core/maps/maps.h"
#include "fixture_client.h"
#include "snapfix.h"

struct ctx {
	struct fixture fx;
	struct ms_maplist list;
	struct ms_filemap fm;
	char pid[16];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;

	assert_non_null(c);
	assert_int_equal(fixture_start(&c->fx), 0);
	assert_int_equal(fixture_command(&c->fx, "mapfile twice.dat"), 0);
	assert_int_equal(fixture_command(&c->fx, "mapfile twice.dat"), 0);
	snprintf(c->pid, sizeof(c->pid), "%d", (int)c->fx.pid);
	if (ms_proc_open(c->fx.pid, &proc, &err) < 0 || ms_maps_open(proc, NULL, &maps, &err) < 0 ||
	    ms_maps_collect(maps, 0, &c->list, &err) < 0 ||
	    ms_filemap_build(&c->fm, &c->list, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	ms_maps_close(maps);
	ms_proc_close(proc);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	ms_filemap_free(&c->fm);
	ms_maplist_free(&c->list);
	fixture_stop(&c->fx);
	free(c);
	return 0;
}

static const struct ms_filerow *row_at(const struct ms_filemap *fm, uint64_t start)
{
	for (size_t i = 0; i < fm->count; i++)
		if (fm->rows[i].first_addr == start)
			return &fm->rows[i];
	fail_msg("no core row starts at %" PRIx64, start);
	abort(); /* not reached */
}

static void test_json_matches_core(void **state)
{
	struct ctx *c = *state;
	char *out = NULL, *want, perms[MS_PERMSETS_MAX];
	json_error_t jerr;
	json_t *root, *files, *f;
	size_t i, twice = 0;
	bool libc = false;

	assert_int_equal(msrun_capture((const char *const[]){ "list", c->pid, "--by-file", "-J", "-o",
			 "START,KIND,MAPS,SIZE,PERMS,INODE,SONAME,LIBVER,FILEVER,NAME", NULL }, NULL, &out, NULL), 0);
	root = json_loads(out, 0, &jerr);
	if (!root)
		fail_msg("not JSON: %s", jerr.text);
	free(out);
	files = json_object_get(root, "files");
	assert_true(json_is_array(files));
	/* The fixture waits idle for commands: its map does not change between the two reads. */
	assert_int_equal(json_array_size(files), c->fm.count);
	json_array_foreach(files, i, f) {
		const struct ms_filerow *r = row_at(&c->fm, strtoull(json_string_value(json_object_get(f, "start")), NULL, 16));
		const char *name = json_string_value(json_object_get(f, "name"));

		assert_string_equal(json_string_value(json_object_get(f, "kind")), ms_filekind_name(r->kind));
		assert_int_equal(json_integer_value(json_object_get(f, "maps")), r->mappings);
		assert_int_equal(json_integer_value(json_object_get(f, "size")), r->size);
		assert_int_equal(json_integer_value(json_object_get(f, "inode")), r->inode);
		ms_permsets_format(r->perm_sets, perms, sizeof(perms));
		assert_string_equal(json_string_value(json_object_get(f, "perms")), perms);
		if (strstr(name, "/twice.dat")) {
			assert_int_equal(r->mappings, 2);
			twice++;
		}
		if (strstr(name, "/libc.so.6")) {
			assert_string_equal(json_string_value(json_object_get(f, "soname")), "libc.so.6");
			assert_string_equal(json_string_value(json_object_get(f, "filever")), "6");
			/* The library's own version: what readelf -V lists highest, not the name's 6. */
			want = tu_readelf_highest(name, "GLIBC");
			if (want)
				assert_string_equal(json_string_value(json_object_get(f, "libver")), want);
			else
				assert_true(json_is_string(json_object_get(f, "libver")));
			free(want);
			libc = true;
		}
	}
	assert_int_equal(twice, 1);
	assert_true(libc);
	json_decref(root);
}

static void test_raw_matches_core(void **state)
{
	struct ctx *c = *state;
	char *out = NULL, *line, *save = NULL, perms[MS_PERMSETS_MAX];
	size_t lines = 0, mappings = 0;

	assert_int_equal(msrun_capture((const char *const[]){ "list", c->pid, "--by-file", "-r", "-n", "-b",
			 "-o", "START,MAPS,SIZE,PERMS", NULL }, NULL, &out, NULL), 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t start, size;
		size_t maps;
		char p[MS_PERMSETS_MAX];
		const struct ms_filerow *r;

		assert_int_equal(sscanf(line, "%" SCNx64 " %zu %" SCNu64 " %99s", &start, &maps, &size, p), 4);
		r = row_at(&c->fm, start);
		assert_int_equal(maps, r->mappings);
		assert_int_equal(size, r->size);
		ms_permsets_format(r->perm_sets, perms, sizeof(perms));
		assert_string_equal(p, perms);
		mappings += maps;
		lines++;
	}
	assert_int_equal(lines, c->fm.count);
	assert_int_equal(mappings, c->list.count);
	free(out);
}

/*
 * PACKAGE: libc is libc6's, the fixture's own program (in the build tree)
 * and its data file are not packaged, anonymous memory asks nothing.
 * Without a dpkg database every cell is empty.
 */
static void test_package_column(void **state)
{
	struct ctx *c = *state;
	bool dpkg = access("/var/lib/dpkg/info", F_OK) == 0, libc = false, exe = false;
	char *out = NULL;
	json_error_t jerr;
	json_t *root, *files, *f;
	size_t i, anon = 0;

	assert_int_equal(msrun_capture((const char *const[]){ "list", c->pid, "--by-file", "-J", "-o",
			 "KIND,NAME,PACKAGE", NULL }, NULL, &out, NULL), 0);
	root = json_loads(out, 0, &jerr);
	if (!root)
		fail_msg("not JSON: %s", jerr.text);
	free(out);
	files = json_object_get(root, "files");
	json_array_foreach(files, i, f) {
		const char *name = json_string_value(json_object_get(f, "name"));
		const char *kind = json_string_value(json_object_get(f, "kind"));
		json_t *pkg = json_object_get(f, "package");

		if (strcmp(kind, "file") || !dpkg) {
			assert_true(json_is_null(pkg));
			anon += !strcmp(kind, "file") ? 0 : 1;
			continue;
		}
		assert_true(json_is_string(pkg));
		if (strstr(name, "/libc.so.6")) {
			assert_string_equal(json_string_value(pkg), "libc6");
			libc = true;
		}
		if (strstr(name, "/ms-fixture") || strstr(name, "/twice.dat")) {
			assert_string_equal(json_string_value(pkg), "not packaged");
			exe |= strstr(name, "/ms-fixture") != NULL;
		}
	}
	assert_true(anon > 0);
	assert_int_equal(libc, dpkg);
	assert_int_equal(exe, dpkg);
	json_decref(root);
}

static void test_help_lists_columns(void **state)
{
	char *out = NULL;

	(void)state;
	assert_int_equal(msrun_capture((const char *const[]){ "list", "--help", NULL }, NULL, &out, NULL), 0);
	assert_non_null(strstr(out, "--by-file"));
	assert_non_null(strstr(out, "SONAME"));
	assert_non_null(strstr(out, "FILEVER"));
	assert_non_null(strstr(out, "LIBVER"));
	assert_non_null(strstr(out, "PACKAGE"));
	free(out);
	assert_int_equal(msrun_capture((const char *const[]){ "list", "1", "--by-file", "-o", "NOPE", NULL },
				     NULL, NULL, NULL), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_matches_core),
		cmocka_unit_test(test_raw_matches_core),
		cmocka_unit_test(test_package_column),
		cmocka_unit_test(test_help_lists_columns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
