/*
 * idlewait.h - for tests of mapscope's second threads (core/base/cpus.h),
 * which are started only when the machine looks idle at that instant: no
 * more other tasks runnable than the helper would have CPUs.
 *
 * idlewait_try runs attempt until it says the thread ran (or did what the
 * test waits for), up to 100 times
 * 50 ms apart, and returns the attempts made.  Where the machine looked
 * idle just before and just after three attempts that made no thread, the
 * feature is broken: the test fails.  Where it never did in 100 tries, the
 * machine is busy, not the feature: the test is skipped with that reason,
 * and idlewait_skipped() says so, for main to exit 77 (a skip, not a pass).
 */
#ifndef MS_TEST_IDLEWAIT_H
#define MS_TEST_IDLEWAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A child the test just started may be runnable for a moment after it says
 * it is ready, and then the machine looks busy: wait (at most 1 s) until it
 * sleeps.
 */
bool idlewait_sleeping(pid_t pid);
void idlewait_until_sleeping(pid_t pid);
/* Would a helper thread be started now (the same test as cpus.c's)? */
bool idlewait_looks_idle(void);
size_t idlewait_try(bool (*attempt)(void *arg), void *arg, const char *what);
/* A test was skipped as busy (or with one CPU): for main's exit status. */
void idlewait_mark_skipped(void);
bool idlewait_skipped(void);

#endif
