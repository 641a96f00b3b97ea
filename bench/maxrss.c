/*
 * ms-bench-maxrss: run a command and print its peak resident set size.
 *
 * Usage: ms-bench-maxrss COMMAND [ARG...]
 *
 * The command's output goes to /dev/null; "maxrss KIB STATUS" goes to
 * stdout, from wait4()'s ru_maxrss (getrusage(2): kilobytes, the peak of
 * the child alone since nothing else is waited for).
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: ms-bench-maxrss COMMAND [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 3;
	printf("maxrss %ld %d\n", ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return 0;
}
