# ---- tests: everything make check runs ----------------------------------------------
# A cmocka test is tests/core/ROOM/test_NAME.c (tests/core/ for the tests
# across rooms), tests/cli/test_NAME.c or tests/tui/test_NAME.c, beside the
# code it tests; adding one is one line: its name in CMOCKA_TESTS.  Every
# test links the support library (tests/lib: the fixture drivers, running
# the mapscope binary, temporary files, a FUSE server) and each layer's
# library, so no test compiles a source of src/ again.  Fixture programs, shell and tmux tests follow.
AM_CPPFLAGS += -I$(top_srcdir)/tests/lib
AM_CFLAGS += $(CMOCKA_CFLAGS)
check_LIBRARIES = tests/libms-test.a
tests_libms_test_a_SOURCES = \
	tests/lib/testutil.c tests/lib/testutil.h \
	tests/lib/idlewait.c tests/lib/idlewait.h \
	tests/lib/linechild.c tests/lib/linechild.h \
	tests/lib/msrun.c tests/lib/msrun.h \
	tests/lib/fixture_client.c tests/lib/fixture_client.h \
	tests/lib/resfix.c tests/lib/resfix.h \
	tests/lib/snapfix.c tests/lib/snapfix.h \
	tests/lib/jsoncheck.c tests/lib/jsoncheck.h \
	tests/lib/debfix.c tests/lib/debfix.h \
	tests/lib/fuse_server.c tests/lib/fuse_server.h \
	tests/lib/walkfix.c tests/lib/walkfix.h \
	tests/lib/notelib.c tests/lib/notelib.h \
	tests/lib/safe_text.h
LDADD = tests/libms-test.a $(TUI_LIBS) $(CORE_LIBS) $(CMOCKA_LIBS)

# Programs with known mappings, driven by the tests.
# Both test libraries call themselves libstale.so.1, as two builds of one library would.
STALE_LIB_FLAGS = -shared -Wl,--build-id=sha1 -Wl,-soname,libstale.so.1
check_PROGRAMS += tests/ms-fixture tests/ms-residency-fixture tests/ms-hostile tests/stale-child \
	tests/ms-fuse-serve tests/libstale-a.so tests/libstale-b.so tests/libms-fixture-sym.so \
	tests/ms-dlopen-hold tests/ms-maxrss tests/ms-sleeper tests/libms-verdef.so \
	tests/libhist-1.so tests/libhist-2.so tests/libhist-3.so tests/libhist-4.so
check_PROGRAMS += tests/ms-threads
tests_ms_fixture_SOURCES = tests/fixture.c
# The fixture maps a library with a symbol the symbol tests know, found next to it.
tests_ms_fixture_LDADD = tests/libms-fixture-sym.so
tests_ms_fixture_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_libms_fixture_sym_so_SOURCES = tests/fixture_sym.c
tests_libms_fixture_sym_so_CFLAGS = $(AM_CFLAGS) -fPIC -g
tests_libms_fixture_sym_so_LDFLAGS = -shared -Wl,--build-id=sha1 -Wl,-soname,libms-fixture-sym.so
tests_ms_residency_fixture_SOURCES = tests/residency_fixture.c
tests_ms_hostile_SOURCES = tests/hostile_fixture.c
tests_stale_child_SOURCES = tests/stale_child.c
tests_ms_fuse_serve_SOURCES = tests/fuse_serve.c
# Threads on stacks of their own, one of which ends (test_diff_thread).
tests_ms_threads_SOURCES = tests/thread_stacks.c
# Run from a FUSE mount, as a user's program (test_fuse_lookup).
tests_ms_sleeper_SOURCES = tests/sleeper.c
# The libdw tests: a user's process holding a crafted library (or, for the
# SBOM's hash budget, thousands of files), and a deadline and a peak-RSS
# figure for a whole process tree.
tests_ms_dlopen_hold_SOURCES = tests/dlopen_hold.c
tests_ms_maxrss_SOURCES = tests/maxrss.c
tests_libstale_a_so_SOURCES = tests/stale_lib_a.c
tests_libstale_a_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_libstale_a_so_LDFLAGS = $(STALE_LIB_FLAGS)
tests_libstale_b_so_SOURCES = tests/stale_lib_b.c
tests_libstale_b_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_libstale_b_so_LDFLAGS = $(STALE_LIB_FLAGS)
# Four builds of one library, each with its own build ID, one per package
# the dpkg history test builds (test_dpkg_history).
HIST_LIB_FLAGS = -shared -Wl,--build-id=sha1 -Wl,-soname,libhist.so
tests_libhist_1_so_SOURCES = tests/hist_lib.c
tests_libhist_1_so_CFLAGS = $(AM_CFLAGS) -fPIC -DMS_HIST_BUILD='"1"'
tests_libhist_1_so_LDFLAGS = $(HIST_LIB_FLAGS)
tests_libhist_2_so_SOURCES = tests/hist_lib.c
tests_libhist_2_so_CFLAGS = $(AM_CFLAGS) -fPIC -DMS_HIST_BUILD='"2"'
tests_libhist_2_so_LDFLAGS = $(HIST_LIB_FLAGS)
tests_libhist_3_so_SOURCES = tests/hist_lib.c
tests_libhist_3_so_CFLAGS = $(AM_CFLAGS) -fPIC -DMS_HIST_BUILD='"3"'
tests_libhist_3_so_LDFLAGS = $(HIST_LIB_FLAGS)
tests_libhist_4_so_SOURCES = tests/hist_lib.c
tests_libhist_4_so_CFLAGS = $(AM_CFLAGS) -fPIC -DMS_HIST_BUILD='"4"'
tests_libhist_4_so_LDFLAGS = $(HIST_LIB_FLAGS)
# Version definitions for LIBVER (test_verdef): their highest is not the highest as text.
tests_libms_verdef_so_SOURCES = tests/verdef_lib.c
tests_libms_verdef_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_libms_verdef_so_LDFLAGS = -shared -Wl,-soname,libms-verdef.so.1 \
	-Wl,--version-script=$(srcdir)/tests/verdef_lib.map
