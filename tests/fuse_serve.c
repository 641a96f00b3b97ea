/*
 * ms-fuse-serve FILE: serve FILE from a one-file FUSE file system
 * (tests/fuse_server.h), map it in a child, then make READ hang, and print
 * "ready PID START PATH" (the mapping child, its address in hex, the served
 * path).  On SIGTERM, SIGINT or SIGHUP: kill the child and the server (which
 * aborts the connection and so releases anything blocked on it), unmount,
 * exit 0.  Exit 77 with the reason when FUSE cannot be used here (not root,
 * no /dev/fuse).  For the explorer's tmux tests.
 *
 * ms-fuse-serve --over DIR FILE: a child (as nobody) maps DIR/lib.so, a
 * real file, first; then the file system is mounted over DIR and never
 * answers LOOKUP, so any walk into DIR blocks.  PATH is DIR/lib.so.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuse_server.h"
#include "testutil.h"

int main(int argc, char **argv)
{
	struct fuse_server s;
	unsigned long start;
	const char *why = NULL, *over = NULL;
	char path[300];
	sigset_t stop;
	pid_t child;
	int sig;

	if (argc == 4 && !strcmp(argv[1], "--over")) {
		over = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: ms-fuse-serve [--over DIR] FILE\n");
		return 2;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	if (over) {
		snprintf(path, sizeof(path), "%s/%s", over, FUSE_SERVER_NAME);
		/* uid 65534 maps a file under $TMPDIR, which may be closed to it (/root/tmp). */
		switch (tu_tmpdir_open_to(65534)) {
		case 1:
			break;
		case 0:
			printf("skip uid 65534 cannot enter $TMPDIR\n");
			return 77;
		default:
			printf("skip needs root to map as uid 65534\n");
			return 77;
		}
		if (fuse_map_in_child(path, 65534, &child, &start) < 0) {
			printf("error: the mapping child failed\n");
			return 1;
		}
		if (fuse_server_start_over(&s, argv[1], over, &why) < 0) {
			kill(child, SIGKILL);
			printf("skip %s\n", why);
			return 77;
		}
		s.modes->hang_lookups = 1;
	} else {
		if (fuse_server_start(&s, argv[1], &why) < 0) {
			printf("skip %s\n", why);
			return 77;
		}
		if (fuse_server_map_in_child(&s, &child, &start) < 0) {
			fuse_server_stop(&s);
			printf("error: the mapping child failed\n");
			return 1;
		}
		fuse_server_hang_reads(&s);
	}
	printf("ready %d %lx %s\n", (int)child, start, s.path);
	fflush(stdout);
	sigwait(&stop, &sig);
	fuse_server_stop_mapped(&s, &child);
	return 0;
}
