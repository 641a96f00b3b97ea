/*
 * A user's FUSE daemon that stops answering, where mapscope must never wait
 * on it; two fixtures, the same commands and checks.
 *
 * Over a library's directory: a file system that never answers LOOKUP,
 * mounted over the directory of a mapped library (untrusted_walk.h).  A
 * child, as nobody where it can be, maps DIR/lib.so from a real file under
 * the test's directory; then tests/lib/fuse_server.c mounts over DIR and
 * leaves every LOOKUP unanswered.  The mapping's name and device stay those
 * of the real file, so nothing but the path walk itself can tell: a lookup
 * that steps into DIR sleeps in fuse_lookup, uninterruptibly, until the
 * daemon dies.
 *
 * Under a running program: nobody runs a copy of ms-sleeper from the file
 * system, which then answers neither GETATTR nor LOOKUP.  stale marks a
 * process's main executable by what /proc/PID/exe leads to; a stat through
 * that link asks the daemon (attributes are valid for 0 s) and sleeps in
 * fuse_do_getattr, so the link is opened O_PATH and its mount checked
 * first (ms_walk_stat_link).
 *
 * Each command (stale, stale --metrics-file, list --by-file with SONAME
 * and VERDICT, at with SYMBOL, who with the library's path and with names
 * whose SONAMEs it reads, snapshot, libs with every column that reads the
 * file and with a SONAME pattern over every process) runs
 * the real binary under a 10 s deadline and must finish on its own, say
 * unknown (and why) for the library or program where it judges it (who
 * refuses the path, status 2; snapshot writes the mapping), leave the
 * daemon no request unanswered, and leave no mapscope process in D state.
 * Past the deadline the server is killed, which aborts the connection and
 * releases whatever was blocked, and the test fails.
 *
 * The mount ID of the running program, through /proc/PID/exe opened
 * O_PATH as the walk does: name_to_handle_at (the walk's first way) and
 * fdinfo agree, both name the FUSE mount, and the daemon is sent nothing
 * (an alarm ends the test should either way wait on it).  Root and /dev/fuse
 * are needed; otherwise the tests skip with the reason.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fuse_server.h"
#include "msrun.h"
#include "testutil.h"
#include "untrusted/untrusted_walk.h"

#define REASON "the path crosses a daemon-served mount"

struct fx {
	struct fuse_server server;
	pid_t mapper;
	char pid[16];
	char addr[32];
	char *tmp;
	char *dir;   /* DIR: the FUSE file system is mounted over it (or NULL) */
	char *lib;   /* the mapped name: DIR/lib.so, or the program on the mount */
	bool started;
};

/* A new fx in *state, with its directory, and stale rules that judge what is under /tmp. */
static struct fx *fx_new(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *cfg, *cfgdir;

	assert_non_null(fx);
	*state = fx;
	fx->tmp = tu_tmpdir();
	assert_non_null(fx->tmp);
	/* nobody must reach DIR/lib.so. */
	assert_int_equal(chmod(fx->tmp, 0755), 0);
	/*
	 * The default rules ignore /tmp, where the test's directory and the
	 * mount may be: the library must be judged.  /dev/zero is the test
	 * harness's shared memory.
	 */
	cfg = tu_join(fx->tmp, "cfg");
	cfgdir = tu_join(cfg, "mapscope");
	assert_int_equal(mkdir(cfg, 0755), 0);
	assert_int_equal(mkdir(cfgdir, 0755), 0);
	free(cfgdir);
	cfgdir = tu_join(cfg, "mapscope/stale-ignore.conf");
	assert_int_equal(tu_spit(cfgdir, "/dev/*  device file\n/memfd:*  memfd\n/SYSV*  SysV shm\n"), 0);
	free(cfgdir);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	free(cfg);
	return fx;
}

/* uid 65534 maps or runs the file under $TMPDIR, which may be closed to it (/root/tmp). */
static bool nobody_enters_tmpdir(void)
{
	if (tu_tmpdir_open_to(65534) == 1)
		return true;
	print_message("skipped: uid 65534 cannot enter $TMPDIR (or the test is not root)\n");
	return false;
}

static int setup(void **state)
{
	struct fx *fx = fx_new(state);
	char *built;
	const char *why = NULL;
	unsigned long addr = 0;

	if (!nobody_enters_tmpdir())
		return 0;
	built = tu_built("libstale-a.so");

	fx->dir = tu_join(fx->tmp, "DIR");
	fx->lib = tu_join(fx->dir, "lib.so");
	assert_int_equal(mkdir(fx->dir, 0755), 0);
	assert_int_equal(tu_copy(built, fx->lib), 0);
	assert_int_equal(fuse_map_in_child(fx->lib, 65534, &fx->mapper, &addr), 0);
	snprintf(fx->pid, sizeof(fx->pid), "%d", (int)fx->mapper);
	snprintf(fx->addr, sizeof(fx->addr), "%lx", addr);
	if (fuse_server_start_over(&fx->server, built, fx->dir, &why) < 0) {
		print_message("skipped: %s\n", why);
		free(built);
		return 0;
	}
	free(built);
	fx->server.modes->hang_lookups = 1;
	fx->started = true;
	return 0;
}

