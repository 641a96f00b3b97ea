#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stale_harness.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *harness_drain(int fd, long long deadline_ms, int *timed_out)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	if (timed_out)
		*timed_out = 0;
	while (buf) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline_ms - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			if (timed_out)
				*timed_out = 1;
			break;
		}
		if (len + 1 == cap) {
			char *grown = realloc(buf, cap * 2);

			if (!grown)
				break;
			buf = grown;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

long long harness_deadline(void)
{
	return now_ms() + HARNESS_DEADLINE_MS;
}

char *harness_built(const char *name)
{
	const char *fixture = getenv("MS_FIXTURE");
	const char *slash = fixture ? strrchr(fixture, '/') : NULL;
	char *path;

	if (!slash)
		return strdup(name);
	if (asprintf(&path, "%.*s/%s", (int)(slash - fixture), fixture, name) < 0)
		return NULL;
	return path;
}

char *harness_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/ms-stale-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

void harness_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	rmdir(dir);
}

char *harness_join(const char *dir, const char *name)
{
	char *path;

	return asprintf(&path, "%s/%s", dir, name) < 0 ? NULL : path;
}

pid_t harness_spawn_many(size_t n)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		long page = sysconf(_SC_PAGESIZE);
		char *base = mmap(NULL, (size_t)page * n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (base == MAP_FAILED)
			_exit(1);
		for (size_t i = 1; i < n; i += 2)
			if (mprotect(base + (size_t)page * i, (size_t)page, PROT_READ | PROT_WRITE) < 0)
				_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (pid > 0 && read(ready[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

int harness_copy(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t n = 0;
	int rc = in >= 0 && out >= 0 ? 0 : -1;

	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		rc = -1;
	return rc;
}

/* One line from the child into line (without newline), by the deadline.  0 or -1. */
static int child_line(struct child *c, char *line, size_t size)
{
	long long deadline = now_ms() + HARNESS_DEADLINE_MS;

	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		struct pollfd pfd = { .fd = c->from, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (nl) {
			size_t used = (size_t)(nl - c->buf) + 1;

			snprintf(line, size, "%.*s", (int)(used - 1), c->buf);
			memmove(c->buf, c->buf + used, c->len - used);
			c->len -= used;
			return 0;
		}
		if (left <= 0 || c->len == sizeof(c->buf) || poll(&pfd, 1, (int)left) <= 0)
			return -1;
		n = read(c->from, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n <= 0)
			return -1;
		c->len += (size_t)n;
	}
}

pid_t harness_spawn(const char *prog, const char *arg, const char *const *env, int *to, int *from)
{
	int in[2], out[2];
	pid_t pid;

	if (!prog || pipe2(in, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	*to = in[1];
	*from = out[0];
	return pid;
}

int child_start(struct child *c)
{
	char line[256];
	char *prog = harness_built("stale-child");

	memset(c, 0, sizeof(*c));
	c->pid = harness_spawn(prog, NULL, NULL, &c->to, &c->from);
	free(prog);
	if (c->pid < 0 || child_line(c, line, sizeof(line)) < 0 || strncmp(line, "ready ", 6))
		return -1;
	return 0;
}

int child_cmd(struct child *c, const char *fmt, ...)
{
	char cmd[4096], line[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd) - 1)
		return -1;
	cmd[n++] = '\n';
	if (write(c->to, cmd, (size_t)n) != n || child_line(c, line, sizeof(line)) < 0)
		return -1;
	if (strcmp(line, "ok")) {
		fprintf(stderr, "stale-child: %s\n", line);
		return -1;
	}
	return 0;
}

void child_stop(struct child *c)
{
	if (c->pid <= 0)
		return;
	close(c->to);
	close(c->from);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	c->pid = -1;
}

int harness_run(char **out, const char *const *args)
{
	return harness_run_or(out, args, NULL, NULL);
}

int harness_run_or(char **out, const char *const *args, void (*on_timeout)(void *), void *arg)
{
	const char *bin = getenv("MS_BIN");
	long long deadline = now_ms() + HARNESS_DEADLINE_MS;
	size_t nargs = 0;
	int pipefd[2], status;
	const char **argv;
	int timed_out = 0;
	char *buf;
	pid_t pid;

	*out = NULL;
	while (args[nargs])
		nargs++;
	argv = calloc(nargs + 2, sizeof(*argv));
	if (!bin || !argv || pipe2(pipefd, O_CLOEXEC) < 0) {
		free(argv);
		return -1;
	}
	argv[0] = "mapscope";
	memcpy(argv + 1, args, nargs * sizeof(*argv));
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	free(argv);
	close(pipefd[1]);
	buf = harness_drain(pipefd[0], deadline, &timed_out);
	close(pipefd[0]);
	if (!buf)
		timed_out = 1;
	if (timed_out && pid > 0)
		kill(pid, SIGKILL);
	/* SIGKILL cannot end an uninterruptible sleep; on_timeout must end its cause. */
	if (timed_out && pid > 0 && on_timeout)
		on_timeout(arg);
	if (timed_out || pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		if (pid > 0 && timed_out)
			waitpid(pid, NULL, 0);
		free(buf);
		return -1;
	}
	*out = buf;
	return WEXITSTATUS(status);
}
