# snapshot, record and diff: safe file writing (F_CREATED_QUERY) and the
# test of safe reading (saferead, in the core), JSON
# snapshots and recordings, and the commands over them.
libmapscope_core_a_SOURCES += \
	src/core/safewrite.c src/core/safewrite.h \
	src/core/snapshot.c src/core/snapshot.h \
	src/core/snapshot_read.c \
	src/core/snapshot_write.c src/core/snapshot_write.h \
	src/core/record.c src/core/record.h
AM_CPPFLAGS += $(JANSSON_CFLAGS)

mapscope_SOURCES += \
	src/cli/cmd_snapshot.c src/cli/cmd_record.c src/cli/cmd_diff.c

if HAVE_CMOCKA
check_PROGRAMS += tests/test_safewrite tests/test_saferead tests/test_snapshot tests/test_snapshot_record tests/test_diff
TESTS += tests/test_safewrite tests/test_saferead tests/test_snapshot tests/test_snapshot_record tests/test_diff
tests_test_safewrite_SOURCES = tests/test_safewrite.c tests/snapfix.c tests/snapfix.h
tests_test_safewrite_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_safewrite_LDADD = libmapscope-core.a $(CMOCKA_LIBS)
tests_test_saferead_SOURCES = tests/test_saferead.c tests/snapfix.c tests/snapfix.h
tests_test_saferead_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_saferead_LDADD = libmapscope-core.a $(CMOCKA_LIBS)
tests_test_snapshot_SOURCES = tests/test_snapshot.c tests/snapfix.c tests/snapfix.h
tests_test_snapshot_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_snapshot_LDADD = libmapscope-core.a $(CMOCKA_LIBS) $(JANSSON_LIBS)
tests_test_diff_SOURCES = tests/test_diff.c tests/snapfix.c tests/snapfix.h
tests_test_diff_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_diff_LDADD = libmapscope-core.a $(CMOCKA_LIBS) $(JANSSON_LIBS)
tests_test_snapshot_record_SOURCES = tests/test_snapshot_record.c tests/snapfix.c tests/snapfix.h
tests_test_snapshot_record_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_snapshot_record_LDADD = libmapscope-core.a $(CMOCKA_LIBS) $(JANSSON_LIBS)
endif
