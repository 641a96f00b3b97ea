/*
 * The whole-text walk's read-ahead (text_reader.h) against a live child
 * with thousands of mappings: more text than the ring holds, every name
 * asked again through PROCMAP_QUERY while the second thread reads (each
 * file is deleted, and one name holds a newline).  The records must be
 * the same with the read-ahead, without it and through the ioctl; a walk
 * stopped half way, or whose process dies half way, must end; a small
 * process must not start a thread.  While the thread reads, it and the
 * caller are on different CPUs and the caller gets its CPUs back after; a
 * caller allowed one CPU gets no thread.  Where a walk found the machine
 * busy and read alone (base/cpus.h), it is walked again until the reader
 * ran (idlewait.h: a skip, exit 77, if the machine never looks idle).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "idlewait.h"
#include "maps/maps.h"

/* Enough text (about 200 bytes a line) to fill the ring of 4 x 64 KiB twice over. */
#define LONG_MAPS 3000
#define NEWLINE_MAPS 200

struct child {
	pid_t pid;
	int hold; /* the child runs until this closes */
};

/* Map PAGES pages of path one by one, alternating protections so that none merge. */
static int map_pages(const char *path, size_t pages)
{
	long ps = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	char *base;

	if (fd < 0 || ftruncate(fd, (off_t)(pages * (size_t)ps)) < 0)
		return -1;
	base = mmap(NULL, pages * (size_t)ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < pages; i++)
		if (mmap(base + i * (size_t)ps, (size_t)ps, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED, fd, (off_t)(i * (size_t)ps)) == MAP_FAILED)
			return -1;
	close(fd);
	return unlink(path);
}

/* A child with the many mappings (many) or with what it has after fork (few). */
static void start_child(struct child *c, bool many)
{
	int ready[2], hold[2];
	char b;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(hold), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		char dir[] = "/tmp/ms-read-ahead.XXXXXX";
		char path[512];
		int ok = 1;

		close(ready[0]);
		close(hold[1]);
		if (many) {
			ok = mkdtemp(dir) != NULL;
			snprintf(path, sizeof(path), "%s/%0120d.dat", dir, 7);
			ok = ok && map_pages(path, LONG_MAPS) == 0;
			snprintf(path, sizeof(path), "%s/line\nbreak.dat", dir);
			ok = ok && map_pages(path, NEWLINE_MAPS) == 0;
			ok = ok && rmdir(dir) == 0;
		}
		if (write(ready[1], ok ? "y" : "n", 1) != 1)
			_exit(1);
		while (read(hold[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	assert_int_equal(read(ready[0], &b, 1), 1);
	close(ready[0]);
	assert_int_equal(b, 'y');
	c->hold = hold[1];
	/* Until it sleeps: a runnable child would keep the reader away (base/cpus.h). */
	idlewait_until_sleeping(c->pid);
}

static void stop_child(struct child *c)
{
	if (c->hold >= 0)
		close(c->hold);
	c->hold = -1;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

/* Read ahead only with a second CPU to read on (text_reader.h). */
static size_t expected_read_ahead(void)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set) > 1;
}

struct walked {
	struct ms_maplist list;
	size_t stop_at;    /* stop the walk at this record (0: never) */
	struct child *kill_at; /* or kill this child there */
	size_t look_at;    /* note where the threads run at this record (0: never) */
	bool looked;
};

/*
 * Mid-walk, where the reader was started (this thread is then held on one
 * CPU; a walk that found the machine busy reads alone, unheld: false): this
 * thread is on that CPU, and the process's other thread (the reader) may
 * run anywhere else but there.
 */
static bool look_at_threads(void)
{
	cpu_set_t mine, theirs;
	int here = sched_getcpu();
	size_t others = 0;
	DIR *d;
	struct dirent *e;

	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	if (CPU_COUNT(&mine) > 1)
		return false;
	assert_true(CPU_ISSET(here, &mine));
	d = opendir("/proc/self/task");
	assert_non_null(d);
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || tid == gettid())
			continue;
		others++;
		assert_int_equal(sched_getaffinity(tid, sizeof(theirs), &theirs), 0);
		assert_true(CPU_COUNT(&theirs) > 0);
		if (CPU_ISSET(here, &theirs))
			fail_msg("the reader may run on the caller's CPU %d", here);
	}
	closedir(d);
	assert_int_equal(others, 1);
	return true;
}

