/*
 * Since when a copy is held (src/core/maps/ancestry.h), with and without
 * the memo a walk keeps: real processes, a parent that maps a file and a
 * worker it forked, which climbs to the parent's start.  The memo reads
 * each parent once: told apart from a fresh read by a parent that unmaps
 * the file after the first ask.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "maps/ancestry.h"
#include "proc/proc.h"

struct family {
	pid_t parent, worker;
	int to_parent, from_parent; /* 'u': unmap the file; the parent answers 'k' */
	struct stat file;
	char path[64];
};

static void parent_main(const char *path, int in, int out)
{
	int fd = open(path, O_RDONLY);
	void *at = fd >= 0 ? mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	pid_t worker;
	char c;

	if (at == MAP_FAILED)
		_exit(1);
	close(fd);
	/* Start times count clock ticks (10 ms at 100 Hz): the worker starts ticks later. */
	usleep(50 * 1000);
	worker = fork();
	if (worker == 0) {
		for (;;)
			pause();
	}
	if (write(out, &worker, sizeof(worker)) != sizeof(worker))
		_exit(1);
	while (read(in, &c, 1) == 1) {
		if (c == 'u')
			munmap(at, 4096);
		if (write(out, "k", 1) != 1)
			_exit(1);
	}
	kill(worker, SIGKILL);
	_exit(0);
}

static int start(void **state)
{
	struct family *f = calloc(1, sizeof(*f));
	int down[2], up[2], fd;

	assert_non_null(f);
	snprintf(f->path, sizeof(f->path), "/tmp/ms-ancestry-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(fstat(fd, &f->file), 0);
	close(fd);
	assert_int_equal(pipe(down), 0);
	assert_int_equal(pipe(up), 0);
	f->parent = fork();
	assert_true(f->parent >= 0);
	if (f->parent == 0) {
		close(down[1]);
		close(up[0]);
		parent_main(f->path, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	f->to_parent = down[1];
	f->from_parent = up[0];
	assert_int_equal(read(f->from_parent, &f->worker, sizeof(f->worker)), sizeof(f->worker));
	*state = f;
	return 0;
}

static int stop(void **state)
{
	struct family *f = *state;

	close(f->to_parent);
	close(f->from_parent);
	waitpid(f->parent, NULL, 0);
	unlink(f->path);
	free(f);
	return 0;
}

static bool holds_file(void *arg, const struct ms_mapping *m)
{
	const struct stat *st = arg;

	return m->inode == st->st_ino && m->dev_major == major(st->st_dev) && m->dev_minor == minor(st->st_dev);
}

static bool holds_nothing(void *arg, const struct ms_mapping *m)
{
	(void)arg;
	(void)m;
	return false;
}

static struct ms_proc_stat stat_of(pid_t pid)
{
	struct ms_proc *proc;
	struct ms_error err;
	struct ms_proc_stat st;

	assert_int_equal(ms_proc_open(pid, &proc, &err), 0);
	st = *ms_proc_stat_at_open(proc);
	ms_proc_close(proc);
	return st;
}

static void tell_parent(struct family *f, char c)
{
	assert_int_equal(write(f->to_parent, &c, 1), 1);
	assert_int_equal(read(f->from_parent, &c, 1), 1);
	assert_int_equal(c, 'k');
}

static void test_climbs_with_and_without_memo(void **state)
{
	struct family *f = *state;
	struct ms_proc_stat parent = stat_of(f->parent), worker = stat_of(f->worker);
	struct ms_ancestry *memo = ms_ancestry_new();

	assert_non_null(memo);
	assert_int_equal(worker.ppid, f->parent);
	assert_true(parent.start_time < worker.start_time);
	/* The parent maps the file: the worker's copy dates from the parent's start. */
	assert_int_equal(ms_ancestry_mapped_since(worker.start_time, worker.ppid, holds_file, &f->file),
			 parent.start_time);
	assert_int_equal(ms_ancestry_mapped_since_in(memo, worker.start_time, worker.ppid, holds_file, &f->file),
			 parent.start_time);
	/* A copy the parent does not hold: the worker's own start, with or without the memo. */
	assert_int_equal(ms_ancestry_mapped_since_in(memo, worker.start_time, worker.ppid, holds_nothing, NULL),
			 worker.start_time);
	/* A start before the parent's: the parent started later, so it is another process. */
	if (parent.start_time > 0)
		assert_int_equal(ms_ancestry_mapped_since_in(memo, parent.start_time - 1, worker.ppid, holds_file,
							     &f->file),
				 parent.start_time - 1);

	/* The parent unmaps the file: a fresh read sees it, the memo answers as first read. */
	tell_parent(f, 'u');
	assert_int_equal(ms_ancestry_mapped_since(worker.start_time, worker.ppid, holds_file, &f->file),
			 worker.start_time);
	assert_int_equal(ms_ancestry_mapped_since_in(memo, worker.start_time, worker.ppid, holds_file, &f->file),
			 parent.start_time);
	ms_ancestry_free(memo);

	/* A new memo reads the parent again. */
	memo = ms_ancestry_new();
	assert_non_null(memo);
	assert_int_equal(ms_ancestry_mapped_since_in(memo, worker.start_time, worker.ppid, holds_file, &f->file),
			 worker.start_time);
	ms_ancestry_free(memo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_climbs_with_and_without_memo, start, stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
