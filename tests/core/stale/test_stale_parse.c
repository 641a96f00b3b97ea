/* The stale-ignore list parser, the cgroup -> unit parser and verdict names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/container.h"
#include "stale/ignore.h"
#include "stale/stale.h"
#include "proc/unit.h"
#include "testutil.h"

static const char *match(const struct ms_ignore *ign, const char *name)
{
	return ms_ignore_match(ign, name, strlen(name));
}

static void test_ignore_rules(void **state)
{
	static const char text[] =
		"# a comment\n"
		"\n"
		"   /opt/a/*    first rule\n"
		"/opt/*\tsecond rule  \n"
		"/drm\\ mm\\ object  GPU buffer\n"
		"/\\[aio\\] aio ring\n"
		"/lit\\*star*  an escaped star, then a real one";
	struct ms_ignore *ign;
	struct ms_error err;

	(void)state;
	assert_int_equal(ms_ignore_parse(text, strlen(text), &ign, &err), 0);
	assert_int_equal(ms_ignore_count(ign), 5);
	assert_string_equal(match(ign, "/opt/a/lib.so"), "first rule");
	assert_string_equal(match(ign, "/opt/b/lib.so"), "second rule");
	assert_string_equal(match(ign, "/opt/b/lib.so (deleted)"), "second rule");
	assert_string_equal(match(ign, "/drm mm object (deleted)"), "GPU buffer");
	assert_string_equal(match(ign, "/[aio] (deleted)"), "aio ring");
	/* A rule without wildcards matches its exact text, no more. */
	assert_null(match(ign, "/[aio]x"));
	assert_null(match(ign, "/drm mm objects"));
	assert_null(match(ign, "/drm mm objec"));
	assert_string_equal(match(ign, "/lit*star"), "an escaped star, then a real one");
	assert_string_equal(match(ign, "/lit*star/x/y"), "an escaped star, then a real one");
	assert_null(match(ign, "/litXstar"));
	assert_null(match(ign, "/a"));
	assert_null(match(ign, "/usr/lib/libc.so.6"));
	ms_ignore_free(ign);
}

static void expect_parse_error(const char *text, size_t len, const char *needle)
{
	struct ms_ignore *ign = (struct ms_ignore *)&ign;
	struct ms_error err;

	assert_true(ms_ignore_parse(text, len, &ign, &err) < 0);
	assert_null(ign);
	assert_non_null(strstr(err.msg, needle));
}

static void test_ignore_errors(void **state)
{
	static const char nul[] = "/a reason\n/b x\0y\n";

	(void)state;
	expect_parse_error("/ok fine\n/missing-reason\n", 25, "line 2");
	expect_parse_error("/ok fine\n/missing-reason\n", 25, "needs a reason");
	expect_parse_error("/trailing\\", 10, "lone backslash");
	expect_parse_error(nul, sizeof(nul) - 1, "line 2: holds a NUL");
}

static void test_ignore_default_list(void **state)
{
	struct ms_ignore *ign;
	struct ms_error err;

	(void)state;
	assert_int_equal(ms_ignore_default(&ign, &err), 0);
	assert_non_null(strstr(match(ign, "/memfd:wayland-shm (deleted)"), "memfd"));
	assert_non_null(strstr(match(ign, "/SYSV0000abcd (deleted)"), "SysV"));
	assert_non_null(match(ign, "/dev/zero (deleted)"));
	assert_non_null(match(ign, "/[aio] (deleted)"));
	assert_non_null(match(ign, "/drm mm object (deleted)"));
	assert_non_null(match(ign, "/dev/dri/renderD128"));
	assert_non_null(strstr(match(ign, "/tmp/x/libfoo.so (deleted)"), "/tmp"));
	assert_non_null(match(ign, "/var/tmp/y"));
	assert_non_null(match(ign, "/run/user/1000/z"));
	assert_non_null(match(ign, "/dev/shm/w (deleted)"));
	assert_null(match(ign, "/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)"));
	assert_null(match(ign, "/usr/bin/tmp/x"));
	ms_ignore_free(ign);
}

static void test_strip_deleted(void **state)
{
	(void)state;
	assert_int_equal(ms_name_strip_deleted("/a (deleted)", 12), 2);
	assert_int_equal(ms_name_strip_deleted("/a (deleted) (deleted)", 22), 12);
	assert_int_equal(ms_name_strip_deleted("/a(deleted)", 11), 11);
	assert_int_equal(ms_name_strip_deleted(" (deleted)", 10), 0);
}

static void expect_unit(const char *text, int rc, const char *name, long uid)
{
	struct ms_unit u;

	assert_int_equal(ms_unit_parse(text, strlen(text), &u), rc);
	if (rc == 0) {
		assert_string_equal(u.name, name);
		assert_int_equal(u.user_uid, uid);
	}
}

