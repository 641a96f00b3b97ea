/*
 * The column layout (columns.h): NAME's room on narrow screens, the drop
 * order the help states, heading hit-testing and sort clicks, one meaning
 * of the sort arrows, the columns.VIEW lines, and saving them into the
 * settings file without harm (other lines kept, a symlink refused).
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
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

#include "core/base/escape.h"
#include "testutil.h"
#include "tui/actions.h"
#include "tui/columns.h"
#include "tui/elide.h"
#include "tui/files_model.h"
#include "tui/format.h"
#include "tui/settings.h"

/* The default columns, RSS off in the maps view (R shows it). */
static void layout(struct tui_layout *l, enum tui_colview view, int x0, int width)
{
	struct tui_colset set;

	tui_colset_default(&set, view);
	tui_layout_make(l, view, &set, view == TUI_CV_MAPS ? 1u << TUI_MC_RSS : 0, x0, width);
}

/* The last column's room on a screen width wide is at least 24, at 80 and 60, in every view. */
static void test_last_column_keeps_24(void **state)
{
	static const int widths[] = { 60, 80 };

	(void)state;
	for (int v = 0; v < TUI_CV_COUNT; v++) {
		for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
			struct tui_layout l;

			layout(&l, (enum tui_colview)v, v == TUI_CV_MAPS ? TUI_MAPROW_PREFIX : 0, widths[i]);
			assert_true(widths[i] - l.last_x >= 24);
			if (l.n)
				assert_int_equal(l.last_x, l.x[l.n - 1] + l.width[l.n - 1] + 1);
		}
	}
}

/*
 * A size bar (11 columns) and the strip (2) beside the columns come out of
 * NAME's room: with them, NAME still keeps 24 at 80 columns in every view,
 * other columns dropping for them; and the files view's BUILDID still asks
 * for a 160-column screen, not 160 columns left after the bar.
 */
static void test_beside_keeps_24(void **state)
{
	struct tui_colset set;
	struct tui_layout l;

	(void)state;
	for (int v = 0; v < TUI_CV_COUNT; v++) {
		int x0 = v == TUI_CV_MAPS ? TUI_MAPROW_PREFIX : 0;

		tui_colset_default(&set, (enum tui_colview)v);
		tui_layout_make_beside(&l, (enum tui_colview)v, &set, 0, x0, 80, 13);
		assert_true(80 - 13 - l.last_x >= 24);
	}
	tui_colset_default(&set, TUI_CV_FILES);
	tui_layout_make_beside(&l, TUI_CV_FILES, &set, 0, 0, TUI_FILEVIEW_BUILDID_COLS, 11);
	assert_true(tui_layout_shows(&l, TUI_FC_BUILDID));
	assert_true(TUI_FILEVIEW_BUILDID_COLS - 11 - l.last_x >= 24);
	tui_layout_make_beside(&l, TUI_CV_FILES, &set, 0, 0, TUI_FILEVIEW_BUILDID_COLS - 1, 11);
	assert_false(tui_layout_shows(&l, TUI_FC_BUILDID));
}

/* The maps view at 80: only DEV goes; at 60: DEV, OFFSET, PERMS in that order; at 200 none. */
static void test_maps_drop_order(void **state)
{
	struct tui_layout l;

	(void)state;
	layout(&l, TUI_CV_MAPS, TUI_MAPROW_PREFIX, 80);
	assert_int_equal(l.dropped, 1u << TUI_MC_DEV);
	assert_true(tui_layout_shows(&l, TUI_MC_OFFSET));
	layout(&l, TUI_CV_MAPS, TUI_MAPROW_PREFIX, 60);
	assert_int_equal(l.dropped, (1u << TUI_MC_DEV) | (1u << TUI_MC_OFFSET) | (1u << TUI_MC_PERMS));
	assert_true(tui_layout_shows(&l, TUI_MC_SIZE));
	assert_true(tui_layout_shows(&l, TUI_MC_RANGE));
	assert_true(tui_layout_shows(&l, TUI_MC_NAME));
	layout(&l, TUI_CV_MAPS, TUI_MAPROW_PREFIX, 200);
	assert_int_equal(l.dropped, 0);
	/* Too narrow for anything but START-END: it still shows, never dropped. */
	layout(&l, TUI_CV_MAPS, TUI_MAPROW_PREFIX, 30);
	assert_true(tui_layout_shows(&l, TUI_MC_RANGE));
	assert_int_equal(l.n, 1);
}

