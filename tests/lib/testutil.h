/*
 * testutil.h - the small things every test needs: a clock and deadlines,
 * temporary directories and the files in them, the build tree's programs,
 * reading a descriptor to its end without waiting forever, and a process
 * with as many mappings as a test asks for.
 *
 * Contract: nothing here sleeps a fixed time; every wait is bounded by a
 * deadline in milliseconds of CLOCK_MONOTONIC (tu_deadline: TU_DEADLINE_MS
 * from now, four times longer under a sanitizer build, where ASAN_OPTIONS
 * is set).  Paths returned are malloc'd and the caller frees them.
 * Functions return NULL or -1 on failure and never abort the test, so that
 * cmocka setups can use them too.
 */
#ifndef MAPSCOPE_TESTS_TESTUTIL_H
#define MAPSCOPE_TESTS_TESTUTIL_H

#include <stddef.h>
#include <sys/types.h>

#define TU_DEADLINE_MS 10000

long long tu_now_ms(void);
/* The usual deadline, from now. */
long long tu_deadline(void);
/* ms milliseconds from now, stretched like tu_deadline under a sanitizer. */
long long tu_deadline_in(long long ms);

/* A program of the build tree, next to ms-fixture ($MS_FIXTURE). */
char *tu_built(const char *name);

/* A new directory $TMPDIR/ms-test-XXXXXX (or under /tmp). */
char *tu_tmpdir(void);
/*
 * Whether uid may enter $TMPDIR (or /tmp), where the tests put what they
 * run or map as that user: 1 or 0; -1 if it cannot tell (not root).
 */
int tu_tmpdir_open_to(uid_t uid);
/*
 * A new directory (malloc'd path) for a file only root may write, where
 * nobody else can steer it (root's caches): under the current directory
 * when it and every level above it are root's, writable by no group or
 * other and open to others' search (a test reads it as nobody), else under
 * /run when that is so; NULL when we are not root or neither is.
 */
char *tu_root_tmpdir(void);
/*
 * Fork child(dir) in a new temporary directory that nobody (65534) owns,
 * mode 0755, and remove the directory once it exits; the child drops to
 * nobody itself.  Its exit code, 128 + the signal that ended it, or -1
 * when this cannot be done here (not root, or no directory nobody may
 * enter: the caller skips).
 */
int tu_fork_in_nobody_dir(int (*child)(const char *dir));
/*
 * A cmocka test body: steps(dir) as nobody (tu_fork_in_nobody_dir); it
 * returns 0, or the number of the step that failed.  Skips when that
 * cannot be done here, fails naming the step (or the signal: SIGALRM when
 * it hung).
 */
void tu_nobody_steps(int (*steps)(const char *dir));
/* cmocka setup and teardown: *state is a new tu_tmpdir, then removed. */
int tu_tmpdir_setup(void **state);
int tu_tmpdir_teardown(void **state);
/* Remove dir and everything below it, following no symlink and entering
 * no other file system mounted below it. */
void tu_rmtree(const char *dir);
/* dir + "/" + name. */
char *tu_join(const char *dir, const char *name);

/*
 * Read fd to its end or to deadline_ms; malloc'd and NUL-terminated (the
 * length in *len when len is set), NULL when out of memory.  *timed_out
 * (may be NULL) says the deadline came first.
 */
char *tu_drain(int fd, long long deadline_ms, size_t *len, int *timed_out);

/*
 * fn(arg, out) run in a child, out being size zeroed bytes there, and
 * what it filled copied into out here, so that a lookup of a hostile tree
 * that hangs fails the test at the usual deadline (the child is then
 * killed) instead of stalling it.  0, or -1: it hung, died or could not
 * be started.
 */
int tu_child_answer(void (*fn)(void *arg, void *out), void *arg, void *out, size_t size);

/* A whole file, NUL-terminated; its length in *len (may be NULL). */
char *tu_slurp(const char *path, size_t *len);
/* The first line of a shell command's output (popen), newline off, malloc'd; NULL: none. */
char *tu_command_line(const char *cmd);
/*
 * The value of the series (a metric's name and labels, exactly as written)
 * in an OpenMetrics file that ends in "# EOF", or -1: no such file, no
 * "# EOF", no such series.
 */
long long tu_metric(const char *path, const char *series);
/* How many lines of text start with prefix. */
size_t tu_count_lines(const char *text, const char *prefix);
/* Write text to path, created or truncated.  0 or -1. */
int tu_spit(const char *path, const char *text);
/*
 * Below dir (each asserts): rel made a directory of mode, whatever the
 * umask; a symlink rel to target; a file rel holding its own name.
 */
void tu_mkdir_in(const char *dir, const char *rel, mode_t mode);
void tu_symlink_in(const char *dir, const char *target, const char *rel);
void tu_spit_in(const char *dir, const char *rel);
/*
 * A child holding n single-page anonymous mappings that cannot merge
 * (alternating permissions), for tests near vm.max_map_count; its PID once
 * they are all mapped, or -1 if it could not make them.  The caller kills
 * and reaps it.
 */
pid_t tu_spawn_many(size_t n);

/* A kernel thread's PID (PF_KTHREAD in /proc/PID/stat), or 0 if none is visible. */
pid_t tu_kernel_thread(void);

/* mkdir -p: path and the directories above it (mode 0755; existing ones kept).  0 or -1. */
int tu_mkdirs(const char *path);

/* Copy src to dst (created or truncated, mode 0755).  0 or -1. */
int tu_copy(const char *src, const char *dst);

/*
 * The device the kernel names path's mappings by (/proc/PID/maps,
 * PROCMAP_QUERY): its file system's, as /proc/self/mountinfo gives it for
 * the file's mount (stat's st_dev where mountinfo lacks it: a chroot).
 * stat's st_dev differs on btrfs (a subvolume's).
 * 0, or -1.
 */
int tu_mapped_dev(const char *path, unsigned *major, unsigned *minor);

/*
 * The highest version definition PREFIX_N[.N...] of the ELF file at path,
 * as readelf -V lists them and sort -V orders them (an independent
 * reference for LIBVER), or NULL (readelf missing, or no such name).
 * path and prefix must need no shell quoting beyond single quotes.
 */
char *tu_readelf_highest(const char *path, const char *prefix);

#endif
