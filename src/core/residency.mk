# ---- residency per mapping (issue 6): PAGEMAP_SCAN, smaps fallback ----------
libmapscope_core_a_SOURCES += \
	src/core/residency.c src/core/residency.h src/core/residency_backend.h \
	src/core/residency_scan.c src/core/residency_smaps.c

check_PROGRAMS += tests/ms-residency-fixture
tests_ms_residency_fixture_SOURCES = tests/residency_fixture.c

if HAVE_CMOCKA
check_PROGRAMS += tests/test_residency
TESTS += tests/test_residency
tests_test_residency_SOURCES = tests/test_residency.c $(FIXTURE_CLIENT)
tests_test_residency_CFLAGS = $(TEST_CFLAGS)
tests_test_residency_LDADD = $(TEST_CORE_LIBS)
endif
