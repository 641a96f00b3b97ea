/* The explorer's settings file parser (curses-free). */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tui/settings.h"

struct warnings {
	unsigned lines[8];
	char last[512]; /* the last message */
	unsigned n;
};

static void record(void *ctx, unsigned line, const char *msg)
{
	struct warnings *w = ctx;

	assert_non_null(msg);
	snprintf(w->last, sizeof(w->last), "%s", msg);
	if (w->n < 8)
		w->lines[w->n++] = line;
}

static unsigned parse(struct tui_settings *c, const char *text, struct warnings *w)
{
	memset(w, 0, sizeof(*w));
	tui_settings_defaults(c);
	return tui_settings_parse(c, text, strlen(text), record, w);
}

static void test_every_key(void **state)
{
	struct tui_settings c;
	struct warnings w;

	(void)state;
	assert_int_equal(parse(&c, "# comment\n\ndelay = 2.5\nfilters = xf\ncolor = no\n"
				   "color.exec = blue\ncolor.removed = default\nhide = SIZE,dev\n"
				   "backend = text\n", &w), 0);
	assert_int_equal(w.n, 0);
	assert_true(c.delay == 2.5);
	assert_int_equal(c.filter, MS_FILTER_EXECUTABLE | MS_FILTER_FILE_BACKED);
	assert_false(c.color);
	assert_int_equal(c.colors[TUI_COLOR_EXEC], 4);
	assert_int_equal(c.colors[TUI_COLOR_REMOVED], -1);
	assert_int_equal(c.hidden, TUI_COL_SIZE | TUI_COL_DEV);
	assert_int_equal(c.backend, MS_BACKEND_TEXT);
}

static void test_bad_lines_reported_rest_loads(void **state)
{
	struct tui_settings c;
	struct warnings w;

	(void)state;
	assert_int_equal(parse(&c, "delay = 3\nnonsense\ncolour = yes\ndelay = 0\n"
				   "filters = q\nhide = NAME\ncolor.exec = mauve\nfilters = w",
			       &w), 6);
	assert_int_equal(w.n, 6);
	assert_int_equal(w.lines[0], 2);
	assert_int_equal(w.lines[1], 3);
	assert_int_equal(w.lines[2], 4);
	assert_int_equal(w.lines[3], 5);
	assert_int_equal(w.lines[4], 6);
	assert_int_equal(w.lines[5], 7);
	/* Good lines before and after the bad ones still apply. */
	assert_true(c.delay == 3);
	assert_int_equal(c.filter, MS_FILTER_WRITABLE);
	assert_int_equal(c.colors[TUI_COLOR_EXEC], 2);
}

/* An unknown key is named, escaped, and a long one cut short. */
static void test_unknown_key_named(void **state)
{
	struct tui_settings c;
	struct warnings w;
	char line[400];

	(void)state;
	assert_int_equal(parse(&c, "delay = 2\ncolour = red\n", &w), 1);
	assert_int_equal(w.lines[0], 2);
	assert_string_equal(w.last, "unknown key 'colour'");
	assert_int_equal(parse(&c, "co\x1b[31mlo\\r = red\n", &w), 1);
	assert_string_equal(w.last, "unknown key 'co\\x1b[31mlo\\\\r'");
	memset(line, 'k', 300);
	snprintf(line + 300, sizeof(line) - 300, " = 1\n");
	assert_int_equal(parse(&c, line, &w), 1);
	assert_true(strlen(w.last) < 100);
	assert_non_null(strstr(w.last, "unknown key 'kkkk"));
}

static void test_hostile_input(void **state)
{
	static const char nul[] = "delay = 2\0\ncolor = no\n";
	struct tui_settings c;
	struct warnings w;
	char *big = malloc(5000);

	(void)state;
	assert_non_null(big);
	memset(big, 'a', 4999);
	big[4999] = '\0';
	assert_int_equal(parse(&c, big, &w), 1);
	assert_int_equal(w.lines[0], 1);
	free(big);
	memset(&w, 0, sizeof(w));
	tui_settings_defaults(&c);
	assert_int_equal(tui_settings_parse(&c, nul, sizeof(nul) - 1, record, &w), 1);
	assert_true(c.delay == 1.0);
	assert_false(c.color);
}

static void test_path(void **state)
{
	struct ms_confdir d;
	char buf[256];

	(void)state;
	setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
	assert_int_equal(ms_confdir_locate(&d), 0);
	ms_confdir_shown(&d, TUI_SETTINGS_FILE, buf, sizeof(buf));
	assert_string_equal(buf, "/x/cfg/mapscope/config");
	assert_string_equal(d.var, "XDG_CONFIG_HOME");
	setenv("XDG_CONFIG_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(ms_confdir_locate(&d), 0);
	ms_confdir_shown(&d, TUI_SETTINGS_FILE, buf, sizeof(buf));
	assert_string_equal(buf, "/home/u/.config/mapscope/config");
	assert_string_equal(d.var, "HOME");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	assert_int_equal(ms_confdir_locate(&d), -1);
	assert_int_equal(d.fd, -1);
}

/*
 * A FIFO at the settings path used to block the explorer's start in
 * fopen.  Now it is never opened: an error naming it, the settings left
 * as they were.  SIGALRM's default action fails a hang.
 */
static void test_load_fifo_ignored(void **state)
{
	char dir[] = "/tmp/ms-settings-XXXXXX";
	char path[96], folder[64];
	struct tui_settings c, defaults;
	struct ms_confdir where;
	struct ms_error err = { 0 };
	struct warnings w = { { 0 }, { 0 }, 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(folder, sizeof(folder), "%s/mapscope", dir);
	snprintf(path, sizeof(path), "%s/config", folder);
	assert_int_equal(ms_confdir_at(&where, "XDG_CONFIG_HOME", dir), 0);
	assert_int_equal(mkdir(folder, 0700), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	tui_settings_defaults(&c);
	tui_settings_defaults(&defaults);
	alarm(10);
	assert_true(tui_settings_load(&c, &where, record, &w, &err) < 0);
	alarm(0);
	assert_int_equal(err.sys_errno, ENXIO);
	assert_non_null(strstr(err.msg, "config: a FIFO, not a regular file"));
	assert_memory_equal(&c, &defaults, sizeof(c));
	assert_int_equal(w.n, 0);
	assert_int_equal(where.fd, -1);

	/* The same path as a regular file is read and applied. */
	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("delay = 2.5\nbogus\n", f);
	fclose(f);
	assert_int_equal(tui_settings_load(&c, &where, record, &w, &err), 0);
	assert_true(c.delay == 2.5);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.lines[0], 2);

	/* No file at all: ENOENT, for which the explorer warns nothing. */
	unlink(path);
	assert_true(tui_settings_load(&c, &where, record, &w, &err) < 0);
	assert_int_equal(err.sys_errno, ENOENT);
	assert_false(where.foreign);
	rmdir(folder);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_bad_lines_reported_rest_loads),
		cmocka_unit_test(test_unknown_key_named),
		cmocka_unit_test(test_hostile_input),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_load_fifo_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
