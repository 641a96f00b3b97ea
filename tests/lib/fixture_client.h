/*
 * fixture_client.h - drive one of the test programs with known mappings:
 * ms-fixture (the default), ms-residency-fixture, ms-hostile or
 * stale-child.  They all speak one line protocol on stdin and stdout:
 *
 *   map KIND START END PERMS OFFSET NAMEHEX   a mapping it made ("-": no name)
 *   skip anon-named REASON                    the kernel refused a VMA name
 *   sym NAME ADDR                             where a known symbol is (the last kept)
 *   ready PID                                 set up; takes commands now
 *   COMMAND -> ... "ok" or "err WHY"          one command per line
 *
 * Contract: every read waits at most until the start's deadline (the
 * usual tu_deadline, or timeout_ms); the "map" lines are collected in
 * fx->maps, in order, however many there are; a fixture's "err" line is
 * copied to stderr, so a failed start says why in the test's log.  The
 * program comes from the build tree (beside $MS_FIXTURE), with its bare
 * name as argv[0] (so its command line reads "ms-fixture DIR"), and runs in a
 * directory given as its one argument: a new temporary one that
 * fixture_stop removes, or the caller's own, which is left alone.
 */
#ifndef MAPSCOPE_TESTS_FIXTURE_CLIENT_H
#define MAPSCOPE_TESTS_FIXTURE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linechild.h"

struct fx_map {
	char kind[40];
	uint64_t start;
	uint64_t end;
	char perms[5];
	uint64_t offset;
	char *name;      /* NULL when unnamed */
	size_t name_len;
};

struct fixture {
	pid_t pid;
	char pidstr[16]; /* the PID as text, for command lines */
	char *dir;       /* where it runs; NULL for a program that takes none */
	bool own_dir;    /* made by fixture_start, removed by fixture_stop */
	struct fx_map *maps;
	size_t count, cap;
	char sym_name[64]; /* the last "sym" line: a symbol's name and address */
	uint64_t sym_addr;
	bool anon_named_skipped;
	char skip_reason[256];
	struct linechild io;
	long long timeout_ms;
};

struct fixture_opts {
	const char *prog;         /* a program of the build tree; NULL: ms-fixture */
	const char *dir;          /* its directory; NULL: a new temporary one */
	bool no_dir;              /* it takes no directory argument (stale-child) */
	const char *const *env;   /* NAME=VALUE added to its environment; may be NULL */
	long long timeout_ms;     /* each wait; 0: the usual deadline */
};

/* The options that start stale-child, which takes no directory. */
#define FIXTURE_STALE_CHILD (&(const struct fixture_opts){ .prog = "stale-child", .no_dir = true })

/* Start ms-fixture in a new temporary directory.  0, or -1 with a message on stderr. */
int fixture_start(struct fixture *fx);
/* Start the program the options name.  0, or -1 with a message on stderr. */
int fixture_start_with(struct fixture *fx, const struct fixture_opts *o);

/*
 * cmocka setup and teardown: *state becomes a malloc'd struct fixture
 * running ms-fixture (fixture_setup) or the program o names
 * (fixture_setup_with); the teardown stops it and frees it.
 */
int fixture_setup(void **state);
int fixture_setup_with(void **state, const struct fixture_opts *o);
int fixture_teardown(void **state);

/* Send one command line; an added mapping (a "map" line) goes into fx->maps. 0 on "ok". */
int fixture_command(struct fixture *fx, const char *cmd);
int fixture_commandf(struct fixture *fx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Ask it to exec itself and read its new mappings. */
int fixture_exec(struct fixture *fx);

/* Kill with SIGKILL; reap too if reap is set (else it stays a zombie). */
void fixture_kill(struct fixture *fx, bool reap);

/* Stop (if still running), reap, remove its own directory, free names. */
void fixture_stop(struct fixture *fx);

/* The first mapping of a kind, or NULL. */
const struct fx_map *fixture_find(const struct fixture *fx, const char *kind);

/* Is perms' file-backedness and permission set a match for an MS_FILTER_* value? */
bool fixture_map_matches(const struct fx_map *m, unsigned filter);

#endif
