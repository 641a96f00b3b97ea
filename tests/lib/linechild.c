#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linechild.h"
#include "testutil.h"

int linechild_start(struct linechild *c, const char *prog, const char *const *argv,
		    const char *const *env)
{
	int in[2], out[2];

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->to = c->from = -1;
	if (!prog || pipe2(in, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	c->pid = fork();
	if (c->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to = in[1];
	c->from = out[0];
	if (c->pid < 0) {
		linechild_stop(c);
		return -1;
	}
	return 0;
}

int linechild_line(struct linechild *c, char *line, size_t size, long long deadline_ms)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		struct pollfd pfd = { .fd = c->from, .events = POLLIN };
		long long left = deadline_ms - tu_now_ms();
		ssize_t n;
		int ready;

		if (nl) {
			size_t used = (size_t)(nl - c->buf);

			if (used >= size)
				return -1;
			memcpy(line, c->buf, used);
			line[used] = '\0';
			memmove(c->buf, nl + 1, c->len - used - 1);
			c->len -= used + 1;
			return 0;
		}
		if (left <= 0 || c->len == sizeof(c->buf) || c->from < 0)
			return -1;
		ready = poll(&pfd, 1, (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return -1;
		n = read(c->from, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c->len += (size_t)n;
	}
}

int linechild_send(struct linechild *c, const char *text)
{
	size_t len = strlen(text);
	char *msg = malloc(len + 1);
	ssize_t n;

	if (!msg || c->to < 0) {
		free(msg);
		return -1;
	}
	memcpy(msg, text, len);
	msg[len] = '\n';
	n = write(c->to, msg, len + 1);
	free(msg);
	return n == (ssize_t)(len + 1) ? 0 : -1;
}

void linechild_stop(struct linechild *c)
{
	/* A zeroed struct was never started: its 0s are not our stdin to close. */
	if (c->pid == 0 && c->to == 0 && c->from == 0)
		return;
	if (c->to >= 0)
		close(c->to);
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	if (c->from >= 0)
		close(c->from);
	c->to = c->from = -1;
	c->pid = -1;
	c->len = 0;
}
