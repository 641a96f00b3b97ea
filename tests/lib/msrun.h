/*
 * msrun.h - running the mapscope binary ($MS_BIN) as a user would, and
 * capturing what it printed: the one way every test runs it.
 *
 * Contract: the binary runs with argv[0] "mapscope" and the arguments
 * given (NULL-terminated, argv[0] excluded).  Its stdout and stderr are
 * read together until both end, so neither can fill its pipe and stall
 * the other; stdin gets the text given, or /dev/null.  Every run has a
 * deadline (tu_deadline unless set): past it the binary gets SIGKILL, the
 * run's on_timeout hook (if any) is called to end what it was stuck on,
 * and the result says timed_out.  SIGPIPE is back to its default in the
 * binary, as in a shell.  Nothing here aborts the test; results are for
 * the test to assert on.
 */
#ifndef MAPSCOPE_TESTS_MSRUN_H
#define MAPSCOPE_TESTS_MSRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum msrun_out {
	MSRUN_CAPTURE = 0, /* into result.out */
	MSRUN_FILE,        /* to out_path, created or truncated (a device is opened as it is) */
	MSRUN_CLOSED_PIPE, /* a pipe whose reader is already gone */
	MSRUN_DEV_NULL,
	MSRUN_DEV_FULL,
};

struct msrun_opts {
	enum msrun_out out;
	const char *out_path;   /* MSRUN_FILE */
	const char *in_text;    /* stdin; NULL: /dev/null */
	uid_t uid;              /* not 0: run as this uid and gid, with HOME=/nonexistent, a
				 * copy of the binary under $TMPDIR that the uid may reach */
	bool hidepid;           /* in a private mount namespace, /proc mounted hidepid=2 */
	const char *locale;     /* LC_ALL for the run; NULL: as the test has it */
	long long timeout_ms;   /* 0: TU_DEADLINE_MS (stretched under a sanitizer) */
	void (*on_timeout)(void *arg);
	void *timeout_arg;
};

struct msrun_result {
	int status;       /* exit status; 128 + signal if killed; -1 if it could not run or timed out */
	int signal;       /* the signal that killed it, or 0 */
	bool timed_out;
	char *out;        /* NUL-terminated, never NULL after msrun (maybe empty) */
	size_t out_len;
	char *err;
	long maxrss_kb;   /* the binary's peak RSS */
};

/* Run it; opts may be NULL for the defaults.  Free the result with msrun_free. */
struct msrun_result msrun(const struct msrun_opts *opts, const char *const *args);
void msrun_free(struct msrun_result *r);

/* The args of MSRUN as an array literal. */
#define MSRUN_ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define MSRUN(opts, ...) msrun((opts), MSRUN_ARGS(__VA_ARGS__))

/*
 * The common case: stdout to out_path (NULL: captured into *out, if out is
 * set), stderr into *err (if set); both malloc'd.  The exit status, or -1
 * if it did not exit normally by the deadline.
 */
int msrun_capture(const char *const *args, const char *out_path, char **out, char **err);

/* Start it with stdout and stderr on the given fds and stdin on /dev/null,
 * without waiting: its PID, or -1.  msrun_wait: its exit status, or -1. */
pid_t msrun_spawn(const char *const *args, int out_fd, int err_fd);
int msrun_wait(pid_t pid);

/*
 * A mapscope process stuck in uninterruptible sleep (D state, and still
 * there a second later: an fsync passes through D), or 0.  Only ours: one
 * msrun started, or one such a process left behind (msrun makes the test
 * their subreaper); another mapscope on the machine is none of its business.
 */
pid_t msrun_in_d_state(void);

#endif
