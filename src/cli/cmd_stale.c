/*
 * `mapscope stale [PID...]`: processes that still run code which is gone
 * from disk (deleted or replaced), with the systemd unit to restart.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/procscan.h"
#include "cli/restart_plan.h"
#include "cli/stale_metrics.h"
#include "cli/stale_out.h"
#include "core/stale/ignore.h"
#include "core/stale/stale.h"
#include "core/proc/unit.h"

#define STALE_EXIT_FOUND 1
#define STALE_EXIT_ERROR 2

enum {
	OPT_ALL_MAPPINGS = 512,
	OPT_BY_FILE,
	OPT_OPENMETRICS,
	OPT_IGNORE_FILE,
	OPT_SHOW,
	OPT_METRICS_FILE,
	OPT_RESTART_PLAN,
};

struct stale_opts {
	struct cli_opts cli;
	unsigned scan_flags;
	bool by_file;
	bool restart_plan;
	bool openmetrics;
	const char *metrics_file;
	const char *ignore_file;
	unsigned show; /* bit per verdict */
};

static const int stale_defaults[] = {
	STALECOL_NAME, STALECOL_PID, STALECOL_UNIT, STALECOL_CONTAINER, STALECOL_VERDICT,
	STALECOL_PACKAGE, STALECOL_WHY,
};
/* In JSON the package's facts are fields of their own (PACKAGE is its name alone there). */
static const int stale_json_defaults[] = {
	STALECOL_NAME, STALECOL_PID, STALECOL_UNIT, STALECOL_CONTAINER, STALECOL_VERDICT,
	STALECOL_PACKAGE, STALECOL_VERSION, STALECOL_INSTALLED, STALECOL_PKGSRC, STALECOL_WHY,
};

static void stale_usage(void)
{
	printf("Usage: mapscope stale [options] [PID...]\n\n"
	       "Find processes that map files deleted or replaced on disk (every process\n"
	       "we may read, or the PIDs given), and the systemd unit that owns each.\n\n"
	       "Options:\n"
	       "      --all-mappings     data files too, not only executable mappings\n"
	       "      --by-file          list each file and the processes that map it\n"
	       "      --restart-plan     the systemd units to restart, each with its processes\n"
	       "                         and files, one systemctl line for the services, and\n"
	       "                         what restarting services cannot fix (runs nothing)\n"
	       "      --show=VERDICTS    verdicts to list (default deleted,replaced; or all):\n"
	       "                         deleted, replaced, same-build, unknown, ignored, ok\n"
	       "      --ignore-file=FILE rules of files never flagged (default:\n"
	       "                         $XDG_CONFIG_HOME/mapscope/stale-ignore.conf if it\n"
	       "                         exists, else the built-in list)\n"
	       "      --openmetrics      counts in OpenMetrics text (node_exporter textfile)\n"
	       "      --metrics-file=FILE the same, written atomically to FILE (mode 0644):\n"
	       "                         a reader sees the old or the new file, whole\n"
	       "  -o, --output=COLUMNS   columns to show; +COLUMNS adds to the default\n"
	       "  -J, --json             JSON output\n"
	       "  -r, --raw              raw output\n"
	       "  -n, --noheadings       no column headings\n"
	       "      --backend=WHICH    auto, ioctl or text (default auto)\n"
	       CLI_LIST_COLUMNS_HELP
	       "  -h, --help             this help\n\n"
	       "Exit status: 0 nothing stale, 1 something stale, 2 error.\n\n"
	       "Columns:\n");
	cli_columns_help(stalecols, STALECOL_COUNT);
}

static const struct option stale_options[] = {
	{ "all-mappings", no_argument, NULL, OPT_ALL_MAPPINGS },
	{ "by-file", no_argument, NULL, OPT_BY_FILE },
	{ "restart-plan", no_argument, NULL, OPT_RESTART_PLAN },
	{ "show", required_argument, NULL, OPT_SHOW },
	{ "ignore-file", required_argument, NULL, OPT_IGNORE_FILE },
	{ "openmetrics", no_argument, NULL, OPT_OPENMETRICS },
	{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'J' },
	{ "raw", no_argument, NULL, 'r' },
	{ "noheadings", no_argument, NULL, 'n' },
	{ "backend", required_argument, NULL, CLI_OPT_BACKEND },
	{ "help", no_argument, NULL, 'h' },
	CLI_LIST_COLUMNS_LONG_OPTION,
	{ NULL, 0, NULL, 0 },
};

static int parse_show(const char *arg, unsigned *show)
{
	char buf[128];
	char *save = NULL;

	*show = 0;
	if (!strcmp(arg, "all")) {
		*show = (1u << MS_STALE_VERDICT_COUNT) - 1;
		return 0;
	}
	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum ms_stale_verdict v;

		if (ms_stale_verdict_parse(tok, &v) < 0)
			return -1;
		*show |= 1u << v;
	}
	return *show ? 0 : -1;
}

/* Our own getopt loop: stale has options beyond the common ones. */
static int stale_getopt(int argc, char **argv, struct stale_opts *so)
{
	int opt;

	memset(so, 0, sizeof(*so));
	cli_opts_init(&so->cli);
	cli_set_command("stale");
	so->show = (1u << MS_STALE_DELETED) | (1u << MS_STALE_REPLACED);
	while ((opt = getopt_long(argc, argv, "o:JrnhH", stale_options, NULL)) != -1) {
		switch (opt) {
		case 'h': stale_usage(); return cli_stdout_done(0);
		case OPT_ALL_MAPPINGS: so->scan_flags |= MS_STALE_ALL_MAPPINGS; continue;
		case OPT_BY_FILE: so->by_file = true; continue;
		case OPT_RESTART_PLAN: so->restart_plan = true; continue;
		case OPT_OPENMETRICS: so->openmetrics = true; continue;
		case OPT_METRICS_FILE: so->openmetrics = true; so->metrics_file = optarg; continue;
		case OPT_IGNORE_FILE: so->ignore_file = optarg; continue;
		case OPT_SHOW:
			if (parse_show(optarg, &so->show) < 0)
				return cli_usage_error("stale", "--show: expected a list of deleted, replaced, same-build, unknown, ignored, ok, or all");
			continue;
		default:
			break;
		}
		if (cli_opts_common(&so->cli, opt, optarg) <= 0) {
			fprintf(stderr, "Try 'mapscope stale --help'.\n");
			return CLI_EXIT_USAGE;
		}
	}
	cli_set_escape_flags(&so->cli);
	return -1;
}

