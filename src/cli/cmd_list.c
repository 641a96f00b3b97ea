/* `mapscope list PID`: every mapping of a process, filtered in the kernel. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/mapcols.h"

static const int list_defaults[] = {
	MAPCOL_START, MAPCOL_END, MAPCOL_SIZE, MAPCOL_PERMS, MAPCOL_OFFSET,
	MAPCOL_DEV, MAPCOL_INODE, MAPCOL_NAME,
};

static void list_usage(void)
{
	printf("Usage: mapscope list PID [options]\n\n"
	       "List the memory mappings of process PID.\n\n"
	       "Options:\n"
	       "      --file-backed      only mappings of files\n"
	       "      --perms=rwxs       only mappings with all these permissions\n"
	       "                         (r readable, w writable, x executable, s shared)\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Columns:\n");
	cli_columns_help(mapcols, MAPCOL_LIST_COUNT);
}

static const struct option list_options[] = {
	{ "file-backed", no_argument, NULL, CLI_OPT_FILE_BACKED },
	{ "perms", required_argument, NULL, CLI_OPT_PERMS },
	CLI_OUTPUT_LONG_OPTIONS,
};

int cmd_list(int argc, char **argv)
{
	struct cli_opts o;
	struct ms_maplist list = { 0 };
	struct ms_resinfo *res = NULL;
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct libscols_table *tb;
	struct ms_error err;
	int selected[CLI_MAX_COLUMNS];
	int nsel, rc, status;
	pid_t pid;

	status = cli_getopt(argc, argv, "list", list_options, list_usage, &o);
	if (status >= 0)
		return status;
	if (optind + 1 != argc)
		return cli_usage_error("list", "list: expected one PID");
	if (cli_parse_pid(argv[optind], &pid) < 0)
		return CLI_EXIT_USAGE;
	nsel = cli_columns_parse(o.columns, mapcols, MAPCOL_LIST_COUNT, list_defaults,
				 sizeof(list_defaults) / sizeof(list_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;

	status = cli_open_maps(pid, &o, &proc, &maps);
	if (status != CLI_EXIT_OK)
		return status;
	rc = ms_maps_collect(maps, o.filter, &list, &err);
	/* One walk for the whole list, and only when a column needs it. */
	if (mapcols_want_residency(selected, (size_t)nsel, 0)) {
		status = mapcols_residency(proc, &list, &res);
		if (status != CLI_EXIT_OK)
			goto out;
	}
	/* What was read before an exit is still worth showing. */
	tb = cli_table_new(&o, "mappings", mapcols, selected, (size_t)nsel);
	if (!tb) {
		status = CLI_EXIT_FAIL;
		goto out;
	}
	for (size_t i = 0; i < list.count; i++) {
		if (mapcols_add_line_res(tb, &o, selected, (size_t)nsel, &list.items[i], 0,
					 res ? &res[i] : NULL) < 0) {
			cli_error("pid %d: out of memory", (int)pid);
			status = CLI_EXIT_FAIL;
			break;
		}
	}
	if (status == CLI_EXIT_OK)
		status = cli_table_print(tb);
	scols_unref_table(tb);
	if (rc < 0) {
		cli_error("%s%s", err.msg, list.count ? " (the listing above is partial)" : "");
		status = ms_error_exit_status(err.code);
	} else if (ms_maps_stats(maps)->malformed_lines) {
		cli_error("pid %d: %zu malformed lines of maps text skipped", (int)pid,
			  ms_maps_stats(maps)->malformed_lines);
	}
out:
	free(res);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
