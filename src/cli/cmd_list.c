/* `mapscope list PID`: every mapping of a process, filtered in the kernel. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/filecols.h"
#include "cli/mapcols.h"
#include "core/residency.h"

/* Lines a long listing holds at once before it prints them. */
#define LIST_CHUNK 1024

static int open_residency(struct ms_proc *proc, struct ms_residency **res)
{
	struct ms_error err;

	if (ms_residency_open(proc, NULL, res, &err) < 0) {
		cli_error_pid(ms_proc_pid(proc), &err);
		return ms_error_exit_status(err.code);
	}
	if (ms_residency_backend(*res) == MS_RES_SMAPS)
		cli_error("pid %d: no PAGEMAP_SCAN (Linux 6.7): RSS and SWAP read from smaps",
			  (int)ms_proc_pid(proc));
	return CLI_EXIT_OK;
}

/* One scan over the chunk's range; 0, or -1 with the message printed. */
static int query_residency(struct ms_residency *res, struct ms_proc *proc,
			   const struct ms_maplist *list, struct ms_resinfo **out)
{
	struct ms_error err;

	*out = calloc(list->count, sizeof(**out));
	if (!*out) {
		cli_error("pid %d: out of memory", (int)ms_proc_pid(proc));
		return -1;
	}
	if (ms_residency_query(res, list->items, list->count, *out, &err) < 0) {
		cli_error_pid(ms_proc_pid(proc), &err);
		return -1;
	}
	return 0;
}

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
	       "      --by-file          one line per file, and per kind of anonymous memory\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Columns:\n");
	cli_columns_help(mapcols, MAPCOL_LIST_COUNT);
	filecols_help();
}

enum { OPT_BY_FILE = CLI_OPT_HELP + 1 };

static int list_own_option(void *ctx, int opt, const char *arg)
{
	(void)arg;
	if (opt != OPT_BY_FILE)
		return 0;
	*(bool *)ctx = true;
	return 1;
}

static const struct option list_options[] = {
	{ "file-backed", no_argument, NULL, CLI_OPT_FILE_BACKED },
	{ "perms", required_argument, NULL, CLI_OPT_PERMS },
	{ "by-file", no_argument, NULL, OPT_BY_FILE },
	CLI_OUTPUT_LONG_OPTIONS,
};

int cmd_list(int argc, char **argv)
{
	struct cli_opts o;
	struct ms_maplist list = { 0 };
	struct ms_residency *res = NULL;
	struct ms_resinfo *resinfo = NULL;
	struct cli_stream stream;
	size_t chunk, shown = 0;
	uint64_t addr = 0;
	bool last;
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct libscols_table *tb;
	struct ms_error err;
	int selected[CLI_MAX_COLUMNS];
	int nsel, rc, status;
	bool by_file = false;
	pid_t pid;

	status = cli_getopt_own(argc, argv, "list", list_options, list_usage, &o, list_own_option,
				&by_file);
	if (status >= 0)
		return status;
	if (optind + 1 != argc)
		return cli_usage_error("list", "list: expected one PID");
	if (cli_parse_pid(argv[optind], &pid) < 0)
		return CLI_EXIT_USAGE;
	if (by_file)
		return cmd_list_by_file(pid, &o);
	nsel = cli_columns_parse(o.columns, mapcols, MAPCOL_LIST_COUNT, list_defaults,
				 sizeof(list_defaults) / sizeof(list_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;

	status = cli_open_maps(pid, &o, &proc, &maps);
	if (status != CLI_EXIT_OK)
		return status;
	if (mapcols_want_residency(selected, (size_t)nsel, 0)) {
		status = open_residency(proc, &res);
		if (status != CLI_EXIT_OK)
			goto out;
	}
	tb = cli_table_new(&o, "mappings", mapcols, selected, (size_t)nsel);
	if (!tb) {
		status = CLI_EXIT_FAIL;
		goto out;
	}
	cli_stream_init(&stream, &o, (size_t)nsel);
	ms_maps_set_fields(maps, mapcols_fields(selected, (size_t)nsel));
	/*
	 * Long listings go out in chunks, so memory stays bounded whatever the
	 * size of the process.  JSON needs the whole document at once, and the
	 * text backend reads the whole file per query, so both take one chunk.
	 */
	chunk = o.json || ms_maps_backend(maps) != MS_BACKEND_IOCTL ? SIZE_MAX : LIST_CHUNK;
	for (;;) {
		rc = ms_maps_window(maps, addr, o.filter, chunk, &list, &err);
		if (res && list.count && query_residency(res, proc, &list, &resinfo) < 0) {
			status = CLI_EXIT_FAIL;
			break;
		}
		for (size_t i = 0; i < list.count; i++) {
			if (mapcols_add_line_res(tb, &o, selected, (size_t)nsel, &list.items[i], 0,
						 resinfo ? &resinfo[i] : NULL) < 0) {
				cli_error("pid %d: out of memory", (int)pid);
				status = CLI_EXIT_FAIL;
				break;
			}
		}
		shown += list.count;
		last = rc < 0 || list.count < chunk || status != CLI_EXIT_OK;
		if (!last && list.count)
			addr = list.items[list.count - 1].end;
		/* What was read before an exit is still worth showing. */
		if (!last || stream.chunks)
			status = cli_stream_chunk(&stream, tb);
		ms_maplist_clear(&list);
		free(resinfo);
		resinfo = NULL;
		if (last || status != CLI_EXIT_OK)
			break;
	}
	if (status == CLI_EXIT_OK)
		status = stream.chunks ? cli_stream_end(&stream) : cli_table_print(tb);
	scols_unref_table(tb);
	if (rc < 0) {
		cli_error("%s%s", err.msg, shown ? " (the listing above is partial)" : "");
		status = ms_error_exit_status(err.code);
	} else if (ms_maps_stats(maps)->malformed_lines) {
		cli_error("pid %d: %zu malformed lines of maps text skipped", (int)pid,
			  ms_maps_stats(maps)->malformed_lines);
	}
out:
	free(resinfo);
	ms_residency_close(res);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