/*
 * The maps view at 80 with the strip: a 36-character file name under a
 * long folder wants /.../NAME (/…/NAME in UTF-8); DEV, OFFSET, PERMS and
 * then the strip give way by rank until it fits beside START-END, and
 * SIZE stays.  Short names keep PERMS, OFFSET and the strip; a name no
 * screen fits drops nothing more; under 40 columns the strip never shows.
 */
static void test_maps_band_gives_way(void **state)
{
	static const char path[] = "/home/user/.pyenv/versions/3.11.7/lib/python3.11/lib-dynload/"
				   "_bz2.cpython-311-x86_64-linux-gnu.so";
	static const unsigned esc[] = { MS_ESC_ASCII, 0 };
	const char *marks[] = { "...", "\xe2\x80\xa6" };
	unsigned off = 1u << TUI_MC_RSS;
	struct tui_colset set;
	struct tui_layout l;

	(void)state;
	tui_colset_default(&set, TUI_CV_MAPS);
	for (size_t i = 0; i < 2; i++) {
		int want[TUI_COLS_MAX] = { 0 };

		want[TUI_MC_NAME] = tui_elide_want(path, strlen(path), marks[i]);
		assert_in_range(want[TUI_MC_NAME], 39, 41);
		assert_true(tui_layout_reach_band(TUI_CV_MAPS, &set, off, TUI_MAPROW_PREFIX, 80, 0, true, want) >=
			    want[TUI_MC_NAME]);
		tui_layout_fit_band(&l, TUI_CV_MAPS, &set, off, TUI_MAPROW_PREFIX, 80, 0, true, want, esc[i]);
		assert_true(80 - l.band - l.last_x >= want[TUI_MC_NAME]);
		assert_int_equal(l.dropped, (1u << TUI_MC_DEV) | (1u << TUI_MC_OFFSET) | (1u << TUI_MC_PERMS));
		assert_true(tui_layout_shows(&l, TUI_MC_SIZE));
		assert_int_equal(l.band, 3);
		/* Three more cells of name: the strip goes too, SIZE still stays. */
		want[TUI_MC_NAME] += 3;
		tui_layout_fit_band(&l, TUI_CV_MAPS, &set, off, TUI_MAPROW_PREFIX, 80, 0, true, want, esc[i]);
		assert_int_equal(l.band, 0);
		assert_true(80 - l.last_x >= want[TUI_MC_NAME]);
		assert_true(tui_layout_shows(&l, TUI_MC_SIZE));
	}
	/* Names that fit: only DEV goes, as without the strip. */
	{
		int want[TUI_COLS_MAX] = { [TUI_MC_NAME] = 20 };

		tui_layout_fit_band(&l, TUI_CV_MAPS, &set, off, TUI_MAPROW_PREFIX, 80, 0, true, want, 0);
		assert_int_equal(l.dropped, 1u << TUI_MC_DEV);
		assert_int_equal(l.band, 3);
		/* A name longer than any screen: the same. */
		want[TUI_MC_NAME] = 500;
		tui_layout_fit_band(&l, TUI_CV_MAPS, &set, off, TUI_MAPROW_PREFIX, 80, 0, true, want, 0);
		assert_int_equal(l.dropped, 1u << TUI_MC_DEV);
		assert_int_equal(l.band, 3);
	}
	/* Not asked for, or a screen under 40: no band, and it is no column of the rows. */
	tui_layout_fit_band(&l, TUI_CV_MAPS, &set, off, TUI_MAPROW_PREFIX, 80, 0, false, NULL, 0);
	assert_int_equal(l.band, 0);
	tui_layout_fit_band(&l, TUI_CV_MAPS, &set, off, 0, 39, 0, true, NULL, 0);
	assert_int_equal(l.band, 0);
	assert_int_equal(l.dropped & ~((1u << TUI_MC_NAME) - 1), 0);
}

