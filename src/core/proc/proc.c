#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc.h"

#define MS_STAT_CAP 4096

struct ms_proc {
	pid_t pid;
	int dirfd;
	bool have_stat;        /* stat read yet (ms_proc_open_dir defers it) */
	struct ms_proc_stat stat;
	unsigned long long serial;
};

/* Handles are numbered so a cache can tell one open from the next. */
static unsigned long long next_serial;

/* one_piece: a read shorter than asked was the whole file (ms_read_piece_at). */
static int read_file_at(int dirfd, const char *name, size_t cap, char **buf,
			size_t *len, bool *truncated, bool one_piece)
{
	size_t size = 0, alloc = cap < 4096 ? cap + 1 : 4096;
	char *data;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	data = malloc(alloc);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	if (truncated)
		*truncated = false;
	for (;;) {
		size_t want;
		ssize_t n;

		if (size + 1 >= alloc) {
			size_t next = alloc * 2;
			char *grown;

			if (next > cap + 1)
				next = cap + 1;
			if (next <= alloc) {
				if (truncated)
					*truncated = true;
				break;
			}
			grown = realloc(data, next);
			if (!grown) {
				free(data);
				close(fd);
				return -ENOMEM;
			}
			data = grown;
			alloc = next;
		}
		want = alloc - 1 - size;
		n = read(fd, data + size, want);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(data);
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		size += (size_t)n;
		if (one_piece && (size_t)n < want)
			break;
	}
	close(fd);
	data[size] = '\0';
	*buf = data;
	*len = size;
	return 0;
}

int ms_read_file_at(int dirfd, const char *name, size_t cap, char **buf,
		    size_t *len, bool *truncated)
{
	return read_file_at(dirfd, name, cap, buf, len, truncated, false);
}

int ms_read_piece_at(int dirfd, const char *name, size_t cap, char **buf,
		     size_t *len, bool *truncated)
{
	return read_file_at(dirfd, name, cap, buf, len, truncated, true);
}

int ms_proc_stat_parse(const char *buf, size_t len, struct ms_proc_stat *st)
{
	const char *open = memchr(buf, '(', len);
	const char *close = NULL;
	const char *p;
	size_t comm_len;
	int field = 3;

	for (p = buf + len; p > buf; p--) {
		if (p[-1] == ')') {
			close = p - 1;
			break;
		}
	}
	if (!open || !close || close < open)
		return MS_ERR_PROTO;
	memset(st, 0, sizeof(*st));
	comm_len = (size_t)(close - open - 1);
	if (comm_len >= sizeof(st->comm))
		comm_len = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, comm_len);

	p = close + 1;
	while (p < buf + len && field <= 22) {
		const char *tok, *end = buf + len;
		char num[32];
		size_t n;

		while (p < end && *p == ' ')
			p++;
		tok = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		n = (size_t)(p - tok);
		if (n == 0)
			break;
		if (n >= sizeof(num))
			return MS_ERR_PROTO;
		memcpy(num, tok, n);
		num[n] = '\0';
		switch (field) {
		case 3: st->state = num[0]; break;
		case 4: st->ppid = (int)strtol(num, NULL, 10); break;
		case 9: st->flags = (unsigned)strtoul(num, NULL, 10); break;
		case 22: st->start_time = strtoull(num, NULL, 10); break;
		default: break;
		}
		field++;
	}
	return field > 22 ? 0 : MS_ERR_PROTO;
}

static int read_stat(int dirfd, struct ms_proc_stat *st)
{
	char *buf;
	size_t len;
	int rc = ms_read_piece_at(dirfd, "stat", MS_STAT_CAP, &buf, &len, NULL);

	if (rc < 0)
		return rc;
	rc = ms_proc_stat_parse(buf, len, st) == 0 ? 0 : -EPROTO;
	free(buf);
	return rc;
}

/*
 * "/proc/PID" into path (room for any positive pid_t): what snprintf
 * wrote, without its format parsing, once per process of a fleet walk.
 */
static void proc_path(char path[64], pid_t pid)
{
	char digits[16];
	size_t n = 0;
	unsigned long v = (unsigned long)pid;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(path, "/proc/", 6);
	for (size_t i = 0; i < n; i++)
		path[6 + i] = digits[n - 1 - i];
	path[6 + n] = '\0';
}