EXTRA_tests_libms_verdef_so_DEPENDENCIES = tests/verdef_lib.map

if HAVE_CMOCKA
CMOCKA_TESTS = \
	tests/core/base/test_grow \
	tests/core/base/test_hash_seed \
	tests/core/base/test_units \
	tests/core/base/test_cpus \
	tests/core/base/test_escape \
	tests/core/base/test_digest \
	tests/core/base/test_saferead \
	tests/core/base/test_safewrite \
	tests/core/base/test_safewrite_atomic \
	tests/core/proc/test_fstype \
	tests/core/proc/test_access \
	tests/core/maps/test_parse \
	tests/core/maps/test_engine \
	tests/core/maps/test_read_ahead \
	tests/core/maps/test_errors \
	tests/core/maps/test_faults \
	tests/core/maps/test_mapmatch \
	tests/core/maps/test_ancestry \
	tests/core/untrusted/test_untrusted_walk \
	tests/core/untrusted/test_walk_dircache \
	tests/core/untrusted/test_untrusted_child \
	tests/core/untrusted/test_stale_race \
	tests/core/untrusted/test_fuse_lookup \
	tests/core/untrusted/test_mapfiles \
	tests/core/untrusted/test_nameproof \
	tests/core/untrusted/test_confdir \
	tests/core/elf/test_buildid \
	tests/core/elf/test_pkgnote \
	tests/core/elf/test_elfcheck \
	tests/core/elf/test_verdef \
	tests/core/elf/test_symbol_text \
	tests/core/elf/test_symindex_sort \
	tests/core/elf/test_fuse \
	tests/core/resid/test_residency \
	tests/core/pkg/test_pkgdb \
	tests/core/pkg/test_pkgdb_real \
	tests/core/pkg/test_pkgindex \
	tests/core/pkg/test_pkgindex_lookup \
	tests/core/pkg/test_pkg_status \
	tests/core/pkg/test_packages \
	tests/core/pkg/test_dpkg_history \
	tests/core/pkg/test_rpmdb \
	tests/core/pkg/test_pydist \
	tests/core/pkg/test_npmpkg \
	tests/core/pkg/test_purl \
	tests/core/pkg/test_dpkglog \
	tests/core/pkg/test_rpmlog \
	tests/core/stale/test_stale \
	tests/core/stale/test_stale_parse \
	tests/core/stale/test_restart_plan \
	tests/core/stale/test_roots \
	tests/core/stale/test_stale_memo \
	tests/core/stale/test_prefetch \
	tests/core/files/test_filemap \
	tests/core/files/test_facts \
	tests/core/files/test_fileinfo_note \
	tests/core/files/test_filematch \
	tests/core/files/test_sbom_budget \
	tests/core/snap/test_snapshot \
	tests/core/snap/test_snapshot_record \
	tests/core/snap/test_filediff \
	tests/core/test_bounds \
	tests/core/test_hostile \
	tests/core/test_fuzz_regress \
	tests/cli/test_cli \
	tests/cli/test_stale_cli \
	tests/cli/test_who_cli \
	tests/cli/test_stale_metrics \
	tests/cli/test_libs_metrics \
	tests/cli/test_residency_cli \
	tests/cli/test_files_cli \
	tests/cli/test_libs_cli \
	tests/cli/test_libs_cdx \
	tests/cli/test_sbom_running \
	tests/cli/test_diff \
	tests/tui/test_tui_mapview \
	tests/tui/test_tui_filefeed \
	tests/tui/test_tui_maps_random \
	tests/tui/test_tui_mapsearch \
	tests/tui/test_tui_goto \
	tests/tui/test_tui_keydec \
	tests/tui/test_tui_elide \
	tests/tui/test_tui_wrap \
	tests/tui/test_tui_pictures \
	tests/tui/test_tui_settings \
	tests/tui/test_tui_columns \
	tests/tui/test_tui_proclist \
	tests/tui/test_tui_stale \
	tests/tui/test_tui_stale_units \
	tests/tui/test_tui_libs \
	tests/tui/test_tui_screen \
	tests/tui/test_residency_tui
