/*
 * snapfix.h - helpers for the snapshot, safewrite and diff tests: a temp
 * directory, the ms-fixture process driven over pipes, and running the
 * mapscope binary with its output captured.  Nothing waits on a fixed
 * sleep: every read polls against a deadline.
 */
#ifndef MAPSCOPE_TESTS_SNAPFIX_H
#define MAPSCOPE_TESTS_SNAPFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SNAPFIX_MAX_MAPS 64

struct snapfix_map {
	char kind[32];
	uint64_t start;
	uint64_t end;
	char perms[8];
	uint64_t offset;
	char name[4200];
	size_t name_len;
};

struct snapfix {
	pid_t pid;
	int to_child;   /* its stdin */
	int from_child; /* its stdout */
	char buf[65536];
	size_t len;
	struct snapfix_map maps[SNAPFIX_MAX_MAPS];
	size_t nmaps;
};

/* A temp directory with a fixture running in it: the tests' usual state. */
struct snapfix_env {
	char *dir;
	struct snapfix fx;
	char pid[16]; /* the fixture's PID as text, for command lines */
	char *out;    /* dir/out, a file name for the test to use */
};

/* cmocka setup and teardown making and removing a struct snapfix_env. */
int snapfix_env_setup(void **state);
int snapfix_env_teardown(void **state);

/* mkdtemp under $TMPDIR or /tmp; the path is malloc'd. */
char *snapfix_tmpdir(void);
/* rm -r of a temp dir made above, then free(path). */
void snapfix_rmdir(char *path);
/* "dir/name", malloc'd. */
char *snapfix_path(const char *dir, const char *name);

/* Start $MS_FIXTURE in dir and read until "ready".  0 or -1. */
int snapfix_start(struct snapfix *f, const char *dir);
/* Send a command line; read until "ok" (0) or "err" (-1).  A "map" line is appended. */
int snapfix_command(struct snapfix *f, const char *cmd);
const struct snapfix_map *snapfix_find(const struct snapfix *f, const char *kind);
void snapfix_stop(struct snapfix *f);

/*
 * Run $MS_BIN with args (NULL-terminated, argv[0] excluded), stdout to
 * out_path (NULL: captured into *out), stderr captured into *errout (both
 * may be NULL).
 * Returns the exit status, or -1 if it did not exit normally.
 */
int snapfix_run(const char *const *args, const char *out_path, char **out, char **errout);

/* Start $MS_BIN with args, stdout and stderr on the given fds; its pid. */
pid_t snapfix_spawn(const char *const *args, int out_fd, int err_fd);
/* Its exit status, or -1 if it did not exit normally. */
int snapfix_wait(pid_t pid);

/* Whole file into a malloc'd NUL-terminated buffer, or NULL. */
char *snapfix_slurp(const char *path, size_t *len);
int snapfix_spit(const char *path, const char *text);

#endif
