#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuse_server.h"
#include "msrun.h"
#include "testutil.h"

/* Requests are at most max_write plus headers; the kernel wants room for 8 KiB at least. */
#define REQ_BUF (1u << 20)

struct content {
	unsigned char *data;
	size_t size;
};

static void reply(int fd, uint64_t unique, int error, const void *body, size_t len)
{
	struct fuse_out_header h = {
		.len = (uint32_t)(sizeof(h) + (error ? 0 : len)), .error = -error, .unique = unique,
	};
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)body, error ? 0 : len } };

	if (writev(fd, iov, 2) < 0 && errno != ENOENT)
		_exit(3);
}

static void fill_attr(struct fuse_attr *a, uint64_t node, const struct content *c)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	if (node == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		return;
	}
	a->mode = S_IFREG | 0755;
	a->nlink = 1;
	a->size = c->size;
	a->blocks = (c->size + 511) / 512;
	a->blksize = 4096;
}

/*
 * A request from a process that is not mapscope (in->pid, the requester's
 * TGID in our PID namespace): another program on the machine looking at
 * every process (ps, checkrestart, a bench) reaches the file system too.
 * It is answered, never hung or counted: the test is about mapscope.  A
 * request without a PID (the kernel's own) or from a process already gone
 * counts as mapscope's.
 */
static bool from_outsider(const struct fuse_in_header *in)
{
	char path[64], comm[32] = "";
	ssize_t n;
	int fd;

	if (in->pid == 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%u/comm", (unsigned)in->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	return n > 0 && strcmp(comm, "mapscope\n") != 0;
}

static void serve(int fd, const struct content *c, struct fuse_modes *modes)
{
	unsigned char *buf = malloc(REQ_BUF);

	if (!buf)
		_exit(2);
	for (;;) {
		ssize_t n = read(fd, buf, REQ_BUF);
		struct fuse_in_header *in = (struct fuse_in_header *)buf;
		void *arg = buf + sizeof(*in);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			_exit(0); /* unmounted or aborted */
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *ii = arg;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION, .minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = ii->max_readahead, .max_write = 65536,
				.max_background = 16, .congestion_threshold = 12, .time_gran = 1,
			};

			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { 0 };

			if (modes->hang_lookups && !from_outsider(in)) {
				modes->lookups_hung++;
				break;
			}

			if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, FUSE_SERVER_NAME) != 0) {
				reply(fd, in->unique, ENOENT, NULL, 0);
				break;
			}
			/* No caching of names or attributes: every lookup asks again. */
			o.nodeid = modes->new_inode ? 3 : 2;
			fill_attr(&o.attr, o.nodeid, c);
			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { 0 };

			if (modes->hang_getattrs && !from_outsider(in)) {
				modes->getattrs_hung++;
				break;
			}
			/* attr_valid 0: the next stat asks again (fuse_update_get_attr). */
			fill_attr(&o.attr, in->nodeid, c);
			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN: {
			/* No FOPEN_KEEP_CACHE: each open drops the file's page cache (fuse_finish_open). */
			struct fuse_open_out o = { .fh = 1 };

			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			const struct fuse_read_in *r = arg;
			size_t len = 0;

			if (modes->hang_reads && !from_outsider(in)) {
				modes->reads_hung++;
				break;
			}
			if (r->offset < c->size)
				len = c->size - r->offset < r->size ? c->size - r->offset : r->size;
			reply(fd, in->unique, 0, c->data + (len ? r->offset : 0), len);
			break;
		}
		case FUSE_STATFS: {
			struct fuse_statfs_out o = { .st = { .bsize = 4096, .namelen = 255, .frsize = 4096 } };

			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			reply(fd, in->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break; /* no reply expected */
		default:
			reply(fd, in->unique, ENOSYS, NULL, 0);
			break;
		}
	}
}

static int load(const char *path, struct content *c)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0 || !(c->data = malloc((size_t)st.st_size + 1)) ||
	    read(fd, c->data, (size_t)st.st_size) != st.st_size) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	c->size = (size_t)st.st_size;
	close(fd);
	return 0;
}

/* Kill and reap *pid, if any; it is 0 after. */
static void kill_reap(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = 0;
}

int fuse_map_in_child(const char *path, uid_t uid, pid_t *pid, unsigned long *start)
{
	unsigned long addr = 0;
	int ready[2];

	if (pipe2(ready, O_CLOEXEC) < 0)
		return -1;
	*pid = fork();
	if (*pid == 0) {
		volatile unsigned char *p;
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (uid && (setgid(uid) < 0 || setuid(uid) < 0))
			_exit(1);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED || p[0] != 0x7f)
			_exit(1);
		close(fd);
		addr = (unsigned long)p;
		if (write(ready[1], &addr, sizeof(addr)) != (ssize_t)sizeof(addr))
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (*pid < 0 || read(ready[0], &addr, sizeof(addr)) != (ssize_t)sizeof(addr)) {
		close(ready[0]);
		kill_reap(pid);
		return -1;
	}
	close(ready[0]);
	if (start)
		*start = addr;
	return 0;
}

