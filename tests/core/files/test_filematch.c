/*
 * The names `who` matches (filematch.h): paths as typed (relative, with
 * ".", ".." and repeated slashes, through a symlinked directory, with
 * nothing at them any more), base names and globs, on mapping records made
 * here; and SONAMEs on real processes, each file's read once whatever
 * number of processes map it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/files/filematch.h"
#include "core/maps/maps.h"
#include "fixture_client.h"
#include "testutil.h"

struct fx {
	char *dir;   /* as tu_tmpdir made it */
	char *real;  /* its real name, as the kernel spells it */
	char cwd[PATH_MAX];
	struct ms_filematch *fm;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct ms_error err;

	*state = fx;
	assert_non_null(fx);
	if (ms_filematch_new(&fx->fm, &err) < 0)
		fail_msg("%s", err.msg);
	assert_non_null(getcwd(fx->cwd, sizeof(fx->cwd)));
	assert_non_null(fx->dir = tu_tmpdir());
	assert_non_null(fx->real = realpath(fx->dir, NULL));
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (chdir(fx->cwd) < 0)
		return -1;
	ms_filematch_free(fx->fm);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->real);
	free(fx);
	return 0;
}

static void add(struct fx *fx, const char *pattern)
{
	struct ms_error err;

	if (ms_filematch_add(fx->fm, pattern, &err) < 0)
		fail_msg("%s: %s", pattern, err.msg);
}

