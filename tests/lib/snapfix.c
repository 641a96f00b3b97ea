#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "snapfix.h"
#include "stale_harness.h"

#define DEADLINE_MS 20000

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *snapfix_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&path, "%s/ms-snap-XXXXXX", base) < 0)
		return NULL;
	if (!mkdtemp(path)) {
		free(path);
		return NULL;
	}
	return path;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

void snapfix_rmdir(char *path)
{
	if (path)
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(path);
}

char *snapfix_path(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* One line from the child, without its newline, polling to a deadline. */
static int read_line(struct snapfix *f, char *line, size_t size)
{
	long long deadline = now_ms() + DEADLINE_MS;

	for (;;) {
		char *nl = memchr(f->buf, '\n', f->len);
		struct pollfd p = { f->from_child, POLLIN, 0 };
		long long left;
		ssize_t n;

		if (nl) {
			size_t used = (size_t)(nl - f->buf);

			if (used >= size)
				return -1;
			memcpy(line, f->buf, used);
			line[used] = '\0';
			memmove(f->buf, nl + 1, f->len - used - 1);
			f->len -= used + 1;
			return 0;
		}
		left = deadline - now_ms();
		if (left <= 0 || f->len == sizeof(f->buf))
			return -1;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = read(f->from_child, f->buf + f->len, sizeof(f->buf) - f->len);
		if (n <= 0)
			return -1;
		f->len += (size_t)n;
	}
}

static void parse_map(struct snapfix *f, const char *line)
{
	struct snapfix_map *m;
	char namehex[8500];

	if (f->nmaps == SNAPFIX_MAX_MAPS)
		return;
	m = &f->maps[f->nmaps];
	memset(m, 0, sizeof(*m));
	if (sscanf(line, "map %31s %lx %lx %7s %lx %8499s", m->kind, (unsigned long *)&m->start,
		   (unsigned long *)&m->end, m->perms, (unsigned long *)&m->offset, namehex) != 6)
		return;
	if (strcmp(namehex, "-"))
		for (size_t i = 0; namehex[2 * i] && namehex[2 * i + 1] && i < sizeof(m->name) - 1; i++) {
			char byte[3] = { namehex[2 * i], namehex[2 * i + 1], '\0' };

			m->name[m->name_len++] = (char)strtoul(byte, NULL, 16);
		}
	f->nmaps++;
}

int snapfix_start(struct snapfix *f, const char *dir)
{
	const char *bin = getenv("MS_FIXTURE");
	int in[2], out[2];
	char line[9000];

	memset(f, 0, sizeof(*f));
	f->pid = -1;
	if (!bin || pipe2(in, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	f->pid = fork();
	if (f->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execl(bin, bin, dir, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f->to_child = in[1];
	f->from_child = out[0];
	if (f->pid < 0)
		return -1;
	while (read_line(f, line, sizeof(line)) == 0) {
		if (!strncmp(line, "map ", 4))
			parse_map(f, line);
		else if (!strncmp(line, "ready ", 6))
			return 0;
	}
	return -1;
}

int snapfix_command(struct snapfix *f, const char *cmd)
{
	char line[9000];
	size_t len = strlen(cmd);

	if (write(f->to_child, cmd, len) != (ssize_t)len || write(f->to_child, "\n", 1) != 1)
		return -1;
	while (read_line(f, line, sizeof(line)) == 0) {
		if (!strncmp(line, "map ", 4))
			parse_map(f, line);
		else if (!strcmp(line, "ok"))
			return 0;
		else if (!strncmp(line, "err", 3))
			return -1;
	}
	return -1;
}

const struct snapfix_map *snapfix_find(const struct snapfix *f, const char *kind)
{
	for (size_t i = 0; i < f->nmaps; i++)
		if (!strcmp(f->maps[i].kind, kind))
			return &f->maps[i];
	return NULL;
}

void snapfix_stop(struct snapfix *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
		close(f->to_child);
		close(f->from_child);
	}
	f->pid = -1;
}

int snapfix_env_setup(void **state)
{
	struct snapfix_env *e = calloc(1, sizeof(*e));

	if (!e || !(e->dir = snapfix_tmpdir()))
		return -1;
	e->out = snapfix_path(e->dir, "out");
	*state = e;
	if (!e->out || snapfix_start(&e->fx, e->dir) < 0)
		return -1;
	snprintf(e->pid, sizeof(e->pid), "%d", (int)e->fx.pid);
	return 0;
}

int snapfix_env_teardown(void **state)
{
	struct snapfix_env *e = *state;

	if (e) {
		snapfix_stop(&e->fx);
		snapfix_rmdir(e->dir);
		free(e->out);
		free(e);
	}
	return 0;
}

/* Read everything from fd until EOF, to a deadline. */
static char *drain(int fd)
{
	return harness_drain(fd, harness_deadline(), NULL);
}

pid_t snapfix_spawn(const char *const *args, int out_fd, int err_fd)
{
	const char *bin = getenv("MS_BIN");
	char *argv[32];
	size_t n = 0;
	pid_t pid;

	if (!bin)
		return -1;
	argv[n++] = (char *)bin;
	while (*args && n < 31)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		dup2(out_fd, STDOUT_FILENO);
		dup2(err_fd, STDERR_FILENO);
		execv(bin, argv);
		_exit(127);
	}
	return pid;
}

int snapfix_wait(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int snapfix_run(const char *const *args, const char *out_path, char **out, char **errout)
{
	int opipe[2] = { -1, -1 }, epipe[2], out_fd;
	pid_t pid;

	if (pipe2(epipe, O_CLOEXEC) < 0)
		return -1;
	if (out_path)
		out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	else if (pipe2(opipe, O_CLOEXEC) == 0)
		out_fd = opipe[1];
	else
		out_fd = -1;
	if (out_fd < 0)
		return -1;
	pid = snapfix_spawn(args, out_fd, epipe[1]);
	close(out_fd);
	close(epipe[1]);
	/* stdout first: the child may block on a full pipe; stderr is small. */
	if (out)
		*out = opipe[0] >= 0 ? drain(opipe[0]) : NULL;
	else if (opipe[0] >= 0)
		free(drain(opipe[0]));
	if (errout)
		*errout = drain(epipe[0]);
	else
		free(drain(epipe[0]));
	if (opipe[0] >= 0)
		close(opipe[0]);
	close(epipe[0]);
	return snapfix_wait(pid);
}

char *snapfix_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = drain(fd);
	close(fd);
	if (buf && len)
		*len = strlen(buf);
	return buf;
}

int snapfix_spit(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	int rc;

	if (!fp)
		return -1;
	rc = fputs(text, fp) < 0 ? -1 : 0;
	if (fclose(fp) != 0)
		rc = -1;
	return rc;
}
