/*
 * ms-threads: a process whose threads each run on their own stack, for
 * the diff test around a thread that ends in the middle (test_diff_thread).
 *
 * Usage: ms-threads N      (1 to 16 threads)
 *
 * It starts N threads with the default attributes, as a program does, so
 * glibc maps each stack (with its guard page below) itself.  Each thread
 * keeps the address of one of its locals, then sleeps in read() on a pipe
 * of its own; once all have started it prints, per thread,
 *
 *   thread I ADDR      (I from 1 in the order started, ADDR hex without 0x,
 *                       an address inside that thread's stack)
 *
 * then "ready PID" (after a line "sanitizer address" when built with
 * AddressSanitizer, whose runtime maps memory of its own for each thread
 * and unmaps it when the thread ends).  Commands on stdin, one per line, each answered by
 * "ok" (or "err WHY"):
 *   end I          let thread I return, and join it
 *   exit           exit with status 0
 * At end of input it exits.
 *
 * The threads call nothing that allocates (no stdio, no malloc), so no
 * thread gets a malloc arena of its own: the only mappings a thread brings
 * are its stack and guard page.  glibc keeps the stacks of joined threads
 * for reuse unless GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0, which
 * the test sets so that "end" really unmaps the stack.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

#if defined(__SANITIZE_ADDRESS__)
#define MS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MS_ASAN 1
#endif
#endif

struct worker {
	pthread_t id;
	int wake[2]; /* the thread returns when wake[0] reads anything */
	volatile uintptr_t local;
	int running;
};

static struct worker workers[MAX_THREADS];
static pthread_barrier_t started;
/* stdio's buffers, given rather than malloc'd: the heap stays as it is between two snapshots. */
static char in_buf[BUFSIZ], out_buf[BUFSIZ];

static void *run(void *arg)
{
	struct worker *w = arg;
	char byte;
	ssize_t n;

	/* Any local sits on this thread's stack. */
	w->local = (uintptr_t)&byte;
	pthread_barrier_wait(&started);
	do
		n = read(w->wake[0], &byte, 1);
	while (n < 0 && errno == EINTR);
	return NULL;
}

static void answer(const char *what, int err)
{
	if (err)
		printf("err %s: %s\n", what, strerror(err));
	else
		printf("ok\n");
	fflush(stdout);
}

static void end_thread(int i)
{
	struct worker *w;
	int err;

	if (i < 1 || i > MAX_THREADS || !workers[i - 1].running) {
		answer("end", ESRCH);
		return;
	}
	w = &workers[i - 1];
	if (write(w->wake[1], "x", 1) != 1) {
		answer("end: write", errno);
		return;
	}
	err = pthread_join(w->id, NULL);
	if (!err)
		w->running = 0;
	answer("end: pthread_join", err);
}

int main(int argc, char **argv)
{
	char line[256];
	int count, err;

	setvbuf(stdin, in_buf, _IOLBF, sizeof(in_buf));
	setvbuf(stdout, out_buf, _IOLBF, sizeof(out_buf));
	count = argc == 2 ? atoi(argv[1]) : 0;
	if (count < 1 || count > MAX_THREADS) {
		fprintf(stderr, "usage: ms-threads N (1 to %d)\n", MAX_THREADS);
		return 2;
	}
	if (pthread_barrier_init(&started, NULL, (unsigned)count + 1) != 0)
		return 3;
	for (int i = 0; i < count; i++) {
		if (pipe(workers[i].wake) < 0) {
			perror("ms-threads: pipe");
			return 3;
		}
		err = pthread_create(&workers[i].id, NULL, run, &workers[i]);
		if (err) {
			fprintf(stderr, "ms-threads: pthread_create: %s\n", strerror(err));
			return 3;
		}
		workers[i].running = 1;
	}
	pthread_barrier_wait(&started);
	for (int i = 0; i < count; i++)
		printf("thread %d %lx\n", i + 1, (unsigned long)workers[i].local);
#ifdef MS_ASAN
	printf("sanitizer address\n");
#endif
	printf("ready %d\n", (int)getpid());
	fflush(stdout);

	while (fgets(line, sizeof(line), stdin)) {
		int i;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "end %d", &i) == 1)
			end_thread(i);
		else if (!strcmp(line, "exit"))
			return 0;
		else
			answer("unknown command", EINVAL);
	}
	return 0;
}
