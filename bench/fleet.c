/*
 * ms-bench-fleet: many small processes mapping shared libraries, some of
 * them deleted from disk, for the system-wide cases of make bench.
 *
 * Usage: ms-bench-fleet COUNT DIR [replaced]
 *                                    (DIR must exist; make bench judges
 *                                     it with an empty stale-ignore list, so
 *                                     it may be anywhere, /tmp included)
 *
 * Every child dlopen()s a few system libraries (whichever of LIBS exist).
 * One child in 10 also loads a private copy of a library from DIR, and once
 * all children are up the copies are unlinked, so those children map a
 * deleted library, as after a package upgrade.
 *
 * With "replaced", as after an upgrade of a library a server and all its
 * workers map: the parent loads one copy before it forks, so every child
 * holds it, and once all are up another library is renamed over its path
 * (the path now holds a file with another build ID).
 *
 * It prints "ready PID..." (the children) and waits for a signal; on SIGTERM
 * it ends its children.  Everything dies with the parent (PR_SET_PDEATHSIG).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCOPIES 10
#define MAX_CHILDREN 4096

static const char *const libs[] = {
	"libm.so.6", "libz.so.1", "libsmartcols.so.1", "libjansson.so.4", "libelf.so.1",
};
/* The library copied and then deleted: one the others do not load. */
static const char *const copied_from[] = {
	"/lib/x86_64-linux-gnu/libcmocka.so.0", "/usr/lib/x86_64-linux-gnu/libcmocka.so.0",
	"/lib/x86_64-linux-gnu/libncursesw.so.6", "/usr/lib/x86_64-linux-gnu/libncursesw.so.6",
};

static pid_t children[MAX_CHILDREN];
static int nchildren;

static void die(const char *what)
{
	fprintf(stderr, "ms-bench-fleet: %s: %s\n", what, strerror(errno));
	exit(3);
}

static void on_term(int sig)
{
	for (int i = 0; i < nchildren; i++)
		kill(children[i], SIGTERM);
	_exit(128 + sig);
}

static int copy_file(const char *from, const char *to)
{
	struct stat st;
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	off_t off = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0 || fstat(in, &st) < 0) {
		close(in);
		return -1;
	}
	while (off < st.st_size)
		if (sendfile(out, in, &off, (size_t)(st.st_size - off)) <= 0)
			break;
	close(in);
	close(out);
	return off == st.st_size ? 0 : -1;
}

static void child(int i, const char *dir, int ready_fd, int have_copies, int replaced)
{
	char path[4096];

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGTERM, SIG_DFL);
	for (size_t k = 0; k < sizeof(libs) / sizeof(libs[0]); k++)
		if ((i + (int)k) % 5 != 0) /* a few each, not always the same */
			dlopen(libs[k], RTLD_LAZY | RTLD_LOCAL);
	if (have_copies && !replaced && i % 10 == 0) {
		snprintf(path, sizeof(path), "%s/libfleet-%d.so", dir, (i / 10) % NCOPIES);
		if (!dlopen(path, RTLD_LAZY | RTLD_LOCAL))
			fprintf(stderr, "ms-bench-fleet: %s\n", dlerror());
	}
	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	close(ready_fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char path[4096], c;
	int count, pipefd[2], have_copies = 0, replaced = argc == 4 && !strcmp(argv[3], "replaced");
	size_t copied = 0;

	if ((argc != 3 && !replaced) || (count = atoi(argv[1])) < 1 || count > MAX_CHILDREN) {
		fprintf(stderr, "usage: ms-bench-fleet COUNT DIR [replaced]   (1..%d)\n", MAX_CHILDREN);
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGTERM, on_term);
	for (size_t s = 0; s < sizeof(copied_from) / sizeof(copied_from[0]) && !have_copies; s++) {
		have_copies = 1;
		copied = s;
		for (int k = 0; k < NCOPIES && have_copies; k++) {
			snprintf(path, sizeof(path), "%s/libfleet-%d.so", argv[2], k);
			if (copy_file(copied_from[s], path) < 0)
				have_copies = 0;
		}
	}
	if (!have_copies)
		fprintf(stderr, "ms-bench-fleet: no library to copy: no deleted mappings\n");
	snprintf(path, sizeof(path), "%s/libfleet-0.so", argv[2]);
	if (have_copies && replaced && !dlopen(path, RTLD_LAZY | RTLD_LOCAL))
		fprintf(stderr, "ms-bench-fleet: %s\n", dlerror());
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die("pipe");
	for (int i = 0; i < count; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(pipefd[0]);
			child(i, argv[2], pipefd[1], have_copies, replaced);
		}
		children[nchildren++] = pid;
	}
	close(pipefd[1]);
	for (int i = 0; i < count; i++)
		if (read(pipefd[0], &c, 1) != 1)
			die("a child did not start");
	for (int k = 0; k < NCOPIES && have_copies; k++) {
		snprintf(path, sizeof(path), "%s/libfleet-%d.so", argv[2], k);
		if (!replaced || k > 0)
			unlink(path);
	}
	/* The other library of the list (another build ID) renamed over the copy. */
	if (have_copies && replaced) {
		char next[4096];

		snprintf(path, sizeof(path), "%s/libfleet-0.so", argv[2]);
		snprintf(next, sizeof(next), "%s/libfleet-0.so.new", argv[2]);
		if (copy_file(copied_from[(copied + 2) % (sizeof(copied_from) / sizeof(copied_from[0]))], next) < 0 &&
		    copy_file(copied_from[(copied + 3) % (sizeof(copied_from) / sizeof(copied_from[0]))], next) < 0)
			die("copy the replacement");
		if (rename(next, path) < 0)
			die("rename the replacement");
	}
	printf("ready");
	for (int i = 0; i < nchildren; i++)
		printf(" %d", (int)children[i]);
	printf("\n");
	fflush(stdout);
	for (;;)
		pause();
}
