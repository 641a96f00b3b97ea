# ---- src/tui: the explorer ----------------------------------------------------------
# libmapscope-tui.a holds the curses-free part the tests link: the action
# table, the key decoder, settings, line formatting and name elision, and
# the models of the maps, process and stale views.  The screens (view_*.c),
# the drawing helpers and the input loop use curses and are built into the
# program only.
noinst_LIBRARIES += libmapscope-tui.a
libmapscope_tui_a_SOURCES = \
	src/tui/actions.c src/tui/actions.h \
	src/tui/keydec.c src/tui/keydec.h \
	src/tui/settings.c src/tui/settings.h \
	src/tui/format.c src/tui/format.h \
	src/tui/elide.c src/tui/elide.h \
	src/tui/wrap.c src/tui/wrap.h \
	src/tui/listfind.c src/tui/listfind.h \
	src/tui/columns.c src/tui/columns.h \
	src/tui/procs_cols.c src/tui/maps_cols.c src/tui/files_cols.c src/tui/libs_cols.c \
	src/tui/maps_model.c src/tui/maps_model.h \
	src/tui/map_seen.c src/tui/map_seen.h \
	src/tui/maps_feed.c src/tui/maps_feed.h \
	src/tui/maps_search.c src/tui/maps_search.h \
	src/tui/procs_model.c src/tui/procs_model.h \
	src/tui/verdicts.c src/tui/verdicts.h \
	src/tui/stale_model.c src/tui/stale_model.h \
	src/tui/stale_detail.c src/tui/stale_detail.h \
	src/tui/stale_cols.c src/tui/stale_cols.h \
	src/tui/stale_units.c src/tui/stale_units.h \
	src/tui/files_model.c src/tui/files_model.h \
	src/tui/files_feed.c src/tui/files_feed.h \
	src/tui/libs_model.c src/tui/libs_model.h \
	src/tui/libs_feed.c src/tui/libs_feed.h \
	src/tui/symbol_at.c src/tui/symbol_at.h \
	src/tui/detail_pkg.c src/tui/detail_pkg.h \
	src/tui/strip.c src/tui/strip.h \
	src/tui/bars.c src/tui/bars.h \
	src/tui/maps_header.c src/tui/maps_header.h
TUI_LIBS = libmapscope-tui.a
TUI_CURSES_SOURCES = \
	src/tui/tui.h \
	src/tui/screen.c src/tui/pane.c src/tui/keys.c \
	src/tui/view_maps.c src/tui/view_maps_frame.c src/tui/view_maps_detail.c src/tui/view_maps_detail.h \
	src/tui/view_strip.c src/tui/view_strip.h \
	src/tui/view_procs.c src/tui/view_help.c \
	src/tui/view_stale.c src/tui/view_files.c src/tui/view_libs.c src/tui/view_symbol.c src/tui/view_columns.c \
	src/tui/stopsig.c src/tui/stopsig.h
TUI_MAIN_SOURCES = src/tui/explorer.c

dist_pkgdata_DATA = data/mapscope.conf
