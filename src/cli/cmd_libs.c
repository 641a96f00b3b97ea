/*
 * `mapscope libs [PATTERN...]`: every distinct file mapped by the
 * processes we may read (executable mappings, that is code, unless
 * --all-mappings), one line per file by device and inode, with its
 * package, the version running, how many processes map it and its stale
 * verdict.  The table is core/files/libtable.h's; libs_out.h prints it.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/libs_cdx.h"
#include "cli/libs_metrics.h"
#include "cli/libs_out.h"
#include "cli/outfile.h"
#include "cli/procscan.h"
#include "core/base/escape.h"
#include "core/files/filematch.h"
#include "core/files/libtable.h"
#include "core/stale/ignore.h"
#include "core/stale/stale.h"

#define LIBS_EXIT_ERROR 2
#define LIBS_PIDS_MAX 4096

enum {
	OPT_ALL_MAPPINGS = 512,
	OPT_PIDS,
	OPT_PSS,
	OPT_PID,
	OPT_FORMAT,
	OPT_OPENMETRICS,
	OPT_METRICS_FILE,
	OPT_INSTALLED,
	OPT_SBOM_FILE,
	OPT_CODE_ONLY,
};

struct libs_opts {
	struct cli_opts cli;
	unsigned scan_flags;
	bool pids;   /* --pids: each file's processes below it */
	bool pss;
	bool code_only; /* --code-only: memory of the executable mappings alone */
	bool cyclonedx; /* --format=cyclonedx: an SBOM (libs_cdx.h), not the table */
	bool installed; /* --installed: with it, the versions installed beside old copies that run */
	bool openmetrics;
	const char *metrics_file; /* --metrics-file: written atomically */
	const char *sbom_file; /* --sbom-file: the CycloneDX document, written atomically */
	bool table_asked;      /* --format=table, which --sbom-file cannot write */
	char *pid_args[LIBS_PIDS_MAX]; /* --pid: the processes to look at (none: all) */
	int npids;
};

static const int libs_defaults[] = {
	LIBCOL_NAME, LIBCOL_PACKAGE, LIBCOL_VERSION, LIBCOL_PROCS, LIBCOL_VERDICT, LIBCOL_WHERE,
};

static const int libs_pid_defaults[] = {
	LIBCOL_NAME, LIBCOL_PID, LIBCOL_PACKAGE, LIBCOL_VERSION, LIBCOL_PROCS, LIBCOL_VERDICT, LIBCOL_WHERE,
};

static void libs_usage(void)
{
	printf("Usage: mapscope libs [options] [PATTERN...]\n\n"
	       "List every file the processes map (code only, unless --all-mappings),\n"
	       "one line per file by device and inode: its package, the version that\n"
	       "runs, how many processes map it, and whether it is still on disk.\n"
	       "A PATTERN with a '/' is a path (the file at it now, and deleted or\n"
	       "replaced copies that were there); one with a glob (libssl*) matches\n"
	       "whole base names and SONAMEs, as fnmatch(3); any other is searched as\n"
	       "typed: a part of a base name, a SONAME, a package or its source\n"
	       "package (ssl, openssl, libssl3), whole-name matches listed first.\n\n"
	       "Options:\n"
	       "      --pid=PID[,PID...] only these processes (default: every process)\n"
	       "      --pids             list each file's processes below it\n"
	       "      --all-mappings     data files too, not only executable mappings\n"
	       "      --pss              add PSS, from smaps (a text read per process)\n"
	       "      --code-only        RSS, PSS, USS and DIRTY of the code alone; by default\n"
	       "                         every mapping of the file counts, code and data\n"
	       "      --format=FORMAT    table (default), or cyclonedx: a CycloneDX 1.6 SBOM\n"
	       "                         of the packages and files mapped now (JSON)\n"
	       "      --installed        with --format=cyclonedx: also the version installed\n"
	       "                         of each package whose old copy still runs\n"
	       "      --openmetrics      processes per package version in OpenMetrics text\n"
	       "                         (node_exporter textfile), instead of the table\n"
	       "      --metrics-file=FILE the same, written atomically to FILE (mode 0644)\n"
	       "      --sbom-file=FILE   the CycloneDX document, written atomically to FILE\n"
	       "                         (mode 0600: it names users' files)\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Exit status: 0 success, 1 no file matches the PATTERNs, 2 error.\n\n"
	       "Columns:\n");
	cli_columns_help(libcols, LIBCOL_COUNT);
}