/* --ignore-file, else the user's copy, else the built-in defaults. */
static int load_ignore(const char *path, struct ms_ignore **out)
{
	struct ms_error err;

	if (path) {
		if (ms_ignore_load(path, out, &err) == 0)
			return 0;
		cli_error("--ignore-file: %s", err.msg);
		return -1;
	}
	if (ms_ignore_load_user(out, &err) == 0)
		return 0;
	cli_error("%s", err.msg);
	return -1;
}

static void report_named(void *arg, const struct ms_error *err)
{
	(void)arg;
	cli_error("%s", err->msg);
}

int cmd_stale(int argc, char **argv)
{
	struct ms_stale_report report = { 0 };
	struct ms_ignore *ignore = NULL;
	struct ms_stale_ctx *ctx = NULL;
	struct stale_opts so;
	struct procscan ps;
	struct ms_stale_report_opts ro;
	struct ms_owner *owner = NULL;
	struct ms_error err;
	int selected[CLI_MAX_COLUMNS];
	bool packages = false;
	const char *why;
	int nsel, status;

	status = stale_getopt(argc, argv, &so);
	if (status >= 0)
		return status;
	if (so.cli.list_columns)
		return cli_columns_list(&so.cli, stalecols, STALECOL_COUNT);
	nsel = cli_columns_parse(so.cli.columns, stalecols, STALECOL_COUNT,
				 so.cli.json ? stale_json_defaults : stale_defaults,
				 so.cli.json ? sizeof(stale_json_defaults) / sizeof(stale_json_defaults[0])
					     : sizeof(stale_defaults) / sizeof(stale_defaults[0]),
				 selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	for (int i = 0; i < nsel; i++) {
		if (selected[i] == STALECOL_BUILDID)
			so.scan_flags |= MS_STALE_BUILD_IDS;
		packages |= selected[i] == STALECOL_PACKAGE || selected[i] == STALECOL_VERSION ||
			    selected[i] == STALECOL_INSTALLED || selected[i] == STALECOL_PKGSRC ||
			    selected[i] == STALECOL_VERWHY || selected[i] == STALECOL_PKGNOTE;
	}
	/* The plan lists what a restart fixes: the stale files, whatever else is shown. */
	if (so.restart_plan)
		so.show |= (1u << MS_STALE_DELETED) | (1u << MS_STALE_REPLACED);
	ro = (struct ms_stale_report_opts){ .scan_flags = so.scan_flags, .show = so.show, .walk_ahead = true };
	if (load_ignore(so.ignore_file, &ignore) < 0)
		return STALE_EXIT_ERROR;
	if (ms_stale_ctx_new(ignore, &ctx, &err) < 0) {
		cli_error("%s", err.msg);
		ms_ignore_free(ignore);
		return STALE_EXIT_ERROR;
	}
	/* Packages are asked only of deleted and replaced files here. */
	ms_stale_ctx_no_ignored_proof(ctx);
	if (procscan_init(&ps, argc - optind, argv + optind, &so.cli, &status) < 0)
		goto out;
	status = CLI_EXIT_OK;
	packages = packages && !so.openmetrics && !so.restart_plan;
	/* Once a file is stale, a second thread reads the package lists while the walk goes on. */
	if (packages && ms_owner_open(NULL, &owner, &err) == MS_ERR_NOMEM) {
		cli_error("%s", err.msg);
		status = STALE_EXIT_ERROR;
		goto scanned;
	}
	ro.owner = owner;
	if (ms_stale_report_walk(&report, ctx, &ps.fleet, &ro, report_named, NULL, &err) < 0 ||
	    (packages && ms_stale_report_packages(&report, owner, &why, &err) < 0)) {
		cli_error("%s", err.msg);
		status = STALE_EXIT_ERROR;
	}
	if (status == CLI_EXIT_OK) {
		if (so.openmetrics)
			status = stale_print_openmetrics(&report, &ps, so.metrics_file);
		else if (so.restart_plan)
			status = restart_plan_print(&report, &so.cli);
		else
			status = stale_print_tree(&report, &so.cli, selected, (size_t)nsel, so.by_file);
		procscan_summary(&ps, "stale");
		/* What a rule left out is said, so that nothing is silent (a library under /tmp). */
		if (!(so.show & (1u << MS_STALE_IGNORED)) && report.totals.ignored_deleted && !so.openmetrics)
			cli_error("stale: %zu deleted %s ignored by the ignore rules (--show=ignored)",
				  report.totals.ignored_deleted, ms_plural(report.totals.ignored_deleted, "file", "files"));
	}
	if (status == CLI_EXIT_OK && procscan_failed(&ps))
		status = STALE_EXIT_ERROR;
	if (status == CLI_EXIT_OK && report.stale_procs)
		status = STALE_EXIT_FOUND;
scanned:
	ms_owner_close(owner);
	procscan_free(&ps);
out:
	ms_stale_report_free(&report);
	ms_stale_ctx_free(ctx);
	ms_ignore_free(ignore);
	return status;
}
