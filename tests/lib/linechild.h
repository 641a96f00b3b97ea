/*
 * linechild.h - a helper program driven over pipes, one line at a time:
 * the transport under every fixture driver (ms-fixture,
 * ms-residency-fixture, ms-hostile, stale-child).
 *
 * Contract: the child's stdin and stdout are pipes (stderr is shared with
 * the test, so a fixture's complaints land in the test's log); every read
 * waits at most until the deadline given, in tu_now_ms() milliseconds; a
 * line longer than the buffer is an error, never cut.  linechild_stop
 * kills and reaps the child and closes both pipes, and is safe to call
 * twice or on a child that never started.
 */
#ifndef MAPSCOPE_TESTS_LINECHILD_H
#define MAPSCOPE_TESTS_LINECHILD_H

#include <stddef.h>
#include <sys/types.h>

#define LINECHILD_BUF 65536

struct linechild {
	pid_t pid;      /* -1 or 0 when not running */
	int to;         /* its stdin */
	int from;       /* its stdout */
	char buf[LINECHILD_BUF];
	size_t len;
};

/*
 * Start prog with argv (argv[0] included, NULL-terminated) and env
 * (NAME=VALUE strings added to ours, NULL-terminated; may be NULL).
 * 0, or -1 with c->pid not running.
 */
int linechild_start(struct linechild *c, const char *prog, const char *const *argv,
		    const char *const *env);

/* The next line, without its newline, into line[size].  0, or -1 at end
 * of output, at the deadline, or when the line does not fit. */
int linechild_line(struct linechild *c, char *line, size_t size, long long deadline_ms);

/* Write text and a newline to its stdin.  0 or -1. */
int linechild_send(struct linechild *c, const char *text);

/* Close its stdin, kill it with SIGKILL, reap it, close its stdout; a zeroed, never started c: nothing. */
void linechild_stop(struct linechild *c);

#endif
