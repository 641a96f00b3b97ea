# ---- data/: what make install places for a fleet ----------------------
# The systemd units that write the metrics file and the SBOM, the Prometheus rules that
# read it, and the zsh and fish completions (bash's is in src/cli/cli.mk).
# tests/test_fleet_tools.sh checks all of it where make install puts it.

# ---- systemd units: the service names the installed binary
# mapscope-sbom writes the host's CycloneDX SBOM into its spool for a collector.
MS_SERVICES = data/systemd/mapscope-stale.service data/systemd/mapscope-sbom.service
if HAVE_SYSTEMD_UNITS
systemdsystemunit_DATA = $(MS_SERVICES) data/systemd/mapscope-stale.timer data/systemd/mapscope-sbom.timer
endif
data/systemd/mapscope-stale.service: $(srcdir)/data/systemd/mapscope-stale.service.in
data/systemd/mapscope-sbom.service: $(srcdir)/data/systemd/mapscope-sbom.service.in
$(MS_SERVICES): Makefile
	$(AM_V_GEN)$(MKDIR_P) data/systemd && \
	sed -e 's|@bindir[@]|$(bindir)|g' $(srcdir)/$@.in > $@.tmp && \
	mv $@.tmp $@
CLEANFILES += $(MS_SERVICES)
EXTRA_DIST += data/systemd/mapscope-stale.service.in data/systemd/mapscope-stale.timer \
	data/systemd/mapscope-sbom.service.in data/systemd/mapscope-sbom.timer
# distcheck installs under its own prefix, never into the system's unit directory.
AM_DISTCHECK_CONFIGURE_FLAGS = --with-systemdsystemunitdir='$${dc_install_base}/$(systemdsystemunitdir)'
# The unpacked tarball has no tests/js/node_modules: make check's validator is this tree's.
AM_DISTCHECK_CONFIGURE_FLAGS += MS_NODE_MODULES='$(abs_top_srcdir)/tests/js/node_modules'

# ---- Prometheus alerting rules
prometheusrulesdir = $(pkgdatadir)/prometheus
dist_prometheusrules_DATA = data/prometheus/mapscope.rules.yml

# ---- zsh and fish completions, where each shell's Debian package looks
# (zsh's upstream default is $(datadir)/zsh/site-functions; set
# zshcompletiondir on the make command line for it).
zshcompletiondir = $(datadir)/zsh/vendor-completions
dist_zshcompletion_DATA = data/zsh-completion/_mapscope
fishcompletiondir = $(datadir)/fish/vendor_completions.d
dist_fishcompletion_DATA = data/fish-completion/mapscope.fish

# Where the tests look for what make install placed.
AM_TESTS_ENVIRONMENT += \
	MS_MAKE='$(MAKE)'; export MS_MAKE; \
	MS_BUILDDIR='$(abs_top_builddir)'; export MS_BUILDDIR; \
	MS_SRCDIR='$(abs_top_srcdir)'; export MS_SRCDIR; \
	MS_BINDIR='$(bindir)'; export MS_BINDIR; \
	MS_MANDIR='$(mandir)'; export MS_MANDIR; \
	MS_UNITDIR='$(systemdsystemunitdir)'; export MS_UNITDIR; \
	MS_RULESDIR='$(prometheusrulesdir)'; export MS_RULESDIR; \
	MS_ZSHDIR='$(zshcompletiondir)'; export MS_ZSHDIR; \
	MS_FISHDIR='$(fishcompletiondir)'; export MS_FISHDIR; \
	MS_BASHDIR='$(bashcompletiondir)'; export MS_BASHDIR;