/* The process list at 60: MAPS, then MAPPED; at 80, all of it. */
static void test_procs_drop_order(void **state)
{
	struct tui_layout l;

	(void)state;
	layout(&l, TUI_CV_PROCS, 0, 80);
	assert_int_equal(l.dropped, 0);
	layout(&l, TUI_CV_PROCS, 0, 60);
	assert_int_equal(l.dropped, (1u << TUI_PC_MAPS) | (1u << TUI_PC_MAPPED));
	assert_true(60 - l.last_x >= 24);
}

/* The order the help and man page state is the tables' order. */
static void test_help_states_drop_order(void **state)
{
	size_t nnotes;
	const char *const *notes = tui_action_notes(&nnotes);

	(void)state;
	for (int v = 0; v < TUI_CV_COUNT; v++) {
		char order[256], want[300];
		bool found = false;

		tui_columns_drop_order((enum tui_colview)v, order, sizeof(order));
		assert_true(strlen(order) > 0);
		snprintf(want, sizeof(want), "%s: %s", tui_colview_title((enum tui_colview)v), order);
		for (size_t i = 0; i < nnotes; i++)
			if (strstr(notes[i], want))
				found = true;
		if (!found)
			fail_msg("the help notes lack \"%s\"", want);
	}
}

/* The width of column id in l, or -1 when it does not show. */
static int width_of(const struct tui_layout *l, int id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->id[i] == id)
			return l->width[i];
	return -1;
}

/*
 * The libraries view at 80 columns, the case: four Python modules
 * (NAME wants "/.../_ssl.cpython-311-x86_64-linux-gnu.so") and a Debian
 * version.  PROCS, PACKAGE, VERSION and NAME show, the others drop, the
 * size bar gives way, and NAME has its room.
 */
static void test_libs_at_80(void **state)
{
	struct tui_colset set;
	struct tui_layout l;
	int want[TUI_COLS_MAX] = { 0 };

	(void)state;
	tui_colset_default(&set, TUI_CV_LIBS);
	want[TUI_LC_VERSION] = (int)strlen("3.11.2-6+deb12u6");
	want[TUI_LC_NAME] = (int)strlen("/.../_ssl.cpython-311-x86_64-linux-gnu.so");
	assert_false(tui_layout_fit_yielding(&l, TUI_CV_LIBS, &set, 0, 2, 80, 11, want, MS_ESC_ASCII));
	assert_int_equal(l.n, 3);
	assert_int_equal(l.id[0], TUI_LC_PROCS);
	assert_int_equal(l.id[1], TUI_LC_PACKAGE);
	assert_int_equal(l.id[2], TUI_LC_VERSION);
	assert_int_equal(width_of(&l, TUI_LC_VERSION), 16);
	assert_true(80 - l.last_x >= want[TUI_LC_NAME]);
	assert_true(l.dropped & (1u << TUI_LC_VERDICT));
	assert_true(l.dropped & (1u << TUI_LC_WHERE));
	/* Names that fit anyway: the bar stays, and so do RSS and VERDICT. */
	want[TUI_LC_NAME] = 20;
	assert_true(tui_layout_fit_yielding(&l, TUI_CV_LIBS, &set, 0, 2, 100, 11, want, MS_ESC_ASCII));
	assert_true(width_of(&l, TUI_LC_RSS) > 0 && width_of(&l, TUI_LC_VERDICT) > 0);
}

/* A version widens to its widest cell, and the path gives way; other columns drop first. */
static void test_version_widens(void **state)
{
	struct tui_colset set;
	struct tui_layout l, plain;
	int want[TUI_COLS_MAX] = { 0 };

	(void)state;
	tui_colset_default(&set, TUI_CV_LIBS);
	set.hidden &= ~(1u << TUI_LC_INSTALLED);
	want[TUI_LC_VERSION] = (int)strlen("2:6.2.1+dfsg1-1~deb12u1+really6.2.1-1.1");
	want[TUI_LC_INSTALLED] = want[TUI_LC_VERSION];
	want[TUI_LC_NAME] = 60;
	tui_layout_fit(&l, TUI_CV_LIBS, &set, 0, 2, 80, 0, want, MS_ESC_ASCII);
	assert_int_equal(width_of(&l, TUI_LC_VERSION), want[TUI_LC_VERSION]);
	/* INSTALLED ranks below NAME: it drops rather than be cut. */
	assert_int_equal(width_of(&l, TUI_LC_INSTALLED), -1);
	assert_true(80 - l.last_x < want[TUI_LC_NAME]);
	assert_true(80 - l.last_x >= TUI_LAST_MIN);
	/* Without want, the preferred width. */
	tui_layout_fit(&plain, TUI_CV_LIBS, &set, 0, 2, 200, 0, NULL, MS_ESC_ASCII);
	assert_int_equal(width_of(&plain, TUI_LC_VERSION), 16);
	assert_int_equal(width_of(&plain, TUI_LC_INSTALLED), 16);
	/* A short version: as wide as its heading. */
	want[TUI_LC_VERSION] = 3;
	tui_layout_fit(&l, TUI_CV_LIBS, &set, 0, 2, 200, 0, want, MS_ESC_ASCII);
	assert_int_equal(width_of(&l, TUI_LC_VERSION), (int)strlen("VERSION"));
}