check_PROGRAMS += $(CMOCKA_TESTS)
TESTS += $(CMOCKA_TESTS)
# The maps model's random test checks it against a reference of its own.
tests_tui_test_tui_maps_random_SOURCES = tests/tui/test_tui_maps_random.c tests/tui/maps_ref.c tests/tui/maps_ref.h
# The screen tests draw the explorer's screens, curses and all.
tests_tui_test_tui_screen_SOURCES = tests/tui/test_tui_screen.c tests/tui/screenfix.c tests/tui/screenfix.h \
	$(TUI_CURSES_SOURCES)
tests_tui_test_tui_screen_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS)
tests_tui_test_tui_screen_CPPFLAGS = $(AM_CPPFLAGS) -DSCREENS_DIR='"$(abs_top_srcdir)/tests/screens"'
tests_tui_test_tui_screen_LDADD = $(LDADD) $(NCURSESW_LIBS)
# The OpenMetrics rendering is the command layer's.
tests_cli_test_stale_metrics_CFLAGS = $(AM_CFLAGS) $(SMARTCOLS_CFLAGS)
tests_cli_test_stale_metrics_LDADD = $(CLI_LIBS) $(LDADD)
# The CycloneDX writer is the command layer's; the schema and checker are in the source tree.
tests_cli_test_libs_cdx_CFLAGS = $(AM_CFLAGS) $(SMARTCOLS_CFLAGS)
tests_cli_test_libs_cdx_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_cli_test_libs_cdx_LDADD = $(CLI_LIBS) $(LDADD)
tests_cli_test_sbom_running_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_cli_test_libs_metrics_CFLAGS = $(AM_CFLAGS) $(SMARTCOLS_CFLAGS)
tests_cli_test_libs_metrics_LDADD = $(CLI_LIBS) $(LDADD)
endif