int fuse_exec_in_child(const char *path, uid_t uid, pid_t *pid)
{
	struct pollfd ready = { .events = POLLIN };
	pid_t parent = getpid();
	int fds[2], n;
	char c;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	*pid = fork();
	if (*pid == 0) {
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(126);
		if (uid && (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0))
			_exit(125);
		/* After setuid, which clears it (commit_creds). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	ready.fd = fds[0];
	/* Its byte says it runs its own code; EOF, that it died or exec failed. */
	n = *pid > 0 && poll(&ready, 1, TU_DEADLINE_MS) == 1 ? (int)read(fds[0], &c, 1) : -1;
	close(fds[0]);
	if (n == 1)
		return 0;
	kill_reap(pid);
	return -1;
}

int fuse_server_map_in_child(struct fuse_server *s, pid_t *pid, unsigned long *start)
{
	return fuse_map_in_child(s->path, 0, pid, start);
}

void fuse_server_hang_reads(struct fuse_server *s)
{
	int fd;

	s->modes->hang_reads = 1;
	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			s->modes->drop_caches_failed = 1;
		close(fd);
	}
	s->modes->new_inode = 1;
}

int fuse_server_start(struct fuse_server *s, const char *content_path, const char **why)
{
	return fuse_server_start_over(s, content_path, NULL, why);
}

int fuse_server_start_over(struct fuse_server *s, const char *content_path, const char *over,
			   const char **why)
{
	struct content c = { 0 };
	char opts[128];
	const char *tmp = getenv("TMPDIR");
	int fd = -1;

	memset(s, 0, sizeof(s[0]));
	if (geteuid() != 0) {
		*why = "needs root to mount";
		return -1;
	}
	if (access("/dev/fuse", R_OK | W_OK) != 0) {
		*why = "/dev/fuse is absent or unusable";
		return -1;
	}
	if (load(content_path, &c) < 0) {
		*why = "cannot read the file to serve";
		return -1;
	}
	if (over) {
		if (strlen(over) >= sizeof(s->mnt)) {
			free(c.data);
			*why = "the directory to mount over has too long a name";
			return -1;
		}
		snprintf(s->mnt, sizeof(s->mnt), "%s", over);
		s->borrowed_mnt = true;
	} else {
		snprintf(s->mnt, sizeof(s->mnt), "%s/ms-fuse-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(s->mnt)) {
			free(c.data);
			*why = "mkdtemp failed";
			return -1;
		}
	}
	snprintf(s->path, sizeof(s->path), "%s/%s", s->mnt, FUSE_SERVER_NAME);
	s->modes = mmap(NULL, sizeof(*s->modes), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (s->modes == MAP_FAILED || fd < 0) {
		*why = "cannot open /dev/fuse";
		goto fail;
	}
	memset((void *)s->modes, 0, sizeof(*s->modes));
	/* allow_other: nobody, a user's process in the tests, reaches it too. */
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("mapscope-test", s->mnt, "fuse.mstest", MS_NOSUID | MS_NODEV, opts) < 0) {
		*why = "mount(2) of a FUSE file system failed";
		goto fail;
	}
	s->mounted = true;
	s->pid = fork();
	if (s->pid == 0) {
		/* Never outlive the test, whatever kills it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		serve(fd, &c, s->modes);
		_exit(0);
	}
	/* Only the server holds the device: its death aborts the connection. */
	close(fd);
	free(c.data);
	if (s->pid < 0) {
		s->pid = 0;
		fuse_server_stop(s);
		*why = "fork failed";
		return -1;
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(c.data);
	if (s->modes == MAP_FAILED)
		s->modes = NULL;
	fuse_server_stop(s);
	return -1;
}

void fuse_server_stop(struct fuse_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
	if (s->mounted) {
		umount2(s->mnt, MNT_DETACH);
		s->mounted = false;
	}
	if (s->mnt[0]) {
		if (!s->borrowed_mnt)
			rmdir(s->mnt);
		s->mnt[0] = '\0';
	}
	if (s->modes) {
		s->reads_hung = s->modes->reads_hung;
		s->lookups_hung = s->modes->lookups_hung;
		s->getattrs_hung = s->modes->getattrs_hung;
		munmap((void *)s->modes, sizeof(*s->modes));
		s->modes = NULL;
	}
}

void fuse_server_stop_mapped(struct fuse_server *s, pid_t *mapper)
{
	/* Reaped once the server is gone: it may be waiting on it. */
	if (*mapper > 0)
		kill(*mapper, SIGKILL);
	fuse_server_stop(s);
	kill_reap(mapper);
}

void fuse_server_abort(void *arg)
{
	struct fuse_server *s = arg;

	s->aborted = true;
	fuse_server_stop(s);
}

char *fuse_server_run(struct fuse_server *s, const char *const *args, int *status, const char **why)
{
	const struct msrun_opts opts = { .timeout_ms = 10000, .on_timeout = fuse_server_abort, .timeout_arg = s };
	struct msrun_result r = msrun(&opts, args);
	pid_t stuck = msrun_in_d_state();

	*why = s->why;
	if (s->aborted || r.timed_out)
		snprintf(s->why, sizeof(s->why),
			 "did not finish in 10 s: blocked on the FUSE daemon "
			 "(%d READs, %d LOOKUPs, %d GETATTRs unanswered)",
			 s->reads_hung, s->lookups_hung, s->getattrs_hung);
	else if (stuck)
		snprintf(s->why, sizeof(s->why), "PID %d is in D state", (int)stuck);
	else if (s->modes->reads_hung || s->modes->lookups_hung || s->modes->getattrs_hung)
		snprintf(s->why, sizeof(s->why), "left the daemon %d READs, %d LOOKUPs, %d GETATTRs unanswered",
			 s->modes->reads_hung, s->modes->lookups_hung, s->modes->getattrs_hung);
	else
		*why = NULL;
	*status = r.status;
	if (*why && r.err && *r.err)
		snprintf(s->why + strlen(s->why), sizeof(s->why) - strlen(s->why), "; stderr: %.200s", r.err);
	free(r.err);
	return r.out;
}
