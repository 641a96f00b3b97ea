/* `mapscope list PID`: every mapping of a process, filtered in the kernel. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/colwriter.h"
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

/*
 * Where the rows go: the streaming writer, or a libsmartcols table printed
 * in chunks (on a terminal, whose width it fits, or when asked to).
 */
struct list_out {
	struct colw *w;
	struct libscols_table *tb;
	struct cli_stream stream;
};

static int list_out_row(struct list_out *out, const struct cli_opts *o, const int *selected,
			size_t nselected, const struct ms_mapping *m, const struct ms_resinfo *res)
{
	if (!out->w)
		return mapcols_add_line_res(out->tb, o, selected, nselected, m, 0, res);
	for (size_t i = 0; i < nselected; i++) {
		char *dst = colw_cell_buf(out->w, mapcols_cell_max(selected[i], m));

		if (!dst)
			return -1;
		colw_cell_end(out->w, mapcols_render_to(o, selected[i], m, 0, res, dst));
	}
	return colw_row_end(out->w);
}

/* After a window of rows: libsmartcols prints them as one chunk. */
static int list_out_window(struct list_out *out, bool last)
{
	if (out->w || (last && !out->stream.chunks))
		return CLI_EXIT_OK;
	return cli_stream_chunk(&out->stream, out->tb);
}

static int list_out_finish(struct list_out *out)
{
	if (out->w)
		return cli_stdout_done(colw_finish(out->w) < 0);
	return out->stream.chunks ? cli_stream_end(&out->stream) : cli_table_print(out->tb);
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
	struct ms_residency *res = NULL;
	struct ms_resinfo *resinfo = NULL;
	struct list_out out = { 0 };
	size_t chunk, shown = 0;
	uint64_t addr = 0;
	bool last;
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_error err;
	int selected[CLI_MAX_COLUMNS];
	int nsel, rc, status, wrote;
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
	if (mapcols_want_residency(selected, (size_t)nsel, 0)) {
		status = open_residency(proc, &res);
		if (status != CLI_EXIT_OK)
			goto out;
	}
	ms_maps_set_fields(maps, mapcols_fields(selected, (size_t)nsel));
	/*
	 * Long listings go out in chunks, so memory stays bounded whatever the
	 * size of the process.  The text backend reads the whole file per
	 * query, so it takes one window, and prints as one table.
	 */
	chunk = ms_maps_backend(maps) != MS_BACKEND_IOCTL ? SIZE_MAX : LIST_CHUNK;
	status = cli_writer_new(&o, "mappings", mapcols, selected, (size_t)nsel, chunk, &out.w);
	if (status != CLI_EXIT_OK)
		goto out;
	if (!out.w) {
		out.tb = cli_table_new(&o, "mappings", mapcols, selected, (size_t)nsel);
		if (!out.tb) {
			status = CLI_EXIT_FAIL;
			goto out;
		}
		/* libsmartcols needs the whole JSON document at once. */
		if (o.json)
			chunk = SIZE_MAX;
	}
	cli_stream_init(&out.stream, &o, (size_t)nsel);
	for (;;) {
		rc = ms_maps_window(maps, addr, o.filter, chunk, &list, &err);
		if (res && list.count && query_residency(res, proc, &list, &resinfo) < 0) {
			status = CLI_EXIT_FAIL;
			break;
		}
		for (size_t i = 0; i < list.count; i++) {
			if (list_out_row(&out, &o, selected, (size_t)nsel, &list.items[i],
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
		wrote = list_out_window(&out, last);
		if (status == CLI_EXIT_OK)
			status = wrote;
		ms_maplist_clear(&list);
		free(resinfo);
		resinfo = NULL;
		if (last || status != CLI_EXIT_OK)
			break;
	}
	if (status == CLI_EXIT_OK)
		status = list_out_finish(&out);
	if (rc < 0) {
		cli_error("%s%s", err.msg, shown ? " (the listing above is partial)" : "");
		status = ms_error_exit_status(err.code);
	} else if (ms_maps_stats(maps)->malformed_lines) {
		cli_error("pid %d: %zu malformed lines of maps text skipped", (int)pid,
			  ms_maps_stats(maps)->malformed_lines);
	}
out:
	colw_free(out.w);
	if (out.tb)
		scols_unref_table(out.tb);
	free(resinfo);
	ms_residency_close(res);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
