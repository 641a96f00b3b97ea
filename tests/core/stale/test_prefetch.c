/*
 * The stale walk's second thread (stale_prefetch.h) against live children,
 * each mapping its own number of pages of a file: every process comes back
 * in the fleet's order with the mappings a walk on this thread finds, a
 * named PID that is gone comes back as such in its place, so does one whose
 * walk fails (a zombie: no address space left), the thread and
 * this one run on different CPUs and this one gets its CPUs back, a walk
 * stopped half way closes what it did not hand over, and a caller allowed
 * one CPU gets no thread.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
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
#include "maps/fleet.h"
#include "stale/stale_prefetch.h"

/* More children than the queue holds (32), and batches (8) that do not divide them. */
#define CHILDREN 45
#define DEAD_AT 17   /* the position of a PID that is gone */
#define ZOMBIE_AT 30 /* and of one that has exited, not yet reaped: it opens, its walk fails */

static pid_t kids[CHILDREN];
static int hold = -1;

/* Child i maps 1 + i % 5 pages of its own file, one mapping each (alternate protections). */
static void child_maps(size_t i)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t pages = 1 + i % 5;
	char path[] = "/tmp/ms-prefetch.XXXXXX";
	int fd = mkstemp(path);
	char *base;

	if (fd < 0 || ftruncate(fd, (off_t)(pages * (size_t)ps)) < 0)
		_exit(1);
	base = mmap(NULL, pages * (size_t)ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		_exit(1);
	for (size_t k = 0; k < pages; k++)
		if (mmap(base + k * (size_t)ps, (size_t)ps, k % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED, fd, (off_t)(k * (size_t)ps)) == MAP_FAILED)
			_exit(1);
	close(fd);
	unlink(path);
}

static int start_children(void **state)
{
	int ready[2], h[2];
	char b;

	(void)state;
	if (pipe(ready) < 0 || pipe(h) < 0)
		return -1;
	for (size_t i = 0; i < CHILDREN; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return -1;
		if (kids[i] == 0) {
			close(ready[0]);
			close(h[1]);
			child_maps(i);
			if (write(ready[1], "y", 1) != 1)
				_exit(1);
			while (read(h[0], &b, 1) > 0)
				;
			_exit(0);
		}
	}
	close(ready[1]);
	close(h[0]);
	for (size_t i = 0; i < CHILDREN; i++)
		if (read(ready[0], &b, 1) != 1)
			return -1;
	close(ready[0]);
	hold = h[1];
	/* One child gone, its PID kept in the list. */
	kill(kids[DEAD_AT], SIGKILL);
	waitpid(kids[DEAD_AT], NULL, 0);
	kill(kids[ZOMBIE_AT], SIGKILL);
	return waitid(P_PID, (id_t)kids[ZOMBIE_AT], &(siginfo_t){ 0 }, WEXITED | WNOWAIT);
}

static int stop_children(void **state)
{
	(void)state;
	close(hold);
	for (size_t i = 0; i < CHILDREN; i++)
		if (i != DEAD_AT) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	return 0;
}

static size_t cpus_allowed(void)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	return (size_t)CPU_COUNT(&set);
}

static size_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* The file mappings of pid, walked here, as the thread walks them. */
static void walk_here(pid_t pid, struct ms_maplist *out)
{
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_mapping m = { 0 };
	struct ms_error err;
	uint64_t addr = 0;
	int rc;

	assert_int_equal(ms_fleet_open_one(pid, MS_BACKEND_AUTO, &proc, &maps, NULL, &err), 0);
	ms_maps_set_fields(maps, MS_FIELD_NAME);
	while ((rc = ms_maps_next(maps, addr, MS_FILTER_FILE_BACKED, &m, &err)) == 0) {
		addr = m.end;
		assert_int_equal(ms_maplist_push(out, &m), 0);
	}
	assert_int_equal(rc, MS_END);
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
}

static void assert_same(const struct ms_maplist *a, const struct ms_maplist *b)
{
	assert_int_equal(a->count, b->count);
	for (size_t i = 0; i < a->count; i++) {
		assert_int_equal(a->items[i].start, b->items[i].start);
		assert_int_equal(a->items[i].end, b->items[i].end);
		assert_int_equal(a->items[i].inode, b->items[i].inode);
		assert_int_equal(a->items[i].name_len, b->items[i].name_len);
		assert_memory_equal(a->items[i].name, b->items[i].name, a->items[i].name_len);
	}
}

