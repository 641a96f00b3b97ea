# ---- make bench: mapscope against pmap, lsof and the raw ioctl -------------------------
# Not part of make check: these programs are built only by `make bench`.
# (EXTRA_PROGRAMS is set here with "=": automake refuses "+=" on it first.)
BENCH_PROGS = bench/ms-bench-gen$(EXEEXT) bench/ms-bench-fleet$(EXEEXT) \
	bench/ms-bench-engine$(EXEEXT) bench/ms-bench-maxrss$(EXEEXT) \
	bench/ms-bench-goto$(EXEEXT)
EXTRA_PROGRAMS = $(BENCH_PROGS)
bench_ms_bench_gen_SOURCES = bench/gen.c
bench_ms_bench_fleet_SOURCES = bench/fleet.c
bench_ms_bench_engine_SOURCES = bench/engine.c
bench_ms_bench_engine_LDADD = libmapscope-core.a
bench_ms_bench_maxrss_SOURCES = bench/maxrss.c
# g on the maps view's model: the curses-free explorer code, as the tests link it.
bench_ms_bench_goto_SOURCES = bench/goto.c
bench_ms_bench_goto_LDADD = $(TUI_LIBS) $(CORE_LIBS)
EXTRA_DIST += bench/README.md bench/history.md bench/startup.md bench/run.sh \
	bench/cases_listing.sh bench/cases_packages.sh bench/cases_fleet.sh

bench: mapscope$(EXEEXT) $(BENCH_PROGS) tests/ms-hostile$(EXEEXT)
	MS_BIN='$(abs_top_builddir)/mapscope' BENCH_BIN='$(abs_top_builddir)/bench' \
	HOSTILE_BIN='$(abs_top_builddir)/tests/ms-hostile' \
	BENCH_OUT='$(abs_top_builddir)/bench' bash '$(srcdir)/bench/run.sh'
.PHONY: bench
