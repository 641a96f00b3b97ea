/*
 * ms-dlopen-hold: a process of an unprivileged user that maps a library.
 *
 * ms-dlopen-hold UID LIB SYMBOL: started as root, it becomes UID (its gid
 * too, no supplementary groups) for good, then dlopens LIB (RTLD_NOW) and
 * prints "sym ADDRESS" (hex, no 0x: where SYMBOL is) and "ready PID".  It
 * keeps LIB mapped until its standard input ends.  Started as UID already,
 * it just stays.  Errors go to stdout as "err WHY" (exit 1), so a test
 * reading the lines never waits for nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[256];
	void *h, *sym;
	uid_t uid;

	if (argc != 4) {
		printf("err usage: ms-dlopen-hold UID LIB SYMBOL\n");
		return 1;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	if (getuid() != uid &&
	    (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)) {
		printf("err becoming uid %u: %s\n", (unsigned)uid, strerror(errno));
		return 1;
	}
	if (!(h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) || !(sym = dlsym(h, argv[3]))) {
		printf("err %s\n", dlerror());
		return 1;
	}
	printf("sym %lx\nready %d\n", (unsigned long)sym, (int)getpid());
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
