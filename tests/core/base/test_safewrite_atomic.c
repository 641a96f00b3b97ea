/*
 * safewrite's atomic mode (opts.atomic), which the metrics file of
 * `stale --metrics-file` uses: until the close, the target keeps its old
 * document whole, however the writes are split; after it, the new one.  A
 * symlink at the target is replaced, never followed; a FIFO, a directory or
 * another user's file is still refused; and no temporary is left behind,
 * whether the write succeeds, fails midway (RLIMIT_FSIZE makes write(2)
 * fail with EFBIG) or is abandoned.
 *
 * End to end, as node_exporter meets it: `mapscope stale --metrics-file`
 * rewrites the file a few hundred times while this process reads it in a
 * tight loop; every read must be one whole document, from its first HELP
 * line to "# EOF".  (With a writer that truncates and rewrites in place,
 * reads of an empty or a cut file show up within a few rewrites.)
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
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

#include "core/base/safewrite.h"
#include "snapfix.h"

static const struct ms_safewrite_opts atomic_opts = { .atomic = true, .mode = 0644 };

static void assert_holds(const char *path, const char *want)
{
	char *got = tu_slurp(path, NULL);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

/* Entries in dir, "." and ".." aside: a leftover temporary shows here. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_old_document_whole_until_close(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "mapscope.prom");
	struct ms_safewrite w;
	struct ms_error err;
	struct stat st;
	mode_t old = umask(022);

	assert_int_equal(tu_spit(path, "old\n# EOF\n"), 0);
	assert_int_equal(ms_safewrite_open(path, &atomic_opts, &w, &err), 0);
	assert_false(w.created);
	/* The temporary is not a *.prom file: the textfile collector skips it. */
	assert_non_null(w.tmp);
	assert_int_equal(w.tmp[0], '.');
	assert_null(strstr(w.tmp + strlen(w.tmp) - 9, ".prom"));
	assert_int_equal(ms_safewrite_write(&w, "new ", 4, &err), 0);
	assert_holds(path, "old\n# EOF\n");
	assert_int_equal(ms_safewrite_write(&w, "doc\n# EOF\n", 10, &err), 0);
	assert_holds(path, "old\n# EOF\n");
	assert_int_equal(entries(dir), 2);
	assert_int_equal(ms_safewrite_close(&w, &err), 0);
	assert_holds(path, "new doc\n# EOF\n");
	assert_int_equal(entries(dir), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	umask(old);
	free(path);
}

static void test_created_when_absent(void **state)
{
	char *path = tu_join(*state, "fresh.prom");
	struct ms_error err;
	bool created = false;

	assert_int_equal(ms_safewrite_file(path, &atomic_opts, "a\n", 2, &created, &err), 0);
	assert_true(created);
	assert_int_equal(ms_safewrite_file(path, &atomic_opts, "b\n", 2, &created, &err), 0);
	assert_false(created);
	assert_holds(path, "b\n");
	free(path);
}

static void test_symlink_replaced_not_followed(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "target"), *victim = tu_join(dir, "victim");
	struct ms_error err;
	struct stat st;

	assert_int_equal(tu_spit(victim, "root's secret\n"), 0);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(ms_safewrite_file(path, &atomic_opts, "metrics\n", 8, NULL, &err), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_holds(path, "metrics\n");
	assert_holds(victim, "root's secret\n");
	free(path);
	free(victim);
}

static void test_hard_link_elsewhere_untouched(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "target"), *other = tu_join(dir, "other");
	struct ms_error err;

	/* Only the name is replaced: the inode another name holds keeps its bytes. */
	assert_int_equal(tu_spit(other, "kept\n"), 0);
	assert_int_equal(link(other, path), 0);
	assert_int_equal(ms_safewrite_file(path, &atomic_opts, "new\n", 4, NULL, &err), 0);
	assert_holds(path, "new\n");
	assert_holds(other, "kept\n");
	free(path);
	free(other);
}

static void test_refusals(void **state)
{
	const char *dir = *state;
	char *fifo = tu_join(dir, "fifo"), *sub = tu_join(dir, "sub");
	char *kept = tu_join(dir, "kept");
	struct ms_safewrite_opts o = atomic_opts;
	struct ms_safewrite w;
	struct ms_error err;

	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(ms_safewrite_file(fifo, &o, "x", 1, NULL, &err), MS_ERR_IO);
	assert_int_equal(err.sys_errno, ENXIO);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(ms_safewrite_file(sub, &o, "x", 1, NULL, &err), MS_ERR_IO);
	assert_int_equal(err.sys_errno, EISDIR);
	assert_int_equal(tu_spit(kept, "kept\n"), 0);
	o.no_clobber = true;
	assert_int_equal(ms_safewrite_file(kept, &o, "x", 1, NULL, &err), MS_ERR_IO);
	assert_int_equal(err.sys_errno, EEXIST);
	assert_holds(kept, "kept\n");
	o = atomic_opts;
	o.keep = true;
	assert_int_equal(ms_safewrite_open(kept, &o, &w, &err), MS_ERR_INVAL);
	/* fifo, sub and kept: nothing else, no temporary. */
	assert_int_equal(entries(dir), 3);
	free(fifo);
	free(sub);
	free(kept);
}

