/*
 * ms-dlopen-hold: a process of an unprivileged user that maps a library.
 *
 * ms-dlopen-hold UID LIB SYMBOL: started as root, it becomes UID (its gid
 * too, no supplementary groups) for good, then dlopens LIB (RTLD_NOW) and
 * prints "sym ADDRESS" (hex, no 0x: where SYMBOL is) and "ready PID".  It
 * keeps LIB mapped until its standard input ends.  Started as UID already,
 * it just stays.  Errors go to stdout as "err WHY" (exit 1), so a test
 * reading the lines never waits for nothing.
 *
 * ms-dlopen-hold UID --map DIR: the same, but instead of a library it maps
 * every regular file of DIR (read-only, private; `libs --all-mappings`
 * lists them) and prints "mapped N" then "ready PID": a user's process
 * with thousands of files (the SBOM's hash budget, test_sbom_budget.sh).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every regular file of dir mapped, each descriptor closed (thousands of them); -1 with "err" said. */
static int map_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d) {
		printf("err opening %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		struct stat st;
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		if (fd < 0 && (errno == ELOOP || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")))
			continue;
		if (fd < 0 || fstat(fd, &st) < 0) {
			printf("err opening %s/%s: %s\n", dir, e->d_name, strerror(errno));
			break;
		}
		if (S_ISREG(st.st_mode) && st.st_size > 0 &&
		    mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			printf("err mapping %s/%s: %s\n", dir, e->d_name, strerror(errno));
			close(fd);
			break;
		}
		n += S_ISREG(st.st_mode) && st.st_size > 0;
		close(fd);
	}
	closedir(d);
	if (e)
		return -1;
	printf("mapped %zu\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[256];
	void *h, *sym;
	uid_t uid;

	if (argc != 4) {
		printf("err usage: ms-dlopen-hold UID LIB SYMBOL | UID --map DIR\n");
		return 1;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	if (getuid() != uid &&
	    (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)) {
		printf("err becoming uid %u: %s\n", (unsigned)uid, strerror(errno));
		return 1;
	}
	if (!strcmp(argv[2], "--map")) {
		if (map_dir(argv[3]) < 0)
			return 1;
	} else if (!(h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) || !(sym = dlsym(h, argv[3]))) {
		printf("err %s\n", dlerror());
		return 1;
	} else {
		printf("sym %lx\n", (unsigned long)sym);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
