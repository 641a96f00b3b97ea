/*
 * confdir.h: the user's configuration folder, reached without following
 * anything planted in it.
 *   - levels below XDG_CONFIG_HOME or HOME are made 0700 only to write,
 *     and the base itself never;
 *   - a symbolic link as a level (~/.config, a dotfiles manager's) or as
 *     the file is refused, and nothing is made where it leads;
 *   - a FIFO as the file is refused without blocking, a level others may
 *     write is refused;
 *   - as root (else those tests skip): a HOME or XDG_CONFIG_HOME owned by
 *     uid 65534 turns the folder off before anything under it is opened,
 *     saying whose it is; a level or a file of uid 65534 under root's
 *     base is refused.
 * Everything is made under the test's own temporary folder.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "untrusted/confdir.h"

#define NOBODY 65534
#define HANG_GUARD_S 10
#define SECRET "root:$6$the-secret-line:19000:0:99999:7:::\n"

/* A new folder dir/name, mode 0700; its path (malloc'd). */
static char *folder(const char *dir, const char *name)
{
	char *path = tu_join(dir, name);

	assert_int_equal(mkdir(path, 0700), 0);
	return path;
}

static void assert_msg_has(const struct ms_error *err, const char *phrase)
{
	if (!strstr(err->msg, phrase))
		fail_msg("\"%s\" lacks \"%s\"", err->msg, phrase);
}

static void assert_absent(const char *dir, const char *name)
{
	char *path = tu_join(dir, name);
	struct stat st;

	if (lstat(path, &st) == 0)
		fail_msg("%s was made", path);
	free(path);
}

/* Entries of dir, "." and ".." included. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Root-only tests skip, saying why, before they allocate anything. */
static bool need_root(void)
{
	if (geteuid() == 0)
		return true;
	print_message("skipped: needs root, to give files to uid %d\n", NOBODY);
	return false;
}