/* Cells for the cut-mark test: a long package and version. */
static void long_cells(const void *ctx, int id, char *out, size_t size)
{
	(void)ctx;
	if (id == TUI_LC_PACKAGE)
		snprintf(out, size, "libpython3.11-stdlib");
	else if (id == TUI_LC_VERSION)
		snprintf(out, size, "2:6.2.1+dfsg1-1~deb12u1");
	else if (id == TUI_LC_PROCS)
		snprintf(out, size, "3");
}

/* A cut cell ends in U+2026 in a UTF-8 locale and "..." otherwise; a version is whole, '~' and all. */
static void test_cut_marks(void **state)
{
	static const struct {
		const char *locale;
		unsigned esc;
		const char *package;
	} cases[] = {
		{ "C.UTF-8", 0, "lib\xe2\x80\xa6" "1-stdlib " },
		{ "C", MS_ESC_ASCII, "lib...stdlib " },
	};
	struct tui_colset set;
	struct tui_layout l;
	int want[TUI_COLS_MAX] = { 0 };
	char row[512];

	(void)state;
	tui_colset_default(&set, TUI_CV_LIBS);
	want[TUI_LC_VERSION] = (int)strlen("2:6.2.1+dfsg1-1~deb12u1");
	want[TUI_LC_NAME] = 36; /* one column short: PACKAGE gives one */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_non_null(setlocale(LC_CTYPE, cases[i].locale));
		tui_layout_fit(&l, TUI_CV_LIBS, &set, 0, 0, 80, 0, want, cases[i].esc);
		assert_int_equal(width_of(&l, TUI_LC_PACKAGE), 12);
		row[0] = '\0';
		tui_layout_row(row, sizeof(row), 0, &l, long_cells, NULL);
		if (!strstr(row, cases[i].package) || !strstr(row, "2:6.2.1+dfsg1-1~deb12u1 "))
			fail_msg("%s: row '%s'", cases[i].locale, row);
		/* The only '~' is the version's own. */
		assert_ptr_equal(strchr(row, '~'), strrchr(row, '~'));
		assert_ptr_equal(strchr(row, '~'), strstr(row, "~deb12u1"));
	}
	assert_non_null(setlocale(LC_CTYPE, "C"));
}

/* A row's cells sit where the layout says, so a click maps to the column under it. */
static void test_heading_hit(void **state)
{
	struct tui_layout l;
	char heading[512];
	const char *p;

	(void)state;
	layout(&l, TUI_CV_MAPS, TUI_MAPROW_PREFIX, 80);
	tui_layout_heading(heading, sizeof(heading), &l, -1, false, NULL);
	p = strstr(heading, "SIZE");
	assert_non_null(p);
	assert_int_equal(tui_layout_hit(&l, (int)(p - heading)), TUI_MC_SIZE);
	p = strstr(heading, "OFFSET");
	assert_int_equal(tui_layout_hit(&l, (int)(p - heading) + 3), TUI_MC_OFFSET);
	p = strstr(heading, "NAME");
	assert_int_equal(tui_layout_hit(&l, (int)(p - heading)), TUI_MC_NAME);
	assert_int_equal(tui_layout_hit(&l, 79), TUI_MC_NAME);
	assert_int_equal(tui_layout_hit(&l, 0), -1);         /* the marker */
	assert_int_equal(tui_layout_hit(&l, l.x[1] - 1), -1); /* between two columns */
	assert_int_equal(tui_layout_hit(&l, TUI_MAPROW_PREFIX), TUI_MC_RANGE);
}