int ms_proc_open_dir(pid_t pid, struct ms_proc **out, struct ms_error *err)
{
	char path[64];
	struct ms_proc *proc;

	if (pid <= 0)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "pid %d: not a process ID", (int)pid);
	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
	proc->pid = pid;
	proc->serial = __atomic_add_fetch(&next_serial, 1, __ATOMIC_RELAXED);
	proc_path(path, pid);
	proc->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc->dirfd < 0) {
		int e = errno;

		free(proc);
		if (e == ENOENT || e == ESRCH)
			return ms_error_set(err, MS_ERR_NOPROC, e, "pid %d: no such process", (int)pid);
		return ms_error_set(err, MS_ERR_IO, e, "pid %d: cannot open %s: %s", (int)pid, path, strerror(e));
	}
	*out = proc;
	return 0;
}

int ms_proc_open(pid_t pid, struct ms_proc **out, struct ms_error *err)
{
	struct ms_proc *proc;
	int rc = ms_proc_open_dir(pid, &proc, err);

	if (rc < 0)
		return rc;
	rc = read_stat(proc->dirfd, &proc->stat);
	if (rc < 0) {
		ms_proc_close(proc);
		if (rc == -ENOENT || rc == -ESRCH)
			return ms_error_set(err, MS_ERR_NOPROC, -rc, "pid %d: no such process", (int)pid);
		return ms_error_set(err, MS_ERR_IO, -rc, "pid %d: cannot read stat: %s", (int)pid, strerror(-rc));
	}
	proc->have_stat = true;
	*out = proc;
	return 0;
}

void ms_proc_close(struct ms_proc *proc)
{
	if (!proc)
		return;
	if (proc->dirfd >= 0)
		close(proc->dirfd);
	free(proc);
}

pid_t ms_proc_pid(const struct ms_proc *proc)
{
	return proc->pid;
}

int ms_proc_dirfd(const struct ms_proc *proc)
{
	return proc->dirfd;
}

/*
 * A deferred stat, read through the directory that pins the process (so
 * it is the same process or nothing), kept as the one "at open".  The
 * handle is logically unchanged.
 */
static void remember_stat(const struct ms_proc *proc, const struct ms_proc_stat *st)
{
	struct ms_proc *p = (struct ms_proc *)proc;

	p->stat = *st;
	p->have_stat = true;
}

const struct ms_proc_stat *ms_proc_stat_at_open(const struct ms_proc *proc)
{
	struct ms_proc_stat st;

	if (!proc->have_stat) {
		if (read_stat(proc->dirfd, &st) < 0) {
			memset(&st, 0, sizeof(st));
			st.state = 'X';
		}
		remember_stat(proc, &st);
	}
	return &proc->stat;
}

unsigned long long ms_proc_serial(const struct ms_proc *proc)
{
	return proc->serial;
}

enum ms_proc_liveness ms_proc_liveness_now(const struct ms_proc *proc, struct ms_proc_stat *now)
{
	if (read_stat(proc->dirfd, now) < 0)
		return MS_PROC_GONE;
	/* Not read at open: this first read is it. */
	if (!proc->have_stat)
		remember_stat(proc, now);
	if (now->start_time != proc->stat.start_time)
		return MS_PROC_GONE;
	if (now->state == 'Z' || now->state == 'X' || now->state == 'x')
		return MS_PROC_ZOMBIE;
	return MS_PROC_ALIVE;
}

enum ms_proc_liveness ms_proc_liveness(const struct ms_proc *proc)
{
	struct ms_proc_stat now;

	return ms_proc_liveness_now(proc, &now);
}

bool ms_proc_is_kernel_thread(const struct ms_proc_stat *st)
{
	return (st->flags & MS_PF_KTHREAD) != 0;
}

bool ms_proc_is_exiting(const struct ms_proc_stat *st)
{
	return (st->flags & MS_PF_EXITING) != 0;
}

/* ms_read_file_at or, one_piece, ms_read_piece_at, with the errors said for proc. */
static int proc_read(const struct ms_proc *proc, const char *name, size_t cap, char **buf, size_t *len,
		     bool *truncated, bool one_piece, struct ms_error *err)
{
	int rc = read_file_at(proc->dirfd, name, cap, buf, len, truncated, one_piece);

	if (rc == -ENOENT || rc == -ESRCH)
		return ms_error_set(err, MS_ERR_EXITED, -rc, "pid %d: the process exited", (int)proc->pid);
	if (rc == -EACCES || rc == -EPERM)
		return ms_error_set(err, MS_ERR_NOACCESS, -rc, "pid %d: %s: permission denied", (int)proc->pid, name);
	if (rc < 0)
		return ms_error_set(err, MS_ERR_IO, -rc, "pid %d: cannot read %s: %s", (int)proc->pid, name, strerror(-rc));
	return 0;
}

int ms_proc_read_file(const struct ms_proc *proc, const char *name, size_t cap,
		      char **buf, size_t *len, bool *truncated,
		      struct ms_error *err)
{
	return proc_read(proc, name, cap, buf, len, truncated, false, err);
}

