# ---- hardening (issue 8): fuzzing, hostile names, faults, valgrind ------------

# ---- make fuzz: libFuzzer targets, built with clang apart from the main build.
# The code under test is compiled again here with the fuzzer's coverage and
# ASan/UBSan, so the gcc objects of the normal build are never mixed in.
FUZZ_CC = clang
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -g -O1 $(FUZZ_SANITIZE)
FUZZ_CPPFLAGS = -I$(top_builddir) -I$(top_srcdir)/src -I$(top_srcdir)/src/core \
	-I$(top_srcdir)/tests/fuzz -I$(top_srcdir)/tests $(JANSSON_CFLAGS)
FUZZ_BUILD = $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_CPPFLAGS) -o $@
FUZZ_TARGETS = tests/fuzz/fuzz-maps-parse tests/fuzz/fuzz-escape tests/fuzz/fuzz-settings \
	tests/fuzz/fuzz-snapshot tests/fuzz/fuzz-ignore tests/fuzz/fuzz-buildid \
	tests/fuzz/fuzz-fstype tests/fuzz/fuzz-soname
FUZZ_CHECK = $(srcdir)/tests/fuzz/fuzz_check.h $(srcdir)/tests/safe_text.h
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
tests/fuzz/fuzz-settings: $(srcdir)/tests/fuzz/fuzz_settings.c $(FUZZ_CHECK) src/tui/settings.c $(FUZZ_CORE)
	$(AM_V_GEN)$(FUZZ_BUILD) $(srcdir)/tests/fuzz/fuzz_settings.c $(srcdir)/src/tui/settings.c $(FUZZ_LINK)
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

clean-local: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_TARGETS) $(FUZZ_CORE) tests/fuzz/obj
.PHONY: fuzz fuzz-run clean-fuzz

EXTRA_DIST += tests/hardening.mk tests/fuzz

# ---- regression tests for what the fuzzers found
if HAVE_CMOCKA
check_PROGRAMS += tests/test_fuzz_regress
TESTS += tests/test_fuzz_regress
tests_test_fuzz_regress_SOURCES = tests/test_fuzz_regress.c
tests_test_fuzz_regress_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_fuzz_regress_LDADD = libmapscope-core.a $(CMOCKA_LIBS) $(JANSSON_LIBS)
endif

# ---- hostile names, command lines and command name, end to end
check_PROGRAMS += tests/ms-hostile
tests_ms_hostile_SOURCES = tests/hostile_fixture.c
if HAVE_CMOCKA
check_PROGRAMS += tests/test_hostile
TESTS += tests/test_hostile
tests_test_hostile_SOURCES = tests/test_hostile.c tests/safe_text.h \
	tests/stale_harness.c tests/stale_harness.h
tests_test_hostile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_hostile_LDADD = $(PROCLIST_LIBS) $(CMOCKA_LIBS) $(JANSSON_LIBS)
endif

# ---- the faults table
if HAVE_CMOCKA
check_PROGRAMS += tests/test_faults
TESTS += tests/test_faults
tests_test_faults_SOURCES = tests/test_faults.c $(FIXTURE_CLIENT)
tests_test_faults_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_faults_LDADD = libmapscope-core.a $(CMOCKA_LIBS)
endif

# ---- no program is ever run: a grep of src/
TESTS += tests/test_no_exec.sh
EXTRA_DIST += tests/test_no_exec.sh

# ---- the explorer against hostile input and terminal faults (tmux)
TESTS += tests/e2e/hardening.sh
EXTRA_DIST += tests/e2e/hardening.sh

# ---- valgrind memcheck of the batch commands: part of make check when
# valgrind is installed, and on its own as make check-valgrind.
TESTS += tests/valgrind.sh
EXTRA_DIST += tests/valgrind.sh
check-valgrind: all tests/ms-fixture
	$(AM_TESTS_ENVIRONMENT) $(srcdir)/tests/valgrind.sh
.PHONY: check-valgrind

# ---- bounds a hostile process cannot raise: grouping, re-judging (issue 11)
if HAVE_CMOCKA
check_PROGRAMS += tests/test_bounds
TESTS += tests/test_bounds
tests_test_bounds_SOURCES = tests/test_bounds.c tests/stale_harness.c tests/stale_harness.h
tests_test_bounds_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JANSSON_CFLAGS)
tests_test_bounds_LDADD = $(PROCLIST_LIBS) $(CMOCKA_LIBS) $(JANSSON_LIBS)
endif
EXTRA_DIST += tests/golden