static void test_other_owner_needs_force(void **state)
{
	char *path = tu_join(*state, "theirs");
	struct ms_safewrite_opts o = atomic_opts;
	struct ms_error err;

	if (geteuid() != 0) {
		free(path);
		skip();
	}
	assert_int_equal(tu_spit(path, "theirs\n"), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(ms_safewrite_file(path, &o, "x\n", 2, NULL, &err), MS_ERR_NOACCESS);
	assert_holds(path, "theirs\n");
	o.force = true;
	assert_int_equal(ms_safewrite_file(path, &o, "x\n", 2, NULL, &err), 0);
	assert_holds(path, "x\n");
	free(path);
}

/* The changed target between open and close is judged again before the rename. */
static void test_recheck_before_rename(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "target");
	struct ms_safewrite w;
	struct ms_error err;

	assert_int_equal(ms_safewrite_open(path, &atomic_opts, &w, &err), 0);
	assert_int_equal(ms_safewrite_write(&w, "x\n", 2, &err), 0);
	assert_int_equal(mkfifo(path, 0666), 0);
	assert_int_equal(ms_safewrite_close(&w, &err), MS_ERR_IO);
	assert_int_equal(err.sys_errno, ENXIO);
	assert_int_equal(entries(dir), 1);
	free(path);
}

static void test_abort_and_failed_write_leave_nothing(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "target");
	struct ms_safewrite w;
	struct ms_error err;
	pid_t pid;
	int status;

	assert_int_equal(tu_spit(path, "old\n"), 0);
	assert_int_equal(ms_safewrite_open(path, &atomic_opts, &w, &err), 0);
	assert_int_equal(ms_safewrite_write(&w, "half", 4, &err), 0);
	ms_safewrite_abort(&w);
	assert_int_equal(entries(dir), 1);
	assert_holds(path, "old\n");

	pid = fork();
	if (pid == 0) {
		static char big[4096];
		struct rlimit rl = { 8, 8 };
		int rc;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(11);
		rc = ms_safewrite_file(path, &atomic_opts, big, sizeof(big), NULL, &err);
		_exit(rc < 0 && err.sys_errno == EFBIG ? 0 : 12);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(entries(dir), 1);
	assert_holds(path, "old\n");
	free(path);
}

#define REWRITES 300
#define DOC_MAX (1 << 20)

/* A child that runs the binary REWRITES times; exits 0 when each run wrote the file. */
static pid_t start_rewriter(const char *path, const char *ignore)
{
	pid_t pid = fork();

	if (pid == 0) {
		char opt[4096], me[32];
		int devnull = open("/dev/null", O_WRONLY);
		const char *args[] = { "stale", "--ignore-file", ignore, opt, me, NULL };

		snprintf(opt, sizeof(opt), "--metrics-file=%s", path);
		snprintf(me, sizeof(me), "%d", (int)getppid());
		for (int i = 0; i < REWRITES; i++) {
			int st = msrun_wait(msrun_spawn(args, devnull, devnull));

			/* 0: nothing stale, 1: something stale; both wrote the file. */
			if (st != 0 && st != 1)
				_exit(20 + (st & 0xff) % 200);
		}
		_exit(0);
	}
	assert_true(pid > 0);
	return pid;
}

/* One read of the whole file, NUL-terminated; its length. */
static size_t read_once(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	assert_true(fd >= 0);
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	assert_true(n == 0);
	close(fd);
	buf[len] = '\0';
	return len;
}

static bool whole_document(const char *doc, size_t len)
{
	const char *head = "# HELP mapscope_stale_files ";

	return !strncmp(doc, head, strlen(head)) && len >= 7 && !strcmp(doc + len - 7, "\n# EOF\n") &&
	       strstr(doc, "# EOF") == doc + len - 6;
}

static void test_binary_rewrites_never_half(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "mapscope.prom"), *ignore = tu_join(dir, "none.conf");
	char *buf = malloc(DOC_MAX), *last = calloc(1, DOC_MAX);
	size_t reads = 0, changes = 0, len = 0;
	bool whole = true;
	pid_t writer;
	int status;

	if (!getenv("MS_BIN")) {
		free(path);
		free(ignore);
		free(buf);
		free(last);
		skip();
	}
	assert_non_null(buf);
	assert_non_null(last);
	assert_int_equal(tu_spit(ignore, ""), 0);
	/* A whole document from the start, so any bad read comes from a rewrite. */
	assert_int_equal(tu_spit(path, "# HELP mapscope_stale_files seed\n# EOF\n"), 0);
	writer = start_rewriter(path, ignore);
	while (whole && waitpid(writer, &status, WNOHANG) == 0) {
		len = read_once(path, buf, DOC_MAX);
		reads++;
		whole = whole_document(buf, len);
		if (whole && strcmp(buf, last)) {
			changes++;
			memcpy(last, buf, len + 1);
		}
	}
	if (!whole) {
		kill(writer, SIGKILL);
		waitpid(writer, &status, 0);
		fail_msg("read %zu, after %zu rewrites, is not a whole document (%zu bytes): \"%.60s\"",
			 reads, changes, len, buf);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The reads overlapped the rewrites: many documents were seen. */
	printf("# %zu reads saw %zu documents\n", reads, changes);
	assert_true(changes >= 10);
	assert_true(reads > changes);
	assert_int_equal(entries(dir), 2);
	free(path);
	free(ignore);
	free(buf);
	free(last);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_old_document_whole_until_close, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_created_when_absent, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_symlink_replaced_not_followed, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_hard_link_elsewhere_untouched, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_other_owner_needs_force, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_recheck_before_rename, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_abort_and_failed_write_leave_nothing, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_binary_rewrites_never_half, tu_tmpdir_setup, tu_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