/* A click sorts by the column (its natural order); a second on it reverses. */
static void test_sort_click(void **state)
{
	struct tui_layout l;
	int sort = 0;
	bool reverse = true;

	(void)state;
	layout(&l, TUI_CV_FILES, 0, 120);
	assert_true(tui_layout_sort_click(&l, l.x[0], &sort, &reverse));
	assert_int_equal(sort, MS_FILESORT_MAPS);
	assert_false(reverse);
	assert_true(tui_layout_sort_click(&l, l.x[0] + 1, &sort, &reverse));
	assert_int_equal(sort, MS_FILESORT_MAPS);
	assert_true(reverse);
	/* PERMS does not sort: nothing changes. */
	for (size_t i = 0; i < l.n; i++)
		if (l.id[i] == TUI_FC_PERMS)
			assert_false(tui_layout_sort_click(&l, l.x[i], &sort, &reverse));
	assert_int_equal(sort, MS_FILESORT_MAPS);
	assert_true(reverse);
}

/* ^ ascending, v descending, in the process list and the files view alike. */
static void test_one_arrow_meaning(void **state)
{
	struct tui_fileview fv;
	struct tui_layout l;
	char text[512];

	(void)state;
	layout(&l, TUI_CV_PROCS, 0, 80);
	tui_format_procheading_cols(text, sizeof(text), &l, 0, false); /* PID, smallest first */
	assert_non_null(strstr(text, "PID^"));
	tui_format_procheading_cols(text, sizeof(text), &l, 4, true);  /* RSS, largest first */
	assert_non_null(strstr(text, "RSSv"));
	memset(&fv, 0, sizeof(fv));
	layout(&l, TUI_CV_FILES, 0, 80);
	fv.sort = MS_FILESORT_SIZE;                           /* largest first */
	tui_format_fileheading_cols(text, sizeof(text), &l, &fv);
	assert_non_null(strstr(text, "SIZEv"));
	fv.reverse = true;
	tui_format_fileheading_cols(text, sizeof(text), &l, &fv);
	assert_non_null(strstr(text, "SIZE^"));
	fv.sort = MS_FILESORT_NAME;
	fv.reverse = false;                                   /* A to Z */
	tui_format_fileheading_cols(text, sizeof(text), &l, &fv);
	assert_non_null(strstr(text, "NAME^"));
}

static void test_colset_lines(void **state)
{
	struct tui_colset s, before;
	char text[256];

	(void)state;
	assert_int_equal(tui_colset_parse(&s, TUI_CV_MAPS, "name"), 0);
	/* START-END cannot go: it comes back first; the rest are hidden. */
	assert_int_equal(s.order[0], TUI_MC_RANGE);
	assert_false(s.hidden & (1u << TUI_MC_RANGE));
	assert_true(s.hidden & (1u << TUI_MC_SIZE));
	assert_int_equal(tui_colset_parse(&s, TUI_CV_PROCS, "COMMAND, pid"), -1);
	assert_int_equal(tui_colset_parse(&s, TUI_CV_PROCS, "PID,PID"), -1);
	assert_int_equal(tui_colset_parse(&s, TUI_CV_PROCS, "PID,WHAT"), -1);
	assert_int_equal(tui_colset_parse(&s, TUI_CV_PROCS, " RSS , PID ,COMMAND"), 0);
	tui_colset_format(&s, TUI_CV_PROCS, text, sizeof(text));
	assert_string_equal(text, "RSS,PID,COMMAND");
	before = s;
	assert_int_equal(tui_colset_parse(&s, TUI_CV_PROCS, "PID,WHAT"), -1);
	assert_memory_equal(&s, &before, sizeof(s));
	/* The chooser's edits. */
	assert_true(tui_colset_move(&s, 0, 1));
	tui_colset_format(&s, TUI_CV_PROCS, text, sizeof(text));
	assert_string_equal(text, "PID,RSS,COMMAND");
	assert_false(tui_colset_move(&s, 0, -1));
	assert_true(tui_colset_toggle(&s, TUI_CV_PROCS, 0));
	tui_colset_format(&s, TUI_CV_PROCS, text, sizeof(text));
	assert_string_equal(text, "RSS,COMMAND");
	tui_colset_default(&s, TUI_CV_MAPS);
	assert_false(tui_colset_toggle(&s, TUI_CV_MAPS, 0)); /* START-END */
}

