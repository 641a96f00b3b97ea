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
	src/tui/settings.c src/tui/settings.h \
	src/tui/format.c src/tui/format.h \
	src/tui/mapview.c src/tui/mapview.h \
	src/tui/procview.c src/tui/procview.h
TUI_CURSES_SOURCES = \
	src/tui/tui.h \
	src/tui/screen.c src/tui/keys.c \
	src/tui/view_maps.c src/tui/view_procs.c src/tui/view_help.c
mapscope_SOURCES += $(TUI_MODEL_SOURCES) $(TUI_CURSES_SOURCES) src/tui/explorer.c
mapscope_LDADD += $(PROCLIST_LIBS)

dist_pkgdata_DATA = data/mapscope.conf
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = data/bash-completion/mapscope
