/*
 * safewrite: created/overwrote from F_CREATED_QUERY and from the portable
 * fallback, --no-clobber, cleanup after failed writes, mode 0600, and every
 * hostile target (a symlink to a file or dangling, a FIFO, a directory, a
 * device, another owner's file, a hard link) refused and left untouched.
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
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/compat.h"
#include "core/base/safewrite.h"
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

	e->dir = tu_tmpdir();
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

	tu_rmtree(e->dir);
	free(e->dir);
	free(e);
	return 0;
}

static void assert_content(const char *path, const char *want)
{
	size_t len;
	char *got = tu_slurp(path, &len);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_created_then_overwrote(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *path = tu_join(e->dir, "out.json");
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
	char *path = tu_join(e->dir, "flag");
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
	char *path = tu_join(e->dir, "keep.json");
	struct stat before, after;
	struct ms_error err;
	bool created = true;

	assert_int_equal(tu_spit(path, "precious bytes\n"), 0);
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
	path = tu_join(e->dir, "fresh.json");
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
	char *path = tu_join(e->dir, "doomed.json");
	struct stat st;

	assert_int_equal(write_limited(e, path, false, EFBIG), 0);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	free(path);
}

static void test_failed_write_existing_kept(void **state)
{
	struct env *e = *state;
	char *path = tu_join(e->dir, "theirs.json");

	/* --no-clobber: refused before any write; the bytes stay. */
	assert_int_equal(tu_spit(path, "theirs\n"), 0);
	assert_int_equal(write_limited(e, path, true, EEXIST), 0);
	assert_content(path, "theirs\n");

	/* Without it the write fails midway: the file is damaged but not removed, it was not ours. */
	assert_int_equal(write_limited(e, path, false, EFBIG), 0);
	assert_int_equal(access(path, F_OK), 0);
	free(path);
}

/* What a refused target must still be: the same inode, type, size and mtime. */
struct frozen {
	struct stat st;
	char *bytes; /* a regular file's contents, else NULL */
};

static struct frozen freeze(const char *path)
{
	struct frozen f = { .bytes = NULL };

	assert_int_equal(lstat(path, &f.st), 0);
	if (S_ISREG(f.st.st_mode))
		f.bytes = tu_slurp(path, NULL);
	return f;
}

static void assert_thawed(const char *path, struct frozen *f)
{
	struct stat now;

	assert_int_equal(lstat(path, &now), 0);
	assert_int_equal(now.st_ino, f->st.st_ino);
	assert_int_equal(now.st_mode, f->st.st_mode);
	assert_int_equal(now.st_size, f->st.st_size);
	assert_int_equal(now.st_rdev, f->st.st_rdev);
	assert_true(now.st_mtim.tv_sec == f->st.st_mtim.tv_sec &&
		    now.st_mtim.tv_nsec == f->st.st_mtim.tv_nsec);
	if (f->bytes)
		assert_content(path, f->bytes);
	free(f->bytes);
}

/*
 * A writer that blocks on a FIFO would hang the suite: SIGALRM's default
 * action ends the test binary instead, a failure make check reports.
 */
#define HANG_GUARD_S 10

enum hostile { H_LINK_TO_FILE, H_DANGLING, H_FIFO, H_DIR, H_CHARDEV, H_COUNT };

static const struct {
	const char *what;  /* a word the message must hold */
	int sys_errno;
} hostile_want[H_COUNT] = {
	[H_LINK_TO_FILE] = { "a symlink (to ", ELOOP },
	[H_DANGLING] = { "a symlink (to ", ELOOP },
	[H_FIFO] = { "a FIFO, not a regular file", ENXIO },
	[H_DIR] = { "a directory, not a regular file", EISDIR },
	[H_CHARDEV] = { "a character device, not a regular file", ENODEV },
};

/*
 * Plant one hostile thing at dir/target; *victim is what a symlink points
 * to (a root-owned 0600 file, or a name that must stay absent).  The path
 * to write to is returned (malloc'd).
 */
static char *plant(const char *dir, enum hostile h, char **victim)
{
	char *path = tu_join(dir, "target");

	*victim = NULL;
	switch (h) {
	case H_LINK_TO_FILE:
		*victim = tu_join(dir, "victim");
		assert_int_equal(tu_spit(*victim, "root's secret\n"), 0);
		assert_int_equal(chmod(*victim, 0600), 0);
		assert_int_equal(symlink(*victim, path), 0);
		break;
	case H_DANGLING:
		*victim = tu_join(dir, "nowhere");
		assert_int_equal(symlink(*victim, path), 0);
		break;
	case H_FIFO:
		assert_int_equal(mkfifo(path, 0666), 0);
		break;
	case H_DIR:
		assert_int_equal(mkdir(path, 0755), 0);
		break;
	case H_CHARDEV:
		/* As root a private /dev/null; otherwise the real one, which is never opened. */
		if (geteuid() != 0 || mknod(path, S_IFCHR | 0666, makedev(1, 3)) < 0) {
			free(path);
			path = strdup("/dev/null");
		}
		break;
	case H_COUNT:
		break;
	}
	return path;
}

