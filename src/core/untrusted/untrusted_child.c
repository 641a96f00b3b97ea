#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "untrusted/untrusted_child.h"

#if defined(__SANITIZE_ADDRESS__)
#define MS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MS_SANITIZED 1
#endif
#endif

#define CHILD_SOCK 3
#define POLL_MS 10
#define NOBODY 65534

enum end {
	END_NONE,
	END_DEADLINE,
	END_MEMORY,
	END_INTERRUPTED,
	END_MALFORMED,
	END_EXITED, /* on its own: the exit status says why */
};

struct ms_child {
	pid_t pid;
	int sock;
	int statm;          /* /proc/PID/statm, for the memory watch */
	uint64_t rss_base;  /* resident bytes when it said it was ready */
	bool ready;         /* its ready frame came (ms_child_start does not wait for it) */
	uint64_t started_ns;
	uint64_t waited_ns; /* the deadline that ended it, for the message */
	uint64_t send_ns;   /* the longest a send waits for room, once ready */
	enum end end;
	int status;         /* from waitpid, once reaped */
	bool reaped;
	char why[64];
};

uint64_t ms_child_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int io_send(int sock, const void *buf, size_t len, int fd, int flags)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (len == 0 || len > MS_CHILD_FRAME_MAX)
		return -1;
	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.space;
		msg.msg_controllen = sizeof(ctl.space);
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = SCM_RIGHTS;
		ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&ctl.h), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL | flags);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

int ms_child_io_send(int sock, const void *buf, size_t len, int fd)
{
	return io_send(sock, buf, len, fd, 0);
}

/* Receive one frame; flags adds MSG_DONTWAIT. */
static long frame_recv(int sock, void *buf, size_t cap, int *fd, int flags)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(2 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
			      .msg_controllen = sizeof(ctl.space) };
	int got = -1, extra = 0;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h)) {
		size_t nfd;

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int one;

			memcpy(&one, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
			if (got < 0) {
				got = one;
			} else {
				close(one);
				extra++;
			}
		}
	}
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || extra) {
		if (got >= 0)
			close(got);
		errno = EPROTO;
		return -1;
	}
	*fd = got;
	return (long)n;
}

long ms_child_io_recv(int sock, void *buf, size_t cap, int *fd)
{
	return frame_recv(sock, buf, cap, fd, 0);
}

/* ---- in the child ---------------------------------------------------------- */

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef NATIVE_ARCH
/* Calls that name a path, make a process or reach anything beyond the descriptors given. */
static const long refused_calls[] = {
#ifdef SYS_open
	SYS_open,
#endif
#ifdef SYS_creat
	SYS_creat,
#endif
#ifdef SYS_fork
	SYS_fork,
#endif
#ifdef SYS_vfork
	SYS_vfork,
#endif
#ifdef SYS_mkdir
	SYS_mkdir,
#endif
#ifdef SYS_unlink
	SYS_unlink,
#endif
#ifdef SYS_rmdir
	SYS_rmdir,
#endif
#ifdef SYS_rename
	SYS_rename,
#endif
#ifdef SYS_link
	SYS_link,
#endif
#ifdef SYS_symlink
	SYS_symlink,
#endif
#ifdef SYS_chmod
	SYS_chmod,
#endif
#ifdef SYS_chown
	SYS_chown,
#endif
#ifdef SYS_lchown
	SYS_lchown,
#endif
#ifdef SYS_mknod
	SYS_mknod,
#endif
#ifdef SYS_renameat
	SYS_renameat,
#endif
#ifdef SYS_openat2
	SYS_openat2,
#endif
#ifdef SYS_clone3
	SYS_clone3,
#endif
	SYS_openat, SYS_open_by_handle_at, SYS_execve, SYS_execveat, SYS_clone,
	SYS_socket, SYS_connect, SYS_ptrace, SYS_kill, SYS_mkdirat, SYS_unlinkat, SYS_renameat2,
	SYS_linkat, SYS_symlinkat, SYS_fchmodat, SYS_fchownat, SYS_truncate, SYS_mknodat,
	SYS_mount, SYS_umount2, SYS_process_vm_readv, SYS_process_vm_writev,
};