/* The mappings whose name holds part: the child's own file. */
static size_t count_named(const struct ms_maplist *l, const char *part)
{
	size_t n = 0;

	for (size_t i = 0; i < l->count; i++)
		n += l->items[i].name && strstr(l->items[i].name, part) != NULL;
	return n;
}

struct start {
	struct ms_fleet *f;
	struct ms_stale_prefetch *p;
};

static bool start_once(void *arg)
{
	struct start *st = arg;

	st->p = ms_stale_prefetch_start(st->f, MS_FILTER_FILE_BACKED);
	/* Staying away takes nothing from the fleet (once started, it is the walkers'). */
	if (!st->p)
		assert_int_equal(st->f->next, 0);
	return st->p != NULL;
}

/* The thread for f, started again while the machine looks busy (idlewait.h). */
static struct ms_stale_prefetch *start_ahead(struct ms_fleet *f)
{
	struct start st = { f, NULL };

	idlewait_try(start_once, &st, "walk-ahead");
	return st.p;
}

static void fleet_of_children(struct ms_fleet *f)
{
	struct ms_error err;

	assert_int_equal(ms_fleet_init(f, kids, CHILDREN, true, MS_BACKEND_AUTO, &err), 0);
}

/*
 * What came back in place i of the children's fleet (pid: the process
 * handed over, 0 for none), checked: the gone PID, the zombie's failed
 * walk, or the child with the mappings a walk on this thread finds.
 */
static void check_handed(size_t i, int kind, pid_t pid, const struct ms_maplist *got, int walk_rc, bool named)
{
	struct ms_maplist want = { 0 };

	if (i == DEAD_AT) {
		assert_int_equal(kind, MS_FLEET_NAMED_FAILED);
		assert_int_equal(pid, 0);
		return;
	}
	if (i == ZOMBIE_AT) {
		/* Opened, then its walk failed: counted by the walker, said by the caller. */
		assert_int_equal(kind, MS_FLEET_OPEN);
		assert_true(walk_rc < 0);
		assert_true(named);
		assert_int_equal(pid, 0);
		return;
	}
	assert_int_equal(kind, MS_FLEET_OPEN);
	assert_int_equal(walk_rc, 0);
	assert_false(named);
	assert_int_equal(pid, kids[i]);
	walk_here(kids[i], &want);
	assert_int_equal(count_named(&want, "/ms-prefetch."), 1 + i % 5);
	assert_same(got, &want);
	ms_maplist_free(&want);
}

/* The fleet's counters once the children's walk is over, rounds times: all but the gone PID and the zombie. */
static void check_counted(const struct ms_fleet *f, size_t rounds)
{
	assert_true(ms_fleet_failed(f));
	assert_int_equal(f->scanned, rounds * (CHILDREN - 2));
	assert_int_equal(f->vanished, rounds * 2);
}

/* The test skipped where it may use one CPU only: no thread is started then. */
static void two_cpus_or_skip(void)
{
	if (cpus_allowed() < 2) {
		print_message("skipped: this test may use one CPU only\n");
		idlewait_mark_skipped();
		skip();
	}
}

/* The children's fleet in f and its thread, or the test skipped where it may use one CPU only. */
static struct ms_stale_prefetch *children_ahead(struct ms_fleet *f)
{
	two_cpus_or_skip();
	fleet_of_children(f);
	return start_ahead(f);
}

static void test_in_order(void **state)
{
	struct ms_fleet f;
	struct ms_stale_prefetch *p;
	struct ms_maplist got = { 0 };
	cpu_set_t before, after;
	size_t fds = open_fds();

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	p = children_ahead(&f);
	for (size_t i = 0; i < CHILDREN; i++) {
		struct ms_proc *proc;
		struct ms_maps *maps;
		struct ms_error err;
		int walk_rc;
		bool named;
		int kind = ms_stale_prefetch_next(p, &proc, &maps, &got, &walk_rc, &named, &err);

		/* This thread is held on one CPU while the other walks. */
		if (i == CHILDREN / 2) {
			cpu_set_t mine;

			assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
			assert_int_equal(CPU_COUNT(&mine), 1);
		}
		check_handed(i, kind, proc ? ms_proc_pid(proc) : 0, &got, walk_rc, named);
		ms_maps_close(maps);
		ms_proc_close(proc);
	}
	for (int k = 0; k < 2; k++) {
		struct ms_proc *proc;
		struct ms_maps *maps;
		struct ms_error err;
		int walk_rc;
		bool named;

		assert_int_equal(ms_stale_prefetch_next(p, &proc, &maps, &got, &walk_rc, &named, &err), MS_FLEET_DONE);
	}
	ms_stale_prefetch_stop(p);
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
	check_counted(&f, 1);
	ms_fleet_free(&f);
	ms_maplist_free(&got);
	assert_int_equal(open_fds(), fds);
}

