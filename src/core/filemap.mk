# The files view and `list --by-file` (issue 13, part 5): mappings grouped
# into files, with build ID, verdict, SONAME and version.

libmapscope_core_a_SOURCES += \
	src/core/soname.c src/core/soname.h \
	src/core/filemap.c src/core/filemap.h \
	src/core/fileinfo.c src/core/fileinfo.h

if HAVE_CMOCKA
check_PROGRAMS += tests/test-filemap
TESTS += tests/test-filemap
tests_test_filemap_SOURCES = tests/test_filemap.c $(FIXTURE_CLIENT) tests/stale_harness.c tests/stale_harness.h
tests_test_filemap_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/tests
tests_test_filemap_LDADD = $(TEST_CORE_LIBS)
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/test-files-cli
TESTS += tests/test-files-cli
tests_test_files_cli_SOURCES = tests/test_files_cli.c $(FIXTURE_CLIENT) tests/snapfix.c tests/snapfix.h
tests_test_files_cli_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS)
tests_test_files_cli_LDADD = $(TEST_CORE_LIBS) $(JANSSON_LIBS)
endif

TESTS += tests/e2e/files.sh
EXTRA_DIST += tests/e2e/files.sh