static void test_unit_parse(void **state)
{
	(void)state;
	expect_unit("0::/system.slice/ssh.service\n", 0, "ssh.service", -1);
	/* A delegated subtree names its own cgroups: the outer unit is the one to restart. */
	expect_unit("0::/system.slice/docker-abc.scope/init.scope\n", 0, "docker-abc.scope", -1);
	expect_unit("0::/system.slice/app.service/payload/sshd.service\n", 0, "app.service", -1);
	/* A user's tree may hold a cgroup named like another manager or a system unit. */
	expect_unit("0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service/user@0.service/sshd.service\n",
		    0, "foo.service", 1000);
	expect_unit("0::/user.slice/user-0.slice/user@0.service/app.slice/x.scope/sshd.service\n",
		    0, "x.scope", 0);
	expect_unit("0::/user.slice/user-0.slice/user@0.service/sshd.service\n", 0, "sshd.service", 0);
	expect_unit("0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n",
		    0, "foo.service", 1000);
	expect_unit("0::/user.slice/user-1000.slice/user@1000.service\n", 0, "user@1000.service", -1);
	expect_unit("0::/user.slice/user-1000.slice/session-3.scope\n", 0, "session-3.scope", -1);
	/* cgroup v1: the name=systemd hierarchy. */
	expect_unit("12:memory:/x\n1:name=systemd:/system.slice/cron.service\n0::/\n", 0, "cron.service", -1);
	expect_unit("0::/\n", MS_END, NULL, 0);
	expect_unit("0::/user.slice\n", MS_END, NULL, 0);
	expect_unit("", MS_END, NULL, 0);
	expect_unit("garbage\n", MS_ERR_INVAL, NULL, 0);
}

static void expect_container(const char *path, int rc, const char *shown)
{
	struct ms_container c;
	char out[128];

	assert_int_equal(ms_container_parse(path, strlen(path), &c), rc);
	if (rc == 0) {
		ms_container_describe(&c, 0, out, sizeof(out));
		assert_string_equal(out, shown);
	}
}

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_container_parse(void **state)
{
	(void)state;
	expect_container("/system.slice/docker-" ID ".scope", 0, "docker:0123456789ab");
	expect_container("/docker/" ID, 0, "docker:0123456789ab");
	expect_container("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-" ID
			 ".scope", 0, "containerd:0123456789ab");
	expect_container("/kubepods/burstable/pod1234/" ID, 0, "containerd:0123456789ab");
	expect_container("/kubepods.slice/crio-" ID ".scope", 0, "cri-o:0123456789ab");
	expect_container("/machine.slice/libpod-" ID ".scope/container", 0, "podman:0123456789ab");
	expect_container("/machine.slice/systemd-nspawn@web.service/payload", 0, "machine:web");
	expect_container("/machine.slice/machine-db\\x2d1.scope", 0, "machine:db\\\\x2d1");
	{
		/* Raw, for a format that escapes by its own rules. */
		static const char path[] = "/machine.slice/machine-db\\x2d1.scope";
		struct ms_container c;
		char out[64];

		assert_int_equal(ms_container_parse(path, strlen(path), &c), 0);
		assert_int_equal(ms_container_describe_raw(&c, out, sizeof(out)), strlen("machine:db\\x2d1"));
		assert_string_equal(out, "machine:db\\x2d1");
		assert_int_equal(ms_container_describe_raw(&c, out, 11), 10);
		assert_string_equal(out, "machine:db");
	}
	/* The outer container counts; what it names inside proves nothing. */
	expect_container("/system.slice/docker-" ID ".scope/machine-fake.scope", 0, "docker:0123456789ab");
	/*
	 * A user manager delegates its tree to the user, who may name a cgroup
	 * like any engine: below it, at any depth, the process is the user's.
	 */
	expect_container("/user.slice/user-65534.slice/user@65534.service/app.slice/docker-" ID ".scope", 0,
			 "other root (user@65534.service)");
	expect_container("/user.slice/user-65534.slice/user@65534.service/app.slice/machine-web.scope", 0,
			 "other root (user@65534.service)");
	expect_container("/user.slice/user-65534.slice/user@65534.service/a/b/docker/" ID, 0,
			 "other root (user@65534.service)");
	expect_container("/user.slice/user-65534.slice/user@65534.service/kubepods/pod1/" ID, 0,
			 "other root (user@65534.service)");
	expect_container("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope", 0,
			 "other root (user@1000.service)");
	/* A container's own systemd runs user managers too: the outer container counts. */
	expect_container("/machine.slice/systemd-nspawn@web.service/payload/user.slice/user-0.slice/user@0.service/"
			 "app.slice/docker-" ID ".scope", 0, "machine:web");
	/* An escape sequence in a machine name is escaped. */
	expect_container("/machine.slice/machine-\x1b[2J.scope", 0, "machine:\\x1b[2J");
	/* Not 64 hex digits, or no engine: the caller says "other root". */
	expect_container("/system.slice/docker-0123.scope", MS_END, NULL);
	expect_container("/system.slice/ssh.service", MS_END, NULL);
	expect_container("/", MS_END, NULL);
}

