/*
 * stale_harness.h - what the stale tests share: a temp directory, copies of
 * the two test libraries, a stale-child process driven over pipes, and
 * running the mapscope binary with its output captured.  Every wait polls
 * with a deadline; nothing sleeps a fixed time.
 */
#ifndef MAPSCOPE_TESTS_STALE_HARNESS_H
#define MAPSCOPE_TESTS_STALE_HARNESS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define HARNESS_DEADLINE_MS 10000

struct child {
	pid_t pid;
	int to;   /* its stdin */
	int from; /* its stdout */
	char buf[4096];
	size_t len;
};

/* A build-tree file next to ms-fixture (from $MS_FIXTURE): malloc'd path. */
char *harness_built(const char *name);

/* mkdtemp under $TMPDIR or /tmp; malloc'd path.  harness_rmdir removes it and its files. */
char *harness_mkdtemp(void);
void harness_rmdir(const char *dir);

/* dir + "/" + name, malloc'd. */
char *harness_join(const char *dir, const char *name);

/*
 * Read fd to its end or to deadline_ms (harness_deadline: the usual one
 * from now); malloc'd and NUL-terminated, NULL when out of memory.
 * *timed_out (may be NULL) says the deadline came first.
 */
char *harness_drain(int fd, long long deadline_ms, int *timed_out);
long long harness_deadline(void);

/*
 * A child holding n single-page anonymous mappings that cannot merge
 * (alternating permissions), for tests near vm.max_map_count; returns its
 * PID once they are all mapped, or -1 if it could not make them.  The
 * caller kills it.
 */
pid_t harness_spawn_many(size_t n);

/* Copy src to dst (created or truncated).  0 or -1. */
int harness_copy(const char *src, const char *dst);

/*
 * Start prog with one argument (or none: NULL) and env (NAME=VALUE,
 * NULL-terminated; may be NULL) added, its stdin and stdout on pipes: *to
 * and *from.  The PID, or -1.
 */
pid_t harness_spawn(const char *prog, const char *arg, const char *const *env, int *to, int *from);

/* Start tests/stale-child and read its "ready PID".  0 or -1. */
int child_start(struct child *c);
/* Send a command line; 0 when it answered "ok". */
int child_cmd(struct child *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void child_stop(struct child *c);

/*
 * Run $MS_BIN with args (NULL-terminated, without argv[0]); stdout is
 * captured into *out (malloc'd, NUL-terminated).  Returns the exit status,
 * or -1 if it could not run or did not end by the deadline.
 */
int harness_run(char **out, const char *const *args);
/* The same; on the deadline, after SIGKILL, on_timeout(arg) runs before the wait. */
int harness_run_or(char **out, const char *const *args, void (*on_timeout)(void *), void *arg);

#endif
