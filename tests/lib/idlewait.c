#include "config.h"

#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "idlewait.h"

static bool skipped;

bool idlewait_looks_idle(void)
{
	char buf[128];
	FILE *f = fopen("/proc/loadavg", "r");
	long running = 0;
	cpu_set_t set;

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%*s %*s %*s %ld", &running) != 1)
		running = 0;
	fclose(f);
	if (sched_getaffinity(0, sizeof(set), &set) != 0 || running < 1)
		return false;
	/* This test is one of the runnable tasks, as mapscope is one of its own. */
	return running - 1 < CPU_COUNT(&set) - 1;
}

size_t idlewait_try(bool (*attempt)(void *arg), void *arg, const char *what)
{
	size_t idle_misses = 0;

	for (size_t tries = 1;; tries++) {
		bool idle = idlewait_looks_idle();

		if (attempt(arg))
			return tries;
		/* Looked at after the pause: a thread the attempt joined may be exiting still. */
		usleep(50 * 1000);
		if (idle && idlewait_looks_idle() && ++idle_misses == 3)
			fail_msg("%s: not seen in 3 tries on a machine that looked idle", what);
		if (tries == 100) {
			skipped = true;
			print_message("skipped: %s: the machine never looked idle in 100 tries 50 ms apart\n", what);
			skip();
		}
	}
}

void idlewait_mark_skipped(void)
{
	skipped = true;
}

bool idlewait_skipped(void)
{
	return skipped;
}
