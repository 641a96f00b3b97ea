/*
 * The package note read with the SONAME (fileinfo.h, info.no_pkgnote).
 * This process maps two libraries linked here, one with a package note
 * (ld --package-metadata) and one without, and describes itself:
 *   - with SONAME and PACKAGE, the file without a note says no_pkgnote, so
 *     the note source is not sent to it again, and nobody packages it;
 *     the noted one does not, and keeps its note's answer (source NOTE);
 *   - with PACKAGE alone, no file is read for a SONAME, no_pkgnote stays
 *     false everywhere, and the note answers as before;
 *   - the package lookup heeds it (filepkg.h): told no_pkgnote for the
 *     noted file, it does not read the note there.
 * A linker without --package-metadata, or no cc: the test skips, and says
 * so.
 */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/files/fileinfo.h"
#include "core/files/filepkg.h"
#include "core/files/filemap.h"
#include "core/maps/maps.h"
#include "notelib.h"
#include "testutil.h"

/* path mapped read-only, its first page, for the life of the test. */
static void map_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_true(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED);
	close(fd);
}

/* The row whose inode is path's. */
static const struct ms_filerow *row_at(const struct ms_filemap *fm, const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	for (size_t i = 0; i < fm->count; i++)
		if (fm->rows[i].kind == MS_FILEKIND_FILE && fm->rows[i].inode == (uint64_t)st.st_ino)
			return &fm->rows[i];
	fail_msg("no row maps %s", path);
	abort(); /* not reached */
}

/* Our own files described with what; the two rows checked. */
static void describe_self(unsigned what, const char *noted, const char *plain)
{
	struct ms_maps_opts opts = { .backend = MS_BACKEND_AUTO };
	struct ms_fileinfo_ctx *ctx = NULL;
	struct ms_maplist list = { 0 };
	struct ms_filemap fm = { 0 };
	const struct ms_filerow *n, *p;
	struct ms_maps *maps = NULL;
	struct ms_proc *proc = NULL;
	struct ms_error err;

	assert_int_equal(ms_proc_open(getpid(), &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &opts, &maps, &err), 0);
	assert_int_equal(ms_maps_collect(maps, 0, &list, &err), 0);
	assert_int_equal(ms_filemap_build(&fm, &list, NULL, &err), 0);
	assert_int_equal(ms_fileinfo_ctx_new(NULL, proc, maps, &ctx, &err), 0);
	assert_int_equal(ms_fileinfo_describe(ctx, &fm, &list, 0, fm.count, what, &err), 0);
	n = row_at(&fm, noted);
	p = row_at(&fm, plain);
	assert_true(n->info.pkg_known);
	assert_true(n->info.pkg.found);
	assert_int_equal(n->info.pkg.source, MS_PKG_SOURCE_NOTE);
	assert_string_equal(n->info.pkg.name, "ms-noted");
	assert_string_equal(n->info.pkg.version, "7.1-2");
	assert_false(n->info.no_pkgnote);
	assert_true(p->info.pkg_known);
	assert_false(p->info.pkg.found);
	assert_true(p->info.no_pkgnote == ((what & MS_FILEINFO_SONAME) != 0));
	if (what & MS_FILEINFO_SONAME) {
		assert_int_equal(p->info.soname_rc, MS_END);
		assert_int_equal(n->info.soname_rc, MS_END);
	}
	/* The noted row asked again, told it has no note: the note is not read. */
	{
		struct ms_filerow *w = &fm.rows[n - fm.rows];

		w->info.pkg_known = false;
		w->info.no_pkgnote = true;
		assert_int_equal(ms_filepkg_describe(NULL, &fm, 0, fm.count, proc, false, &err), 0);
		assert_true(w->info.pkg_known);
		assert_false(w->info.pkg.found);
	}
	ms_fileinfo_ctx_free(ctx);
	ms_filemap_free(&fm);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
}

static void test_note_read_with_the_soname(void **state)
{
	const char *dir = *state;
	char *noted, *plain;

	if (!tu_have_cc()) {
		print_message("no C compiler (cc) to link the libraries\n");
		skip();
	}
	noted = tu_build_so(dir, "libnoted.so",
			    "{\"type\":\"deb\",\"name\":\"ms-noted\",\"version\":\"7.1-2\",\"architecture\":\"amd64\"}");
	if (!noted) {
		print_message("the linker refused --package-metadata\n");
		skip();
	}
	plain = tu_build_so(dir, "libplain.so", NULL);
	assert_non_null(plain);
	map_file(noted);
	map_file(plain);
	describe_self(MS_FILEINFO_SONAME | MS_FILEINFO_PACKAGE, noted, plain);
	describe_self(MS_FILEINFO_PACKAGE, noted, plain);
	free(noted);
	free(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_note_read_with_the_soname, tu_tmpdir_setup, tu_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