/* A user unit names its manager; a hostile name is escaped. */
static void test_unit_describe(void **state)
{
	struct ms_unit u = { .name = "foo.service", .user_uid = 1000 };
	char out[64];

	(void)state;
	assert_int_equal(ms_unit_describe(&u, 0, out, sizeof(out)), strlen("foo.service (user@1000.service)"));
	assert_string_equal(out, "foo.service (user@1000.service)");
	u.user_uid = -1;
	ms_unit_describe(&u, 0, out, sizeof(out));
	assert_string_equal(out, "foo.service");
	snprintf(u.name, sizeof(u.name), "x\x1b]0;t\x07.service");
	u.user_uid = 0;
	ms_unit_describe(&u, 0, out, sizeof(out));
	assert_string_equal(out, "x\\x1b]0;t\\x07.service (user@0.service)");
	ms_unit_describe(&u, 0, out, 8);
	assert_true(strlen(out) < 8);
	/* Raw, for a format that escapes by its own rules. */
	assert_int_equal(ms_unit_describe_raw(&u, out, sizeof(out)), strlen("x\x1b]0;t\x07.service (user@0.service)"));
	assert_string_equal(out, "x\x1b]0;t\x07.service (user@0.service)");
	assert_int_equal(ms_unit_describe_raw(&u, out, 4), 3);
	assert_string_equal(out, "x\x1b]");
}

static void test_verdict_names(void **state)
{
	enum ms_stale_verdict v;

	(void)state;
	for (int i = 0; i < MS_STALE_VERDICT_COUNT; i++) {
		assert_int_equal(ms_stale_verdict_parse(ms_stale_verdict_name((enum ms_stale_verdict)i), &v), 0);
		assert_int_equal(v, i);
	}
	/* One spelling everywhere; the older ones still parse (--show=same_build). */
	assert_string_equal(ms_stale_verdict_name(MS_STALE_SAME_BUILD), "same-build");
	assert_int_equal(ms_stale_verdict_parse("same-build", &v), 0);
	assert_int_equal(v, MS_STALE_SAME_BUILD);
	v = MS_STALE_OK;
	assert_int_equal(ms_stale_verdict_parse("same_build", &v), 0);
	assert_int_equal(v, MS_STALE_SAME_BUILD);
	v = MS_STALE_OK;
	assert_int_equal(ms_stale_verdict_parse("same build", &v), 0);
	assert_int_equal(v, MS_STALE_SAME_BUILD);
	assert_int_equal(ms_stale_verdict_parse("same-build-x", &v), -1);
	assert_int_equal(ms_stale_verdict_parse("stale", &v), -1);
	assert_int_equal(ms_stale_verdict_parse("same", &v), -1);
	assert_true(ms_stale_verdict_is_stale(MS_STALE_DELETED));
	assert_true(ms_stale_verdict_is_stale(MS_STALE_REPLACED));
	assert_false(ms_stale_verdict_is_stale(MS_STALE_SAME_BUILD));
	assert_false(ms_stale_verdict_is_stale(MS_STALE_UNKNOWN));
}

/* As nobody, with a config home we may not enter: the defaults, no error. */
static int load_as_nobody(const char *config_home, const char *file_home)
{
	struct ms_ignore *ign = NULL;
	struct ms_error err;
	int rc;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 10;
	setenv("XDG_CONFIG_HOME", config_home, 1);
	rc = ms_ignore_load_user(&ign, &err);
	ms_ignore_free(ign);
	if (rc != 0)
		return 11;
	/* A user file we can reach but not read is an error, not the defaults. */
	setenv("XDG_CONFIG_HOME", file_home, 1);
	ign = NULL;
	rc = ms_ignore_load_user(&ign, &err);
	ms_ignore_free(ign);
	return rc != 0 && err.sys_errno == EACCES ? 0 : 12;
}