int ms_proc_read_piece(const struct ms_proc *proc, const char *name, size_t cap,
		       char **buf, size_t *len, bool *truncated,
		       struct ms_error *err)
{
	return proc_read(proc, name, cap, buf, len, truncated, true, err);
}

int ms_statm_parse(const char *buf, struct ms_statm *out)
{
	unsigned long long shared, lib;

	if (sscanf(buf, "%llu %llu %llu %llu %llu %llu", &out->size, &out->resident, &shared,
		   &out->text, &lib, &out->data) != 6)
		return MS_ERR_PROTO;
	return 0;
}

int ms_proc_statm(const struct ms_proc *proc, struct ms_statm *out, struct ms_error *err)
{
	char *buf;
	size_t len;
	int rc = ms_proc_read_file(proc, "statm", 256, &buf, &len, NULL, err);

	if (rc < 0)
		return rc;
	rc = ms_statm_parse(buf, out);
	free(buf);
	if (rc < 0)
		return ms_error_set(err, rc, 0, "pid %d: statm unreadable", (int)proc->pid);
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int ms_pid_list(pid_t **pids, size_t *count, struct ms_error *err)
{
	size_t n = 0, cap = 256;
	pid_t *out = malloc(cap * sizeof(*out));
	struct dirent *de;
	DIR *d;

	if (!out)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "process list: out of memory");
	d = opendir("/proc");
	if (!d) {
		int e = errno;

		free(out);
		return ms_error_set(err, MS_ERR_IO, e, "cannot read /proc: %s", strerror(e));
	}
	while ((de = readdir(d))) {
		char *end;
		long v;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		v = strtol(de->d_name, &end, 10);
		if (*end || v <= 0 || v > INT32_MAX)
			continue;
		if (n == cap) {
			pid_t *grown = cap < SIZE_MAX / 2 / sizeof(*out) ? realloc(out, 2 * cap * sizeof(*out)) : NULL;

			if (!grown) {
				closedir(d);
				free(out);
				return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "process list: out of memory");
			}
			out = grown;
			cap *= 2;
		}
		out[n++] = (pid_t)v;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), pid_cmp);
	*pids = out;
	*count = n;
	return 0;
}

/* /proc/stat holds a line per CPU and per interrupt before btime. */
#define MS_PROC_STAT_MAX (4u << 20)

int ms_boot_time(time_t *btime, struct ms_error *err)
{
	size_t len;
	char *buf, *at;
	long long v;
	int rc = ms_read_piece_at(AT_FDCWD, "/proc/stat", MS_PROC_STAT_MAX, &buf, &len, NULL);

	*btime = 0;
	if (rc < 0)
		return ms_error_set(err, MS_ERR_IO, -rc, "/proc/stat: %s", strerror(-rc));
	at = strstr(buf, "\nbtime ");
	v = at ? strtoll(at + 7, NULL, 10) : 0;
	free(buf);
	if (v <= 0)
		return ms_error_set(err, MS_ERR_PROTO, 0, "/proc/stat: no boot time");
	*btime = (time_t)v;
	return 0;
}

time_t ms_proc_started_at(unsigned long long start_time, time_t btime)
{
	long hz = sysconf(_SC_CLK_TCK);

	return btime + (time_t)(start_time / (unsigned long long)(hz > 0 ? hz : 100));
}

/*
 * The mount namespace's inode number, from the link's text "mnt:[N]": the
 * kernel writes ns->inum there (ns_get_name, fs/nsfs.c) and gives the nsfs
 * inode the same number (__ns_get_path), so this equals stat's st_ino.
 * readlink costs a quarter of a stat, which must also reach the nsfs inode.
 */
uint64_t ms_proc_mntns_at(int dirfd, const char *name, int *err)
{
	char link[64];
	ssize_t n = readlinkat(dirfd, name, link, sizeof(link) - 1);
	uint64_t v = 0;
	size_t i = 5;

	if (n < 0) {
		*err = errno;
		return 0;
	}
	link[n] = '\0';
	/* At least one digit between the brackets. */
	if (n < 7 || memcmp(link, "mnt:[", 5) || link[n - 1] != ']') {
		*err = EPROTO;
		return 0;
	}
	for (; i < (size_t)n - 1; i++) {
		if (link[i] < '0' || link[i] > '9' || v > (UINT64_MAX - 9) / 10) {
			*err = EPROTO;
			return 0;
		}
		v = v * 10 + (uint64_t)(link[i] - '0');
	}
	*err = 0;
	return v;
}