static void refuse_one(const struct env *e, enum hostile h, bool record_like)
{
	struct ms_safewrite_opts o = opts_for(e);
	struct ms_error err = { 0 };
	struct frozen before, victim_before = { .bytes = NULL };
	char *victim, *path, *sub = tu_tmpdir();
	bool created = true;

	path = plant(sub, h, &victim);
	before = freeze(path);
	if (h == H_LINK_TO_FILE)
		victim_before = freeze(victim);
	o.keep = o.readable = record_like; /* as record opens: O_RDWR, a FIFO opens at once */
	alarm(HANG_GUARD_S);
	assert_true(ms_safewrite_file(path, &o, "JSON\n", 5, &created, &err) < 0);
	alarm(0);
	assert_int_equal(err.sys_errno, hostile_want[h].sys_errno);
	if (!strstr(err.msg, hostile_want[h].what))
		fail_msg("case %d: \"%s\" lacks \"%s\"", (int)h, err.msg, hostile_want[h].what);
	assert_thawed(path, &before);
	if (h == H_LINK_TO_FILE)
		assert_thawed(victim, &victim_before);
	if (h == H_DANGLING)
		assert_int_equal(access(victim, F_OK), -1); /* nothing created where it points */
	free(victim);
	free(path);
	tu_rmtree(sub);
	free(sub);
}

static void test_hostile_targets_refused(void **state)
{
	const struct env *e = *state;

	for (int h = 0; h < H_COUNT; h++) {
		refuse_one(e, (enum hostile)h, false);
		refuse_one(e, (enum hostile)h, true);
	}
}

/* A FIFO with a reader waiting gets nothing either: not a byte of the map. */
static void test_fifo_reader_gets_nothing(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *path = tu_join(e->dir, "fifo");
	struct ms_error err;
	char byte;
	int rfd;

	assert_int_equal(mkfifo(path, 0666), 0);
	rfd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	alarm(HANG_GUARD_S);
	assert_true(ms_safewrite_file(path, &o, "secret map\n", 11, NULL, &err) < 0);
	alarm(0);
	assert_non_null(strstr(err.msg, "a FIFO"));
	assert_int_equal(read(rfd, &byte, 1), 0); /* EOF: no writer ever wrote */
	close(rfd);
	free(path);
}

static bool as_root_or_skip(const char *why)
{
	if (geteuid() == 0)
		return true;
	printf("# skipped: %s needs root (chown to another uid)\n", why);
	return false;
}

#define NOBODY 65534

static void test_other_owner_needs_force(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *path = tu_join(e->dir, "theirs.json");
	struct ms_error err = { 0 };
	struct frozen before;
	bool created = true;
	struct stat st;

	if (!as_root_or_skip("another owner's file")) {
		free(path);
		skip();
	}
	assert_int_equal(tu_spit(path, "nobody's own\n"), 0);
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	before = freeze(path);
	assert_int_equal(ms_safewrite_file(path, &o, "root's\n", 7, &created, &err), MS_ERR_NOACCESS);
	assert_int_equal(err.sys_errno, EPERM);
	assert_non_null(strstr(err.msg, "owned by uid 65534"));
	assert_thawed(path, &before);

	/* Appending, as record does, is refused the same way. */
	o.keep = o.readable = true;
	before = freeze(path);
	assert_int_equal(ms_safewrite_file(path, &o, "root's\n", 7, &created, &err), MS_ERR_NOACCESS);
	assert_thawed(path, &before);

	o.keep = o.readable = false;
	o.force = true;
	assert_int_equal(ms_safewrite_file(path, &o, "root's\n", 7, &created, &err), 0);
	assert_false(created);
	assert_content(path, "root's\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, NOBODY); /* overwritten in place, still theirs */
	free(path);
}

/* A hard link planted beside our output could name any file of ours. */
static void test_hard_link_needs_force(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *mine = tu_join(e->dir, "mine"), *other = tu_join(e->dir, "link.json");
	struct ms_error err = { 0 };
	struct frozen before;

	assert_int_equal(tu_spit(mine, "precious\n"), 0);
	assert_int_equal(link(mine, other), 0);
	before = freeze(mine);
	assert_int_equal(ms_safewrite_file(other, &o, "x\n", 2, NULL, &err), MS_ERR_NOACCESS);
	assert_int_equal(err.sys_errno, EPERM);
	assert_non_null(strstr(err.msg, "hard links"));
	assert_thawed(mine, &before);
	o.force = true;
	assert_int_equal(ms_safewrite_file(other, &o, "x\n", 2, NULL, &err), 0);
	assert_content(mine, "x\n");
	free(mine);
	free(other);
}

static void test_mode_0600(void **state)
{
	struct env *e = *state;
	struct ms_safewrite_opts o = opts_for(e);
	char *a = tu_join(e->dir, "m1"), *b = tu_join(e->dir, "m2");
	struct ms_safewrite w;
	struct ms_error err;
	mode_t old = umask(0);
	struct stat st;

	/* With no umask at all, the file is still only ours: the mode asked is 0600. */
	assert_int_equal(ms_safewrite_open(a, &o, &w, &err), 0);
	assert_true(w.created);
	assert_int_equal(w.used_fallback, e->fallback);
	assert_int_equal(ms_safewrite_close(&w, &err), 0);
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
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
		char *missing = tu_join(e->dir, "no/such/dir.json");

		assert_true(ms_safewrite_file(missing, &o, "x", 1, NULL, &err) < 0);
		assert_int_equal(err.sys_errno, ENOENT);
		free(missing);
	}
}