/* The program runs (its exec answered); from now on no stat or lookup in its mount is. */
static int setup_program(void **state)
{
	struct fx *fx = fx_new(state);
	char *built;
	const char *why = NULL;

	if (!nobody_enters_tmpdir())
		return 0;
	built = tu_built("ms-sleeper");
	if (fuse_server_start(&fx->server, built, &why) < 0) {
		print_message("skipped: %s\n", why);
		free(built);
		return 0;
	}
	free(built);
	fx->started = true;
	fx->lib = strdup(fx->server.path);
	assert_non_null(fx->lib);
	if (fuse_exec_in_child(fx->lib, 65534, &fx->mapper) < 0) {
		/* cmocka skips the teardown of a failed setup. */
		fuse_server_stop(&fx->server);
		fail_msg("nobody could not run %s", fx->lib);
	}
	snprintf(fx->pid, sizeof(fx->pid), "%d", (int)fx->mapper);
	fx->server.modes->hang_getattrs = 1;
	fx->server.modes->hang_lookups = 1;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	/* Always: killing the server frees anything still blocked on it. */
	fuse_server_stop_mapped(&fx->server, &fx->mapper);
	unsetenv("XDG_CONFIG_HOME");
	if (fx->tmp)
		tu_rmtree(fx->tmp);
	free(fx->tmp);
	free(fx->dir);
	free(fx->lib);
	free(fx);
	return 0;
}

/* Run mapscope; its output, after the checks every command must pass. */
static char *run(struct fx *fx, const char *const *args, int *status)
{
	const char *why;
	char *out;

	if (!fx->started)
		skip();
	out = fuse_server_run(&fx->server, args, status, &why);
	if (why)
		fail_msg("mapscope %s: %s", args[0], why);
	assert_non_null(out);
	return out;
}

/* The line of out that names the mapped library. */
static char *lib_line(struct fx *fx, char *out)
{
	char *line = strstr(out, fx->lib);
	char *end;

	if (!line)
		fail_msg("no line names %s in:\n%s", fx->lib, out);
	while (line > out && line[-1] != '\n')
		line--;
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	return line;
}

static void test_stale_pid(void **state)
{
	struct fx *fx = *state;
	int status;
	char *out = run(fx, MSRUN_ARGS("stale", fx->pid, "--show=all"), &status);
	char *line = lib_line(fx, out);

	assert_int_equal(status, 0);
	if (!strstr(line, "unknown") || !strstr(line, REASON))
		fail_msg("not unknown, or not why, in:\n%s", line);
	free(out);
}

static void test_stale_metrics_file(void **state)
{
	struct fx *fx = *state;
	char *file = tu_join(fx->tmp, "metrics.prom");
	int status;
	char *out = run(fx, MSRUN_ARGS("stale", "--metrics-file", file), &status);

	/* Other processes of this machine may be stale: 0 or 1, never an error. */
	assert_true(status == 0 || status == 1);
	/* The library is counted, as unknown (so are others' files that could not be judged). */
	assert_true(tu_metric(file, "mapscope_stale_files{verdict=\"unknown\"}") >= 1);
	free(file);
	free(out);
}

/* The library's line of list --by-file -o NAME,COLUMN, which must exit 0. */
static char *list_line(struct fx *fx, const char *column, char **out)
{
	char cols[32];
	int status;

	snprintf(cols, sizeof(cols), "NAME,%s", column);
	*out = run(fx, MSRUN_ARGS("list", fx->pid, "--by-file", "-o", cols, "-r"), &status);
	assert_int_equal(status, 0);
	return lib_line(fx, *out);
}

static void test_list_soname(void **state)
{
	char *out;

	/*
	 * The walk stops at DIR, so the path cannot say which file is there;
	 * root reads the mapped file itself through map_files (mapfiles.h),
	 * on its own kernel-served mount, and the daemon is never asked (run).
	 */
	assert_non_null(strstr(list_line(*state, "SONAME", &out), "libstale.so.1"));
	free(out);
}

static void test_list_verdict(void **state)
{
	char *out;

	assert_non_null(strstr(list_line(*state, "VERDICT", &out), "unknown"));
	free(out);
}

/* The symbol lookup opens the file at the path, and looks for debug files beside it. */
static void test_at_symbol(void **state)
{
	struct fx *fx = *state;
	int status;
	char *out = run(fx, MSRUN_ARGS("at", fx->pid, fx->addr, "-o", "ADDR,SYMBOL"), &status);

	assert_int_equal(status, 0);
	assert_non_null(strstr(out, fx->addr));
	free(out);
}