static const struct option libs_options[] = {
	{ "pid", required_argument, NULL, OPT_PID },
	{ "pids", no_argument, NULL, OPT_PIDS },
	{ "all-mappings", no_argument, NULL, OPT_ALL_MAPPINGS },
	{ "pss", no_argument, NULL, OPT_PSS },
	{ "code-only", no_argument, NULL, OPT_CODE_ONLY },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "openmetrics", no_argument, NULL, OPT_OPENMETRICS },
	{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
	{ "installed", no_argument, NULL, OPT_INSTALLED },
	{ "sbom-file", required_argument, NULL, OPT_SBOM_FILE },
	CLI_OUTPUT_LONG_OPTIONS,
};

/* --pid=1,2 --pid=3: the PIDs as operands for procscan (checked there). */
static int add_pids(struct libs_opts *lo, char *arg)
{
	char *save = NULL;

	for (char *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (lo->npids == LIBS_PIDS_MAX) {
			cli_error("libs: --pid: at most %d processes", LIBS_PIDS_MAX);
			return -1;
		}
		lo->pid_args[lo->npids++] = tok;
	}
	return 1;
}

static int libs_own(void *ctx, int opt, const char *arg)
{
	struct libs_opts *lo = ctx;

	switch (opt) {
	case OPT_PID: return add_pids(lo, (char *)arg);
	case OPT_PIDS: lo->pids = true; return 1;
	case OPT_ALL_MAPPINGS: lo->scan_flags |= MS_STALE_ALL_MAPPINGS; return 1;
	case OPT_PSS: lo->pss = true; return 1;
	case OPT_CODE_ONLY: lo->code_only = true; return 1;
	case OPT_FORMAT:
		if (strcmp(arg, "table") && strcmp(arg, "cyclonedx")) {
			cli_usage_error("libs", "libs: --format takes table or cyclonedx");
			return -1;
		}
		lo->cyclonedx = !strcmp(arg, "cyclonedx");
		lo->table_asked = !lo->cyclonedx;
		return 1;
	case OPT_OPENMETRICS: lo->openmetrics = true; return 1;
	case OPT_METRICS_FILE: lo->openmetrics = true; lo->metrics_file = arg; return 1;
	case OPT_INSTALLED: lo->installed = true; return 1;
	case OPT_SBOM_FILE: lo->cyclonedx = true; lo->sbom_file = arg; return 1;
	default: return 0;
	}
}

/* What the selected columns cost (libtable.h's MS_LIBTABLE_*), and whether packages are wanted. */
static unsigned wanted(const struct libs_opts *lo, const int *selected, int n, bool *packages)
{
	/* Process lines are named by their command, and say where each lives. */
	unsigned what = (lo->pss ? MS_LIBTABLE_PSS : 0) | (lo->pids ? MS_LIBTABLE_PROCS : 0) |
			(lo->code_only ? MS_LIBTABLE_CODE_ONLY : 0);

	/* The metrics are counts per package version, whatever the columns. */
	*packages = lo->openmetrics;
	if (lo->openmetrics)
		return 0;
	for (int i = 0; i < n; i++) {
		switch (selected[i]) {
		case LIBCOL_SONAME: case LIBCOL_LIBVER: what |= MS_LIBTABLE_SONAME; break; /* one open reads both */
		case LIBCOL_BUILDID: what |= MS_LIBTABLE_BUILD_ID; break;
		case LIBCOL_RSS: what |= MS_LIBTABLE_RSS; break;
		default:
			/* PSS, USS and DIRTY: smaps' text, which gives RSS too. */
			if (libcols[selected[i]].is_fact &&
			    (ms_fact_desc(libcols[selected[i]].fact)->needs & MS_NEED_SMAPS_TEXT))
				what |= MS_LIBTABLE_PSS;
			if (libcols[selected[i]].is_fact && (ms_fact_desc(libcols[selected[i]].fact)->needs & MS_NEED_PKG))
				*packages = true;
			break;
		}
	}
	return what;
}

