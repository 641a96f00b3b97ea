/*
 * ms_hash_seed: one seed per run, also when threads race for the first
 * call.  Tables that call ms_hash_seed for each hash (the package path
 * table, the lookup cache) find nothing if a later call answers another
 * seed than the one they were built with.
 *
 * Each round is a fresh child process (the seed is drawn once per run),
 * whose threads are released together into their first call and then
 * call again: every answer of every thread must be the same.
 */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/hash.h"

#define THREADS 4
#define ROUNDS 300

static pthread_barrier_t start;

struct answers {
	uint64_t first, second;
};

static void *racer(void *arg)
{
	struct answers *a = arg;

	pthread_barrier_wait(&start);
	a->first = ms_hash_seed();
	a->second = ms_hash_seed();
	return NULL;
}

/* One run: 0 if every call of every thread saw one nonzero seed, else 1. */
static int one_round(void)
{
	struct answers a[THREADS];
	pthread_t t[THREADS];

	if (pthread_barrier_init(&start, NULL, THREADS) != 0)
		return 2;
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, racer, &a[i]) != 0)
			return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++)
		if (!a[i].first || a[i].first != a[0].first || a[i].second != a[0].first)
			return 1;
	return ms_hash_seed() == a[0].first ? 0 : 1;
}

static void test_racing_first_calls_agree(void **state)
{
	int split = 0;

	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		pid_t pid = fork();
		int status = 0;

		assert_true(pid >= 0);
		if (pid == 0)
			_exit(one_round());
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_not_equal(WEXITSTATUS(status), 2);
		split += WEXITSTATUS(status);
	}
	/* Not one run may see two seeds. */
	assert_int_equal(split, 0);
}

static void test_seed_is_kept(void **state)
{
	uint64_t s = ms_hash_seed();

	(void)state;
	assert_true(s & 1);
	assert_true(ms_hash_seed() == s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: the parent must not have drawn its seed before it forks the rounds. */
		cmocka_unit_test(test_racing_first_calls_agree),
		cmocka_unit_test(test_seed_is_kept),
	};

	return cmocka_run_group_tests_name("hash_seed", tests, NULL, NULL);
}