/* A file mapping named name (printf-style), of a file no other test has: inode 0 reads no SONAME. */
static int test_name(struct fx *fx, struct ms_filematch_hit *hit, uint64_t inode, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int test_name(struct fx *fx, struct ms_filematch_hit *hit, uint64_t inode, const char *fmt, ...)
{
	struct ms_mapping m = { .start = 0x1000, .end = 0x2000, .inode = inode, .dev_major = 0, .dev_minor = 99 };
	char *name;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	assert_true(vasprintf(&name, fmt, ap) > 0);
	va_end(ap);
	m.name = name;
	m.name_len = strlen(name);
	rc = ms_filematch_test(fx->fm, NULL, &m, hit);
	free(name);
	return rc;
}

/* A relative path, with ".", ".." and "//", to a file deleted since: the kernel's name with its mark. */
static void test_path_as_typed(void **state)
{
	struct fx *fx = *state;
	struct ms_filematch_hit hit;
	char *sub = tu_join(fx->dir, "del");

	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(chdir(fx->dir), 0);
	add(fx, "./gone/../del//libq.so.1");
	assert_int_equal(test_name(fx, &hit, 0, "%s/del/libq.so.1 (deleted)", fx->real), 1);
	assert_int_equal(hit.how, MS_FILEMATCH_PATH);
	assert_int_equal(hit.pattern, 0);
	/* A file may really be named so. */
	assert_int_equal(test_name(fx, &hit, 0, "%s/del/libq.so.1", fx->real), 1);
	assert_int_equal(test_name(fx, &hit, 0, "%s/del/libq.so.1.bak (deleted)", fx->real), 0);
	assert_int_equal(test_name(fx, &hit, 0, "%s/gone/del/libq.so.1 (deleted)", fx->real), 0);
	assert_int_equal(test_name(fx, &hit, 0, "/other/libq.so.1 (deleted)"), 0);
	free(sub);
}

/* Through a symlink to the directory: the directory's real name. */
static void test_path_through_symlink(void **state)
{
	struct fx *fx = *state;
	struct ms_filematch_hit hit;
	char *sub = tu_join(fx->dir, "real"), *link = tu_join(fx->dir, "link"), *pat = tu_join(link, "libq.so");

	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(symlink("real", link), 0);
	add(fx, pat);
	assert_int_equal(test_name(fx, &hit, 0, "%s/real/libq.so (deleted)", fx->real), 1);
	assert_int_equal(hit.how, MS_FILEMATCH_PATH);
	free(sub);
	free(link);
	free(pat);
}

/* The file at the path now, by device and inode, whatever the mapping's name; it is the current copy. */
static void test_path_by_identity(void **state)
{
	struct fx *fx = *state;
	struct ms_filematch_hit hit;
	enum ms_filecopy copy = MS_FILECOPY_UNKNOWN;
	char *file = tu_join(fx->dir, "lib.so");
	struct stat st;
	char name[] = "/elsewhere/hard-link.so";
	struct ms_mapping m = { .start = 0x1000, .end = 0x2000, .name = name };

	assert_int_equal(tu_spit(file, "x"), 0);
	assert_int_equal(stat(file, &st), 0);
	add(fx, file);
	m.name_len = strlen(m.name);
	m.inode = st.st_ino;
	m.dev_major = major(st.st_dev);
	m.dev_minor = minor(st.st_dev);
	assert_int_equal(ms_filematch_test(fx->fm, NULL, &m, &hit), 1);
	assert_int_equal(hit.how, MS_FILEMATCH_FILE);
	assert_int_equal(ms_filematch_copy(fx->fm, NULL, &m, &hit, &copy, NULL, NULL), 0);
	assert_int_equal(copy, MS_FILECOPY_CURRENT);
	m.inode++;
	assert_int_equal(ms_filematch_test(fx->fm, NULL, &m, &hit), 0);
	free(file);
}

/* Base names in any directory, exact or as a glob; the first pattern that matches. */
static void test_names_and_globs(void **state)
{
	struct fx *fx = *state;
	struct ms_filematch_hit hit;

	add(fx, "libz.so.1");
	add(fx, "libss[lh]*");
	assert_int_equal(test_name(fx, &hit, 0, "/usr/lib/libz.so.1"), 1);
	assert_int_equal(hit.how, MS_FILEMATCH_NAME);
	assert_int_equal(hit.pattern, 0);
	assert_int_equal(test_name(fx, &hit, 0, "/opt/x/libz.so.1 (deleted)"), 1);
	assert_int_equal(test_name(fx, &hit, 0, "/usr/lib/libssl.so.3 (deleted)"), 1);
	assert_int_equal(hit.pattern, 1);
	assert_int_equal(test_name(fx, &hit, 0, "/usr/lib/libssh.so.4"), 1);
	assert_int_equal(test_name(fx, &hit, 0, "/usr/lib/libz.so.1.2.13"), 0);
	assert_int_equal(test_name(fx, &hit, 0, "/usr/lib/libz.so.1/other.so"), 0);
	assert_int_equal(test_name(fx, &hit, 0, "/usr/lib/libsasl.so"), 0);
}

static void test_bad_patterns(void **state)
{
	struct fx *fx = *state;
	struct ms_error err;
	char name[32];

	assert_int_equal(ms_filematch_add(fx->fm, "", &err), MS_ERR_INVAL);
	for (int i = 0; i < MS_FILEMATCH_MAX; i++) {
		snprintf(name, sizeof(name), "lib%d.so", i);
		add(fx, name);
	}
	assert_int_equal(ms_filematch_add(fx->fm, "one-more.so", &err), MS_ERR_INVAL);
}

/* Every SONAME-matching mapping of pid; the SONAME reads are counted by the matcher. */
static size_t soname_hits(struct ms_filematch *fm, pid_t pid)
{
	struct ms_maps_opts opts = { .backend = MS_BACKEND_AUTO };
	struct ms_mapping m = { 0 };
	struct ms_filematch_hit hit;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	uint64_t addr = 0;
	size_t n = 0;
	int rc;

	if (ms_proc_open(pid, &proc, &err) < 0 || ms_maps_open(proc, &opts, &maps, &err) < 0)
		fail_msg("pid %d: %s", (int)pid, err.msg);
	while ((rc = ms_maps_next(maps, addr, MS_FILTER_FILE_BACKED, &m, &err)) == 0) {
		addr = m.end;
		rc = ms_filematch_test(fm, maps, &m, &hit);
		assert_true(rc >= 0);
		n += rc == 1 && hit.how == MS_FILEMATCH_SONAME;
	}
	assert_int_equal(rc, MS_END);
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return n;
}

/*
 * zlib's file is libz.so.1.2.13 (or another version): libz.so.1 is its
 * SONAME.  Two processes map the same files: the second reads none.
 */
static void test_soname_once_per_file(void **state)
{
	struct fx *fx = *state;
	struct fixture a, b;
	size_t reads;

	assert_int_equal(fixture_start_with(&a, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_start_with(&b, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_command(&a, "dlopen libz.so.1"), 0);
	assert_int_equal(fixture_command(&b, "dlopen libz.so.1"), 0);
	add(fx, "libz.so.1");
	assert_true(soname_hits(fx->fm, a.pid) >= 1);
	reads = ms_filematch_soname_reads(fx->fm);
	assert_true(reads >= 1);
	assert_true(soname_hits(fx->fm, b.pid) >= 1);
	assert_int_equal(ms_filematch_soname_reads(fx->fm), reads);
	assert_int_equal(ms_filematch_soname_unknown(fx->fm, NULL), 0);
	fixture_stop(&a);
	fixture_stop(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path_as_typed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_through_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_by_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_and_globs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_patterns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_soname_once_per_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