/* Stopped after a few: whatever the thread opened ahead is closed. */
static void test_stopped_early(void **state)
{
	struct ms_fleet f;
	struct ms_stale_prefetch *p;
	struct ms_maplist got = { 0 };
	size_t fds = open_fds();

	(void)state;
	p = children_ahead(&f);
	for (size_t i = 0; i < 3; i++) {
		struct ms_proc *proc;
		struct ms_maps *maps;
		struct ms_error err;
		int walk_rc;
		bool named;

		assert_int_equal(ms_stale_prefetch_next(p, &proc, &maps, &got, &walk_rc, &named, &err), MS_FLEET_OPEN);
		ms_maps_close(maps);
		ms_proc_close(proc);
	}
	/* Let the thread fill its queue, so that there is something to close. */
	usleep(100 * 1000);
	assert_true(open_fds() > fds + 2);
	ms_stale_prefetch_stop(p);
	ms_fleet_free(&f);
	ms_maplist_free(&got);
	assert_int_equal(open_fds(), fds);
}

/*
 * A caller that takes each process at once catches up with the thread and
 * walks the next ones itself: both walk.  The children's PIDs ROUNDS times
 * over wrap the thread's 32 slots many times; now and then the caller
 * pauses, the thread fills every slot and waits, and the caller empties
 * them all before the thread is back.  What comes back is the same, in
 * the same order.
 */
#define ROUNDS 12
#define ALL (ROUNDS * CHILDREN)

struct both {
	pid_t pid[ALL];
	struct ms_maplist got[ALL];
	int kind[ALL], walk_rc[ALL];
	bool named[ALL];
};

static bool both_walk_once(void *arg)
{
	struct both *b = arg;
	pid_t pids[ALL];
	struct ms_fleet f;
	struct ms_error err;
	struct ms_stale_prefetch *p;
	size_t here;

	for (size_t i = 0; i < ALL; i++)
		pids[i] = kids[i % CHILDREN];
	assert_int_equal(ms_fleet_init(&f, pids, ALL, true, MS_BACKEND_AUTO, &err), 0);
	p = ms_stale_prefetch_start(&f, MS_FILTER_FILE_BACKED);
	if (!p) {
		ms_fleet_free(&f);
		return false;
	}
	for (size_t i = 0; i < ALL; i++) {
		struct ms_proc *proc;
		struct ms_maps *maps;

		/* Now and then the thread fills its 32 slots and waits; then this side empties them. */
		if (i % 100 == 0)
			usleep(20 * 1000);
		b->kind[i] = ms_stale_prefetch_next(p, &proc, &maps, &b->got[i], &b->walk_rc[i], &b->named[i], &err);
		b->pid[i] = proc ? ms_proc_pid(proc) : 0;
		ms_maps_close(maps);
		ms_proc_close(proc);
	}
	{
		struct ms_proc *proc;
		struct ms_maps *maps;
		struct ms_maplist none = { 0 };
		int walk_rc;
		bool named;

		assert_int_equal(ms_stale_prefetch_next(p, &proc, &maps, &none, &walk_rc, &named, &err), MS_FLEET_DONE);
		ms_maplist_free(&none);
	}
	here = ms_stale_prefetch_walked_here(p);
	ms_stale_prefetch_stop(p);
	check_counted(&f, ROUNDS);
	ms_fleet_free(&f);
	for (size_t i = 0; i < ALL; i++)
		check_handed(i % CHILDREN, b->kind[i], b->pid[i], &b->got[i], b->walk_rc[i], b->named[i]);
	print_message("this thread walked %zu of %d\n", here, ALL);
	/* Both walked: at least one here, and at least one there. */
	return here > 0 && here < ALL - ROUNDS;
}