/*
 * VERSION is the package version now; a settings file saved when the file
 * name's digits were VERSION loads with the package version in its place,
 * and FILEVER, hidden by default, is a column of its own.
 */
static void test_colset_former_name(void **state)
{
	struct tui_colset s;
	char text[256];

	(void)state;
	assert_int_equal(tui_colset_parse(&s, TUI_CV_FILES, "MAPS,version,SONAME,NAME"), 0);
	assert_int_equal(s.order[1], TUI_FC_VERSION);
	assert_false(s.hidden & (1u << TUI_FC_VERSION));
	assert_true(s.hidden & (1u << TUI_FC_FILEVER));
	tui_colset_format(&s, TUI_CV_FILES, text, sizeof(text));
	assert_string_equal(text, "MAPS,VERSION,SONAME,NAME");
	assert_int_equal(tui_colset_parse(&s, TUI_CV_FILES, "FILEVER,VERSION,NAME"), 0);
	assert_int_equal(s.order[0], TUI_FC_FILEVER);
	tui_colset_default(&s, TUI_CV_FILES);
	assert_true(s.hidden & (1u << TUI_FC_FILEVER));
	assert_false(s.hidden & (1u << TUI_FC_PACKAGE));
	assert_int_equal(tui_colset_parse(&s, TUI_CV_MAPS, "VERSION,NAME"), -1);
}

/* `hide` keeps working; a columns.maps line wins over it. */
static void test_hide_and_columns(void **state)
{
	static const char hide[] = "hide = SIZE,DEV\n";
	static const char both[] = "hide = SIZE,DEV\ncolumns.maps = START-END,SIZE,NAME\n";
	struct tui_settings c;
	struct tui_layout l;

	(void)state;
	tui_settings_defaults(&c);
	assert_int_equal(tui_settings_parse(&c, hide, strlen(hide), NULL, NULL), 0);
	tui_layout_make(&l, TUI_CV_MAPS, &c.cols[TUI_CV_MAPS], 0, TUI_MAPROW_PREFIX, 200);
	assert_false(tui_layout_shows(&l, TUI_MC_SIZE));
	assert_false(tui_layout_shows(&l, TUI_MC_DEV));
	assert_true(tui_layout_shows(&l, TUI_MC_OFFSET));
	tui_settings_defaults(&c);
	assert_int_equal(tui_settings_parse(&c, both, strlen(both), NULL, NULL), 0);
	tui_layout_make(&l, TUI_CV_MAPS, &c.cols[TUI_CV_MAPS], 0, TUI_MAPROW_PREFIX, 200);
	assert_true(tui_layout_shows(&l, TUI_MC_SIZE));
	assert_false(tui_layout_shows(&l, TUI_MC_OFFSET));
	assert_int_equal(l.n, 2);
}

static char *config_path(const char *dir)
{
	char *path = malloc(strlen(dir) + 32);

	assert_non_null(path);
	sprintf(path, "%s/cfg/mapscope/config", dir);
	return path;
}

/* The folder of config_path, under XDG_CONFIG_HOME = dir/cfg, which must exist. */
static void config_where(struct ms_confdir *where, const char *dir)
{
	char *base = tu_join(dir, "cfg");

	assert_int_equal(mkdir(base, 0700), 0);
	assert_int_equal(ms_confdir_at(where, "XDG_CONFIG_HOME", base), 0);
	free(base);
}