static int install_filter(void)
{
	enum { NREF = sizeof(refused_calls) / sizeof(refused_calls[0]) };
	struct sock_filter prog[4 + 1 + 2 * NREF + 2];
	struct sock_fprog fprog = { .filter = prog };
	size_t n = 0;

	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* The x32 ABI reaches the same calls under other numbers (bit 30). */
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	for (size_t i = 0; i < NREF; i++) {
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 (unsigned)refused_calls[i], 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							 SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA));
	}
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	fprog.len = (unsigned short)n;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}
#else
static int install_filter(void)
{
	return 0; /* no filter for this architecture: the other limits still hold */
}
#endif

#ifndef MS_SANITIZED
static uint64_t vm_size_now(void)
{
	char buf[128];
	unsigned long long pages = 0;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu", &pages) != 1)
		return 0;
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}
#endif

static void set_limit(int which, rlim_t value)
{
	struct rlimit rl = { value, value };

	setrlimit(which, &rl);
}

static void become_nobody(void)
{
	if (geteuid() != 0)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0)
		_exit(126);
}

static void close_all_but(int keep)
{
	int max = (int)sysconf(_SC_OPEN_MAX);

#ifdef SYS_close_range
	if (syscall(SYS_close_range, keep + 1, ~0u, 0) == 0)
		max = keep + 1;
#endif
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = keep + 1; fd < max; fd++)
		close(fd);
}

static __attribute__((noreturn)) void child_main(const struct ms_child_spec *spec, int sock,
						  int parent_pid)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	char ready = 'R';

	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 ||
	    dup2(sock, CHILD_SOCK) < 0)
		_exit(126);
	close_all_but(CHILD_SOCK);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent_pid)
		_exit(126);
	prctl(PR_SET_DUMPABLE, 0);
	set_limit(RLIMIT_CORE, 0);
	if (spec->prepare)
		spec->prepare(spec->arg);
	become_nobody();
	set_limit(RLIMIT_CPU, MS_CHILD_CPU_SECONDS);
	set_limit(RLIMIT_FSIZE, 0);
#ifndef MS_SANITIZED
	{
		uint64_t vm = vm_size_now();
		struct rlimit rl = { (rlim_t)(vm + MS_CHILD_AS_ROOM), (rlim_t)(vm + MS_CHILD_AS_MAX) };

		if (vm)
			setrlimit(RLIMIT_AS, &rl);
	}
#endif
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || install_filter() < 0)
		_exit(126);
	if (ms_child_io_send(CHILD_SOCK, &ready, 1, -1) < 0)
		_exit(126);
	_exit(spec->serve(CHILD_SOCK, spec->arg));
}

void ms_child_room_add(uint64_t bytes)
{
#ifndef MS_SANITIZED
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	rl.rlim_cur = bytes > rl.rlim_max - rl.rlim_cur ? rl.rlim_max : rl.rlim_cur + (rlim_t)bytes;
	setrlimit(RLIMIT_AS, &rl);
#else
	(void)bytes;
#endif
}

/* ---- in the parent --------------------------------------------------------- */

/*
 * Resident memory that is not a file's: statm's resident less its shared
 * field (file and shmem pages, fs/proc/task_mmu.c task_statm).  The files
 * the child was given may be mapped whole; what a file makes it allocate
 * is anonymous.
 */
static uint64_t rss_of(const struct ms_child *c)
{
	char buf[128];
	unsigned long long size, resident, shared;
	ssize_t n = c->statm >= 0 ? pread(c->statm, buf, sizeof(buf) - 1, 0) : -1;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &size, &resident, &shared) != 3 || shared > resident)
		return 0;
	return (uint64_t)(resident - shared) * (uint64_t)sysconf(_SC_PAGESIZE) + 1;
}

/*
 * Reap without ever blocking for long: a killed child may take a moment,
 * usually a millisecond or two (its address space is torn down), so the
 * pauses start at 100 us and double up to 10 ms, for about a second in all.
 */
static void reap(struct ms_child *c)
{
	uint64_t give_up = ms_child_now_ns() + 1000000000ull;
	useconds_t pause = 100;

	while (!c->reaped) {
		pid_t r = waitpid(c->pid, &c->status, WNOHANG);

		if (r == c->pid || (r < 0 && errno != EINTR)) {
			c->reaped = true;
			break;
		}
		if (ms_child_now_ns() >= give_up)
			break;
		if (r == 0) {
			usleep(pause);
			pause = pause < 5000 ? pause * 2 : 10000;
		}
	}
}

