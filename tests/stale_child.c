/*
 * stale-child: a process that maps what the stale tests ask for.
 *
 * It prints "ready PID", then takes one command per line on stdin and
 * answers "ok" (or "err WHY"):
 *   dlopen PATH    load a shared library (RTLD_NOW) and keep it loaded
 *   mapx PATH      map the whole file PATH read-only and executable
 *   mapr PATH      map the whole file PATH read-only
 *   memfd          map a memfd read-only (the kernel names it /memfd:...)
 *   exit           exit with status 0
 * At end of input it exits.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
		else if (!strcmp(line, "exit"))
			return 0;
		else
			answer((errno = EINVAL, -1), "command");
	}
	return 0;
}