static void test_user_file_behind_closed_door(void **state)
{
	char closed[] = "/tmp/ms-ignore-closed-XXXXXX", open_[] = "/tmp/ms-ignore-open-XXXXXX";
	char path[128];
	int status;
	pid_t pid;
	FILE *f;

	(void)state;
	if (getuid() != 0) {
		printf("# skipped: needs root to drop to uid 65534\n");
		skip();
	}
	assert_non_null(mkdtemp(closed));
	assert_non_null(mkdtemp(open_));
	chmod(open_, 0755);
	snprintf(path, sizeof(path), "%s/mapscope", open_);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/mapscope/stale-ignore.conf", open_);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("/x* x\n", f);
	fclose(f);
	chmod(path, 0600);
	pid = fork();
	if (pid == 0)
		_exit(load_as_nobody(closed, open_));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/mapscope", open_);
	rmdir(path);
	rmdir(open_);
	rmdir(closed);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* XDG_CONFIG_HOME back as it was (old: its value, or NULL when unset), old freed. */
static void restore_xdg(char *old)
{
	if (old)
		setenv("XDG_CONFIG_HOME", old, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(old);
}

/*
 * A FIFO where the user's list belongs (planted, or a mistake): never
 * opened, so nothing blocks; an error naming it, as for any file that
 * exists but cannot be read.  SIGALRM's default action fails a hang.
 */
static void test_user_file_is_fifo(void **state)
{
	char home[] = "/tmp/ms-ignore-fifo-XXXXXX";
	char path[128];
	struct ms_ignore *ign = NULL;
	struct ms_error err = { 0 };
	const char *saved = getenv("XDG_CONFIG_HOME");
	char *old = saved ? strdup(saved) : NULL;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(home));
	snprintf(path, sizeof(path), "%s/mapscope", home);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/mapscope/stale-ignore.conf", home);
	assert_int_equal(mkfifo(path, 0644), 0);

	alarm(10);
	assert_true(ms_ignore_load(path, &ign, &err) < 0);
	assert_null(ign);
	assert_int_equal(err.sys_errno, ENXIO);
	assert_non_null(strstr(err.msg, "stale-ignore.conf: a FIFO, not a regular file"));
	setenv("XDG_CONFIG_HOME", home, 1);
	rc = ms_ignore_load_user(&ign, &err);
	alarm(0);
	restore_xdg(old);
	unlink(path);
	snprintf(path, sizeof(path), "%s/mapscope", home);
	rmdir(path);
	rmdir(home);
	assert_true(rc < 0);
	assert_null(ign);
	assert_non_null(strstr(err.msg, "a FIFO"));
}

/*
 * Root run with another user's XDG_CONFIG_HOME (sudo -E): the user's list
 * is never read, whatever it says, and the defaults hold; a list reached
 * through a link the user planted in their own folder is refused too.
 */
static void test_user_file_of_another_user(void **state)
{
	char home[] = "/tmp/ms-ignore-other-XXXXXX";
	char path[160], target[160];
	struct ms_ignore *ign = NULL;
	struct ms_error err = { 0 };
	const char *saved = getenv("XDG_CONFIG_HOME");
	char *old = saved ? strdup(saved) : NULL;
	int rc_other, rc_link;

	(void)state;
	if (geteuid() != 0) {
		free(old);
		print_message("skipped: needs root to give the folder to another user\n");
		skip();
	}
	assert_non_null(mkdtemp(home));
	snprintf(path, sizeof(path), "%s/mapscope", home);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(target, sizeof(target), "%s/list", home);
	assert_int_equal(tu_spit(target, "/usr/*  SECRET-REASON-7f3a\n"), 0);
	snprintf(path, sizeof(path), "%s/mapscope/stale-ignore.conf", home);
	assert_int_equal(symlink(target, path), 0);
	setenv("XDG_CONFIG_HOME", home, 1);
	/* Root's own folder with a link in it: refused, an error. */
	rc_link = ms_ignore_load_user(&ign, &err);
	assert_true(rc_link < 0);
	assert_null(ign);
	/* The same folder given to uid 65534: not read at all. */
	assert_int_equal(lchown(home, 65534, 65534), 0);
	rc_other = ms_ignore_load_user(&ign, &err);
	restore_xdg(old);
	unlink(path);
	unlink(target);
	snprintf(path, sizeof(path), "%s/mapscope", home);
	rmdir(path);
	rmdir(home);
	assert_int_equal(rc_other, 0);
	assert_non_null(ign);
	assert_null(ms_ignore_match(ign, "/usr/lib/libx.so", strlen("/usr/lib/libx.so")));
	assert_non_null(ms_ignore_match(ign, "/memfd:x (deleted)", strlen("/memfd:x (deleted)")));
	ms_ignore_free(ign);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ignore_rules),
		cmocka_unit_test(test_ignore_errors),
		cmocka_unit_test(test_ignore_default_list),
		cmocka_unit_test(test_strip_deleted),
		cmocka_unit_test(test_unit_parse),
		cmocka_unit_test(test_unit_describe),
		cmocka_unit_test(test_container_parse),
		cmocka_unit_test(test_verdict_names),
		cmocka_unit_test(test_user_file_behind_closed_door),
		cmocka_unit_test(test_user_file_is_fifo),
		cmocka_unit_test(test_user_file_of_another_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
