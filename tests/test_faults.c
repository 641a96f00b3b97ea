/*
 * The faults table of issue 8, each with its expected behaviour:
 *   - no access (an unprivileged user): "no access", exit 1;
 *   - a kernel thread and a zombie: "no user address space", exit 1;
 *   - output to a closed pipe: quiet, the same exit status as to /dev/null;
 *   - output to /dev/full: non-zero with a message;
 *   - 65,000 mappings: every one listed, peak memory bounded in proportion;
 *   - /proc with hidepid=2 in a private mount namespace: other users'
 *     processes are simply absent, not errors;
 *   - a reused PID (forced in a private PID namespace): the old handle says
 *     gone and never describes the new process.
 * The process exiting or exec'ing mid-view is in tests/e2e/hardening.sh
 * (the explorer) and tests/test_errors.c (the engine).
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/maps.h"
#include "core/proc.h"
#include "fixture_client.h"
#include "stale_harness.h"

#define NOBODY 65534
#define DEADLINE_S 20

struct run {
	int status;     /* exit status, or 128 + signal */
	char *out;
	char *err;
	long maxrss_kb;
};

enum out_kind { OUT_CAPTURE, OUT_CLOSED_PIPE, OUT_DEV_FULL, OUT_DEV_NULL };

struct run_opts {
	enum out_kind out;
	uid_t uid;             /* 0: stay root */
	bool hidepid;          /* private mount namespace, /proc with hidepid=2 */
};

static char *read_all(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	time_t deadline = time(NULL) + DEADLINE_S;

	while (buf && time(NULL) < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 1000) < 0)
			break;
		if (len + 1 == cap) {
			char *grown = realloc(buf, cap *= 2);

			if (!grown)
				break;
			buf = grown;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0 && !(n < 0 && errno == EINTR))
			break;
		if (n > 0)
			len += (size_t)n;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* In the child: the mount namespace and /proc of a hidepid=2 test. */
static void enter_hidepid(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") < 0) {
		fprintf(stderr, "hidepid: %s\n", strerror(errno));
		_exit(126);
	}
}

static struct run run_mapscope(const struct run_opts *o, const char *const *args)
{
	const char *bin = getenv("MS_BIN");
	const char *argv[16] = { "mapscope" };
	int out[2], err[2];
	struct run r = { .status = -1 };
	struct rusage ru;
	size_t n = 1;
	pid_t pid;
	int st;

	for (; args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	assert_non_null(bin);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	if (o->out == OUT_CLOSED_PIPE)
		close(out[0]);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = -1;

		if (o->out == OUT_DEV_FULL || o->out == OUT_DEV_NULL)
			fd = open(o->out == OUT_DEV_FULL ? "/dev/full" : "/dev/null", O_WRONLY);
		dup2(fd >= 0 ? fd : out[1], 1);
		dup2(err[1], 2);
		if (o->hidepid)
			enter_hidepid();
		if (o->uid && (setgroups(0, NULL) < 0 || setgid(o->uid) < 0 || setuid(o->uid) < 0))
			_exit(125);
		if (o->uid) {
			/* Root's own config directory is not nobody's to read. */
			setenv("HOME", "/nonexistent", 1);
			unsetenv("XDG_CONFIG_HOME");
		}
		/* Write errors must be reported, not killed silently by SIGPIPE. */
		signal(SIGPIPE, SIG_DFL);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	r.out = o->out == OUT_CLOSED_PIPE ? strdup("") : read_all(out[0]);
	r.err = read_all(err[0]);
	if (o->out != OUT_CLOSED_PIPE)
		close(out[0]);
	close(err[0]);
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r.maxrss_kb = ru.ru_maxrss;
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define RUN(opts, ...) run_mapscope((opts), (const char *const[]){ __VA_ARGS__, NULL })

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx || fixture_start(fx) < 0)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture_stop(*state);
	free(*state);
	return 0;
}

static const char *pidstr(pid_t pid)
{
	static char buf[4][16];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%d", (int)pid);
	return buf[i];
}

static void test_no_access(void **state)
{
	const struct fixture *fx = *state;
	const struct run_opts nobody = { .out = OUT_CAPTURE, .uid = NOBODY };
	struct run r = RUN(&nobody, "list", pidstr(fx->pid));

	if (r.status == 125)
		fail_msg("cannot become uid %d", NOBODY);
	if (r.status == 127) {
		/* A build tree under a 0700 directory (mkdtemp) is closed to nobody. */
		printf("# skipped: uid %d cannot run %s\n", NOBODY, getenv("MS_BIN"));
		run_free(&r);
		skip();
	}
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no access"));
	assert_string_equal(r.out, "");
	run_free(&r);
	r = RUN(&nobody, "at", pidstr(fx->pid), "0x1000");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no access"));
	run_free(&r);
}

