#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "msrun.h"
#include "testutil.h"

#define MAX_ARGS 64

struct sink {
	int fd;
	char *buf;
	size_t len, cap;
};

static void argv_of(const char *const *args, const char **argv)
{
	size_t n = 1;

	argv[0] = "mapscope";
	for (; args && args[n - 1] && n < MAX_ARGS - 1; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
}

/* In the child: the mount namespace and /proc of a hidepid=2 run. */
static void enter_hidepid(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") < 0) {
		fprintf(stderr, "hidepid: %s\n", strerror(errno));
		_exit(126);
	}
}

static int out_fd_for(const struct msrun_opts *o, int pipe_w)
{
	switch (o->out) {
	case MSRUN_FILE:
		return open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	case MSRUN_DEV_NULL:
		return open("/dev/null", O_WRONLY | O_CLOEXEC);
	case MSRUN_DEV_FULL:
		return open("/dev/full", O_WRONLY | O_CLOEXEC);
	default:
		return pipe_w;
	}
}

/* The copy another user runs, and the process that made it (which removes it). */
static char *other_user_bin;
static pid_t other_user_bin_owner;

static void remove_other_user_bin(void)
{
	char *slash;

	if (!other_user_bin || getpid() != other_user_bin_owner)
		return;
	unlink(other_user_bin);
	slash = strrchr(other_user_bin, '/');
	*slash = '\0';
	rmdir(other_user_bin);
}

/*
 * What another user runs: a copy of $MS_BIN in a directory of its own
 * (0755) under $TMPDIR, made once, for the tree may sit where that user
 * cannot reach it (a clone under /root).  NULL if it cannot be made; the
 * run then tries $MS_BIN itself.
 */
static const char *bin_for_other_user(void)
{
	const char *bin = getenv("MS_BIN");
	char *dir;

	if (other_user_bin || !bin)
		return other_user_bin;
	dir = tu_tmpdir();
	if (dir && chmod(dir, 0755) == 0 && (other_user_bin = tu_join(dir, "mapscope")) &&
	    tu_copy(bin, other_user_bin) == 0) {
		other_user_bin_owner = getpid();
		atexit(remove_other_user_bin);
	} else {
		if (other_user_bin)
			unlink(other_user_bin);
		if (dir)
			rmdir(dir);
		free(other_user_bin);
		other_user_bin = NULL;
	}
	free(dir);
	return other_user_bin;
}

/* In the child: everything between fork and exec. */
static void become(const struct msrun_opts *o, const char **argv, int in_fd, int out_fd, int err_fd)
{
	const char *bin = o->uid && other_user_bin ? other_user_bin : getenv("MS_BIN");

	if (!bin || in_fd < 0 || out_fd < 0)
		_exit(127);
	dup2(in_fd, STDIN_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	if (o->hidepid)
		enter_hidepid();
	if (o->uid && (setgroups(0, NULL) < 0 || setgid(o->uid) < 0 || setuid(o->uid) < 0))
		_exit(125);
	if (o->uid) {
		/* Root's own config directory is not another user's to read. */
		setenv("HOME", "/nonexistent", 1);
		unsetenv("XDG_CONFIG_HOME");
	}
	if (o->locale)
		setenv("LC_ALL", o->locale, 1);
	/* Write errors must be reported, not killed silently by SIGPIPE. */
	signal(SIGPIPE, SIG_DFL);
	execv(bin, (char *const *)argv);
	_exit(127);
}

/* Read what is there into s; 0 at end of input (fd closed and set to -1). */
static void sink_read(struct sink *s)
{
	ssize_t n;

	if (s->cap - s->len < 4096) {
		size_t cap = s->cap ? s->cap * 2 : 65536;
		char *grown = realloc(s->buf, cap);

		if (!grown) {
			close(s->fd);
			s->fd = -1;
			return;
		}
		s->buf = grown;
		s->cap = cap;
	}
	n = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(s->fd);
		s->fd = -1;
		return;
	}
	s->len += (size_t)n;
}

static char *sink_text(struct sink *s, size_t *len)
{
	char *text = s->buf ? s->buf : malloc(1);

	if (text)
		text[s->len] = '\0';
	if (len)
		*len = s->len;
	return text;
}

/* Feed stdin and read stdout and stderr until both end or the deadline. */
static bool pump(int in_fd, const char *in_text, struct sink *out, struct sink *err, long long deadline)
{
	size_t in_left = in_text ? strlen(in_text) : 0;

	if (in_fd >= 0 && !in_left) {
		close(in_fd);
		in_fd = -1;
	}
	while (out->fd >= 0 || err->fd >= 0) {
		struct pollfd p[3] = { { out->fd, POLLIN, 0 }, { err->fd, POLLIN, 0 }, { in_fd, POLLOUT, 0 } };
		long long left = deadline - tu_now_ms();
		int ready;

		if (left <= 0)
			break;
		ready = poll(p, 3, (int)left);
		if (ready < 0 && errno != EINTR)
			break;
		if (ready <= 0)
			continue;
		if (p[0].revents)
			sink_read(out);
		if (p[1].revents)
			sink_read(err);
		if (p[2].revents) {
			ssize_t n = (p[2].revents & POLLOUT) ? write(in_fd, in_text, in_left) : -1;

			if (n > 0) {
				in_text += n;
				in_left -= (size_t)n;
			}
			if ((n < 0 && errno != EINTR && errno != EAGAIN) || !in_left) {
				close(in_fd);
				in_fd = -1;
			}
		}
	}
	if (in_fd >= 0)
		close(in_fd);
	return out->fd >= 0 || err->fd >= 0;
}