SHELL_TESTS = \
	tests/test_layers.sh \
	tests/test_completion.sh tests/test_man_keys.sh tests/test_no_exec.sh \
	tests/test_colwriter.sh tests/test_list_total.sh tests/valgrind.sh tests/test_messages.sh \
	tests/test_columns_registry.sh tests/test_list_facts.sh tests/test_libs_memory.sh tests/test_stale_ignored.sh tests/test_ignored_facts.sh \
	tests/test_libs_search.sh \
	tests/test_diff_thread.sh \
	tests/e2e/explorer.sh tests/e2e/signals.sh tests/e2e/keys.sh tests/e2e/names.sh tests/e2e/sort.sh \
	tests/e2e/marks.sh tests/e2e/lists.sh tests/e2e/find.sh \
	tests/e2e/where.sh tests/e2e/explorer_stale.sh tests/e2e/explorer_rss.sh \
	tests/e2e/explorer_fuse.sh tests/e2e/explorer_fuse_lookup.sh tests/e2e/hardening.sh tests/e2e/files.sh tests/e2e/libs.sh \
	tests/e2e/libs_search.sh \
	tests/e2e/pictures.sh tests/e2e/columns.sh tests/e2e/settings_root.sh tests/e2e/mouse.sh \
	tests/e2e/libs_narrow.sh tests/e2e/narrow.sh tests/e2e/maps_narrow.sh \
	tests/e2e/vanished.sh tests/e2e/help_keys.sh tests/e2e/procs_sort.sh \
	tests/e2e/stale_units.sh \
	tests/test_fleet_tools.sh tests/test_node_exporter.sh tests/test_completion_shells.sh \
	tests/test_symbols_at.sh tests/test_symbols_ref.sh tests/e2e/symbols.sh tests/test_symbols_budget.sh \
	tests/test_symbols_debuglink.sh tests/test_symbols_runcopy.sh tests/test_symbols_copies.sh \
	tests/e2e/symbols_debuginfod.sh tests/test_symbols_absent.sh \
	tests/test_symbols_batches.sh \
	tests/test_symbols_hostile.sh tests/e2e/symbols_hostile.sh tests/e2e/symbols_runcopy.sh \
	tests/e2e/verdicts.sh tests/test_libver_hostile.sh tests/test_libver_runcopy.sh \
	tests/test_rpm_owner.sh tests/test_npm_owner.sh tests/test_pkgnote.sh \
	tests/test_names_rank.sh tests/test_restart_plan.sh tests/test_stale_walk_ahead.sh \
	tests/test_sbom.sh tests/test_sbom_budget.sh tests/test_reasons.sh tests/test_pyname_once.sh \
	tests/test_names_attack.sh tests/test_names_attack_gone.sh tests/test_names_detached.sh \
	tests/test_cdx_validate.sh
TESTS += $(SHELL_TESTS)
EXTRA_DIST += $(SHELL_TESTS) tests/e2e/lib.sh tests/stale_holders.sh tests/fixture_sym.sh tests/dlopen_hold.sh tests/completion_stubs.sh tests/syslib.sh tests/shtest.sh tests/screens tests/golden tests/fuzz \
	tests/prometheus tests/zsh_complete.zsh tests/symbols_ref.py tests/e2e/debuginfod_stub.py \
	tests/hostile_elf.py tests/hostile_lib.c tests/verdef_lib.map tests/hostile_verdef.py \
	tests/sbom_check.py tests/data/cyclonedx tests/names_attack.sh tests/names_check.py tests/names_detached.py \
	tests/cdx_validate.sh tests/cdx_validate.mjs tests/js/package.json tests/js/package-lock.json

# No test reads the user's settings or stale-ignore.conf (rss = yes there
# failed the explorer's tests): the tests that want a file there set
# XDG_CONFIG_HOME themselves.  Both XDG folders name places in the build
# tree that no test makes (tests/xdg, removed by make clean), so that a
# program a test starts cannot write in a home folder or under /.
AM_TESTS_ENVIRONMENT = \
	MS_FIXTURE='$(abs_top_builddir)/tests/ms-fixture'; export MS_FIXTURE; \
	MS_BIN='$(abs_top_builddir)/mapscope'; export MS_BIN; \
	XDG_CONFIG_HOME='$(abs_top_builddir)/tests/xdg/config'; export XDG_CONFIG_HOME; \
	XDG_DATA_HOME='$(abs_top_builddir)/tests/xdg/data'; export XDG_DATA_HOME; \
	MS_NODE_MODULES='$(MS_NODE_MODULES)'; \
	[ -n "$$MS_NODE_MODULES" ] || MS_NODE_MODULES='$(abs_top_srcdir)/tests/js/node_modules'; \
	export MS_NODE_MODULES;

check-local: check-man check-cmocka
check-cmocka:
if !HAVE_CMOCKA
	@echo "make check needs cmocka (apt-get install libcmocka-dev), then ./configure again"; exit 1
endif
check-man:
	@command -v mandoc >/dev/null 2>&1 || { echo "check-man: mandoc is needed (apt-get install mandoc)"; exit 1; }
	mandoc -T lint -W warning $(srcdir)/man/mapscope.1
	@echo "man page: mandoc lint clean"
.PHONY: check-man check-cmocka

# valgrind memcheck of the batch commands: part of make check when valgrind
# is installed (tests/valgrind.sh), and on its own as make check-valgrind.
check-valgrind: all tests/ms-fixture
	$(AM_TESTS_ENVIRONMENT) $(srcdir)/tests/valgrind.sh
.PHONY: check-valgrind

