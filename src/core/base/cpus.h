/*
 * cpus.h - keep a helper thread and its caller on different CPUs while
 * they work as a pair.
 *
 * Why: a producer thread and the caller that consumes what it makes wake
 * each other every few items, and a wakeup tends to bring the woken thread
 * to the waker's CPU.  Once both are on one CPU they take turns there,
 * never both runnable long enough for the balancer to move one (each is
 * cache-hot, the kernel's sched_migration_cost), while the other CPU stays
 * idle.  On a 2-CPU VM that was a third of the runs of `list` at 60,000
 * mappings (30 to 36 ms instead of 21; perf sched timehist: both threads'
 * 80 switches on one CPU); placing only the helper still let the caller
 * follow it there.
 *
 * Contract:
 *   - ms_cpu_split_begin holds the calling thread on the CPU it runs on now
 *     and fills *helper with the caller's other allowed CPUs, for the
 *     helper thread's attributes (pthread_attr_setaffinity_np).  It returns
 *     false, with nothing changed, when that leaves the helper no CPU (one
 *     CPU allowed: a second thread would only take turns with the caller)
 *     or the masks cannot be read; the caller then does without a thread.
 *     It also returns false when, at this instant, as many other tasks are
 *     runnable on the machine as the helper would have CPUs (the fourth
 *     field of /proc/loadavg): on busy CPUs each hand-over waits for the
 *     other thread's turn, and one thread does better.  Measured on a
 *     2-CPU VM with both CPUs kept busy by other processes: `list` of
 *     60,000 mappings 48 ms with the pair against 38 alone, `stale` of 500
 *     processes 31 to 36 ms against 17; with one CPU busy, about even.
 *   - Holding the caller is a hint: if the kernel refuses it, the split
 *     still answers true and the thread is still worth having.
 *   - ms_cpu_split_end, called by the same thread once the helper is
 *     joined, gives the caller back the CPUs it had; it does nothing for a
 *     split that held nothing.
 *   - ms_cpu_helper_start creates the helper: on the CPUs of *helper, with
 *     every signal blocked (signals stay the caller's), the caller's own
 *     mask unchanged.  pthread_create's result.
 * Nothing here prints or allocates.
 */
#ifndef MAPSCOPE_CPUS_H
#define MAPSCOPE_CPUS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

struct ms_cpu_split {
	cpu_set_t caller; /* the caller's CPUs before the split */
	bool held;        /* the caller was narrowed to one: give them back */
};

bool ms_cpu_split_begin(struct ms_cpu_split *s, cpu_set_t *helper);
void ms_cpu_split_end(struct ms_cpu_split *s);
int ms_cpu_helper_start(pthread_t *thread, const cpu_set_t *helper, void *(*fn)(void *), void *arg);

#endif
