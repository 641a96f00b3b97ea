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

# ---- systemd units: the service names the installed binary
if HAVE_SYSTEMD_UNITS
systemdsystemunit_DATA = data/systemd/mapscope-stale.service data/systemd/mapscope-stale.timer
endif
data/systemd/mapscope-stale.service: $(srcdir)/data/systemd/mapscope-stale.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) data/systemd && \
	sed -e 's|@bindir[@]|$(bindir)|g' $(srcdir)/data/systemd/mapscope-stale.service.in > $@.tmp && \
	mv $@.tmp $@
CLEANFILES += data/systemd/mapscope-stale.service
EXTRA_DIST += data/systemd/mapscope-stale.service.in data/systemd/mapscope-stale.timer
# distcheck installs under its own prefix, never into the system's unit directory.
AM_DISTCHECK_CONFIGURE_FLAGS = --with-systemdsystemunitdir='$${dc_install_base}/$(systemdsystemunitdir)'

# ---- Prometheus alerting rules
prometheusrulesdir = $(pkgdatadir)/prometheus
dist_prometheusrules_DATA = data/prometheus/mapscope.rules.yml

# ---- the real tools against what make install places (skipped, with the
# reason, only where a tool is missing): systemd-analyze verify and security
# on the units, promtool on the rules and on real output, and the unit's
# capability set against real processes.
TESTS += tests/test_fleet_tools.sh
EXTRA_DIST += tests/test_fleet_tools.sh tests/prometheus/mapscope.rules.test.yml
AM_TESTS_ENVIRONMENT += \
	MS_MAKE='$(MAKE)'; export MS_MAKE; \
	MS_BUILDDIR='$(abs_top_builddir)'; export MS_BUILDDIR; \
	MS_SRCDIR='$(abs_top_srcdir)'; export MS_SRCDIR; \
	MS_BINDIR='$(bindir)'; export MS_BINDIR; \
	MS_MANDIR='$(mandir)'; export MS_MANDIR; \
	MS_UNITDIR='$(systemdsystemunitdir)'; export MS_UNITDIR; \
	MS_RULESDIR='$(prometheusrulesdir)'; export MS_RULESDIR;

# ---- zsh and fish completions, where each shell's Debian package looks
# (zsh's upstream default is $(datadir)/zsh/site-functions; set
# zshcompletiondir on the make command line for it).
zshcompletiondir = $(datadir)/zsh/vendor-completions
dist_zshcompletion_DATA = data/zsh-completion/_mapscope
fishcompletiondir = $(datadir)/fish/vendor_completions.d
dist_fishcompletion_DATA = data/fish-completion/mapscope.fish
TESTS += tests/test_completion_shells.sh
EXTRA_DIST += tests/test_completion_shells.sh tests/zsh_complete.zsh
AM_TESTS_ENVIRONMENT += \
	MS_ZSHDIR='$(zshcompletiondir)'; export MS_ZSHDIR; \
	MS_FISHDIR='$(fishcompletiondir)'; export MS_FISHDIR; \
	MS_BASHDIR='$(bashcompletiondir)'; export MS_BASHDIR;
