/*
 * base/cpus.h: a caller and its helper thread kept apart.  Allowed one CPU,
 * there is no split; on an idle machine the caller is held on its CPU, the
 * helper gets the others, and the end gives the caller its CPUs back; with
 * every CPU kept busy by other processes there is no split either.
 */
#include "config.h"

#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/cpus.h"
#include "idlewait.h"

static cpu_set_t allowed(void)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	return set;
}

static void test_one_cpu(void **state)
{
	cpu_set_t before = allowed(), only, helper;
	struct ms_cpu_split s;

	(void)state;
	CPU_ZERO(&only);
	CPU_SET(sched_getcpu(), &only);
	assert_int_equal(sched_setaffinity(0, sizeof(only), &only), 0);
	assert_false(ms_cpu_split_begin(&s, &helper));
	ms_cpu_split_end(&s);
	cpu_set_t after = allowed();
	assert_true(CPU_EQUAL(&after, &only));
	assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);
}

struct split {
	struct ms_cpu_split s;
	cpu_set_t helper;
};

static bool split_once(void *arg)
{
	struct split *sp = arg;

	return ms_cpu_split_begin(&sp->s, &sp->helper);
}

/* Idle (tried again while the machine looks busy: idlewait.h): held, apart, given back. */
static void test_idle_split(void **state)
{
	cpu_set_t before = allowed(), mine, after;
	struct split sp;

	(void)state;
	if (CPU_COUNT(&before) < 2) {
		print_message("skipped: this test may use one CPU only\n");
		idlewait_mark_skipped();
		skip();
	}
	idlewait_try(split_once, &sp, "split");
	mine = allowed();
	assert_int_equal(CPU_COUNT(&mine), 1);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &mine))
			assert_false(CPU_ISSET(c, &sp.helper));
		if (CPU_ISSET(c, &sp.helper) || CPU_ISSET(c, &mine))
			assert_true(CPU_ISSET(c, &before));
	}
	assert_int_equal(CPU_COUNT(&sp.helper) + 1, CPU_COUNT(&before));
	ms_cpu_split_end(&sp.s);
	after = allowed();
	assert_true(CPU_EQUAL(&after, &before));
}

/* Every allowed CPU kept busy twice over: no split, nothing changed. */
static void test_busy_no_split(void **state)
{
	cpu_set_t before = allowed(), helper, after;
	int n = 2 * CPU_COUNT(&before);
	pid_t *hogs = calloc((size_t)n, sizeof(*hogs));
	struct ms_cpu_split s;
	int splits = 0;

	(void)state;
	assert_non_null(hogs);
	for (int i = 0; i < n; i++) {
		hogs[i] = fork();
		assert_true(hogs[i] >= 0);
		if (hogs[i] == 0) {
			/* Gone with the test, whatever becomes of it. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				;
		}
	}
	usleep(100 * 1000);
	for (int k = 0; k < 5; k++) {
		splits += ms_cpu_split_begin(&s, &helper);
		ms_cpu_split_end(&s);
	}
	for (int i = 0; i < n; i++) {
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
	free(hogs);
	assert_int_equal(splits, 0);
	after = allowed();
	assert_true(CPU_EQUAL(&after, &before));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_cpu),
		cmocka_unit_test(test_idle_split),
		cmocka_unit_test(test_busy_no_split),
	};

	int failed = cmocka_run_group_tests_name("cpus", tests, NULL, NULL);

	/* 77: the harness reports a skip; the reason is in the log. */
	return failed == 0 && idlewait_skipped() ? 77 : failed;
}