/* The columns: the defaults or -o's, and PSS at the end with --pss unless -o has it. */
static int columns(const struct libs_opts *lo, int *selected)
{
	const int *defaults = lo->pids ? libs_pid_defaults : libs_defaults;
	size_t ndefaults = lo->pids ? sizeof(libs_pid_defaults) / sizeof(int) : sizeof(libs_defaults) / sizeof(int);
	int n = cli_columns_parse(lo->cli.columns, libcols, LIBCOL_COUNT, defaults, ndefaults, selected,
				  CLI_MAX_COLUMNS);

	bool has_pss = false;

	for (int i = 0; i < n; i++)
		has_pss |= selected[i] == LIBCOL_PSS;
	if (n > 0 && lo->pss && !has_pss && n < CLI_MAX_COLUMNS)
		selected[n++] = LIBCOL_PSS;
	return n;
}

/*
 * The matcher of the PATTERNs (filematch.h: as `who` matches, and a plain
 * name also as a part of a name or package), or NULL for none; -1 on error.
 */
static int make_matcher(char **patterns, int n, const struct cli_opts *o, struct ms_filematch **out)
{
	struct ms_error err;
	int i = 0;

	*out = NULL;
	if (!n)
		return 0;
	if (ms_filematch_new(out, &err) == 0)
		for (ms_filematch_substrings(*out); i < n; i++)
			if (ms_filematch_add(*out, patterns[i], &err) < 0)
				break;
	if (i == n)
		return 0;
	if (err.code == MS_ERR_NOMEM) {
		cli_error("libs: %s", err.msg);
	} else {
		char *shown = ms_escape_dup(patterns[i], strlen(patterns[i]), o->escape_flags);

		cli_error("libs: %s: %s", shown ? shown : "?", err.msg);
		free(shown);
	}
	ms_filematch_free(*out);
	*out = NULL;
	return -1;
}

/*
 * Files a SONAME pattern could not judge: said once.  They were compared
 * by their other names only, matched or not.
 */
static void note_soname_unknown(const struct ms_filematch *match)
{
	const char *why;
	size_t n = match ? ms_filematch_soname_unknown(match, &why) : 0;

	if (n)
		cli_error("libs: the SONAME of %zu file%s is unknown (%s); %s compared by the other names only", n,
			  n == 1 ? "" : "s", why, n == 1 ? "it was" : "they were");
}

/* No row matched the PATTERNs: say what was searched, as grep's status 1 does.  Returns 1. */
static int nothing_matches(const struct ms_filematch *match, char **patterns, int n, const struct cli_opts *o)
{
	char shown[512];
	size_t at = 0;

	shown[0] = '\0';
	for (int i = 0; i < n && at < sizeof(shown); i++) {
		char *one = ms_escape_dup(patterns[i], strlen(patterns[i]), o->escape_flags);
		int k = snprintf(shown + at, sizeof(shown) - at, "%s'%s'", i ? ", " : "", one ? one : "?");

		free(one);
		at += k > 0 ? (size_t)k : 0;
	}
	cli_error("libs: nothing matches %s (%s)", shown, ms_filematch_scope(match));
	return 1;
}

/* --sbom-file: what libs_cdx_print writes, atomically to path (outfile.h). */
static int libs_cdx_file(struct ms_libtable *t, const struct cli_opts *o, const char *path, bool installed)
{
	struct cli_outfile of;
	int status = cli_outfile_begin(&of, "--sbom-file", path, 0600);

	return status == CLI_EXIT_OK ? cli_outfile_end(&of, libs_cdx_print(t, o, installed)) : status;
}

