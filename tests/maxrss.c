/*
 * ms-maxrss: run a command with a deadline and a memory ceiling, and say
 * how long it took and how much memory it and its children held at most.
 *
 * ms-maxrss REPORT SECONDS CEILING_MB COMMAND [ARG...]
 *
 * COMMAND runs in a process group of its own.  The report (the file
 * REPORT) says, one per line:
 *   status N      its exit status, or 128 + the signal that ended it
 *   seconds S     wall time until it ended
 *   maxrss_kb K   the peak RSS of it and every child it reaped (wait4)
 *   killed WHY    none, time (past SECONDS) or memory (the group's RSS,
 *                 summed and polled every 10 ms, went past CEILING_MB: a
 *                 guard for the machine, so a test of a memory bomb never
 *                 takes it down; the figure is then at least the ceiling)
 *   left N        its descendants still there once it ended: ms-maxrss is
 *                 their subreaper, so an orphan is its child; they are
 *                 then killed (SIGKILL, never anything else's)
 *   stuck N       how many of those were in uninterruptible sleep (D)
 * maxrss_kb counts those too, once reaped.  Its standard streams are the
 * command's.  ms-maxrss exits with the command's status; 125 if it could
 * not run it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct pstat {
	char comm[64];
	char state;
	int ppid;
	int pgrp;
	long rss_pages;
};

static int read_stat(const char *pid, struct pstat *p)
{
	char path[64], buf[1024], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (!(f = fopen(path, "r")))
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!(close_paren = strrchr(buf, ')')) || !strchr(buf, '('))
		return -1;
	n = (size_t)(close_paren - strchr(buf, '(') - 1);
	if (n >= sizeof(p->comm))
		n = sizeof(p->comm) - 1;
	memcpy(p->comm, strchr(buf, '(') + 1, n);
	p->comm[n] = '\0';
	/* After ")": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime vsize rss */
	if (sscanf(close_paren + 2, "%c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %*u %ld",
		   &p->state, &p->ppid, &p->pgrp, &p->rss_pages) != 4)
		return -1;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The RSS (KiB) of every process in group pgrp or whose parent is us. */
static long group_rss_kb(int pgrp)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024, kb = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct pstat p;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && read_stat(e->d_name, &p) == 0 &&
		    (p.pgrp == pgrp || p.ppid == (int)getpid()))
			kb += p.rss_pages * page_kb;
	closedir(d);
	return kb;
}

int main(int argc, char **argv)
{
	double t0, seconds, limit;
	long ceiling_kb;
	const char *killed = "none";
	struct rusage ru;
	int status = 0, left = 0, stuck = 0;
	pid_t pid;
	FILE *rep;

	if (argc < 5) {
		fprintf(stderr, "usage: ms-maxrss REPORT SECONDS CEILING_MB COMMAND [ARG...]\n");
		return 125;
	}
	limit = atof(argv[2]);
	ceiling_kb = atol(argv[3]) * 1024;
	t0 = now();
	/* Orphans of the command become ours: none escapes the count. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[4], argv + 4);
		fprintf(stderr, "ms-maxrss: %s: %s\n", argv[4], strerror(errno));
		_exit(125);
	}
	setpgid(pid, pid);
	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, &ru);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return 125;
		if (!strcmp(killed, "none") && now() - t0 > limit) {
			killed = "time";
			kill(-pid, SIGKILL);
		} else if (!strcmp(killed, "none") && group_rss_kb(pid) > ceiling_kb) {
			killed = "memory";
			kill(-pid, SIGKILL);
		}
		usleep(10000);
	}
	seconds = now() - t0;
	/* What outlived it: its group, and its orphans (our children now). */
	usleep(100000);
	{
		DIR *d = opendir("/proc");
		struct dirent *e;
		struct pstat p;

		while (d && (e = readdir(d))) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9' || read_stat(e->d_name, &p) < 0 ||
			    p.state == 'Z')
				continue;
			if (p.pgrp == pid || p.ppid == (int)getpid()) {
				left++;
				if (p.state == 'D')
					stuck++;
				fprintf(stderr, "ms-maxrss: left behind: pid %s (%s) state %c\n", e->d_name,
					p.comm, p.state);
				kill(atoi(e->d_name), SIGKILL);
			}
		}
		if (d)
			closedir(d);
	}
	/* Reap what was killed, for a while: one stuck in D stays. */
	for (int i = 0; i < 50 && waitpid(-1, NULL, WNOHANG) >= 0; i++)
		usleep(10000);
	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 125;
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (!(rep = fopen(argv[1], "w")))
		return 125;
	fprintf(rep, "status %d\nseconds %.2f\nmaxrss_kb %ld\nkilled %s\nleft %d\nstuck %d\n", status, seconds,
		ru.ru_maxrss, killed, left, stuck);
	fclose(rep);
	return status;
}