/* This process's threads, as /proc/self/task lists them now. */
static size_t threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += atoi(e->d_name) > 0;
	closedir(d);
	return n;
}

static int keep(void *ctx, struct ms_mapping *m)
{
	struct walked *w = ctx;

	assert_int_equal(ms_maplist_push(&w->list, m), 0);
	if (w->look_at && w->list.count == w->look_at)
		w->looked = look_at_threads();
	if (w->stop_at && w->list.count == w->stop_at) {
		if (!w->kill_at)
			return 1;
		kill(w->kill_at->pid, SIGKILL);
		waitpid(w->kill_at->pid, NULL, 0);
		w->kill_at->pid = -1;
	}
	return 0;
}

static struct ms_maps *open_auto(pid_t pid, struct ms_proc **proc)
{
	struct ms_maps_opts opts = { .backend = MS_BACKEND_AUTO };
	struct ms_maps *maps = NULL;
	struct ms_error err;

	if (ms_proc_open(pid, proc, &err) < 0 || ms_maps_open(*proc, &opts, &maps, &err) < 0)
		fail_msg("pid %d: %s", (int)pid, err.msg);
	if (ms_maps_backend(maps) != MS_BACKEND_IOCTL)
		skip(); /* the whole-text walk is the ioctl kernel's choice for a full walk */
	return maps;
}

struct ahead_walk {
	struct ms_maps *maps;
	struct walked *w;
	size_t before; /* read-aheads before the first try */
};

static bool walk_once(void *arg)
{
	struct ahead_walk *a = arg;
	struct ms_error err;

	ms_maplist_clear(&a->w->list);
	a->w->looked = false;
	assert_int_equal(ms_maps_walk(a->maps, 0, 0, keep, a->w, &err), 0);
	return !expected_read_ahead() || ms_maps_stats(a->maps)->text_read_ahead > a->before;
}

/*
 * A whole walk of maps into w that read ahead where it can: with two CPUs
 * allowed, walked again (w emptied) while the machine looks busy, which
 * keeps the reader away (idlewait.h).  The walks it took.
 */
static size_t walk_ahead(struct ms_maps *maps, struct walked *w)
{
	struct ahead_walk a = { maps, w, ms_maps_stats(maps)->text_read_ahead };

	return idlewait_try(walk_once, &a, "read-ahead");
}

static void assert_same(const struct ms_maplist *a, const struct ms_maplist *b)
{
	assert_int_equal(a->count, b->count);
	for (size_t i = 0; i < a->count; i++) {
		const struct ms_mapping *x = &a->items[i], *y = &b->items[i];

		assert_int_equal(x->start, y->start);
		assert_int_equal(x->end, y->end);
		assert_int_equal(x->perms, y->perms);
		assert_int_equal(x->offset, y->offset);
		assert_int_equal(x->inode, y->inode);
		assert_int_equal(x->dev_major, y->dev_major);
		assert_int_equal(x->dev_minor, y->dev_minor);
		assert_int_equal(x->name_len, y->name_len);
		if (x->name_len)
			assert_memory_equal(x->name, y->name, x->name_len);
		assert_int_equal(x->name_ambiguous, y->name_ambiguous);
	}
}

static size_t count_named(const struct ms_maplist *l, const char *part)
{
	size_t n = 0;

	for (size_t i = 0; i < l->count; i++)
		if (l->items[i].name && memmem(l->items[i].name, l->items[i].name_len, part, strlen(part)))
			n++;
	return n;
}

