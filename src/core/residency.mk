# ---- residency per mapping (issue 6): PAGEMAP_SCAN, smaps fallback ----------
libmapscope_core_a_SOURCES += \
	src/core/residency.c src/core/residency.h src/core/residency_backend.h \
	src/core/residency_scan.c src/core/residency_smaps.c

check_PROGRAMS += tests/ms-residency-fixture
tests_ms_residency_fixture_SOURCES = tests/residency_fixture.c

if HAVE_CMOCKA
check_PROGRAMS += tests/test_residency
TESTS += tests/test_residency
RESFIX = tests/resfix.c tests/resfix.h $(FIXTURE_CLIENT)
tests_test_residency_SOURCES = tests/test_residency.c $(RESFIX)
tests_test_residency_CFLAGS = $(TEST_CFLAGS)
tests_test_residency_LDADD = $(TEST_CORE_LIBS)
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/test_residency_cli
TESTS += tests/test_residency_cli
tests_test_residency_cli_SOURCES = tests/test_residency_cli.c $(RESFIX) tests/snapfix.c tests/snapfix.h
tests_test_residency_cli_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS)
tests_test_residency_cli_LDADD = $(TEST_CORE_LIBS) $(JANSSON_LIBS)
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/test_residency_tui
TESTS += tests/test_residency_tui
tests_test_residency_tui_SOURCES = tests/test_residency_tui.c $(RESFIX) $(TUI_MODEL_SOURCES)
tests_test_residency_tui_CFLAGS = $(TUI_TEST_CFLAGS)
tests_test_residency_tui_LDADD = $(TUI_TEST_LIBS)
endif

# ---- residency in snapshots (version 2 documents) ----------------------------
libmapscope_core_a_SOURCES += src/core/snapshot_res.c

# ---- the explorer's RSS column, end to end in tmux ----------------------------
TESTS += tests/e2e/explorer_rss.sh
EXTRA_DIST += tests/e2e/explorer_rss.sh