/*
 * A directory for root's later writes by name: made 0700 level by level,
 * and refused, naming the level, where a user could have put a link: a
 * level nobody owns, one others may write, a symbolic link, not a directory.
 */
static void test_root_dir(void **state)
{
	struct env *e = *state;
	struct ms_error err;
	struct stat st;
	char *elsewhere;
	int dir;

	if (geteuid() != 0)
		skip();
	elsewhere = tu_join(e->dir, "elsewhere");
	assert_int_equal(chmod(e->dir, 0700), 0);
	dir = open(e->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dir >= 0);
	assert_int_equal(ms_safewrite_root_dir(dir, "a/b/c", &err), 0);
	assert_int_equal(fstatat(dir, "a/b/c", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	assert_int_equal(ms_safewrite_root_dir(dir, "a/b/c", &err), 0);

	assert_int_equal(fchownat(dir, "a/b", 65534, 65534, 0), 0);
	assert_int_equal(ms_safewrite_root_dir(dir, "a/b/c", &err), MS_ERR_NOACCESS);
	assert_string_equal(err.msg, "a/b: owned by uid 65534, not root");
	assert_int_equal(fchownat(dir, "a/b", 0, 0, 0), 0);

	assert_int_equal(fchmodat(dir, "a", 0770, 0), 0);
	assert_int_equal(ms_safewrite_root_dir(dir, "a/b/c", &err), MS_ERR_NOACCESS);
	assert_string_equal(err.msg, "a: writable by group or others");
	assert_int_equal(fchmodat(dir, "a", 0700, 0), 0);

	assert_int_equal(mkdir(elsewhere, 0700), 0);
	assert_int_equal(symlinkat(elsewhere, dir, "a/link"), 0);
	assert_int_equal(ms_safewrite_root_dir(dir, "a/link/c", &err), MS_ERR_NOACCESS);
	assert_string_equal(err.msg, "a/link: a symbolic link or not a directory");
	assert_int_equal(fstatat(dir, "elsewhere/c", &st, 0), -1);

	assert_int_equal(mknodat(dir, "a/file", S_IFREG | 0600, 0), 0);
	assert_int_equal(ms_safewrite_root_dir(dir, "a/file/c", &err), MS_ERR_NOACCESS);
	assert_int_equal(ms_safewrite_root_dir(dir, "a/../a", &err), MS_ERR_INVAL);
	assert_int_equal(ms_safewrite_root_dir(AT_FDCWD, "/tmp/x", &err), MS_ERR_NOACCESS);
	assert_string_equal(err.msg, "/tmp: writable by group or others");
	close(dir);
	free(elsewhere);
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
	case 0: path = tu_join(dir, "new"); break;
	case 1: path = tu_join(dir, "old"); tu_spit(path, "old"); break;
	case 2:
		path = tu_join(dir, "dangling");
		other = tu_join(dir, "nowhere");
		if (symlink(other, path) < 0)
			a.rc = 99;
		free(other);
		break;
	case 3:
		path = tu_join(dir, "tofile");
		other = tu_join(dir, "real");
		tu_spit(other, "real");
		if (symlink(other, path) < 0)
			a.rc = 99;
		free(other);
		break;
	case 4: path = tu_join(dir, "old"); o.no_clobber = true; tu_spit(path, "old"); break;
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
		char *d1 = tu_tmpdir(), *d2 = tu_tmpdir();
		struct answer real = try_case(d1, which, false);
		struct answer fb = try_case(d2, which, true);

		assert_int_equal(real.rc, fb.rc);
		assert_int_equal(real.sys_errno, fb.sys_errno);
		assert_int_equal(real.created, fb.created);
		/* Case 0 creates, 1 overwrites; a link, no_clobber, a directory are refused. */
		if (which == 0)
			assert_true(real.rc == 0 && real.created);
		if (which == 1)
			assert_true(real.rc == 0 && !real.created);
		if (which == 2 || which == 3)
			assert_int_equal(real.sys_errno, ELOOP);
		if (which == 4 || which == 5)
			assert_true(real.rc < 0);
		tu_rmtree(d1);
		free(d1);
		tu_rmtree(d2);
		free(d2);
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
		cmocka_unit_test_setup_teardown(test_hostile_targets_refused, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_targets_refused, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_reader_gets_nothing, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_reader_gets_nothing, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_other_owner_needs_force, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_other_owner_needs_force, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_hard_link_needs_force, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_hard_link_needs_force, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_mode_0600, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_mode_0600, setup_fallback, teardown),
		cmocka_unit_test_setup_teardown(test_directory_refused, setup_real, teardown),
		cmocka_unit_test_setup_teardown(test_root_dir, setup_real, teardown),
		cmocka_unit_test(test_fallback_same_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