static void test_same_records(void **state)
{
	struct child c = { .hold = -1 };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps;
	struct walked ahead = { .stop_at = 0 }, alone = { .stop_at = 0 };
	struct ms_maplist queried = { 0 };
	struct ms_error err;
	size_t walks;

	(void)state;
	start_child(&c, true);
	maps = open_auto(c.pid, &proc);
	walks = walk_ahead(maps, &ahead);
	assert_int_equal(ms_maps_stats(maps)->text_read_ahead, expected_read_ahead());
	assert_true(ms_maps_set_read_ahead(maps, false));
	assert_int_equal(ms_maps_walk(maps, 0, 0, keep, &alone, &err), 0);
	assert_int_equal(ms_maps_stats(maps)->text_read_ahead, expected_read_ahead());
	assert_int_equal(ms_maps_stats(maps)->text_reads, walks + 1);
	/* Queries, one mapping each: the kernel's own records. */
	assert_int_equal(ms_maps_collect(maps, 0, &queried, &err), 0);

	/* Every name was asked again: raw bytes, the newline included. */
	assert_int_equal(count_named(&ahead.list, " (deleted)"), LONG_MAPS + NEWLINE_MAPS);
	assert_int_equal(count_named(&ahead.list, "line\nbreak.dat"), NEWLINE_MAPS);
	assert_same(&ahead.list, &alone.list);
	/* The ioctl walk leaves out nothing the text has but the gate area, which this child has not. */
	for (size_t i = 0; i < ahead.list.count; i++)
		if (ahead.list.items[i].name && !strcmp(ahead.list.items[i].name, "[vsyscall]"))
			fail_msg("the streamed walk returned the gate area");
	assert_same(&ahead.list, &queried);
	ms_maplist_free(&ahead.list);
	ms_maplist_free(&alone.list);
	ms_maplist_free(&queried);
	ms_maps_close(maps);
	ms_proc_close(proc);
	stop_child(&c);
}

struct half_way {
	struct child *c;
	struct walked *w;
	int rc;
};

static bool half_way_once(void *arg)
{
	struct half_way *h = arg;
	struct ms_proc *proc = NULL;
	struct ms_maps *maps;
	struct ms_error err;
	size_t ahead;

	start_child(h->c, true);
	maps = open_auto(h->c->pid, &proc);
	h->rc = ms_maps_walk(maps, 0, 0, keep, h->w, &err);
	ahead = ms_maps_stats(maps)->text_read_ahead;
	ms_maps_close(maps);
	ms_proc_close(proc);
	if (ahead == expected_read_ahead())
		return true;
	/* Read alone: a new child for the next try. */
	if (h->c->pid > 0)
		stop_child(h->c);
	else
		close(h->c->hold);
	ms_maplist_clear(&h->w->list);
	return false;
}

/*
 * Walk a child of many mappings that w stops (or kills) half way, with the
 * reader running where two CPUs are allowed (idlewait.h); the walk's
 * result.
 */
static int walk_half_way(struct child *c, struct walked *w)
{
	struct half_way h = { c, w, 0 };

	idlewait_try(half_way_once, &h, "read-ahead half way");
	return h.rc;
}

static void test_stopped_half_way(void **state)
{
	struct child c = { .hold = -1 };
	struct walked w = { .stop_at = LONG_MAPS / 2 };

	(void)state;
	assert_int_equal(walk_half_way(&c, &w), 0);
	assert_int_equal(w.list.count, LONG_MAPS / 2);
	ms_maplist_free(&w.list);
	stop_child(&c);
}

