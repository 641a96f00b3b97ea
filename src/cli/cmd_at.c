/* `mapscope at PID ADDR`: the mapping covering ADDR and the file offset there. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/mapcols.h"
#include "core/escape.h"

static const int at_defaults[] = {
	MAPCOL_ADDR, MAPCOL_START, MAPCOL_END, MAPCOL_PERMS, MAPCOL_FILEOFF, MAPCOL_NAME,
};

static void at_usage(void)
{
	printf("Usage: mapscope at PID ADDR [options]\n\n"
	       "Show the mapping of process PID that covers address ADDR (hex, 0x optional)\n"
	       "and the file offset that ADDR corresponds to.\n\n"
	       "Options:\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Columns:\n");
	cli_columns_help(mapcols, MAPCOL_COUNT);
}

static const struct option at_options[] = {
	CLI_OUTPUT_LONG_OPTIONS,
};

int cmd_at(int argc, char **argv)
{
	struct cli_opts o;
	struct ms_mapping m = { 0 };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct libscols_table *tb;
	struct ms_error err;
	int selected[CLI_MAX_COLUMNS];
	int nsel, rc, status;
	uint64_t addr;
	pid_t pid;

	status = cli_getopt(argc, argv, "at", at_options, at_usage, &o);
	if (status >= 0)
		return status;
	if (optind + 2 != argc)
		return cli_usage_error("at", "at: expected PID and ADDR");
	if (cli_parse_pid(argv[optind], &pid) < 0)
		return CLI_EXIT_USAGE;
	if (ms_parse_addr(argv[optind + 1], &addr) < 0) {
		char *safe = ms_escape_dup(argv[optind + 1], strlen(argv[optind + 1]), MS_ESC_ASCII);

		cli_error("'%s' is not a hex address", safe ? safe : "?");
		free(safe);
		return CLI_EXIT_USAGE;
	}
	nsel = cli_columns_parse(o.columns, mapcols, MAPCOL_COUNT, at_defaults,
				 sizeof(at_defaults) / sizeof(at_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;

	status = cli_open_maps(pid, &o, &proc, &maps);
	if (status != CLI_EXIT_OK)
		return status;
	ms_maps_set_fields(maps, mapcols_fields(selected, (size_t)nsel));
	rc = ms_maps_at(maps, addr, &m, &err);
	if (rc == MS_END) {
		cli_error("pid %d: no mapping covers address 0x%" PRIx64, (int)pid, addr);
		status = CLI_EXIT_FAIL;
	} else if (rc < 0) {
		cli_error("%s", err.msg);
		status = ms_error_exit_status(err.code);
	} else {
		tb = cli_table_new(&o, "mappings", mapcols, selected, (size_t)nsel);
		if (!tb || mapcols_add_line(tb, &o, selected, (size_t)nsel, &m, addr) < 0) {
			cli_error("pid %d: out of memory", (int)pid);
			status = CLI_EXIT_FAIL;
		} else {
			status = cli_table_print(tb);
		}
		scols_unref_table(tb);
	}
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
