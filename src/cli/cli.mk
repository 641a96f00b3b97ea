# ---- src/cli: libmapscope-cli.a, the batch commands ---------------------------------
# One file per command, the libsmartcols helpers and the streaming column
# writer; they render what the core returns.
noinst_LIBRARIES += libmapscope-cli.a
libmapscope_cli_a_SOURCES = \
	src/cli/cli.c src/cli/cli.h \
	src/cli/colwriter.c src/cli/colwriter.h \
	src/cli/mapcols.c src/cli/mapcols.h \
	src/cli/procscan.c src/cli/procscan.h \
	src/cli/stale_out.c src/cli/stale_out.h \
	src/cli/restart_plan.c src/cli/restart_plan.h \
	src/cli/libs_out.c src/cli/libs_out.h \
	src/cli/colindex.c src/cli/colindex.h \
	src/cli/cmd_list_facts.c src/cli/listcols.h \
	src/cli/libs_cdx.c src/cli/libs_cdx.h src/cli/libs_cdx_evidence.c src/cli/libs_cdx_json.h \
	src/cli/libs_metrics.c src/cli/libs_metrics.h \
	src/cli/openmetrics.c src/cli/openmetrics.h \
	src/cli/outfile.c src/cli/outfile.h \
	src/cli/stale_metrics.c src/cli/stale_metrics.h \
	src/cli/cmd_list.c \
	src/cli/cmd_list_files.c src/cli/filecols.h \
	src/cli/cmd_at.c \
	src/cli/cmd_snapshot.c src/cli/cmd_record.c src/cli/cmd_diff.c \
	src/cli/diff_out.c src/cli/diff_out.h src/cli/diff_files.c src/cli/diff_files.h \
	src/cli/cmd_stale.c \
	src/cli/cmd_who.c src/cli/who_pkg.c src/cli/who_pkg.h \
	src/cli/cmd_libs.c
libmapscope_cli_a_CFLAGS = $(AM_CFLAGS) $(SMARTCOLS_CFLAGS)
CLI_LIBS = libmapscope-cli.a $(SMARTCOLS_LIBS)

bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = data/bash-completion/mapscope
