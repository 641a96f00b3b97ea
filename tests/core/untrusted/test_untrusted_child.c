/*
 * untrusted_child: the sandbox that untrusted parsers run in.  Each test
 * gives the child a serve function that misbehaves the way a parser fed a
 * hostile file would (opens a path, allocates without end, loops, crashes,
 * sends garbage) and checks that the parent carries on, in time, with the
 * reason, and that the limits really hold inside the child.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"
#include "untrusted/untrusted_child.h"

#define NS_PER_MS 1000000ull

/* Each serve answers its first frame with a 32-bit number, then waits for the next. */
static int answer(int sock, int value)
{
	char buf[64];
	int fd;

	if (ms_child_io_recv(sock, buf, sizeof(buf), &fd) <= 0)
		return 1;
	if (fd >= 0)
		close(fd);
	return ms_child_io_send(sock, &value, sizeof(value), -1) < 0 ? 1 : 0;
}

static int wait_end(int sock)
{
	char buf[64];
	int fd;

	while (ms_child_io_recv(sock, buf, sizeof(buf), &fd) > 0)
		if (fd >= 0)
			close(fd);
	return 0;
}

static int serve_open(int sock, void *arg)
{
	const char *path = arg;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int e = fd < 0 ? errno : 0;

	if (answer(sock, e))
		return 1;
	return wait_end(sock);
}

static int serve_fork(int sock, void *arg)
{
	pid_t pid = fork();

	(void)arg;
	if (pid == 0)
		_exit(0);
	if (answer(sock, pid < 0 ? errno : 0))
		return 1;
	return wait_end(sock);
}

static int serve_ids(int sock, void *arg)
{
	(void)arg;
	if (answer(sock, (int)geteuid()) || answer(sock, (int)getegid()))
		return 1;
	return wait_end(sock);
}

/* Touches memory without end, as libdw building a bombed line table does. */
static int serve_hog(int sock, void *arg)
{
	const size_t chunk = 8u << 20;

	(void)arg;
	if (answer(sock, 0))
		return 1;
	for (;;) {
		char *p = malloc(chunk);

		if (!p)
			return MS_CHILD_EXIT_NOMEM;
		memset(p, 1, chunk);
	}
}

static int serve_spin(int sock, void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	if (answer(sock, 0))
		return 1;
	for (;;)
		n++;
}

static int serve_crash(int sock, void *arg)
{
	char buf[64];
	int fd;

	(void)arg;
	if (answer(sock, 0) || ms_child_io_recv(sock, buf, sizeof(buf), &fd) <= 0)
		return 1;
	raise(SIGSEGV);
	return 0;
}

/* Answers with two descriptors in one frame: never accepted. */
static int serve_two_fds(int sock, void *arg)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(2 * sizeof(int))];
	} ctl;
	int fds[2] = { 0, 1 }, v = 7;
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
			      .msg_controllen = sizeof(ctl.space) };

	(void)arg;
	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	ctl.h.cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(&ctl.h), fds, sizeof(fds));
	if (sendmsg(sock, &msg, 0) < 0)
		return 1;
	return wait_end(sock);
}

static struct ms_child *start(int (*serve)(int, void *), void *arg)
{
	struct ms_child_spec spec = { .serve = serve, .arg = arg };
	struct ms_error err = { 0 };
	struct ms_child *c = NULL;

	assert_int_equal(ms_child_start(&spec, &c, &err), 0);
	assert_non_null(c);
	return c;
}

/* Send a frame and take the child's number back within ms. */
static long ask(struct ms_child *c, unsigned ms, int *value)
{
	char ping = 'q';
	int fd;
	long n;

	if (ms_child_send(c, &ping, 1, -1) < 0)
		return MS_ERR_IO;
	n = ms_child_recv(c, value, sizeof(*value), &fd, ms_child_now_ns() + ms * NS_PER_MS, NULL, NULL);
	if (fd >= 0)
		close(fd);
	return n;
}

static void test_open_is_refused(void **state)
{
	struct ms_child *c;
	int value = -1;

	(void)state;
	c = start(serve_open, (void *)(uintptr_t)"/etc/passwd");
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	assert_int_equal(value, EACCES);
	ms_child_free(c);
}

static void test_fork_is_refused(void **state)
{
	struct ms_child *c;
	int value = -1;

	(void)state;
	c = start(serve_fork, NULL);
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	assert_int_equal(value, EACCES);
	ms_child_free(c);
}

static void test_root_becomes_nobody(void **state)
{
	struct ms_child *c;
	int uid = -1, gid = -1;

	(void)state;
	if (geteuid() != 0)
		skip();
	c = start(serve_ids, NULL);
	assert_int_equal(ask(c, 5000, &uid), (long)sizeof(int));
	assert_int_equal(ask(c, 5000, &gid), (long)sizeof(int));
	assert_int_equal(uid, 65534);
	assert_int_equal(gid, 65534);
	ms_child_free(c);
}

