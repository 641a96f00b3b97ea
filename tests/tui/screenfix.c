/* screenfix.c - the screen tests' virtual terminal and expected screens: see screenfix.h. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/base/escape.h"
#include "core/maps/mapping.h"
#include "screenfix.h"
#include "tui/tui.h"

#ifndef SCREENS_DIR
#define SCREENS_DIR "tests/screens"
#endif

static FILE *devnull_out, *devnull_in;
static SCREEN *scr;

int screenfix_term_setup(void **state)
{
	(void)state;
	devnull_out = fopen("/dev/null", "w");
	devnull_in = fopen("/dev/null", "r");
	assert_non_null(devnull_out);
	scr = newterm("xterm", devnull_out, devnull_in);
	assert_non_null(scr);
	return 0;
}

int screenfix_term_teardown(void **state)
{
	(void)state;
	endwin();
	delscreen(scr);
	fclose(devnull_out);
	fclose(devnull_in);
	return 0;
}

void screenfix_app_init(struct tui_app *app)
{
	memset(app, 0, sizeof(*app));
	tui_settings_defaults(&app->cfg);
	app->escape_flags = MS_ESC_ASCII;
}

/* The screen as text: one line per row, trailing blanks removed. */
char *screenfix_dump(WINDOW *win)
{
	int h = getmaxy(win), w = getmaxx(win);
	size_t size = (size_t)h * ((size_t)w + 1) + 1, at = 0;
	char *out = malloc(size), line[512];

	assert_non_null(out);
	for (int y = 0; y < h; y++) {
		int n = mvwinnstr(win, y, 0, line, w < 511 ? w : 511);
		size_t len = n > 0 ? (size_t)n : 0;

		while (len && line[len - 1] == ' ')
			len--;
		memcpy(out + at, line, len);
		at += len;
		out[at++] = '\n';
	}
	out[at] = '\0';
	return out;
}

void screenfix_compare(const char *name, const char *got)
{
	char path[512], want[16384];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SCREENS_DIR, name);
	if (getenv("MS_UPDATE_SCREENS")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("missing expected screen %s", path);
	n = fread(want, 1, sizeof(want) - 1, f);
	want[n] = '\0';
	fclose(f);
	if (strcmp(want, got))
		fail_msg("screen %s differs; got:\n%s", name, got);
}

void screenfix_push_map(struct ms_maplist *l, uint64_t start, uint64_t end, unsigned perms,
		     const char *name, uint32_t major, uint64_t inode)
{
	struct ms_mapping m = { 0 };

	m.start = start;
	m.end = end;
	m.perms = perms;
	m.page_size = 4096;
	m.dev_major = major;
	m.inode = inode;
	if (name)
		assert_int_equal(ms_mapping_set_name(&m, name, strlen(name)), 0);
	if (perms & MS_PERM_EXEC) {
		m.build_id_len = 20;
		for (int i = 0; i < 20; i++)
			m.build_id[i] = (unsigned char)(0xa0 + i);
	}
	assert_int_equal(ms_maplist_push(l, &m), 0);
}
