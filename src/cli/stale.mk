# Stale mappings (`mapscope stale`) and `mapscope who FILE`.

AM_CPPFLAGS += $(LIBELF_CFLAGS)

libmapscope_core_a_SOURCES += \
	src/core/buildid.c src/core/buildid.h \
	src/core/ignore.c src/core/ignore.h \
	src/core/stale.c src/core/stale.h \
	src/core/stale_group.c src/core/stale_group.h \
	src/core/stale_lookup.c src/core/stale_lookup.h \
	src/core/unit.c src/core/unit.h
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
mapscope_LDADD += $(LIBELF_LIBS)

staleignoredir = $(pkgdatadir)
dist_staleignore_DATA = data/stale-ignore.conf

# ---- tests: two tiny libraries with different build IDs, and a child that loads them
STALE_LIB_FLAGS = -shared -Wl,--build-id=sha1
check_PROGRAMS += tests/libstale-a.so tests/libstale-b.so tests/stale-child
tests_libstale_a_so_SOURCES = tests/stale_lib_a.c
tests_libstale_a_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_libstale_a_so_LDFLAGS = $(STALE_LIB_FLAGS)
tests_libstale_b_so_SOURCES = tests/stale_lib_b.c
tests_libstale_b_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_libstale_b_so_LDFLAGS = $(STALE_LIB_FLAGS)
tests_stale_child_SOURCES = tests/stale_child.c

if HAVE_CMOCKA
check_PROGRAMS += tests/test_stale tests/test_stale_cli tests/test_stale_parse
TESTS += tests/test_stale tests/test_stale_cli tests/test_stale_parse
STALE_TEST_LIBS = libmapscope-core.a $(CMOCKA_LIBS) $(LIBELF_LIBS)
tests_test_stale_SOURCES = tests/test_stale.c tests/stale_harness.c tests/stale_harness.h
tests_test_stale_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_stale_LDADD = $(STALE_TEST_LIBS)
tests_test_stale_cli_SOURCES = tests/test_stale_cli.c tests/stale_harness.c tests/stale_harness.h
tests_test_stale_cli_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_stale_cli_LDADD = $(STALE_TEST_LIBS) $(JANSSON_LIBS)
tests_test_stale_parse_SOURCES = tests/test_stale_parse.c
tests_test_stale_parse_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_stale_parse_LDADD = $(STALE_TEST_LIBS)
endif
