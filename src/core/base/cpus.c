#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"

/*
 * Tasks runnable on the whole machine right now besides the caller: the
 * fourth field of /proc/loadavg, "RUNNING/TOTAL" (fs/proc/loadavg.c:
 * nr_running(), this instant, not an average).  -1 when unreadable.
 */
static long others_running(void)
{
	char buf[128], *p, *end;
	ssize_t n;
	long running;
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = buf;
	for (int field = 0; field < 3; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	running = strtol(p, &end, 10);
	if (end == p || *end != '/' || running < 1)
		return -1;
	return running - 1;
}

bool ms_cpu_split_begin(struct ms_cpu_split *s, cpu_set_t *helper)
{
	int here = sched_getcpu();
	cpu_set_t mine;

	s->held = false;
	if (here < 0 || here >= CPU_SETSIZE || sched_getaffinity(0, sizeof(s->caller), &s->caller) != 0 ||
	    !CPU_ISSET(here, &s->caller))
		return false;
	*helper = s->caller;
	CPU_CLR(here, helper);
	if (CPU_COUNT(helper) == 0)
		return false;
	/* Every other CPU taken, by all appearances: one thread does better. */
	if (others_running() >= CPU_COUNT(helper))
		return false;
	CPU_ZERO(&mine);
	CPU_SET(here, &mine);
	s->held = sched_setaffinity(0, sizeof(mine), &mine) == 0;
	return true;
}

void ms_cpu_split_end(struct ms_cpu_split *s)
{
	if (s->held)
		(void)sched_setaffinity(0, sizeof(s->caller), &s->caller);
	s->held = false;
}

int ms_cpu_helper_start(pthread_t *thread, const cpu_set_t *helper, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_attr_init(&attr);
	if (rc == 0) {
		/* Placement is a hint: a thread is still worth having without it. */
		(void)pthread_attr_setaffinity_np(&attr, sizeof(*helper), helper);
		rc = pthread_create(thread, &attr, fn, arg);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
