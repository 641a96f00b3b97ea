/*
 * safewrite: created/overwrote from F_CREATED_QUERY and from the portable
 * fallback, --no-clobber, cleanup after failed writes, symlinks, modes.
 * Write failures are real: RLIMIT_FSIZE with SIGXFSZ ignored makes write(2)
 * fail with EFBIG, in a forked child so the limit stays there.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/compat.h"
#include "core/safewrite.h"
#include "snapfix.h"

struct env {
	char *dir;
	bool fallback;
};

static int query_calls;

/* An older kernel: F_CREATED_QUERY unknown. */
static int old_kernel_fcntl(int fd, int cmd)
{
	if (cmd == F_CREATED_QUERY) {
		query_calls++;
		errno = EINVAL;
		return -1;
	}
	return fcntl(fd, cmd);
}

static int counting_fcntl(int fd, int cmd)
{
	if (cmd == F_CREATED_QUERY)
		query_calls++;
	return fcntl(fd, cmd);
}

static struct ms_safewrite_opts opts_for(const struct env *e)
{
	struct ms_safewrite_opts o = { 0 };

	o.fcntl_fn = e->fallback ? old_kernel_fcntl : counting_fcntl;
	return o;
}

static int setup_real(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->dir = snapfix_tmpdir();
	assert_non_null(e->dir);
	*state = e;
	return 0;
}

static int setup_fallback(void **state)
{
	setup_real(state);
	((struct env *)*state)->fallback = true;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	snapfix_rmdir(e->dir);
	free(e);
	return 0;
}

static void assert_content(const char *path, const char *want)
{
	size_t len;
	char *got = snapfix_slurp(path, &len);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_created_then_overwrote(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *path = snapfix_path(e->dir, "out.json");
	struct ms_error err;
	bool created = false;

	query_calls = 0;
	assert_int_equal(ms_safewrite_file(path, &o, "a longer first text\n", 20, &created, &err), 0);
	assert_true(created);
	assert_content(path, "a longer first text\n");
	/* Real kernel: probe + one query per open; the fallback never gets an answer. */
	assert_true(query_calls >= 1);

	created = true;
	assert_int_equal(ms_safewrite_file(path, &o, "short\n", 6, &created, &err), 0);
	assert_false(created);
	/* Truncated, not overlaid on the longer old text. */
	assert_content(path, "short\n");
	free(path);
}

static void test_fallback_flag(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *path = snapfix_path(e->dir, "flag");
	struct ms_safewrite w;
	struct ms_error err;

	assert_int_equal(ms_safewrite_open(path, &o, &w, &err), 0);
	assert_int_equal(w.used_fallback, e->fallback);
	assert_true(w.created);
	assert_int_equal(ms_safewrite_close(&w, &err), 0);
	free(path);
}

static void test_no_clobber_leaves_bytes(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *path = snapfix_path(e->dir, "keep.json");
	struct stat before, after;
	struct ms_error err;
	bool created = true;

	assert_int_equal(snapfix_spit(path, "precious bytes\n"), 0);
	assert_int_equal(stat(path, &before), 0);
	o.no_clobber = true;
	assert_true(ms_safewrite_file(path, &o, "X", 1, &created, &err) < 0);
	assert_int_equal(err.sys_errno, EEXIST);
	assert_non_null(strstr(err.msg, "already exists"));
	assert_content(path, "precious bytes\n");
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
		    before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);

	/* And a new name is still created under --no-clobber. */
	free(path);
	path = snapfix_path(e->dir, "fresh.json");
	assert_int_equal(ms_safewrite_file(path, &o, "new\n", 4, &created, &err), 0);
	assert_true(created);
	assert_content(path, "new\n");
	free(path);
}

/*
 * In a child limited to 8 bytes per file, write 4096: write(2) fails with
 * EFBIG.  The child exits 0 when ms_safewrite_file failed with the expected
 * errno, 10 + what went wrong otherwise.
 */
