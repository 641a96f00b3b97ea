/*
 * stale-child: a process that maps what the stale tests ask for.
 *
 * It prints "ready PID", then takes one command per line on stdin and
 * answers "ok" (or "err WHY"):
 *   dlopen PATH    load a shared library (RTLD_NOW) and keep it loaded
 *   mapx PATH      map the whole file PATH read-only and executable
 *   mapr PATH      map the whole file PATH read-only
 *   memfd          map a memfd read-only (the kernel names it /memfd:...)
 *   chroot DIR     chroot into DIR (root only), in the mount namespace it has
 *   pivot DIR      a private mount namespace whose root is DIR, by
 *                  pivot_root, the old root unmounted (root only)
 *   user UID       become UID (its gid too, no supplementary groups; root
 *                  only) and stay dumpable, so that UID may read its maps
 *   fork           fork a copy that keeps every mapping, reads and writes
 *                  nothing and dies with this process (a server's worker);
 *                  its PID is in /proc/PID/task/PID/children
 *   exit           exit with status 0
 * At end of input it exits.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int map_path(const char *path, int prot)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	p = mmap(NULL, (size_t)st.st_size, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	return p == MAP_FAILED ? -1 : 0;
}

static int map_memfd(void)
{
	int fd = memfd_create("ms-stale", MFD_CLOEXEC);
	void *p;

	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return -1;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? -1 : 0;
}

static int enter_root(const char *dir)
{
	return chroot(dir) < 0 || chdir("/") < 0 ? -1 : 0;
}

/* The way a container runtime enters its root filesystem. */
static int pivot_into(const char *dir)
{
	char old[4096];

	if (snprintf(old, sizeof(old), "%s/.old-root", dir) >= (int)sizeof(old))
		return (errno = ENAMETOOLONG, -1);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(dir, dir, NULL, MS_BIND | MS_REC, NULL) < 0 ||
	    (mkdir(old, 0700) < 0 && errno != EEXIST) ||
	    syscall(SYS_pivot_root, dir, old) < 0 || chdir("/") < 0 ||
	    umount2("/.old-root", MNT_DETACH) < 0)
		return -1;
	return rmdir("/.old-root");
}

/* A user's own process: its uid may read its maps, root may read its map_files. */
static int become(const char *uidtext)
{
	uid_t uid = (uid_t)strtoul(uidtext, NULL, 10);

	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static int fork_worker(void)
{
	pid_t parent = getpid(), pid = fork();
	int null;

	if (pid != 0)
		return pid < 0 ? -1 : 0;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
		_exit(1);
	for (;;)
		pause();
}

static void answer(int rc, const char *what)
{
	if (rc == 0)
		printf("ok\n");
	else
		printf("err %s: %s\n", what, what && !strcmp(what, "dlopen") ? dlerror() : strerror(errno));
	fflush(stdout);
}

int main(void)
{
	char line[4096];

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "dlopen ", 7))
			answer(dlopen(line + 7, RTLD_NOW | RTLD_LOCAL) ? 0 : -1, "dlopen");
		else if (!strncmp(line, "mapx ", 5))
			answer(map_path(line + 5, PROT_READ | PROT_EXEC), "mmap");
		else if (!strncmp(line, "mapr ", 5))
			answer(map_path(line + 5, PROT_READ), "mmap");
		else if (!strcmp(line, "memfd"))
			answer(map_memfd(), "memfd");
		else if (!strncmp(line, "chroot ", 7))
			answer(enter_root(line + 7), "chroot");
		else if (!strncmp(line, "pivot ", 6))
			answer(pivot_into(line + 6), "pivot");
		else if (!strncmp(line, "user ", 5))
			answer(become(line + 5), "user");
		else if (!strcmp(line, "fork"))
			answer(fork_worker(), "fork");
		else if (!strcmp(line, "exit"))
			return 0;
		else
			answer((errno = EINVAL, -1), "command");
	}
	return 0;
}
