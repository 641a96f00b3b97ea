# Stale mappings (`mapscope stale`) and `mapscope who FILE`.

libmapscope_core_a_SOURCES += \
	src/core/buildid.c src/core/buildid.h \
	src/core/ignore.c src/core/ignore.h \
	src/core/stale.c src/core/stale.h \
	src/core/stale_group.c src/core/stale_group.h \
	src/core/stale_lookup.c src/core/stale_lookup.h \
	src/core/stale_report.c src/core/stale_report.h \
	src/core/unit.c src/core/unit.h \
	src/core/container.c src/core/container.h \
	src/core/pkgdb.c src/core/pkgdb.h
nodist_libmapscope_core_a_SOURCES = src/core/stale_ignore_default.c

# The default ignore list is data/stale-ignore.conf, compiled in as a C string.
src/core/stale_ignore_default.c: $(srcdir)/data/stale-ignore.conf
	$(AM_V_GEN)$(MKDIR_P) src/core && { \
	  echo '/* Generated from data/stale-ignore.conf by the build; do not edit. */'; \
	  echo '#include "config.h"'; \
	  echo '#include "core/ignore.h"'; \
	  echo 'const char ms_ignore_default_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/	"/' -e 's/$$/\\n"/' $(srcdir)/data/stale-ignore.conf; \
	  echo '	"";'; \
	} > $@.tmp && mv $@.tmp $@
CLEANFILES = src/core/stale_ignore_default.c

mapscope_SOURCES += \
	src/cli/procscan.c src/cli/procscan.h \
	src/cli/stale_out.c src/cli/stale_out.h \
	src/cli/cmd_stale.c \
	src/cli/cmd_who.c

staleignoredir = $(pkgdatadir)
dist_staleignore_DATA = data/stale-ignore.conf

# ---- tests: two tiny libraries with different build IDs, and a child that loads them
# Both test libraries call themselves libstale.so.1, as two builds of one library would.
STALE_LIB_FLAGS = -shared -Wl,--build-id=sha1 -Wl,-soname,libstale.so.1
check_PROGRAMS += tests/libstale-a.so tests/libstale-b.so tests/stale-child tests/ms-fuse-serve
tests_libstale_a_so_SOURCES = tests/stale_lib_a.c
tests_libstale_a_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_libstale_a_so_LDFLAGS = $(STALE_LIB_FLAGS)
tests_libstale_b_so_SOURCES = tests/stale_lib_b.c
tests_libstale_b_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_libstale_b_so_LDFLAGS = $(STALE_LIB_FLAGS)
tests_stale_child_SOURCES = tests/stale_child.c
tests_ms_fuse_serve_SOURCES = tests/fuse_serve.c tests/fuse_server.c tests/fuse_server.h

# A file whose FUSE daemon stops answering READ: no command and no view may hang (issue 11).
TESTS += tests/e2e/explorer_fuse.sh
EXTRA_DIST += tests/e2e/explorer_fuse.sh

if HAVE_CMOCKA
check_PROGRAMS += tests/test_stale tests/test_stale_cli tests/test_stale_parse tests/test_buildid \
	tests/test_stale_race tests/test_fuse
TESTS += tests/test_stale tests/test_stale_cli tests/test_stale_parse tests/test_buildid \
	tests/test_stale_race tests/test_fuse
STALE_TEST_LIBS = libmapscope-core.a $(CMOCKA_LIBS)
tests_test_stale_SOURCES = tests/test_stale.c tests/stale_harness.c tests/stale_harness.h
tests_test_stale_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_stale_LDADD = $(STALE_TEST_LIBS)
tests_test_stale_cli_SOURCES = tests/test_stale_cli.c tests/stale_harness.c tests/stale_harness.h
tests_test_stale_cli_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_stale_cli_LDADD = $(STALE_TEST_LIBS) $(JANSSON_LIBS)
tests_test_buildid_SOURCES = tests/test_buildid.c tests/stale_harness.c tests/stale_harness.h
tests_test_buildid_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_buildid_LDADD = $(STALE_TEST_LIBS)
tests_test_stale_race_SOURCES = tests/test_stale_race.c tests/stale_harness.c tests/stale_harness.h
tests_test_stale_race_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_stale_race_LDADD = $(STALE_TEST_LIBS)
tests_test_fuse_SOURCES = tests/test_fuse.c tests/fuse_server.c tests/fuse_server.h \
	tests/stale_harness.c tests/stale_harness.h
tests_test_fuse_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_fuse_LDADD = $(STALE_TEST_LIBS)
check_PROGRAMS += tests/test_roots tests/test_packages
TESTS += tests/test_roots tests/test_packages
tests_test_packages_SOURCES = tests/test_packages.c tests/stale_harness.c tests/stale_harness.h
tests_test_packages_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_packages_LDADD = $(STALE_TEST_LIBS) $(JANSSON_LIBS)
tests_test_roots_SOURCES = tests/test_roots.c tests/stale_harness.c tests/stale_harness.h
tests_test_roots_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_roots_LDADD = $(STALE_TEST_LIBS)
tests_test_stale_parse_SOURCES = tests/test_stale_parse.c
tests_test_stale_parse_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_stale_parse_LDADD = $(STALE_TEST_LIBS)
endif
