/*
 * fixture_client.h - start tests/ms-fixture, read what it mapped, send it
 * commands, and stop it.  The fixture's path comes from $MS_FIXTURE (set by
 * make check).  Each fixture gets its own temporary directory, removed at
 * stop.
 */
#ifndef MAPSCOPE_TESTS_FIXTURE_CLIENT_H
#define MAPSCOPE_TESTS_FIXTURE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define FX_MAX_MAPS 64

struct fx_map {
	char kind[32];
	uint64_t start;
	uint64_t end;
	char perms[5];
	uint64_t offset;
	char *name;      /* NULL when unnamed */
	size_t name_len;
};

struct fixture {
	pid_t pid;
	FILE *from;      /* the fixture's stdout */
	int to;          /* the fixture's stdin */
	char dir[256];
	struct fx_map maps[FX_MAX_MAPS];
	size_t count;
	bool anon_named_skipped;
	char skip_reason[256];
};

/* 0 on success; on failure a message is on stderr and -1 returned. */
int fixture_start(struct fixture *fx);

/* Send one command line; an added mapping (mapfile) goes into fx->maps. 0 on "ok". */
int fixture_command(struct fixture *fx, const char *cmd);

/* Ask it to exec itself and read its new mappings. */
int fixture_exec(struct fixture *fx);

/* Kill with SIGKILL; reap too if reap is set (else it stays a zombie). */
void fixture_kill(struct fixture *fx, bool reap);

/* Stop (if still running), reap, remove the directory, free names. */
void fixture_stop(struct fixture *fx);

/* The first mapping of a kind, or NULL. */
const struct fx_map *fixture_find(const struct fixture *fx, const char *kind);

/* Is perms' file-backedness and permission set a match for an MS_FILTER_* value? */
bool fixture_map_matches(const struct fx_map *m, unsigned filter);

#endif