static void describe_end(struct ms_child *c)
{
	switch (c->end) {
	case END_DEADLINE:
		snprintf(c->why, sizeof(c->why), "gave up after %llu s",
			 (unsigned long long)((c->waited_ns + 999999999ull) / 1000000000ull));
		return;
	case END_MEMORY:
		snprintf(c->why, sizeof(c->why), "over the memory limit");
		return;
	case END_INTERRUPTED:
		snprintf(c->why, sizeof(c->why), "interrupted");
		return;
	case END_MALFORMED:
		snprintf(c->why, sizeof(c->why), "the reader's answer was malformed");
		return;
	default:
		break;
	}
	if (c->reaped && WIFEXITED(c->status) && WEXITSTATUS(c->status) == MS_CHILD_EXIT_NOMEM)
		snprintf(c->why, sizeof(c->why), "over the memory limit");
	else if (c->reaped && WIFSIGNALED(c->status) && WTERMSIG(c->status) == SIGXCPU)
		snprintf(c->why, sizeof(c->why), "over the CPU limit");
	else
		snprintf(c->why, sizeof(c->why), "the reader crashed on this file");
}

static void end_child(struct ms_child *c, enum end why)
{
	if (c->end != END_NONE)
		return;
	c->end = why;
	if (why != END_EXITED)
		kill(c->pid, SIGKILL);
	reap(c);
	describe_end(c);
}

int ms_child_start(const struct ms_child_spec *spec, struct ms_child **out, struct ms_error *err)
{
	struct ms_child *c = calloc(1, sizeof(*c));
	int sv[2], e;
	pid_t parent = getpid();
	char path[64];

	*out = NULL;
	if (!c)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	c->statm = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		e = errno;
		free(c);
		return ms_error_set(err, MS_ERR_IO, e, "symbols: cannot make a socket pair: %s", strerror(e));
	}
	c->pid = fork();
	if (c->pid < 0) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		free(c);
		return ms_error_set(err, MS_ERR_IO, e, "symbols: cannot start the reader: %s", strerror(e));
	}
	if (c->pid == 0) {
		close(sv[0]);
		child_main(spec, sv[1], (int)parent);
	}
	close(sv[1]);
	c->sock = sv[0];
	c->started_ns = ms_child_now_ns();
	c->send_ns = MS_CHILD_SEND_SECONDS * 1000000000ull;
	snprintf(path, sizeof(path), "/proc/%d/statm", (int)c->pid);
	c->statm = open(path, O_RDONLY | O_CLOEXEC);
	*out = c;
	return 0;
}

static long recv_until(struct ms_child *c, void *buf, size_t cap, int *fd, uint64_t deadline_ns,
		       ms_child_interrupt_fn interrupt, void *arg);
static int wait_until(struct ms_child *c, short events, uint64_t deadline_ns, ms_child_interrupt_fn interrupt,
		      void *arg);

/*
 * The ready frame, awaited at the first exchange that needs it, at most
 * MS_CHILD_READY_SECONDS after the start: the child is limited and
 * filtered from then on, and its memory is measured from there.
 */
static int await_ready(struct ms_child *c, ms_child_interrupt_fn interrupt, void *arg)
{
	char frame[8];
	int fd;
	long n;

	if (c->ready)
		return 0;
	n = recv_until(c, frame, sizeof(frame), &fd, c->started_ns + MS_CHILD_READY_SECONDS * 1000000000ull,
		       interrupt, arg);
	if (fd >= 0)
		close(fd);
	if (n != 1 || frame[0] != 'R') {
		char why[sizeof(c->why)];

		if (n >= 0)
			end_child(c, END_MALFORMED);
		if (c->end != END_INTERRUPTED) {
			snprintf(why, sizeof(why), "%s", c->why);
			snprintf(c->why, sizeof(c->why), "the reader did not start: %.36s", why);
		}
		return MS_ERR_IO;
	}
	c->ready = true;
	c->rss_base = rss_of(c);
	return 0;
}