# ---- make fuzz: libFuzzer targets, built with clang apart from the main build.
# The code under test is compiled again here with the fuzzer's coverage and
# ASan/UBSan, so the gcc objects of the normal build are never mixed in.
FUZZ_CC = clang
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -g -O1 $(FUZZ_SANITIZE)
FUZZ_CPPFLAGS = -I$(top_builddir) -I$(top_srcdir)/src -I$(top_srcdir)/src/core \
	-I$(top_srcdir)/tests/fuzz -I$(top_srcdir)/tests/lib $(JANSSON_CFLAGS) $(LIBDW_CFLAGS)
FUZZ_BUILD = $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_CPPFLAGS) -o $@
FUZZ_TARGETS = tests/fuzz/fuzz-maps-parse tests/fuzz/fuzz-escape tests/fuzz/fuzz-settings \
	tests/fuzz/fuzz-snapshot tests/fuzz/fuzz-ignore tests/fuzz/fuzz-buildid \
	tests/fuzz/fuzz-fstype tests/fuzz/fuzz-soname tests/fuzz/fuzz-pyrecord tests/fuzz/fuzz-pymeta \
	tests/fuzz/fuzz-dpkglog tests/fuzz/fuzz-rpmlog \
	tests/fuzz/fuzz-verdef tests/fuzz/fuzz-json-scan \
	tests/fuzz/fuzz-pkgnote tests/fuzz/fuzz-pkg-status
if HAVE_LIBDW
FUZZ_TARGETS += tests/fuzz/fuzz-symbols tests/fuzz/fuzz-symmsg
endif
FUZZ_CHECK = $(srcdir)/tests/fuzz/fuzz_check.h $(srcdir)/tests/lib/safe_text.h
# Seconds each target runs in `make fuzz-run` (CI); override on the command line.
FUZZ_SECONDS = 30

# The whole core library, compiled once more with clang and the fuzzer's
# coverage; a target links what it uses from the archive, so a source the
# core gains never has to be listed here.
FUZZ_CORE_SRC = $(libmapscope_core_a_SOURCES) $(nodist_libmapscope_core_a_SOURCES)
FUZZ_CORE = tests/fuzz/libcore-fuzz.a
FUZZ_LINK = $(FUZZ_CORE) $(JANSSON_LIBS)

