#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

long long tu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long tu_deadline_in(long long ms)
{
	/* A sanitizer build runs the binary several times slower. */
	if (getenv("ASAN_OPTIONS"))
		ms *= 4;
	return tu_now_ms() + ms;
}

long long tu_deadline(void)
{
	return tu_deadline_in(TU_DEADLINE_MS);
}

char *tu_built(const char *name)
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

/* $TMPDIR, or /tmp. */
static const char *tmp_base(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

int tu_tmpdir_open_to(uid_t uid)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0)
			_exit(2);
		_exit(access(tmp_base(), X_OK) == 0 ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return -1;
	return WEXITSTATUS(status) == 0;
}

char *tu_tmpdir(void)
{
	char *dir;

	if (asprintf(&dir, "%s/ms-test-XXXXXX", tmp_base()) < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* Whether dir and every level above it are directories root alone may change. */
static bool roots_alone(const char *dir)
{
	char path[4096];
	struct stat st;

	if (strlen(dir) >= sizeof(path))
		return false;
	strcpy(path, dir);
	/* The directory, then each level above it, "/" last. */
	for (size_t len = strlen(path);; len = (size_t)(strrchr(path, '/') - path), path[len] = '\0') {
		if (lstat(len ? path : "/", &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)) || !(st.st_mode & S_IXOTH))
			return false;
		if (!len)
			return true;
	}
}

/*
 * Under the current directory (the build tree) when that is root's alone,
 * else under /run: a tree cloned under /tmp (sticky, everyone's) still gets
 * one, so the tests that need it run rather than skip.
 */
char *tu_root_tmpdir(void)
{
	char cwd[4096], *dir;
	const char *base = NULL;

	if (geteuid() != 0)
		return NULL;
	if (getcwd(cwd, sizeof(cwd)) && roots_alone(cwd))
		base = cwd;
	else if (roots_alone("/run"))
		base = "/run";
	if (!base || asprintf(&dir, "%s/ms-root-XXXXXX", base) < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

void tu_rmtree(const char *dir)
{
	if (dir && *dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

int tu_tmpdir_setup(void **state)
{
	*state = tu_tmpdir();
	return *state ? 0 : -1;
}

int tu_tmpdir_teardown(void **state)
{
	tu_rmtree(*state);
	free(*state);
	*state = NULL;
	return 0;
}

char *tu_join(const char *dir, const char *name)
{
	char *path;

	return asprintf(&path, "%s/%s", dir, name) < 0 ? NULL : path;
}

char *tu_drain(int fd, long long deadline_ms, size_t *len_out, int *timed_out)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	if (timed_out)
		*timed_out = 0;
	while (buf) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline_ms - tu_now_ms();
		ssize_t n;
		int ready;

		if (left <= 0 || (ready = poll(&pfd, 1, (int)left)) == 0) {
			if (timed_out)
				*timed_out = 1;
			break;
		}
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (len + 1 == cap) {
			char *grown = realloc(buf, cap * 2);

			if (!grown) {
				free(buf);
				return NULL;
			}
			buf = grown;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (buf)
		buf[len] = '\0';
	if (buf && len_out)
		*len_out = len;
	return buf;
}

char *tu_command_line(const char *cmd)
{
	char line[4096];
	FILE *f = popen(cmd, "r");
	bool got;

	if (!f)
		return NULL;
	got = fgets(line, sizeof(line), f) != NULL;
	pclose(f);
	if (!got)
		return NULL;
	line[strcspn(line, "\n")] = '\0';
	return strdup(line);
}

char *tu_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = tu_drain(fd, tu_deadline(), len, NULL);
	close(fd);
	return buf;
}

long long tu_metric(const char *path, const char *series)
{
	char *text = tu_slurp(path, NULL);
	size_t len = strlen(series);
	const char *line;
	long long value = -1;

	if (!text || !strstr(text, "\n# EOF"))
		goto out;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, series, len) && line[len] == ' ') {
			value = strtoll(line + len + 1, NULL, 10);
			break;
		}
	}
out:
	free(text);
	return value;
}

size_t tu_count_lines(const char *text, const char *prefix)
{
	size_t n = 0;

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		n += !strncmp(line, prefix, strlen(prefix));
	return n;
}

int tu_child_answer(void (*fn)(void *arg, void *out), void *arg, void *out, size_t size)
{
	int fds[2], status, timed_out = 0;
	size_t len = 0;
	char *got;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		char *mine = calloc(1, size);
		size_t done = 0;

		close(fds[0]);
		if (!mine)
			_exit(1);
		fn(arg, mine);
		while (done < size) {
			ssize_t n = write(fds[1], mine + done, size - done);

			if (n <= 0)
				_exit(1);
			done += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	got = tu_drain(fds[0], tu_deadline(), &len, &timed_out);
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (timed_out || !got || len != size) {
		free(got);
		return -1;
	}
	memcpy(out, got, size);
	free(got);
	return 0;
}

int tu_spit(const char *path, const char *text)
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

void tu_mkdir_in(const char *dir, const char *rel, mode_t mode)
{
	char *p = tu_join(dir, rel);

	assert_int_equal(mkdir(p, mode), 0);
	/* Whatever the umask. */
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

void tu_symlink_in(const char *dir, const char *target, const char *rel)
{
	char *p = tu_join(dir, rel);

	assert_int_equal(symlink(target, p), 0);
	free(p);
}

void tu_spit_in(const char *dir, const char *rel)
{
	char *p = tu_join(dir, rel);

	assert_int_equal(tu_spit(p, rel), 0);
	free(p);
}

int tu_mkdirs(const char *path)
{
	char *parent = strdup(path), *slash;
	int rc = parent ? 0 : -1;

	slash = parent ? strrchr(parent, '/') : NULL;
	if (slash && slash != parent) {
		*slash = '\0';
		rc = tu_mkdirs(parent);
	}
	free(parent);
	if (rc == 0 && mkdir(path, 0755) < 0 && errno != EEXIST)
		rc = -1;
	return rc;
}

int tu_copy(const char *src, const char *dst)
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

pid_t tu_spawn_many(size_t n)
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

pid_t tu_kernel_thread(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	while (d && !found && (de = readdir(d))) {
		char path[64], *text, *close;
		unsigned long flags = 0;
		long pid = strtol(de->d_name, NULL, 10);
		int field = 3;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		text = tu_slurp(path, NULL);
		close = text ? strrchr(text, ')') : NULL;
		/* Fields after the command name: state is 3, flags 9. */
		for (char *tok = close ? strtok(close + 1, " ") : NULL; tok; tok = strtok(NULL, " "))
			if (field++ == 9) {
				flags = strtoul(tok, NULL, 10);
				break;
			}
		if (flags & 0x00200000ul) /* PF_KTHREAD, include/linux/sched.h */
			found = (pid_t)pid;
		free(text);
	}
	if (d)
		closedir(d);
	return found;
}

/* The "KEY: number" line of text, or -1. */
static long long field_of(const char *text, const char *key)
{
	size_t len = strlen(key);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, key, len))
			return strtoll(line + len, NULL, 10);
	return -1;
}

int tu_mapped_dev(const char *path, unsigned *major, unsigned *minor)
{
	char fdinfo[64], *info = NULL, *mounts = NULL;
	long long mnt = -1;
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return -1;
	snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", fd);
	info = tu_slurp(fdinfo, NULL);
	close(fd);
	if (info)
		mnt = field_of(info, "mnt_id:");
	mounts = mnt >= 0 ? tu_slurp("/proc/self/mountinfo", NULL) : NULL;
	/* Each line: ID PARENT MAJOR:MINOR ROOT MOUNTPOINT ... */
	for (const char *line = mounts; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		long long id;
		unsigned maj, min;

		if (sscanf(line, "%lld %*d %u:%u", &id, &maj, &min) == 3 && id == mnt) {
			*major = maj;
			*minor = min;
			rc = 0;
			break;
		}
	}
	free(info);
	free(mounts);
	/*
	 * In a chroot that is no mount point, mountinfo leaves out the mount
	 * the root sits in: there the file system's device is stat's, as it
	 * is everywhere but on btrfs subvolumes.
	 */
	if (rc < 0 && stat(path, &st) == 0) {
		*major = major(st.st_dev);
		*minor = minor(st.st_dev);
		rc = 0;
	}
	return rc;
}

char *tu_readelf_highest(const char *path, const char *prefix)
{
	char *cmd, line[256] = "";
	FILE *f;
	size_t n;

	/* The definitions section ends at its blank line; "Parent" lines are not definitions. */
	if (asprintf(&cmd, "readelf -V -W '%s' 2>/dev/null | awk '/^Version definition section/ { on = 1; next } "
		     "on && /^$/ { exit } on && / Name: / { sub(/.* Name: /, \"\"); print }' | "
		     "grep -E '^%s_[0-9]+([.][0-9]+)*$' | sort -V | tail -n 1", path, prefix) < 0)
		return NULL;
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	pclose(f);
	n = strcspn(line, "\n");
	line[n] = '\0';
	return n ? strdup(line) : NULL;
}

int tu_fork_in_nobody_dir(int (*child)(const char *dir))
{
	char *dir;
	int status;
	pid_t pid;

	if (geteuid() != 0 || tu_tmpdir_open_to(65534) != 1 || !(dir = tu_tmpdir()))
		return -1;
	if (chown(dir, 65534, 65534) < 0 || chmod(dir, 0755) < 0 || (pid = fork()) < 0) {
		tu_rmtree(dir);
		free(dir);
		return -1;
	}
	if (pid == 0)
		_exit(child(dir));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	tu_rmtree(dir);
	free(dir);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

void tu_nobody_steps(int (*steps)(const char *dir))
{
	int rc = tu_fork_in_nobody_dir(steps);

	if (rc < 0) {
		printf("# skipped: needs root and a temporary directory nobody may enter\n");
		skip();
	}
	if (rc)
		fail_msg("as nobody: step %d failed (over 128: signal %d; SIGALRM: it hung)", rc, rc - 128);
}