static int write_limited(const struct env *e, const char *path, bool no_clobber, int want_errno)
{
	static char big[4096];
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct ms_safewrite_opts o = opts_for(e);
		struct rlimit rl = { 8, 8 };
		struct ms_error err;

		o.no_clobber = no_clobber;
		memset(big, 'x', sizeof(big));
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(11);
		if (ms_safewrite_file(path, &o, big, sizeof(big), NULL, &err) == 0)
			_exit(12);
		_exit(err.sys_errno == want_errno ? 0 : 13);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_failed_write_created_leaves_nothing(void **state)
{
	struct env *e = *state;
	char *path = snapfix_path(e->dir, "doomed.json");
	struct stat st;

	assert_int_equal(write_limited(e, path, false, EFBIG), 0);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	free(path);
}

static void test_failed_write_existing_kept(void **state)
{
	struct env *e = *state;
	char *path = snapfix_path(e->dir, "theirs.json");

	/* --no-clobber: refused before any write; the bytes stay. */
	assert_int_equal(snapfix_spit(path, "theirs\n"), 0);
	assert_int_equal(write_limited(e, path, true, EEXIST), 0);
	assert_content(path, "theirs\n");

	/* Without it the write fails midway: the file is damaged but not removed, it was not ours. */
	assert_int_equal(write_limited(e, path, false, EFBIG), 0);
	assert_int_equal(access(path, F_OK), 0);
	free(path);
}

static void test_dangling_symlink_refused(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *link = snapfix_path(e->dir, "link.json");
	char *target = snapfix_path(e->dir, "elsewhere.json");
	struct ms_error err;

	assert_int_equal(symlink(target, link), 0);
	assert_true(ms_safewrite_file(link, &o, "x", 1, NULL, &err) < 0);
	assert_int_equal(err.sys_errno, ELOOP);
	assert_non_null(strstr(err.msg, "dangling symlink"));
	assert_non_null(strstr(err.msg, "elsewhere.json"));
	/* Nothing was created where it points. */
	assert_int_equal(access(target, F_OK), -1);

	/* A symlink to an existing file is followed, and that file "existed". */
	{
		bool created = true;

		assert_int_equal(snapfix_spit(target, "old\n"), 0);
		assert_int_equal(ms_safewrite_file(link, &o, "new\n", 4, &created, &err), 0);
		assert_false(created);
		assert_content(target, "new\n");
	}
	free(link);
	free(target);
}

static void test_mode_umask(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *a = snapfix_path(e->dir, "m1"), *b = snapfix_path(e->dir, "m2");
	struct ms_error err;
	mode_t old = umask(022);
	struct stat st;

	assert_int_equal(ms_safewrite_file(a, &o, "x", 1, NULL, &err), 0);
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	umask(077);
	assert_int_equal(ms_safewrite_file(b, &o, "x", 1, NULL, &err), 0);
	assert_int_equal(stat(b, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	umask(old);
	free(a);
	free(b);
}

static void test_directory_refused(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	struct ms_error err;

	assert_true(ms_safewrite_file(e->dir, &o, "x", 1, NULL, &err) < 0);
	assert_true(err.sys_errno == EISDIR);
	{
		char *missing = snapfix_path(e->dir, "no/such/dir.json");

		assert_true(ms_safewrite_file(missing, &o, "x", 1, NULL, &err) < 0);
		assert_int_equal(err.sys_errno, ENOENT);
		free(missing);
	}
}

/* Both paths, the same cases, the same answers. */
struct answer {
	int rc;
	int sys_errno;
	bool created;
};

static struct answer try_case(const char *dir, int which, bool fallback)
{
	struct env e = { (char *)dir, fallback };
	struct ms_safewrite_opts o = opts_for(&e);
	struct answer a = { 0, 0, false };
	char *path = NULL, *other;
	struct ms_error err = { 0 };

	switch (which) {
	case 0: path = snapfix_path(dir, "new"); break;
	case 1: path = snapfix_path(dir, "old"); snapfix_spit(path, "old"); break;
	case 2:
		path = snapfix_path(dir, "dangling");
		other = snapfix_path(dir, "nowhere");
		if (symlink(other, path) < 0)
			a.rc = 99;
		free(other);
		break;
	case 3:
		path = snapfix_path(dir, "tofile");
		other = snapfix_path(dir, "real");
		snapfix_spit(other, "real");
		if (symlink(other, path) < 0)
			a.rc = 99;
		free(other);
		break;
	case 4: path = snapfix_path(dir, "old"); o.no_clobber = true; snapfix_spit(path, "old"); break;
	default: path = strdup(dir); break;
	}
	if (a.rc == 0)
		a.rc = ms_safewrite_file(path, &o, "data", 4, &a.created, &err);
	a.sys_errno = a.rc ? err.sys_errno : 0;
	free(path);
	return a;
}

static void test_fallback_same_answers(void **state)
{
	(void)state;
	for (int which = 0; which < 6; which++) {
		char *d1 = snapfix_tmpdir(), *d2 = snapfix_tmpdir();
		struct answer real = try_case(d1, which, false);
		struct answer fb = try_case(d2, which, true);

		assert_int_equal(real.rc, fb.rc);
		assert_int_equal(real.sys_errno, fb.sys_errno);
		assert_int_equal(real.created, fb.created);
		/* Cases 0 and 3 succeed: one created, one existed through a link. */
		if (which == 0)
			assert_true(real.rc == 0 && real.created);
		if (which == 3)
			assert_true(real.rc == 0 && !real.created);
		if (which == 2 || which == 4 || which == 5)
			assert_true(real.rc < 0);
		snapfix_rmdir(d1);
		snapfix_rmdir(d2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_created_then_overwrote, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_created_then_overwrote, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_fallback_flag, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_fallback_flag, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_no_clobber_leaves_bytes, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_no_clobber_leaves_bytes, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_created_leaves_nothing, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_created_leaves_nothing, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_existing_kept, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_existing_kept, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_dangling_symlink_refused, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_dangling_symlink_refused, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_mode_umask, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_mode_umask, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_directory_refused, setup_real, teardown),
		cmocka_unit_test(test_fallback_same_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
