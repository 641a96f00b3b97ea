# ---- the interactive explorer (issue 3) --------------------------------------
# The process list is core code, in its own library for its libproc2 flags;
# link it before libmapscope-core.a, which it uses.
noinst_LIBRARIES += libmapscope-proclist.a
libmapscope_proclist_a_SOURCES = \
	src/core/proclist.c src/core/proclist.h src/core/proclist_backend.h \
	src/core/proclist_procfs.c src/core/proclist_libproc2.c
libmapscope_proclist_a_CFLAGS = $(AM_CFLAGS) $(LIBPROC2_CFLAGS)
PROCLIST_LIBS = libmapscope-proclist.a libmapscope-core.a $(LIBPROC2_LIBS)

# Curses-free explorer logic, shared by the program and the tests.
TUI_MODEL_SOURCES = \
	src/tui/actions.c src/tui/actions.h \
	src/tui/keydec.c src/tui/keydec.h \
	src/tui/settings.c src/tui/settings.h \
	src/tui/format.c src/tui/format.h \
	src/tui/elide.c src/tui/elide.h \
	src/tui/mapview.c src/tui/mapview.h \
	src/tui/procview.c src/tui/procview.h \
	src/tui/verdicts.c src/tui/verdicts.h \
	src/tui/staleview.c src/tui/staleview.h \
	src/tui/fileview.c src/tui/fileview.h
TUI_CURSES_SOURCES = \
	src/tui/tui.h \
	src/tui/screen.c src/tui/keys.c \
	src/tui/view_maps.c src/tui/view_procs.c src/tui/view_help.c \
	src/tui/view_stale.c src/tui/view_files.c
mapscope_SOURCES += $(TUI_MODEL_SOURCES) $(TUI_CURSES_SOURCES) src/tui/explorer.c \
	src/tui/stopsig.c src/tui/stopsig.h
mapscope_LDADD += $(PROCLIST_LIBS)

dist_pkgdata_DATA = data/mapscope.conf
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = data/bash-completion/mapscope

# ---- explorer tests ----------------------------------------------------------------
TESTS += tests/test_man_keys.sh
EXTRA_DIST += tests/test_man_keys.sh tests/e2e/explorer.sh tests/e2e/lib.sh tests/screens tests/e2e/signals.sh
TESTS += tests/e2e/explorer.sh
TESTS += tests/e2e/signals.sh
TESTS += tests/e2e/keys.sh tests/e2e/names.sh
EXTRA_DIST += tests/e2e/keys.sh tests/e2e/names.sh
if HAVE_CMOCKA
TUI_TEST_LIBS = $(PROCLIST_LIBS) $(SMARTCOLS_LIBS) $(JANSSON_LIBS) $(CMOCKA_LIBS)
TUI_TEST_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(SMARTCOLS_CFLAGS)
check_PROGRAMS += tests/test_tui_mapview
tests_test_tui_mapview_SOURCES = tests/test_tui_mapview.c $(TUI_MODEL_SOURCES) src/cli/cli.c
tests_test_tui_mapview_CFLAGS = $(TUI_TEST_CFLAGS)
tests_test_tui_mapview_LDADD = $(TUI_TEST_LIBS)
TESTS += tests/test_tui_mapview
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/test_tui_keydec
tests_test_tui_keydec_SOURCES = tests/test_tui_keydec.c src/tui/keydec.c src/tui/keydec.h
tests_test_tui_keydec_CFLAGS = $(TUI_TEST_CFLAGS)
tests_test_tui_keydec_LDADD = $(CMOCKA_LIBS)
TESTS += tests/test_tui_keydec
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/test_tui_elide
tests_test_tui_elide_SOURCES = tests/test_tui_elide.c $(TUI_MODEL_SOURCES) src/cli/cli.c
tests_test_tui_elide_CFLAGS = $(TUI_TEST_CFLAGS)
tests_test_tui_elide_LDADD = $(TUI_TEST_LIBS)
TESTS += tests/test_tui_elide
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/test_tui_settings
tests_test_tui_settings_SOURCES = tests/test_tui_settings.c src/tui/settings.c src/tui/settings.h
tests_test_tui_settings_CFLAGS = $(TUI_TEST_CFLAGS)
tests_test_tui_settings_LDADD = $(TUI_TEST_LIBS)
TESTS += tests/test_tui_settings
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/test_tui_proclist
tests_test_tui_proclist_SOURCES = tests/test_tui_proclist.c src/tui/procview.c src/tui/procview.h
tests_test_tui_proclist_CFLAGS = $(TUI_TEST_CFLAGS)
tests_test_tui_proclist_LDADD = $(TUI_TEST_LIBS)
TESTS += tests/test_tui_proclist
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/test_tui_screen
tests_test_tui_screen_SOURCES = tests/test_tui_screen.c $(TUI_MODEL_SOURCES) $(TUI_CURSES_SOURCES) src/cli/cli.c
tests_test_tui_screen_CFLAGS = $(TUI_TEST_CFLAGS) $(NCURSESW_CFLAGS)
tests_test_tui_screen_CPPFLAGS = $(AM_CPPFLAGS) -DSCREENS_DIR='"$(abs_top_srcdir)/tests/screens"'
tests_test_tui_screen_LDADD = $(TUI_TEST_LIBS) $(NCURSESW_LIBS)
TESTS += tests/test_tui_screen
endif

# ---- explorer: stale verdicts (issue 4) and the S snapshot key (issue 5) --------------
TESTS += tests/e2e/explorer_stale.sh
EXTRA_DIST += tests/e2e/explorer_stale.sh
if HAVE_CMOCKA
check_PROGRAMS += tests/test_tui_stale
tests_test_tui_stale_SOURCES = tests/test_tui_stale.c tests/stale_harness.c tests/stale_harness.h \
	$(TUI_MODEL_SOURCES) src/cli/cli.c
tests_test_tui_stale_CFLAGS = $(TUI_TEST_CFLAGS)
tests_test_tui_stale_LDADD = $(TUI_TEST_LIBS)
TESTS += tests/test_tui_stale
endif