static void test_levels_made_only_to_write(void **state)
{
	char *home = folder(*state, "home"), *missing = tu_join(*state, "missing");
	char *made = tu_join(home, ".config/mapscope");
	struct ms_confdir d;
	struct ms_error err;
	struct stat st;

	assert_int_equal(ms_confdir_at(&d, "HOME", home), 0);
	assert_string_equal(d.below, ".config/mapscope");
	assert_true(ms_confdir_open(&d, false, &err) < 0);
	assert_int_equal(err.sys_errno, ENOENT);
	assert_false(d.foreign);
	assert_int_equal(d.fd, -1);
	assert_absent(home, ".config");

	assert_int_equal(ms_confdir_open(&d, true, &err), 0);
	assert_true(d.fd >= 0);
	assert_int_equal(stat(made, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(ms_confdir_replace(&d, "config", "delay = 2\n", 10, &err), 0);
	ms_confdir_close(&d);
	assert_int_equal(d.fd, -1);

	/* XDG_CONFIG_HOME itself is never made: it is where the user said. */
	assert_int_equal(ms_confdir_at(&d, "XDG_CONFIG_HOME", missing), 0);
	assert_true(ms_confdir_open(&d, true, &err) < 0);
	assert_int_equal(err.sys_errno, ENOENT);
	assert_int_equal(lstat(missing, &st), -1);
	assert_int_equal(ms_confdir_at(&d, "HOME", "relative"), -1);
	free(made);
	free(missing);
	free(home);
}

/* The non-root case too: a symlinked ~/.config is never entered, to read or to write. */
static void test_symlinked_level_refused(void **state)
{
	char *home = folder(*state, "home"), *elsewhere = folder(*state, "elsewhere");
	char *link = tu_join(home, ".config"), *xdg = folder(*state, "xdg");
	char *mlink = tu_join(xdg, "mapscope");
	struct ms_confdir d;
	struct ms_error err;

	assert_int_equal(symlink(elsewhere, link), 0);
	assert_int_equal(ms_confdir_at(&d, "HOME", home), 0);
	for (int create = 0; create < 2; create++) {
		assert_int_equal(ms_confdir_open(&d, create, &err), MS_ERR_NOACCESS);
		assert_int_equal(err.sys_errno, ELOOP);
		assert_msg_has(&err, "/home/.config: a symbolic link: not following it");
		assert_false(d.foreign);
		assert_int_equal(d.fd, -1);
	}
	assert_int_equal(entries(elsewhere), 2);

	assert_int_equal(symlink(elsewhere, mlink), 0);
	assert_int_equal(ms_confdir_at(&d, "XDG_CONFIG_HOME", xdg), 0);
	assert_int_equal(ms_confdir_open(&d, true, &err), MS_ERR_NOACCESS);
	assert_int_equal(err.sys_errno, ELOOP);
	assert_msg_has(&err, "/xdg/mapscope: a symbolic link");
	assert_int_equal(entries(elsewhere), 2);
	free(mlink);
	free(xdg);
	free(link);
	free(elsewhere);
	free(home);
}

/* A link, a FIFO, and a folder others may write: refused, never waiting. */
static void test_file_refusals(void **state)
{
	char *xdg = folder(*state, "xdg"), *dir = folder(xdg, "mapscope");
	char *secret = tu_join(*state, "secret"), *config = tu_join(dir, "config");
	char *text = (char *)"untouched";
	struct ms_confdir d;
	struct ms_error err;
	size_t len = 1;

	assert_int_equal(tu_spit(secret, SECRET), 0);
	assert_int_equal(symlink(secret, config), 0);
	assert_int_equal(ms_confdir_at(&d, "XDG_CONFIG_HOME", xdg), 0);
	assert_int_equal(ms_confdir_open(&d, false, &err), 0);
	assert_int_equal(ms_confdir_read(&d, "config", 4096, &text, &len, &err), MS_ERR_IO);
	assert_int_equal(err.sys_errno, ELOOP);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_msg_has(&err, "mapscope/config: a symbolic link: not following it");
	assert_null(strstr(err.msg, "secret-line"));

	assert_int_equal(unlink(config), 0);
	assert_int_equal(mkfifo(config, 0600), 0);
	alarm(HANG_GUARD_S);
	assert_int_equal(ms_confdir_read(&d, "config", 4096, &text, &len, &err), MS_ERR_INVAL);
	alarm(0);
	assert_int_equal(err.sys_errno, ENXIO);
	assert_msg_has(&err, "config: a FIFO, not a regular file");
	ms_confdir_close(&d);

	assert_int_equal(unlink(config), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(ms_confdir_open(&d, true, &err), MS_ERR_NOACCESS);
	assert_int_equal(err.sys_errno, EPERM);
	assert_msg_has(&err, "mapscope: writable by others");
	free(config);
	free(secret);
	free(dir);
	free(xdg);
}

/*
 * Root with a user's HOME (sudo -E): that user owns HOME, its .config
 * leads elsewhere and the config there to a secret.  Nothing under either
 * is opened or made, to read or to write; the message says whose HOME it is.
 */
static void test_foreign_base_off(void **state)
{
	char *home, *elsewhere, *link, *dir, *config, *secret;
	struct ms_confdir d;
	struct ms_error err;

	if (!need_root())
		skip();
	home = folder(*state, "home");
	elsewhere = folder(*state, "elsewhere");
	link = tu_join(home, ".config");
	dir = folder(elsewhere, "mapscope");
	config = tu_join(dir, "config");
	secret = tu_join(*state, "secret");
	assert_int_equal(tu_spit(secret, SECRET), 0);
	assert_int_equal(symlink(secret, config), 0);
	assert_int_equal(symlink(elsewhere, link), 0);
	assert_int_equal(chown(home, NOBODY, NOBODY), 0);
	assert_int_equal(ms_confdir_at(&d, "HOME", home), 0);
	for (int create = 0; create < 2; create++) {
		assert_int_equal(ms_confdir_open(&d, create, &err), MS_ERR_NOACCESS);
		assert_int_equal(err.sys_errno, EPERM);
		assert_true(d.foreign);
		assert_int_equal(d.base_owner, NOBODY);
		assert_int_equal(d.fd, -1);
		assert_string_equal(err.msg,
				    "HOME belongs to uid 65534 (run as that user, or set XDG_CONFIG_HOME)");
	}
	assert_int_equal(entries(home), 3);
	assert_int_equal(entries(elsewhere), 3);
	assert_int_equal(entries(dir), 3);

	/* XDG_CONFIG_HOME another user's: the same, with its own advice. */
	assert_int_equal(ms_confdir_at(&d, "XDG_CONFIG_HOME", elsewhere), 0);
	assert_int_equal(chown(elsewhere, NOBODY, NOBODY), 0);
	assert_int_equal(ms_confdir_open(&d, true, &err), MS_ERR_NOACCESS);
	assert_true(d.foreign);
	assert_msg_has(&err, "XDG_CONFIG_HOME belongs to uid 65534 (run as that user, or point");
	assert_int_equal(entries(elsewhere), 3);

	/* Root's own XDG_CONFIG_HOME with the user's HOME still works. */
	assert_int_equal(chown(elsewhere, 0, 0), 0);
	assert_int_equal(unlink(config), 0);
	assert_int_equal(ms_confdir_open(&d, false, &err), 0);
	assert_false(d.foreign);
	ms_confdir_close(&d);
	free(secret);
	free(config);
	free(dir);
	free(link);
	free(elsewhere);
	free(home);
}

/* Under root's base, a level or a file of uid 65534 is refused. */
static void test_foreign_level_and_file_refused(void **state)
{
	char *home, *level, *dir, *config, *text = NULL;
	struct ms_confdir d;
	struct ms_error err;
	size_t len;

	if (!need_root())
		skip();
	home = folder(*state, "home");
	level = folder(home, ".config");
	dir = folder(level, "mapscope");
	config = tu_join(dir, "config");
	assert_int_equal(tu_spit(config, "delay = 2\n"), 0);
	assert_int_equal(ms_confdir_at(&d, "HOME", home), 0);
	assert_int_equal(ms_confdir_open(&d, false, &err), 0);
	assert_int_equal(ms_confdir_read(&d, "config", 4096, &text, &len, &err), 0);
	assert_string_equal(text, "delay = 2\n");
	free(text);
	assert_int_equal(chown(config, NOBODY, NOBODY), 0);
	assert_int_equal(ms_confdir_read(&d, "config", 4096, &text, &len, &err), MS_ERR_NOACCESS);
	assert_int_equal(err.sys_errno, EPERM);
	assert_msg_has(&err, "config: owned by uid 65534, neither uid 0 nor root");
	ms_confdir_close(&d);

	assert_int_equal(chown(level, NOBODY, NOBODY), 0);
	assert_int_equal(ms_confdir_open(&d, true, &err), MS_ERR_NOACCESS);
	assert_int_equal(err.sys_errno, EPERM);
	assert_false(d.foreign);
	assert_msg_has(&err, "/home/.config: owned by uid 65534");
	free(config);
	free(dir);
	free(level);
	free(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels_made_only_to_write, tu_tmpdir_setup,
						tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_symlinked_level_refused, tu_tmpdir_setup,
						tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_file_refusals, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_foreign_base_off, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_foreign_level_and_file_refused, tu_tmpdir_setup,
						tu_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