$(FUZZ_CORE): $(FUZZ_CORE_SRC)
	$(AM_V_GEN)rm -rf tests/fuzz/obj && $(MKDIR_P) tests/fuzz/obj && \
	for s in $(FUZZ_CORE_SRC); do \
	  case $$s in *.c) ;; *) continue ;; esac; \
	  f=$$s; [ -f "$$f" ] || f=$(srcdir)/$$s; \
	  o=tests/fuzz/obj/`echo "$$s" | tr / _ | sed 's/\.c$$/.o/'`; \
	  $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_CPPFLAGS) -c "$$f" -o "$$o" || exit 1; \
	done && rm -f $@ && $(AR) rcs $@ tests/fuzz/obj/*.o

tests/fuzz/fuzz-maps-parse: $(srcdir)/tests/fuzz/fuzz_maps_parse.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_maps_parse.c $(FUZZ_LINK)
tests/fuzz/fuzz-escape: $(srcdir)/tests/fuzz/fuzz_escape.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_escape.c $(FUZZ_LINK)
# The settings name columns, and each view's column table sits beside its model (tui.h).
FUZZ_TUI_SRC = $(srcdir)/src/tui/settings.c $(srcdir)/src/tui/columns.c $(srcdir)/src/tui/elide.c \
	$(srcdir)/src/tui/format.c $(srcdir)/src/tui/listfind.c $(srcdir)/src/tui/procs_cols.c \
	$(srcdir)/src/tui/maps_cols.c $(srcdir)/src/tui/files_cols.c $(srcdir)/src/tui/libs_cols.c \
	$(srcdir)/src/tui/stale_cols.c $(srcdir)/src/tui/maps_model.c $(srcdir)/src/tui/map_seen.c \
	$(srcdir)/src/tui/files_model.c $(srcdir)/src/tui/libs_model.c $(srcdir)/src/tui/stale_model.c \
	$(srcdir)/src/tui/stale_units.c
tests/fuzz/fuzz-settings: $(srcdir)/tests/fuzz/fuzz_settings.c $(FUZZ_CHECK) $(FUZZ_TUI_SRC) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_settings.c $(FUZZ_TUI_SRC) $(FUZZ_LINK)
tests/fuzz/fuzz-snapshot: $(srcdir)/tests/fuzz/fuzz_snapshot.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_snapshot.c $(FUZZ_LINK)
tests/fuzz/fuzz-ignore: $(srcdir)/tests/fuzz/fuzz_ignore.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_ignore.c $(FUZZ_LINK)
tests/fuzz/fuzz-buildid: $(srcdir)/tests/fuzz/fuzz_buildid.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_buildid.c $(FUZZ_LINK)
tests/fuzz/fuzz-fstype: $(srcdir)/tests/fuzz/fuzz_fstype.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_fstype.c $(FUZZ_LINK)
tests/fuzz/fuzz-soname: $(srcdir)/tests/fuzz/fuzz_soname.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_soname.c $(FUZZ_LINK)
tests/fuzz/fuzz-pyrecord: $(srcdir)/tests/fuzz/fuzz_pyrecord.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_pyrecord.c $(FUZZ_LINK)
tests/fuzz/fuzz-pymeta: $(srcdir)/tests/fuzz/fuzz_pymeta.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_pymeta.c $(FUZZ_LINK)
tests/fuzz/fuzz-dpkglog: $(srcdir)/tests/fuzz/fuzz_dpkglog.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_dpkglog.c $(FUZZ_LINK)
tests/fuzz/fuzz-rpmlog: $(srcdir)/tests/fuzz/fuzz_rpmlog.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_rpmlog.c $(FUZZ_LINK)
tests/fuzz/fuzz-verdef: $(srcdir)/tests/fuzz/fuzz_verdef.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_verdef.c $(FUZZ_LINK)
tests/fuzz/fuzz-json-scan: $(srcdir)/tests/fuzz/fuzz_json_scan.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_json_scan.c $(FUZZ_LINK)
tests/fuzz/fuzz-pkgnote: $(srcdir)/tests/fuzz/fuzz_pkgnote.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_pkgnote.c $(FUZZ_LINK)
tests/fuzz/fuzz-pkg-status: $(srcdir)/tests/fuzz/fuzz_pkg_status.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_pkg_status.c $(FUZZ_LINK)
# libdw and libelf are the system's, not instrumented: the fuzzer steers
# through mapscope's checks and index, and ASan still sees every access
# mapscope makes.
tests/fuzz/fuzz-symbols: $(srcdir)/tests/fuzz/fuzz_symbols.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_symbols.c $(FUZZ_LINK)
tests/fuzz/fuzz-symmsg: $(srcdir)/tests/fuzz/fuzz_symmsg.c $(FUZZ_CHECK) $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_symmsg.c $(FUZZ_LINK)

fuzz: $(FUZZ_TARGETS)
	@echo "fuzz targets built: $(FUZZ_TARGETS)"
	@echo "run one: tests/fuzz/fuzz-escape -max_total_time=60 tests/fuzz/corpus/escape"

# Run every target for FUZZ_SECONDS on a scratch copy of its seed corpus (so
# the tracked corpus only grows by hand); any crash, leak or timeout fails.
fuzz-run: fuzz
	@set -e; tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/ms-fuzz.XXXXXX"); \
	trap 'rm -rf "$$tmp"' EXIT; \
	for t in $(FUZZ_TARGETS); do \
	  name=$${t#tests/fuzz/fuzz-}; \
	  mkdir -p "$$tmp/$$name"; cp $(srcdir)/tests/fuzz/corpus/$$name/* "$$tmp/$$name/"; \
	  echo "fuzz-run: $$name for $(FUZZ_SECONDS) s"; \
	  ./$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	    -artifact_prefix="$$tmp/$$name-" -print_final_stats=1 "$$tmp/$$name" \
	    > "$$tmp/$$name.log" 2>&1 || { tail -n 60 "$$tmp/$$name.log"; \
	      for a in "$$tmp/$$name"-*; do [ -f "$$a" ] && { echo "fuzz-run: crash input $$a:"; od -c "$$a" | head -n 20; }; done; \
	      echo "fuzz-run: $$name FAILED"; exit 1; }; \
	  grep -E '^stat::number_of_executed_units' "$$tmp/$$name.log" || true; \
	done; echo "fuzz-run: all targets clean"

clean-local: clean-fuzz clean-xdg
clean-fuzz:
	rm -rf $(FUZZ_TARGETS) $(FUZZ_CORE) tests/fuzz/obj
clean-xdg:
	rm -rf tests/xdg
.PHONY: fuzz fuzz-run clean-fuzz clean-xdg