static int run(struct libs_opts *lo, char **patterns, int npatterns, const int *selected, int nsel)
{
	struct ms_libtable_opts to = { .scan_flags = lo->scan_flags };
	struct ms_filematch *match = NULL;
	struct ms_libtable t;
	struct ms_ignore *ignore = NULL;
	struct ms_stale_ctx *ctx = NULL;
	struct ms_owner *owner = NULL;
	struct procscan ps;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	const char *why = NULL;
	bool packages;
	int status = LIBS_EXIT_ERROR;

	to.what = wanted(lo, selected, nsel, &packages);
	if (lo->cyclonedx)
		to.what = MS_LIBTABLE_BUILD_ID | MS_LIBTABLE_PROCS, packages = true;
	if (make_matcher(patterns, npatterns, &lo->cli, &match) < 0)
		return LIBS_EXIT_ERROR;
	to.match = match;
	/* A plain PATTERN may name a package: one lookup for the rows its names leave. */
	packages |= ms_filematch_wants_packages(match);
	if (ms_libtable_init(&t, &to, &err) < 0) {
		cli_error("%s", err.msg);
		ms_filematch_free(match);
		return LIBS_EXIT_ERROR;
	}
	if (ms_ignore_load_user(&ignore, &err) < 0 || ms_stale_ctx_new(ignore, &ctx, &err) < 0) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (procscan_init(&ps, lo->npids, lo->pid_args, &lo->cli, &status) < 0) {
		status = LIBS_EXIT_ERROR;
		goto out;
	}
	status = CLI_EXIT_OK;
	/*
	 * Every row will be asked about: what dpkg's lists the index does not
	 * spare are read while the walk goes on.
	 */
	if (packages && ms_owner_open(NULL, &owner, &err) < 0) {
		cli_error("%s", err.msg);
		status = LIBS_EXIT_ERROR;
	}
	ms_owner_read_ahead(owner);
	while (status == CLI_EXIT_OK && procscan_next(&ps, &proc, &maps)) {
		int rc = ms_libtable_add(&t, ctx, proc, maps, &err);

		ms_maps_close(maps);
		ms_proc_close(proc);
		if (rc == MS_ERR_NOMEM) {
			cli_error("%s", err.msg);
			status = LIBS_EXIT_ERROR;
		} else if (rc < 0) {
			procscan_note_error(&ps, &err);
		}
	}
	if (status == CLI_EXIT_OK && packages && ms_libtable_packages(&t, owner, &why, &err) < 0) {
		cli_error("%s", err.msg);
		status = LIBS_EXIT_ERROR;
	}
	if (status == CLI_EXIT_OK) {
		if (why)
			cli_error("libs: PACKAGE: %s", why);
		if (t.res_why)
			cli_error("libs: RSS: %s for some processes; their cells are empty", t.res_why);
		note_soname_unknown(match);
		if (t.dropped)
			cli_error("libs: %zu files past the first %u left out", t.dropped, MS_LIBTABLE_ROWS_MAX);
		status = lo->sbom_file ? libs_cdx_file(&t, &lo->cli, lo->sbom_file, lo->installed)
			 : lo->cyclonedx ? libs_cdx_print(&t, &lo->cli, lo->installed)
			 : lo->openmetrics ? libs_print_openmetrics(&t, &ps, &lo->cli, lo->metrics_file)
					   : libs_print(&t, &lo->cli, selected, (size_t)nsel, lo->pids);
		procscan_summary(&ps, "libs");
		if (status == CLI_EXIT_OK && match && !t.kept)
			status = nothing_matches(match, patterns, npatterns, &lo->cli);
	}
	if (status == CLI_EXIT_OK && procscan_failed(&ps))
		status = LIBS_EXIT_ERROR;
	ms_owner_close(owner);
	procscan_free(&ps);
out:
	ms_stale_ctx_free(ctx);
	ms_ignore_free(ignore);
	ms_libtable_free(&t);
	ms_filematch_free(match);
	return status;
}

int cmd_libs(int argc, char **argv)
{
	struct libs_opts *lo = calloc(1, sizeof(*lo));
	int selected[CLI_MAX_COLUMNS];
	int status, nsel;

	if (!lo) {
		cli_error("libs: out of memory");
		return LIBS_EXIT_ERROR;
	}
	cli_opts_init(&lo->cli);
	status = cli_getopt_own(argc, argv, "libs", libs_options, libs_usage, &lo->cli, libs_own, lo);
	if (status < 0 && lo->sbom_file && lo->table_asked)
		status = cli_usage_error("libs", "libs: --sbom-file writes the CycloneDX document, not --format=table");
	else if (status < 0 && lo->cyclonedx && (lo->cli.columns || lo->cli.json || lo->cli.raw || lo->cli.noheadings ||
					    lo->pids || lo->pss))
		status = cli_usage_error("libs", "libs: --format=cyclonedx takes none of -o, -J, -r, -n, --pids, --pss");
	else if (status < 0 && lo->installed && !lo->cyclonedx)
		status = cli_usage_error("libs", "libs: --installed needs --format=cyclonedx");
	else if (status < 0 && lo->cyclonedx && lo->openmetrics)
		status = cli_usage_error("libs", "libs: --format=cyclonedx and the metrics options exclude each other");
	if (status < 0 && lo->cli.list_columns)
		status = cli_columns_list(&lo->cli, libcols, LIBCOL_COUNT);
	if (status < 0) {
		nsel = columns(lo, selected);
		status = nsel < 0 ? CLI_EXIT_USAGE : run(lo, argv + optind, argc - optind, selected, nsel);
	}
	free(lo);
	return status;
}