/* The process dies while the second thread reads: the walk ends, in order, short. */
static void test_dies_half_way(void **state)
{
	struct child c = { .hold = -1 };
	struct walked w = { .stop_at = 1000, .kill_at = &c };
	int rc;

	(void)state;
	rc = walk_half_way(&c, &w);
	assert_true(rc == 0 || rc == MS_ERR_EXITED);
	assert_true(w.list.count >= 1000 && w.list.count < LONG_MAPS + NEWLINE_MAPS);
	for (size_t i = 1; i < w.list.count; i++)
		assert_true(w.list.items[i - 1].end <= w.list.items[i].start);
	ms_maplist_free(&w.list);
	close(c.hold);
}

static void test_small_process_no_thread(void **state)
{
	struct child c = { .hold = -1 };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps;
	struct walked w = { .stop_at = 0 };
	struct ms_error err;

	(void)state;
	start_child(&c, false);
	maps = open_auto(c.pid, &proc);
	assert_int_equal(ms_maps_walk(maps, 0, 0, keep, &w, &err), 0);
	assert_true(w.list.count > 5);
	assert_int_equal(ms_maps_stats(maps)->text_reads, 1);
	assert_int_equal(ms_maps_stats(maps)->text_read_ahead, 0);
	ms_maplist_free(&w.list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	stop_child(&c);
}

/* The threads apart while the reader lives, and the caller's CPUs given back. */
static void test_threads_apart(void **state)
{
	struct child c = { .hold = -1 };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps;
	struct walked w = { .look_at = 1000 };
	cpu_set_t before, after;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	if (CPU_COUNT(&before) < 2) {
		print_message("skipped: this test may use one CPU only\n");
		idlewait_mark_skipped();
		skip();
	}
	start_child(&c, true);
	maps = open_auto(c.pid, &proc);
	/* The readers of earlier walks are joined, but may linger in /proc a moment. */
	for (int i = 0; threads_now() > 1; i++) {
		if (i == 200)
			fail_msg("an earlier reader thread is still there after 2 s");
		usleep(10 * 1000);
	}
	walk_ahead(maps, &w);
	assert_int_equal(ms_maps_stats(maps)->text_read_ahead, 1);
	assert_true(w.looked);
	assert_int_equal(count_named(&w.list, " (deleted)"), LONG_MAPS + NEWLINE_MAPS);
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
	ms_maplist_free(&w.list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	stop_child(&c);
}

/* Held to one CPU, the caller reads on its own: the same records, no thread. */
static void test_one_cpu_no_thread(void **state)
{
	struct child c = { .hold = -1 };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps;
	struct walked one = { .stop_at = 0 }, all = { .stop_at = 0 };
	struct ms_error err;
	cpu_set_t before, only, after;
	size_t ahead;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	start_child(&c, true);
	maps = open_auto(c.pid, &proc);
	assert_int_equal(ms_maps_walk(maps, 0, 0, keep, &all, &err), 0);
	ahead = ms_maps_stats(maps)->text_read_ahead;
	CPU_ZERO(&only);
	CPU_SET(sched_getcpu(), &only);
	assert_int_equal(sched_setaffinity(0, sizeof(only), &only), 0);
	assert_int_equal(ms_maps_walk(maps, 0, 0, keep, &one, &err), 0);
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);
	assert_true(CPU_EQUAL(&only, &after));
	assert_int_equal(ms_maps_stats(maps)->text_reads, 2);
	assert_int_equal(ms_maps_stats(maps)->text_read_ahead, ahead);
	assert_same(&one.list, &all.list);
	ms_maplist_free(&one.list);
	ms_maplist_free(&all.list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	stop_child(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_records),
		cmocka_unit_test(test_stopped_half_way),
		cmocka_unit_test(test_dies_half_way),
		cmocka_unit_test(test_small_process_no_thread),
		cmocka_unit_test(test_threads_apart),
		cmocka_unit_test(test_one_cpu_no_thread),
	};

	int failed = cmocka_run_group_tests_name("read ahead", tests, NULL, NULL);

	/* 77: the harness reports a skip; the reason is in the log. */
	return failed == 0 && idlewait_skipped() ? 77 : failed;
}