/* who FILE: the path given is walked too, never into the daemon's mount. */
static void test_who_path(void **state)
{
	struct fx *fx = *state;
	int status;
	char *out = run(fx, MSRUN_ARGS("who", fx->lib), &status);

	assert_int_equal(status, 2);
	free(out);
}

/*
 * who NAME reads the SONAME of every file whose base name does not match:
 * the library's by its running copy (map_files, on its own kernel-served
 * mount), the program's not at all (its file system is the daemon's).
 */
static void test_who_soname(void **state)
{
	struct fx *fx = *state;
	int status;
	char *out = run(fx, MSRUN_ARGS("who", "libstale.so.1", "-r", "-o", "PID,MATCH,NAME"), &status);
	char *line = lib_line(fx, out);

	assert_int_equal(status, 0);
	if (strncmp(line, fx->pid, strlen(fx->pid)) || !strstr(line, " soname "))
		fail_msg("not the mapper's match by SONAME: %s", line);
	free(out);
}

static void test_who_no_such_soname(void **state)
{
	struct fx *fx = *state;
	int status;
	char *out = run(fx, MSRUN_ARGS("who", "libms-no-such-library.so.77"), &status);

	assert_int_equal(status, 1);
	free(out);
}

static void test_snapshot(void **state)
{
	struct fx *fx = *state;
	char *file = tu_join(fx->tmp, "snap.json");
	char *text;
	int status;
	char *out = run(fx, MSRUN_ARGS("snapshot", fx->pid, "-o", file), &status);

	assert_int_equal(status, 0);
	text = tu_slurp(file, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, fx->lib));
	free(text);
	free(file);
	free(out);
}

/*
 * libs, every fact of the library's row asked for: the verdict and SONAME
 * as list --by-file finds them, and a walk of every process (nobody's
 * included) with a SONAME pattern, which must finish too.
 */
static void test_libs(void **state)
{
	struct fx *fx = *state;
	char pid_opt[32], *line;
	int status;
	char *out;

	snprintf(pid_opt, sizeof(pid_opt), "--pid=%s", fx->pid);
	out = run(fx, MSRUN_ARGS("libs", pid_opt, "-r", "-o", "NAME,SONAME,BUILDID,PACKAGE,RSS,VERDICT,WHY"), &status);
	assert_int_equal(status, 0);
	line = lib_line(fx, out);
	/* -r escapes the spaces of WHY. */
	if (!strstr(line, "unknown") || !strstr(line, "daemon-served\\x20mount"))
		fail_msg("not unknown, or not why, in:\n%s", line);
	free(out);
	out = run(fx, MSRUN_ARGS("libs", "-r", "-o", "NAME,SONAME,VERDICT", "libstale.so.*"), &status);
	/* It finishes: 0, or 1 when no process on this machine maps a match (as grep says). */
	if (status != 0 && status != 1)
		fail_msg("libs with a SONAME pattern exited %d:\n%s", status, out);
	free(out);
}

/* The FUSE mount's ID in our mount table: the line whose mount point is mnt. */
static long long mount_id_at(const char *mnt)
{
	char *text = tu_slurp("/proc/self/mountinfo", NULL), *line, *save = NULL;
	long long id = -1;

	assert_non_null(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char point[512];
		long long v;

		if (sscanf(line, "%lld %*d %*s %*s %511s", &v, point) == 2 && !strcmp(point, mnt))
			id = v;
	}
	free(text);
	return id;
}

static void test_mount_id(void **state)
{
	struct fx *fx = *state;
	uint64_t by_handle = 0, by_fdinfo = 0;
	char exe[64];
	int fd;

	if (!fx->started)
		skip();
	snprintf(exe, sizeof(exe), "/proc/%s/exe", fx->pid);
	alarm(10);
	fd = open(exe, O_PATH | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_walk_file_mnt_id(fd, &by_handle), 0);
	assert_int_equal(ms_walk_mnt_id(fd, &by_fdinfo), 0);
	close(fd);
	alarm(0);
	assert_int_equal(by_handle, by_fdinfo);
	assert_int_equal((long long)by_handle, mount_id_at(fx->server.mnt));
	assert_int_equal(fx->server.modes->getattrs_hung, 0);
	assert_int_equal(fx->server.modes->lookups_hung, 0);
}

/* A test of the program fixture, named apart from the same test of the library's. */
#define PROGRAM_TEST(f) { #f "_program", f, setup_program, teardown, NULL }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stale_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_metrics_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_soname, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_at_symbol, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_soname, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_no_such_soname, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_libs, setup, teardown),
		PROGRAM_TEST(test_stale_pid),
		PROGRAM_TEST(test_stale_metrics_file),
		PROGRAM_TEST(test_list_verdict),
		PROGRAM_TEST(test_libs),
		PROGRAM_TEST(test_who_no_such_soname),
		PROGRAM_TEST(test_mount_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
