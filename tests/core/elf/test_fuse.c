/*
 * A file served by a FUSE daemon that stops answering READ.
 * Asking PROCMAP_QUERY for that mapping's build ID makes the
 * kernel read the file and sleep uninterruptibly on the daemon; so would
 * mapscope's own read of the file at the path.  Here a child maps a copy of
 * a test library from tests/fuse_server.c's file system and touches it while
 * READ is answered; then READ hangs, the page cache is dropped (an open
 * without FOPEN_KEEP_CACHE, POSIX_FADV_DONTNEED, drop_caches) and the path
 * is made to hold another inode, so stale needs build IDs.
 *
 * Every command must finish within the harness deadline and say the build
 * ID was skipped.  A command still running then is SIGKILLed, which cannot
 * end an uninterruptible sleep: the FUSE connection is aborted (the server
 * is killed), which releases it, and the test fails.  Root and /dev/fuse
 * are needed; otherwise the tests skip with the reason.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf/buildid.h"
#include "fuse_server.h"
#include "msrun.h"
#include "testutil.h"

struct fx {
	struct fuse_server server;
	pid_t mapper;
	char pid[16];
	char hex[2 * MS_BUILD_ID_MAX + 1]; /* the served library's build ID */
	char *dir;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *lib = tu_built("libstale-a.so");
	unsigned char id[MS_BUILD_ID_MAX];
	const char *why = NULL;
	size_t len;
	int fd;

	assert_non_null(fx);
	*state = fx;
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_buildid_read_fd(fd, id, &len, NULL), 0);
	close(fd);
	ms_buildid_hex(id, len, fx->hex);
	if (fuse_server_start(&fx->server, lib, &why) < 0) {
		free(lib);
		print_message("skipped: %s\n", why);
		fx->server.pid = 0;
		return 0;
	}
	free(lib);
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	assert_int_equal(fuse_server_map_in_child(&fx->server, &fx->mapper, NULL), 0);
	snprintf(fx->pid, sizeof(fx->pid), "%d", (int)fx->mapper);
	fuse_server_hang_reads(&fx->server);
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	fuse_server_stop_mapped(&fx->server, &fx->mapper);
	if (fx->dir) {
		tu_rmtree(fx->dir);
		free(fx->dir);
	}
	free(fx);
	return 0;
}

/* Run mapscope; fail (after releasing it) if it was still running at the deadline. */
static char *run(struct fx *fx, int want_status, const char *const *args)
{
	const struct msrun_opts opts = { .on_timeout = fuse_server_abort, .timeout_arg = &fx->server };
	struct msrun_result r;
	char *out;
	int status;

	if (!fx->server.mounted)
		skip();
	r = msrun(&opts, args);
	out = r.out;
	free(r.err);
	status = r.status;
	if (fx->server.aborted)
		fail_msg("mapscope %s %s did not finish: blocked on the FUSE daemon (%d READs left unanswered)",
			 args[0], args[1], fx->server.reads_hung);
	if (status != want_status)
		print_message("mapscope %s: exit %d, output:\n%s\n", args[0], status, out ? out : "");
	assert_int_equal(status, want_status);
	assert_non_null(out);
	return out;
}

/* The line of out that names the served file. */
static char *served_line(struct fx *fx, char *out)
{
	char *line = strstr(out, fx->server.path);
	char *end;

	if (!line)
		fail_msg("no line names %s in:\n%s", fx->server.path, out);
	while (line > out && line[-1] != '\n')
		line--;
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	return line;
}

static void test_list_buildid_column(void **state)
{
	struct fx *fx = *state;
	const char *args[] = { "list", fx->pid, "-o", "+BUILDID", "-r", NULL };
	char *out = run(fx, 0, args);
	char *line = served_line(fx, out);

	assert_null(strstr(line, fx->hex));
	free(out);
}

/* list --by-file: BUILDID, VERDICT and SONAME finish, and none of them is read from the file. */
static void test_list_by_file(void **state)
{
	struct fx *fx = *state;
	const char *args[] = { "list", fx->pid, "--by-file", "-o", "BUILDID,SONAME,NAME", "-r", NULL };
	char *out = run(fx, 0, args);
	char *line = served_line(fx, out);

	assert_null(strstr(line, fx->hex));
	assert_null(strstr(line, "libstale"));
	assert_int_equal(strncmp(line, " ? ", 3), 0);
	free(out);
}

static void test_stale_says_unknown(void **state)
{
	struct fx *fx = *state;
	char *ignore = tu_join(fx->dir, "ignore.conf");
	char *opt = NULL;
	const char *args[] = { "stale", fx->pid, "--all-mappings", "--show=all", NULL, NULL };
	FILE *fp;
	char *out, *line;

	/* Without the mount (not root) there is no directory to write the list in. */
	if (!fx->server.mounted)
		skip();
	fp = fopen(ignore, "w");
	/* No rules: the mount point is under /tmp, which the defaults ignore. */
	assert_non_null(fp);
	fclose(fp);
	assert_true(asprintf(&opt, "--ignore-file=%s", ignore) > 0);
	args[4] = opt;
	/*
	 * The path lies on the FUSE mount: the lookup never steps into it, so
	 * the new inode there is not seen, and the file is not called stale
	 * (nor is "/dev/zero (deleted)", which no rule ignores here: a device
	 * at a marked name is not a replacement), so stale exits 0.
	 */
	out = run(fx, 0, args);
	line = served_line(fx, out);
	assert_non_null(strstr(line, "unknown"));
	assert_non_null(strstr(line, "the path crosses a daemon-served mount"));
	assert_null(strstr(line, "replaced"));
	free(out);
	free(opt);
	free(ignore);
}

/* who FILE walks the path given, and refuses one into a FUSE mount (status 2). */
static void test_who(void **state)
{
	struct fx *fx = *state;
	const char *args[] = { "who", fx->server.path, NULL };
	/* The path lies in a daemon-served mount: refused, never looked up (status 2). */
	char *out = run(fx, 2, args);

	free(out);
}

static void test_snapshot(void **state)
{
	struct fx *fx = *state;
	char *file = tu_join(fx->dir, "snap.json");
	const char *args[] = { "snapshot", fx->pid, "-o", file, NULL };
	char *out = run(fx, 0, args);
	char *text = NULL;
	const char *cat[] = { "diff", file, file, NULL };

	free(out);
	/* The snapshot is readable, and holds no build ID for the served file. */
	out = run(fx, 0, cat);
	free(out);
	{
		FILE *fp = fopen(file, "r");
		size_t len = 0;

		assert_non_null(fp);
		assert_int_not_equal(getdelim(&text, &len, '\0', fp), -1);
		fclose(fp);
	}
	assert_non_null(strstr(text, fx->server.path));
	assert_null(strstr(text, fx->hex));
	free(text);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_buildid_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_by_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_says_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
