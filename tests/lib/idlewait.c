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

/* This process's threads, from /proc/self/status (0 if unknown). */
static long own_threads(void)
{
	char line[128];
	long n = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Until this process is one thread again, for at most 100 ms. */
static void wait_alone(void)
{
	for (int i = 0; i < 100 && own_threads() > 1; i++)
		usleep(1000);
}

bool idlewait_sleeping(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The state follows the command's closing parenthesis. */
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] == 'S';
}

void idlewait_until_sleeping(pid_t pid)
{
	for (int i = 0; i < 1000 && !idlewait_sleeping(pid); i++)
		usleep(1000);
}

size_t idlewait_try(bool (*attempt)(void *arg), void *arg, const char *what)
{
	size_t idle_misses = 0;

	for (size_t tries = 1;; tries++) {
		bool idle = idlewait_looks_idle();

		if (attempt(arg))
			return tries;
		/* A thread the attempt joined may count as running until it is gone. */
		wait_alone();
		if (idle && idlewait_looks_idle() && ++idle_misses == 3)
			fail_msg("%s: not seen in 3 tries on a machine that looked idle", what);
		if (tries == 100) {
			skipped = true;
			print_message("skipped: %s: the machine never looked idle in 100 tries 50 ms apart\n", what);
			skip();
		}
		usleep(50 * 1000);
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