int ms_child_send(struct ms_child *c, const void *buf, size_t len, int fd)
{
	if (c->end != END_NONE)
		return MS_ERR_IO;
	/*
	 * Before the child is ready, frames queue in the socket without
	 * waiting; one that does not fit waits for the ready frame (bounded),
	 * so a child that never starts never blocks a send.  A child already
	 * gone (EPIPE) is read to its end there too, so that it is reported
	 * as one that did not start, whichever of the send or the first
	 * receive finds it gone.
	 */
	if (!c->ready && io_send(c->sock, buf, len, fd, MSG_DONTWAIT) == 0)
		return 0;
	if (!c->ready) {
		int e = errno;

		if (e != EAGAIN && e != EPIPE && e != ECONNRESET) {
			end_child(c, END_MALFORMED);
			return MS_ERR_IO;
		}
		if (await_ready(c, NULL, NULL) < 0) {
			if (c->end == END_NONE)
				end_child(c, END_EXITED);
			return MS_ERR_IO;
		}
	}
	/*
	 * Once it is ready, a child that stops reading (stuck in a file, or
	 * itself waiting to send an answer we have not read yet) fills the
	 * socket; the send then waits in slices, watched as a receive is, and
	 * at most MS_CHILD_SEND_SECONDS, never blocking on the child.
	 */
	for (uint64_t deadline = ms_child_now_ns() + c->send_ns;;) {
		if (io_send(c->sock, buf, len, fd, MSG_DONTWAIT) == 0)
			return 0;
		if (errno != EAGAIN) {
			end_child(c, errno == EPIPE || errno == ECONNRESET ? END_EXITED : END_MALFORMED);
			return MS_ERR_IO;
		}
		if (wait_until(c, POLLOUT, deadline, NULL, NULL) < 0)
			return MS_ERR_IO;
	}
}

long ms_child_recv(struct ms_child *c, void *buf, size_t cap, int *fd, uint64_t deadline_ns,
		   ms_child_interrupt_fn interrupt, void *arg)
{
	*fd = -1;
	if (await_ready(c, interrupt, arg) < 0)
		return MS_ERR_LIMIT;
	return recv_until(c, buf, cap, fd, deadline_ns, interrupt, arg);
}

/*
 * Wait until the socket is ready for events (> 0), or until the child
 * ended or was ended (-1: past deadline_ns, over its memory room, or
 * interrupted), in slices of POLL_MS.
 */
static int wait_until(struct ms_child *c, short events, uint64_t deadline_ns, ms_child_interrupt_fn interrupt,
		      void *arg)
{
	uint64_t began = ms_child_now_ns();

	while (c->end == END_NONE) {
		uint64_t now = ms_child_now_ns();
		struct pollfd p = { .fd = c->sock, .events = events };
		int slice, r;

		if (now >= deadline_ns) {
			c->waited_ns = now - began;
			end_child(c, END_DEADLINE);
			break;
		}
		slice = deadline_ns - now > POLL_MS * 1000000ull ? POLL_MS
								  : (int)((deadline_ns - now) / 1000000ull) + 1;
		r = poll(&p, 1, slice);
		if (r > 0)
			return r;
		if (r < 0 && errno != EINTR) {
			end_child(c, END_MALFORMED);
			break;
		}
		if (c->rss_base && rss_of(c) > c->rss_base + MS_CHILD_RSS_ROOM)
			end_child(c, END_MEMORY);
		else if (interrupt && interrupt(arg))
			end_child(c, END_INTERRUPTED);
	}
	return -1;
}

static long recv_until(struct ms_child *c, void *buf, size_t cap, int *fd, uint64_t deadline_ns,
		       ms_child_interrupt_fn interrupt, void *arg)
{
	*fd = -1;
	while (wait_until(c, POLLIN, deadline_ns, interrupt, arg) > 0) {
		long n = frame_recv(c->sock, buf, cap, fd, MSG_DONTWAIT);

		if (n > 0)
			return n;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		/* 0: the child closed its end, so it ended; else a frame we refuse. */
		end_child(c, n == 0 || (n < 0 && errno == ECONNRESET) ? END_EXITED : END_MALFORMED);
		break;
	}
	return MS_ERR_LIMIT;
}

void ms_child_send_limit(struct ms_child *c, uint64_t ns)
{
	c->send_ns = ns;
}

bool ms_child_alive(const struct ms_child *c)
{
	return c && c->end == END_NONE;
}

const char *ms_child_why(const struct ms_child *c)
{
	return c->end == END_NONE ? "the reader is running" : c->why;
}

pid_t ms_child_pid(const struct ms_child *c)
{
	return c->pid;
}

void ms_child_free(struct ms_child *c)
{
	if (!c)
		return;
	if (c->end == END_NONE) {
		c->end = END_EXITED;
		kill(c->pid, SIGKILL);
		reap(c);
	}
	close(c->sock);
	if (c->statm >= 0)
		close(c->statm);
	free(c);
}