/* Static: a skip leaves the test by longjmp, and what the lists hold stays reachable. */
static struct both both_lists;

static void test_both_walk(void **state)
{
	size_t fds = open_fds();

	(void)state;
	two_cpus_or_skip();
	idlewait_try(both_walk_once, &both_lists, "both walking");
	for (size_t i = 0; i < ALL; i++)
		ms_maplist_free(&both_lists.got[i]);
	assert_int_equal(open_fds(), fds);
}

/*
 * A walk of every process skips our own (fleet.h): here the children's
 * PIDs with runs of our own between them, so that both sides race through
 * slots that need no walk, and the caller often reaches a slot nobody has
 * taken yet, one the ring used before.  Each child comes back once per
 * round, in order; the gone PID is counted, not said.
 */
#define SELF_RUN 100
#define SKIP_ALL (ROUNDS * (CHILDREN + SELF_RUN))

static bool skips_once(void *arg)
{
	static pid_t pids[SKIP_ALL];
	struct ms_maplist got = { 0 };
	struct ms_stale_prefetch *p;
	struct ms_fleet f;
	struct ms_error err;
	size_t n = 0;

	(void)arg;
	for (size_t r = 0; r < ROUNDS; r++) {
		for (size_t i = 0; i < CHILDREN; i++)
			pids[n++] = kids[i];
		for (size_t i = 0; i < SELF_RUN; i++)
			pids[n++] = getpid();
	}
	assert_int_equal(ms_fleet_init(&f, pids, n, false, MS_BACKEND_AUTO, &err), 0);
	p = ms_stale_prefetch_start(&f, MS_FILTER_FILE_BACKED);
	if (!p) {
		ms_fleet_free(&f);
		return false;
	}
	for (size_t r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < CHILDREN; i++) {
			struct ms_proc *proc;
			struct ms_maps *maps;
			int walk_rc, kind;
			bool named;

			if (i == DEAD_AT)
				continue;
			kind = ms_stale_prefetch_next(p, &proc, &maps, &got, &walk_rc, &named, &err);
			assert_int_equal(kind, MS_FLEET_OPEN);
			assert_false(named);
			if (i == ZOMBIE_AT) {
				assert_true(walk_rc < 0);
				assert_null(proc);
				continue;
			}
			assert_int_equal(walk_rc, 0);
			assert_int_equal(ms_proc_pid(proc), kids[i]);
			assert_int_equal(count_named(&got, "/ms-prefetch."), 1 + i % 5);
			ms_maps_close(maps);
			ms_proc_close(proc);
		}
	{
		struct ms_proc *proc;
		struct ms_maps *maps;
		int walk_rc;
		bool named;

		assert_int_equal(ms_stale_prefetch_next(p, &proc, &maps, &got, &walk_rc, &named, &err), MS_FLEET_DONE);
	}
	ms_stale_prefetch_stop(p);
	assert_false(ms_fleet_failed(&f));
	assert_int_equal(f.scanned, ROUNDS * (CHILDREN - 2));
	assert_int_equal(f.vanished, ROUNDS * 2);
	ms_fleet_free(&f);
	ms_maplist_free(&got);
	return true;
}

static void test_skips_between(void **state)
{
	size_t fds = open_fds();

	(void)state;
	two_cpus_or_skip();
	idlewait_try(skips_once, NULL, "skips between");
	assert_int_equal(open_fds(), fds);
}

static void test_one_cpu_no_thread(void **state)
{
	struct ms_fleet f;
	cpu_set_t before, only;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	CPU_ZERO(&only);
	CPU_SET(sched_getcpu(), &only);
	assert_int_equal(sched_setaffinity(0, sizeof(only), &only), 0);
	fleet_of_children(&f);
	assert_null(ms_stale_prefetch_start(&f, MS_FILTER_FILE_BACKED));
	assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);
	assert_int_equal(f.next, 0);
	ms_fleet_free(&f);
	ms_stale_prefetch_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_stopped_early),
		cmocka_unit_test(test_both_walk),
		cmocka_unit_test(test_skips_between),
		cmocka_unit_test(test_one_cpu_no_thread),
	};

	int failed = cmocka_run_group_tests_name("stale prefetch", tests, start_children, stop_children);

	/* 77: the harness reports a skip; the reason is in the log. */
	return failed == 0 && idlewait_skipped() ? 77 : failed;
}