static void test_kernel_thread(void **state)
{
	const struct run_opts o = { .out = OUT_CAPTURE };
	struct ms_proc *proc;
	struct ms_error err;
	struct run r;

	(void)state;
	/* kthreadd is PID 2 on every Linux since 2.6.22 (kernel/kthread.c). */
	assert_int_equal(ms_proc_open(2, &proc, &err), 0);
	assert_true(ms_proc_is_kernel_thread(ms_proc_stat_at_open(proc)));
	ms_proc_close(proc);
	r = RUN(&o, "list", "2");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "kernel thread: no user address space"));
	run_free(&r);
}

static void test_zombie(void **state)
{
	const struct run_opts o = { .out = OUT_CAPTURE };
	pid_t child = fork();
	struct ms_proc *proc = NULL;
	struct ms_error err;
	time_t deadline = time(NULL) + DEADLINE_S;
	struct run r;

	(void)state;
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(ms_proc_open(child, &proc, &err), 0);
	while (ms_proc_liveness(proc) != MS_PROC_ZOMBIE) {
		assert_true(time(NULL) < deadline);
		poll(NULL, 0, 10);
	}
	ms_proc_close(proc);
	r = RUN(&o, "list", pidstr(child));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no user address space"));
	run_free(&r);
	waitpid(child, NULL, 0);
}

/* Each command's output to a closed pipe, to /dev/full and to /dev/null. */
static void test_closed_pipe_and_full_disk(void **state)
{
	const struct fixture *fx = *state;
	const struct fx_map *rx = fixture_find(fx, "file-rx");
	char addr[32], self[16];
	const char *const cmds[][4] = {
		{ "list", pidstr(fx->pid), NULL },
		{ "list", pidstr(fx->pid), "-J", NULL },
		{ "at", pidstr(fx->pid), addr, NULL },
		{ "stale", pidstr(fx->pid), "--show=all", NULL },
		{ "who", rx ? rx->name : "/", NULL },
		{ "snapshot", pidstr(fx->pid), NULL },
		{ "diff", pidstr(fx->pid), self, NULL },
		{ "--help", NULL },
		{ "--version", NULL },
		{ "stale", "--help", NULL },
		{ "snapshot", "--help", NULL },
		{ "record", "--help", NULL },
		{ "who", "--help", NULL },
	};

	(void)state;
	assert_non_null(rx);
	snprintf(addr, sizeof(addr), "0x%" PRIx64, rx->start);
	snprintf(self, sizeof(self), "%d", (int)getpid());
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const struct run_opts null = { .out = OUT_DEV_NULL }, pipe = { .out = OUT_CLOSED_PIPE },
				      full = { .out = OUT_DEV_FULL };
		struct run rn = run_mapscope(&null, cmds[i]);
		struct run rp = run_mapscope(&pipe, cmds[i]);
		struct run rf = run_mapscope(&full, cmds[i]);

		if (rp.status != rn.status)
			fail_msg("%s to a closed pipe: exit %d, to /dev/null %d", cmds[i][0], rp.status,
				 rn.status);
		/* Quiet: nothing about the pipe (a summary the command always prints may stay). */
		if (strstr(rp.err, "pipe") || strstr(rp.err, "write error") || strstr(rp.err, "EPIPE"))
			fail_msg("%s to a closed pipe is not quiet: %s", cmds[i][0], rp.err);
		if (rf.status == 0 || rf.status >= 128 || !strstr(rf.err, "mapscope"))
			fail_msg("%s %s to /dev/full: exit %d, message \"%s\" (to /dev/null: exit %d, %s)",
				 cmds[i][0], cmds[i][1] ? cmds[i][1] : "", rf.status, rf.err, rn.status, rn.err);
		run_free(&rn);
		run_free(&rp);
		run_free(&rf);
	}
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static size_t proc_maps_lines(pid_t pid)
{
	char path[64], buf[65536];
	size_t lines = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

static bool has_vsyscall(pid_t pid)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[vsyscall]") != NULL;
	fclose(f);
	return found;
}

/*
 * 65,000 mappings (vm.max_map_count is 65,530 by default): list shows every
 * one, and its peak RSS stays within a generous per-mapping bound over the
 * RSS of listing a small process.  Memory, not time, is asserted.
 */