static void test_memory_hog_is_ended(void **state)
{
	struct ms_child *c;
	int value = -1;
	long long t0 = tu_now_ms();

	(void)state;
	c = start(serve_hog, NULL);
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	/* The hog never answers again: its limit or the watch ends it, long before the deadline. */
	assert_int_equal(ask(c, 60000, &value), MS_ERR_LIMIT);
	assert_false(ms_child_alive(c));
	assert_string_equal(ms_child_why(c), "over the memory limit");
	assert_true(tu_now_ms() - t0 < 30000);
	ms_child_free(c);
}

static void test_deadline_ends_a_loop(void **state)
{
	struct ms_child *c;
	int value = -1;
	long long t0;

	(void)state;
	c = start(serve_spin, NULL);
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	t0 = tu_now_ms();
	assert_int_equal(ask(c, 300, &value), MS_ERR_LIMIT);
	assert_true(tu_now_ms() - t0 >= 290);
	assert_string_equal(ms_child_why(c), "gave up after 1 s");
	/* Ended is ended: nothing more is sent. */
	assert_int_equal(ask(c, 300, &value), MS_ERR_IO);
	ms_child_free(c);
}

/*
 * A ready child that stops reading: the socket fills, and the send that
 * finds no room gives up at its limit, with the reason, instead of
 * waiting on the child for ever.
 */
static void test_send_to_a_stuck_child(void **state)
{
	static char frame[MS_CHILD_FRAME_MAX];
	struct ms_child *c;
	int value = -1, rc = 0, sent = 0;
	long long t0;

	(void)state;
	c = start(serve_spin, NULL);
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	ms_child_send_limit(c, 300 * NS_PER_MS);
	memset(frame, 'f', sizeof(frame));
	t0 = tu_now_ms();
	/* The socket holds a few hundred kilobytes; 4,096 frames are 256 MiB. */
	while (sent < 4096 && (rc = ms_child_send(c, frame, sizeof(frame), -1)) == 0)
		sent++;
	assert_int_equal(rc, MS_ERR_IO);
	assert_true(sent > 0 && sent < 4096);
	assert_true(tu_now_ms() - t0 >= 290);
	assert_true(tu_now_ms() - t0 < 20000);
	assert_false(ms_child_alive(c));
	assert_string_equal(ms_child_why(c), "gave up after 1 s");
	ms_child_free(c);
}

static bool always(void *arg)
{
	int *asked = arg;

	(*asked)++;
	return true;
}

static void test_interrupt_ends_a_loop(void **state)
{
	struct ms_child *c;
	int value = -1, asked = 0, fd;
	char ping = 'q';
	long long t0;

	(void)state;
	c = start(serve_spin, NULL);
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	assert_int_equal(ms_child_send(c, &ping, 1, -1), 0);
	t0 = tu_now_ms();
	assert_int_equal(ms_child_recv(c, &value, sizeof(value), &fd,
				       ms_child_now_ns() + 60000 * NS_PER_MS, always, &asked),
			 MS_ERR_LIMIT);
	assert_true(tu_now_ms() - t0 < 5000);
	assert_int_equal(asked, 1);
	assert_string_equal(ms_child_why(c), "interrupted");
	ms_child_free(c);
}

static void test_crash_is_named(void **state)
{
	struct ms_child *c;
	int value = -1;

	(void)state;
	c = start(serve_crash, NULL);
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	assert_int_equal(ask(c, 5000, &value), MS_ERR_LIMIT);
	assert_string_equal(ms_child_why(c), "the reader crashed on this file");
	ms_child_free(c);
}

static void test_two_descriptors_refused(void **state)
{
	struct ms_child *c;
	int value = -1;

	(void)state;
	c = start(serve_two_fds, NULL);
	assert_int_equal(ask(c, 5000, &value), MS_ERR_LIMIT);
	assert_string_equal(ms_child_why(c), "the reader's answer was malformed");
	ms_child_free(c);
}

/* A descriptor handed over is the only way in: the child reads what the parent opened. */
static int serve_read_fd(int sock, void *arg)
{
	char buf[64], data[8] = { 0 };
	int fd, value;

	(void)arg;
	if (ms_child_io_recv(sock, buf, sizeof(buf), &fd) <= 0 || fd < 0)
		return 1;
	value = pread(fd, data, 4, 0) == 4 && memcmp(data, "\177ELF", 4) == 0 ? 1 : 0;
	close(fd);
	return ms_child_io_send(sock, &value, sizeof(value), -1) < 0 ? 1 : wait_end(sock);
}

