/*
 * saferead: only a regular file is read, whole and bounded; a FIFO (with no
 * writer, or a writer holding data), a directory, a device (/dev/zero would
 * never end), a symlink to any of them and an oversized file are refused,
 * naming what they are, by ms_read_regular and by ms_open_regular (which
 * opens for reading in pieces).  Nothing may block: SIGALRM's default action ends
 * the binary if it does, a failure make check reports.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/saferead.h"
#include "snapfix.h"

#define HANG_GUARD_S 10

/* Read path expecting a refusal: the code, errno and a phrase of the message. */
static void refused(const char *path, int code, int sys_errno, const char *phrase)
{
	struct ms_error err = { 0 };
	char *text = (char *)"untouched";
	size_t len = 1;

	alarm(HANG_GUARD_S);
	assert_int_equal(ms_read_regular(path, 4096, &text, &len, &err), code);
	alarm(0);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_int_equal(err.sys_errno, sys_errno);
	if (!strstr(err.msg, phrase))
		fail_msg("\"%s\" lacks \"%s\"", err.msg, phrase);
	/* Opened for reading in pieces: refused alike, and never waiting. */
	memset(&err, 0, sizeof(err));
	alarm(HANG_GUARD_S);
	assert_int_equal(ms_open_regular(path, &err), code);
	alarm(0);
	assert_int_equal(err.sys_errno, sys_errno);
	if (!strstr(err.msg, phrase))
		fail_msg("\"%s\" lacks \"%s\"", err.msg, phrase);
}

static void test_regular_read_whole(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "conf"), *link = tu_join(dir, "link"), *text;
	struct ms_error err;
	size_t len;

	assert_int_equal(tu_spit(path, "delay = 2\n"), 0);
	assert_int_equal(ms_read_regular(path, 4096, &text, &len, &err), 0);
	assert_int_equal(len, 10);
	assert_string_equal(text, "delay = 2\n");
	free(text);
	/* A dotfiles manager's symlink to a regular file is fine. */
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(ms_read_regular(link, 4096, &text, &len, &err), 0);
	assert_string_equal(text, "delay = 2\n");
	free(text);
	/* Exactly max bytes is read; one more is refused whole. */
	assert_int_equal(ms_read_regular(path, 10, &text, &len, &err), 0);
	assert_int_equal(len, 10);
	free(text);
	assert_int_equal(ms_read_regular(path, 9, &text, &len, &err), MS_ERR_LIMIT);
	assert_int_equal(err.sys_errno, EFBIG);
	assert_null(text);
	free(path);
	free(link);
}

/*
 * The buffer starts at the size fstat gives and grows when the file holds
 * more: a /proc file says 0 bytes and holds several pages; a file of 20000
 * bytes is read whole, and refused at one byte below its size.
 */
static void test_read_past_stated_size(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "big"), *text, *want = malloc(20001);
	struct ms_error err;
	size_t len;
	int fd;

	assert_non_null(want);
	for (size_t i = 0; i < 20000; i++)
		want[i] = (char)('a' + i % 26);
	want[20000] = '\0';
	assert_int_equal(tu_spit(path, want), 0);
	assert_int_equal(ms_read_regular(path, 1u << 20, &text, &len, &err), 0);
	assert_int_equal(len, 20000);
	assert_memory_equal(text, want, 20000);
	assert_int_equal(text[len], '\0');
	free(text);
	assert_int_equal(ms_read_regular(path, 19999, &text, &len, &err), MS_ERR_LIMIT);
	assert_null(text);
	/* Our own map, with enough mappings to pass a page: stat says 0. */
	for (int i = 0; i < 64; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_true(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 4096 * (i % 4)) != MAP_FAILED);
		close(fd);
	}
	assert_int_equal(ms_read_regular("/proc/self/maps", 1u << 20, &text, &len, &err), 0);
	assert_true(len > 8192);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "/big"));
	assert_int_equal(text[len - 1], '\n');
	free(text);
	free(want);
	free(path);
}

/* Our read system calls so far (syscr in /proc/self/io, task_io_accounting). */
static unsigned long long reads_so_far(void)
{
	char buf[512], *at;
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	at = strstr(buf, "syscr: ");
	assert_non_null(at);
	return strtoull(at + 7, NULL, 10);
}

/*
 * A small file, read whole, takes one read: the read that leaves exactly
 * the size fstat said, shorter than asked, is its end.  A file that
 * holds more than that size (a /proc file) is still read to its end, as
 * test_read_past_stated_size shows.
 */
static void test_one_read_for_a_small_file(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "small"), *text = NULL;
	unsigned long long before, idle, after;
	struct ms_error err;
	size_t len, cap = 0;
	int dfd;

	assert_int_equal(tu_spit(path, "/.\n/usr\n/usr/lib/libfoo.so.1\n"), 0);
	/* What reading the counter itself costs, once. */
	before = reads_so_far();
	idle = reads_so_far() - before;
	before = reads_so_far();
	assert_int_equal(ms_read_regular(path, 4096, &text, &len, &err), 0);
	after = reads_so_far();
	assert_int_equal(len, 29);
	assert_int_equal(after - before, idle + 1);
	free(text);
	text = NULL;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	before = reads_so_far();
	assert_int_equal(ms_read_regular_entry(dfd, "small", 4096, &text, &cap, &len, &err), 0);
	after = reads_so_far();
	close(dfd);
	assert_int_equal(len, 29);
	assert_string_equal(text, "/.\n/usr\n/usr/lib/libfoo.so.1\n");
	assert_int_equal(after - before, idle + 1);
	free(text);
	free(path);
}

static void test_fifo_refused(void **state)
{
	const char *dir = *state;
	char *path = tu_join(dir, "fifo"), *link = tu_join(dir, "to-fifo");
	int rfd, wfd;

	assert_int_equal(mkfifo(path, 0600), 0);
	/* No writer: a plain open(2) would wait for one forever. */
	refused(path, MS_ERR_INVAL, ENXIO, "a FIFO, not a regular file");
	assert_int_equal(symlink(path, link), 0);
	refused(link, MS_ERR_INVAL, ENXIO, "a FIFO, not a regular file");

	/* A writer holding data: refused all the same, and not a byte taken. */
	rfd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	wfd = open(path, O_WRONLY);
	assert_true(wfd >= 0);
	assert_int_equal(write(wfd, "x", 1), 1);
	refused(path, MS_ERR_INVAL, ENXIO, "a FIFO");
	{
		char c;

		assert_int_equal(read(rfd, &c, 1), 1);
	}
	close(wfd);
	close(rfd);
	free(path);
	free(link);
}

static void test_other_kinds_refused(void **state)
{
	const char *dir = *state;
	char *link = tu_join(dir, "to-zero"), *missing = tu_join(dir, "none");

	refused(dir, MS_ERR_INVAL, EISDIR, "a directory, not a regular file");
	/* /dev/zero never ends: read at all, it would fill any bound. */
	refused("/dev/zero", MS_ERR_INVAL, ENODEV, "a character device, not a regular file");
	assert_int_equal(symlink("/dev/zero", link), 0);
	refused(link, MS_ERR_INVAL, ENODEV, "a character device");
	refused(missing, MS_ERR_IO, ENOENT, "none");
	free(link);
	free(missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular_read_whole, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_read_past_stated_size, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_one_read_for_a_small_file, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_fifo_refused, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_other_kinds_refused, tu_tmpdir_setup, tu_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