/* Save, load again: the same columns; comments and other keys kept, one line per view. */
static void test_save_round_trip(void **state)
{
	static const char old[] = "# my settings\ndelay = 2\ncolumns.procs = PID,COMMAND\n"
				  "\n# colours\ncolor.exec = blue\ncolumns.procs = USER,COMMAND\n";
	char *path = config_path(*state), *text;
	struct tui_settings c, back;
	struct ms_confdir where;
	struct ms_error err;
	struct stat st;
	size_t len;

	/* Nothing there yet but XDG_CONFIG_HOME: the folder is made, 0700. */
	config_where(&where, *state);
	tui_settings_defaults(&c);
	assert_int_equal(tui_colset_parse(&c.cols[TUI_CV_MAPS], TUI_CV_MAPS, "START-END,PERMS,NAME"), 0);
	assert_int_equal(tui_settings_save_columns(&c, &where, &err), 0);
	assert_int_equal(where.fd, -1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	text = tu_slurp(path, &len);
	assert_string_equal(text, "columns.maps = START-END,PERMS,NAME\n");
	free(text);
	*strrchr(path, '/') = '\0';
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	strcat(path, "/config");

	assert_int_equal(tu_spit(path, old), 0);
	assert_int_equal(tui_colset_parse(&c.cols[TUI_CV_PROCS], TUI_CV_PROCS, "STALE,PID,COMMAND"), 0);
	assert_int_equal(tui_settings_save_columns(&c, &where, &err), 0);
	text = tu_slurp(path, &len);
	assert_string_equal(text, "# my settings\ndelay = 2\ncolumns.procs = STALE,PID,COMMAND\n"
				  "\n# colours\ncolor.exec = blue\n"
				  "columns.maps = START-END,PERMS,NAME\n");
	free(text);
	tui_settings_defaults(&back);
	assert_int_equal(tui_settings_load(&back, &where, NULL, NULL, &err), 0);
	assert_true(back.delay == 2);
	assert_int_equal(back.colors[TUI_COLOR_EXEC], 4);
	for (int v = 0; v < TUI_CV_COUNT; v++) {
		assert_int_equal(back.cols[v].n, c.cols[v].n);
		assert_memory_equal(back.cols[v].order, c.cols[v].order, c.cols[v].n);
		assert_int_equal(back.cols[v].hidden, c.cols[v].hidden);
	}
	free(path);
}

/* A symlink at the path is refused, for reading and writing, and what it leads to is untouched. */
static void test_save_refuses_symlink(void **state)
{
	char *path = config_path(*state), *target = tu_join(*state, "elsewhere"), *dir, *text;
	struct tui_settings c, back;
	struct ms_confdir where;
	struct ms_error err;
	struct stat st;
	size_t len;

	dir = strdup(path);
	*strrchr(dir, '/') = '\0';
	config_where(&where, *state);
	assert_int_equal(tu_spit(target, "delay = 3\n"), 0);
	tui_settings_defaults(&c);
	c.cols[TUI_CV_PROCS].given = true;
	/* Made by a first save of nothing in particular. */
	assert_int_equal(tui_settings_save_columns(&c, &where, &err), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_true(tui_settings_save_columns(&c, &where, &err) < 0);
	assert_int_equal(err.sys_errno, ELOOP);
	assert_non_null(strstr(err.msg, "config: a symbolic link"));
	assert_false(where.foreign);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	text = tu_slurp(target, &len);
	assert_string_equal(text, "delay = 3\n");
	free(text);
	tui_settings_defaults(&back);
	assert_true(tui_settings_load(&back, &where, NULL, NULL, &err) < 0);
	assert_int_equal(err.sys_errno, ELOOP);
	assert_true(back.delay == 1.0);
	/* A directory others may write is refused too. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_true(tui_settings_save_columns(&c, &where, &err) < 0);
	assert_int_equal(lstat(path, &st), -1);
	free(dir);
	free(target);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_column_keeps_24),
		cmocka_unit_test(test_beside_keeps_24),
		cmocka_unit_test(test_maps_drop_order),
		cmocka_unit_test(test_maps_band_gives_way),
		cmocka_unit_test(test_procs_drop_order),
		cmocka_unit_test(test_help_states_drop_order),
		cmocka_unit_test(test_libs_at_80),
		cmocka_unit_test(test_version_widens),
		cmocka_unit_test(test_cut_marks),
		cmocka_unit_test(test_heading_hit),
		cmocka_unit_test(test_sort_click),
		cmocka_unit_test(test_one_arrow_meaning),
		cmocka_unit_test(test_colset_lines),
		cmocka_unit_test(test_colset_former_name),
		cmocka_unit_test(test_hide_and_columns),
		cmocka_unit_test_setup_teardown(test_save_round_trip, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_save_refuses_symlink, tu_tmpdir_setup,
						tu_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