static void test_many_mappings(void **state)
{
	const struct fixture *fx = *state;
	const struct run_opts o = { .out = OUT_CAPTURE };
	const size_t n = 65000;
	const char *const backends[] = { "--backend=ioctl", "--backend=text" };
	pid_t pid = harness_spawn_many(n);
	struct run small, big;

	assert_true(pid > 0);
	for (size_t b = 0; b < 2; b++) {
		/* [vsyscall] is in the text only, never from the ioctl (see DESIGN.md). */
		size_t want = proc_maps_lines(pid) - (b == 0 && has_vsyscall(pid));
		long bound;

		small = RUN(&o, "list", pidstr(fx->pid), backends[b]);
		big = RUN(&o, "list", pidstr(pid), backends[b], "-n");
		assert_int_equal(small.status, 0);
		assert_int_equal(big.status, 0);
		assert_true(want >= n);
		/* The map can only grow between the two reads (the child sleeps). */
		assert_int_equal(count_lines(big.out), want);
		/* 2 KiB per mapping: a row, its cells and the table's own overhead. */
		bound = small.maxrss_kb + (long)(want * 2);
		printf("# %s: %zu mappings, peak RSS %ld KiB (small process %ld KiB, bound %ld KiB)\n",
		       backends[b], want, big.maxrss_kb, small.maxrss_kb, bound);
		if (big.maxrss_kb > bound)
			fail_msg("peak RSS %ld KiB over the bound %ld KiB", big.maxrss_kb, bound);
		run_free(&small);
		run_free(&big);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* hidepid=2: root's fixture is absent for nobody: "missing", not "no access". */
static void test_hidepid(void **state)
{
	const struct fixture *fx = *state;
	const struct run_opts hidden = { .out = OUT_CAPTURE, .uid = NOBODY, .hidepid = true };
	const struct fx_map *rx = fixture_find(fx, "file-rx");
	struct run r;

	assert_non_null(rx);
	r = RUN(&hidden, "list", pidstr(fx->pid));
	if (r.status == 126 || r.status == 127) {
		printf("# skipped: %s\n", r.status == 126 ? "a private mount namespace is not permitted here"
							: "uid 65534 cannot run the built mapscope");
		run_free(&r);
		skip();
	}
	if (r.status != 1 || strstr(r.err, "no access") || !strstr(r.err, "no such process"))
		fail_msg("list as nobody under hidepid=2: exit %d: %s", r.status, r.err);
	run_free(&r);

	/*
	 * who scans every process it can see: the fixture maps its own program,
	 * but is absent; without hidepid the same scan meets root's processes
	 * and counts them as "without access".
	 */
	r = RUN(&hidden, "who", getenv("MS_FIXTURE"));
	if (r.status != 1 || (strstr(r.err, "without access") && !strstr(r.err, " 0 without access")) ||
	    r.out[0])
		fail_msg("who as nobody under hidepid=2: exit %d: %s%s", r.status, r.out, r.err);
	run_free(&r);
	{
		const struct run_opts visible = { .out = OUT_CAPTURE, .uid = NOBODY };

		r = RUN(&visible, "who", getenv("MS_FIXTURE"));
		assert_non_null(strstr(r.err, "without access"));
		assert_null(strstr(r.err, " 0 without access"));
		run_free(&r);
	}
	r = RUN(&hidden, "stale", "--show=all");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "no access"));
	assert_null(strstr(r.out, pidstr(fx->pid)));
	run_free(&r);
}

/*
 * In a new PID namespace (whose init is our child), PID 2 is killed and
 * handed out again through ns_last_pid.  The handle opened on the first
 * process must say gone and read nothing of the second.  Exit codes of the
 * namespace's init: 0 passed, 126 no namespace here, others a failed step.
 */
static int reuse_in_namespace(void)
{
	struct ms_proc *old = NULL, *fresh = NULL;
	struct ms_maps *maps = NULL;
	struct ms_mapping m = { 0 };
	struct ms_error err;
	pid_t a, b;
	int fd, rc;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return 126;
	a = fork();
	if (a == 0)
		for (;;)
			pause();
	if (a != 2)
		return 3;
	if (ms_proc_open(a, &old, &err) < 0 || ms_maps_open(old, NULL, &maps, &err) < 0)
		return 4;
	if (ms_maps_next(maps, 0, 0, &m, &err) < 0)
		return 5;
	ms_mapping_reset(&m);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		return 126;
	close(fd);
	b = fork();
	if (b == 0)
		for (;;)
			pause();
	rc = 0;
	if (b != a)
		rc = 6;
	else if (ms_proc_liveness(old) != MS_PROC_GONE)
		rc = 7;
	else if (ms_maps_next(maps, 0, 0, &m, &err) != MS_ERR_EXITED)
		rc = 8;
	else if (ms_proc_open(b, &fresh, &err) < 0 ||
		 ms_proc_stat_at_open(fresh)->start_time < ms_proc_stat_at_open(old)->start_time)
		rc = 9;
	ms_mapping_reset(&m);
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	ms_maps_close(maps);
	ms_proc_close(old);
	ms_proc_close(fresh);
	return rc;
}

static void test_pid_reuse(void **state)
{
	pid_t child;
	int st;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t init;

		if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
			_exit(126);
		init = fork();
		if (init == 0)
			_exit(reuse_in_namespace());
		if (init < 0 || waitpid(init, &st, 0) != init || !WIFEXITED(st))
			_exit(2);
		_exit(WEXITSTATUS(st));
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 126) {
		printf("# skipped: no private PID and mount namespace here\n");
		skip();
	}
	if (WEXITSTATUS(st) != 0)
		fail_msg("PID reuse check failed at step %d", WEXITSTATUS(st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_access),
		cmocka_unit_test(test_kernel_thread),
		cmocka_unit_test(test_zombie),
		cmocka_unit_test(test_closed_pipe_and_full_disk),
		cmocka_unit_test(test_many_mappings),
		cmocka_unit_test(test_hidepid),
		cmocka_unit_test(test_pid_reuse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