struct msrun_result msrun(const struct msrun_opts *opts, const char *const *args)
{
	static const struct msrun_opts defaults;
	const struct msrun_opts *o = opts ? opts : &defaults;
	struct msrun_result r = { .status = -1 };
	struct sink out = { .fd = -1 }, err = { .fd = -1 };
	int opipe[2] = { -1, -1 }, epipe[2] = { -1, -1 }, ipipe[2] = { -1, -1 };
	const char *argv[MAX_ARGS];
	struct rusage ru;
	pid_t pid;
	int st;

	argv_of(args, argv);
	if (pipe2(epipe, O_CLOEXEC) < 0 ||
	    ((o->out == MSRUN_CAPTURE || o->out == MSRUN_CLOSED_PIPE) && pipe2(opipe, O_CLOEXEC) < 0) ||
	    (o->in_text && pipe2(ipipe, O_CLOEXEC | O_NONBLOCK) < 0))
		goto out;
	if (o->out == MSRUN_CLOSED_PIPE) {
		close(opipe[0]);
		opipe[0] = -1;
	}
	if (ipipe[0] >= 0)
		fcntl(ipipe[0], F_SETFL, 0); /* the binary's end blocks as usual */
	if (o->uid)
		bin_for_other_user();
	/* What the binary leaves running comes back to us, not to init (msrun_in_d_state). */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = fork();
	if (pid == 0)
		become(o, argv, o->in_text ? ipipe[0] : open("/dev/null", O_RDONLY | O_CLOEXEC),
		       out_fd_for(o, opipe[1]), epipe[1]);
	if (pid < 0)
		goto out;
	close(epipe[1]);
	epipe[1] = -1;
	if (opipe[1] >= 0)
		close(opipe[1]);
	opipe[1] = -1;
	if (ipipe[0] >= 0)
		close(ipipe[0]);
	ipipe[0] = -1;
	out.fd = opipe[0];
	err.fd = epipe[0];
	opipe[0] = epipe[0] = -1;
	r.timed_out = pump(ipipe[1], o->in_text, &out, &err,
			   o->timeout_ms ? tu_deadline_in(o->timeout_ms) : tu_deadline());
	ipipe[1] = -1;
	if (r.timed_out) {
		kill(pid, SIGKILL);
		/* SIGKILL cannot end an uninterruptible sleep; the hook must end its cause. */
		if (o->on_timeout)
			o->on_timeout(o->timeout_arg);
	}
	if (wait4(pid, &st, 0, &ru) == pid) {
		r.maxrss_kb = ru.ru_maxrss;
		if (!r.timed_out && WIFSIGNALED(st))
			r.signal = WTERMSIG(st);
		if (!r.timed_out)
			r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
out:
	for (int i = 0; i < 2; i++) {
		if (opipe[i] >= 0)
			close(opipe[i]);
		if (epipe[i] >= 0)
			close(epipe[i]);
		if (ipipe[i] >= 0)
			close(ipipe[i]);
	}
	if (out.fd >= 0)
		close(out.fd);
	if (err.fd >= 0)
		close(err.fd);
	r.out = sink_text(&out, &r.out_len);
	r.err = sink_text(&err, NULL);
	return r;
}

void msrun_free(struct msrun_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

int msrun_capture(const char *const *args, const char *out_path, char **out, char **err)
{
	struct msrun_opts o = { .out = out_path ? MSRUN_FILE : MSRUN_CAPTURE, .out_path = out_path };
	struct msrun_result r = msrun(&o, args);
	int status = r.signal ? -1 : r.status;

	if (out)
		*out = r.out;
	else
		free(r.out);
	if (err)
		*err = r.err;
	else
		free(r.err);
	return status;
}

pid_t msrun_spawn(const char *const *args, int out_fd, int err_fd)
{
	static const struct msrun_opts defaults;
	const char *argv[MAX_ARGS];
	pid_t pid;

	argv_of(args, argv);
	pid = fork();
	if (pid == 0)
		become(&defaults, argv, open("/dev/null", O_RDONLY | O_CLOEXEC), out_fd, err_fd);
	return pid;
}

int msrun_wait(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Whether /proc/PID/stat says a mapscope process of ours in uninterruptible
 * sleep: a child, or left by one (we are its subreaper), never another
 * mapscope on the machine, whatever it waits for.
 */
static bool mapscope_in_d(const char *pid)
{
	char state;
	long ppid;
	char path[300], buf[512];
	const char *close_paren;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (!(fp = fopen(path, "re")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	return close_paren && strstr(buf, "(mapscope)") && sscanf(close_paren + 1, " %c %ld", &state, &ppid) == 2 &&
	       state == 'D' && ppid == (long)getpid();
}

/* Still in D a second later: a write's fsync passes through D, a wait on a daemon stays. */
static bool stays_in_d(const char *pid)
{
	long long deadline = tu_now_ms() + 1000;
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	while (tu_now_ms() < deadline) {
		if (!mapscope_in_d(pid))
			return false;
		nanosleep(&tick, NULL);
	}
	return mapscope_in_d(pid);
}

pid_t msrun_in_d_state(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (mapscope_in_d(e->d_name) && stays_in_d(e->d_name))
			found = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return found;
}
