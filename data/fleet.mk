# ---- fleet deployment (issue 15): the metrics file written atomically, the
# systemd units that write it, the Prometheus rules that read it, and the
# zsh and fish completions.

if HAVE_CMOCKA
check_PROGRAMS += tests/test_safewrite_atomic
TESTS += tests/test_safewrite_atomic
tests_test_safewrite_atomic_SOURCES = tests/test_safewrite_atomic.c tests/snapfix.c tests/snapfix.h
tests_test_safewrite_atomic_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_safewrite_atomic_LDADD = libmapscope-core.a $(CMOCKA_LIBS)
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/test_stale_metrics
TESTS += tests/test_stale_metrics
tests_test_stale_metrics_SOURCES = tests/test_stale_metrics.c src/cli/stale_metrics.c src/cli/cli.c
tests_test_stale_metrics_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(SMARTCOLS_CFLAGS)
tests_test_stale_metrics_LDADD = libmapscope-core.a $(CMOCKA_LIBS) $(SMARTCOLS_LIBS)
endif