static void test_descriptor_passed_in(void **state)
{
	struct ms_child *c;
	int value = -1, fd, got;
	char ping = 'f';

	(void)state;
	c = start(serve_read_fd, NULL);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_child_send(c, &ping, 1, fd), 0);
	close(fd);
	assert_int_equal(ms_child_recv(c, &value, sizeof(value), &got, ms_child_now_ns() + 5000 * NS_PER_MS,
				       NULL, NULL),
			 (long)sizeof(int));
	assert_int_equal(got, -1);
	assert_int_equal(value, 1);
	ms_child_free(c);
}

/* A child slow to get ready: frames sent meanwhile wait for it, none is lost. */
#define EARLY_FRAMES 600
#define EARLY_FRAME_LEN 4096

static void prepare_slowly(void *arg)
{
	(void)arg;
	usleep(300 * 1000);
}

static int serve_count(int sock, void *arg)
{
	char buf[EARLY_FRAME_LEN];
	int fd, count = 0;
	long n;

	(void)arg;
	while ((n = ms_child_io_recv(sock, buf, sizeof(buf), &fd)) > 0) {
		if (fd >= 0)
			close(fd);
		if (n == 1)
			break;
		count += n == EARLY_FRAME_LEN && buf[0] == 'e' && buf[n - 1] == (char)(count & 0x7f);
	}
	return ms_child_io_send(sock, &count, sizeof(count), -1) < 0 ? 1 : wait_end(sock);
}

static void test_frames_before_ready(void **state)
{
	struct ms_child_spec spec = { .prepare = prepare_slowly, .serve = serve_count };
	struct ms_error err = { 0 };
	struct ms_child *c = NULL;
	static char frame[EARLY_FRAME_LEN];
	int value = -1;

	(void)state;
	assert_int_equal(ms_child_start(&spec, &c, &err), 0);
	/* 2.4 MB: more than the socket holds, so later sends wait for the ready frame. */
	frame[0] = 'e';
	for (int i = 0; i < EARLY_FRAMES; i++) {
		frame[EARLY_FRAME_LEN - 1] = (char)(i & 0x7f);
		assert_int_equal(ms_child_send(c, frame, sizeof(frame), -1), 0);
	}
	assert_int_equal(ask(c, 5000, &value), (long)sizeof(int));
	assert_int_equal(value, EARLY_FRAMES);
	ms_child_free(c);
}

/* A child that dies before it is ready: the first exchange says it did not start. */
static void prepare_dies(void *arg)
{
	(void)arg;
	_exit(9);
}

/* Is pid a zombie (exited, not yet reaped)? */
static bool exited(pid_t pid)
{
	char path[64], text[256], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	paren = strrchr(text, ')');
	return paren && paren[1] == ' ' && paren[2] == 'Z';
}

/*
 * A child that dies before it is ready, found by the first receive (the
 * send queued) or, once it is gone, by the send itself (EPIPE): either
 * way the first exchange says it did not start.
 */
static void never_ready(bool wait_gone)
{
	struct ms_child_spec spec = { .prepare = prepare_dies, .serve = serve_count };
	struct ms_error err = { 0 };
	struct ms_child *c = NULL;
	int value = -1;
	bool ok;

	assert_int_equal(ms_child_start(&spec, &c, &err), 0);
	for (int i = 0; wait_gone && i < 5000 && !exited(ms_child_pid(c)); i++)
		usleep(1000);
	ok = ask(c, 5000, &value) < 0 && !ms_child_alive(c) &&
	     strstr(ms_child_why(c), "the reader did not start");
	if (!ok)
		fprintf(stderr, "why: %s\n", ms_child_why(c));
	ms_child_free(c);
	assert_true(ok);
}

static void test_never_ready(void **state)
{
	(void)state;
	never_ready(false);
}

static void test_never_ready_gone(void **state)
{
	(void)state;
	never_ready(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_is_refused),
		cmocka_unit_test(test_fork_is_refused),
		cmocka_unit_test(test_root_becomes_nobody),
		cmocka_unit_test(test_memory_hog_is_ended),
		cmocka_unit_test(test_deadline_ends_a_loop),
		cmocka_unit_test(test_send_to_a_stuck_child),
		cmocka_unit_test(test_interrupt_ends_a_loop),
		cmocka_unit_test(test_crash_is_named),
		cmocka_unit_test(test_two_descriptors_refused),
		cmocka_unit_test(test_descriptor_passed_in),
		cmocka_unit_test(test_frames_before_ready),
		cmocka_unit_test(test_never_ready),
		cmocka_unit_test(test_never_ready_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
