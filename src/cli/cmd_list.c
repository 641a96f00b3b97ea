/* `mapscope list PID`: every mapping of a process, filtered in the kernel. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/colwriter.h"
#include "cli/filecols.h"
#include "cli/listcols.h"
#include "cli/mapcols.h"
#include "core/base/units.h"
#include "core/resid/residency.h"

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
 * One listing: mappings arrive one at a time from the engine's walk and are
 * printed in batches of `chunk` (residency is one scan per batch), either
 * by the streaming writer or through a libsmartcols table printed in
 * chunks (on a terminal, whose width it fits, or when asked to).
 */
struct list_run {
	const struct cli_opts *o;
	const int *selected;
	size_t nselected;
	struct ms_proc *proc;
	struct ms_residency *res;
	struct colw *w;
	struct libscols_table *tb;
	struct cli_stream stream;
	struct ms_maplist batch;
	size_t chunk;
	size_t shown;
	int status;
	struct ms_error *err;
	bool total_row;            /* --total, and the walk ended well: print it */
	uint64_t total_size, total_rss, total_swap;
	char json_tail[512];       /* -J --total: the "total" object */
};

static int add_row(struct list_run *r, const struct ms_mapping *m, const struct ms_resinfo *res)
{
	if (!r->w)
		return mapcols_add_line_res(r->tb, r->o, r->selected, r->nselected, m, 0, res);
	for (size_t i = 0; i < r->nselected; i++) {
		int col = r->selected[i];
		char *dst = colw_cell_buf(r->w, mapcols_cell_max(col, m));
		size_t len;

		if (!dst)
			return -1;
		len = mapcols_render_to(r->o, col, m, 0, res, dst);
		/* Every column but the name is printable ASCII by construction. */
		if (col == MAPCOL_NAME)
			colw_cell_end(r->w, len);
		else
			colw_cell_end_width(r->w, len, len);
	}
	return colw_row_end(r->w);
}

/* A summed column's total as its cells show sizes; false for the others. */
static bool total_cell(const struct list_run *r, int col, char *buf, size_t size)
{
	uint64_t v = col == MAPCOL_SIZE ? r->total_size : col == MAPCOL_RSS ? r->total_rss :
		     col == MAPCOL_SWAP ? r->total_swap : 0;

	if (col != MAPCOL_SIZE && col != MAPCOL_RSS && col != MAPCOL_SWAP)
		return false;
	ms_format_size(v, r->o->bytes, buf, size);
	return true;
}

/*
 * The last line, as pmap -x prints it: SIZE, RSS and SWAP summed, "total"
 * in NAME (else in the first column that is not summed), the rest empty.
 * JSON gets a "total" object after the array instead (json_tail).
 */
static int add_total(struct list_run *r)
{
	struct libscols_line *ln = NULL;
	size_t label = r->nselected;
	char cell[32];

	if (r->o->json) {
		char size[32], rss[32], swap[32];
		const char *q = r->o->bytes ? "" : "\"";

		ms_format_size(r->total_size, r->o->bytes, size, sizeof(size));
		ms_format_size(r->total_rss, r->o->bytes, rss, sizeof(rss));
		ms_format_size(r->total_swap, r->o->bytes, swap, sizeof(swap));
		snprintf(r->json_tail, sizeof(r->json_tail),
			 "   \"total\": {\n      \"mappings\": %zu,\n      \"size\": %s%s%s,\n"
			 "      \"rss\": %s%s%s,\n      \"swap\": %s%s%s\n   }\n",
			 r->shown + r->batch.count, q, size, q, q, rss, q, q, swap, q);
		return 0;
	}
	for (size_t i = 0; i < r->nselected; i++)
		if (r->selected[i] == MAPCOL_NAME ||
		    (label == r->nselected && !total_cell(r, r->selected[i], cell, sizeof(cell))))
			label = i;
	if (!r->w && !(ln = scols_table_new_line(r->tb, NULL)))
		return -1;
	for (size_t i = 0; i < r->nselected; i++) {
		if (!total_cell(r, r->selected[i], cell, sizeof(cell)))
			snprintf(cell, sizeof(cell), "%s", i == label ? "total" : "");
		if (r->w ? colw_cell(r->w, cell, strlen(cell)) < 0 :
			   scols_line_set_data(ln, i, cell) < 0)
			return -1;
	}
	return r->w ? colw_row_end(r->w) : 0;
}

/*
 * libsmartcols prints the JSON document whole: print it to memory and put
 * the "total" object after the array, as the streaming writer does.
 */
static int print_json_tail(struct list_run *r)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);
	int rc;

	if (!mem) {
		cli_error("out of memory");
		return CLI_EXIT_FAIL;
	}
	scols_table_set_stream(r->tb, mem);
	rc = scols_print_table(r->tb);
	if (fclose(mem) != 0 || rc != 0 || len < 3 || strcmp(doc + len - 3, "\n}\n")) {
		free(doc);
		cli_error("out of memory");
		return CLI_EXIT_FAIL;
	}
	fwrite(doc, 1, len - 3, stdout);
	printf(",\n%s}\n", r->json_tail);
	free(doc);
	return cli_stdout_done(0);
}

/* Print the batch; 0, or -1 with r->status set. */
static int flush_batch(struct list_run *r, bool last)
{
	struct ms_resinfo *resinfo = NULL;
	int wrote = CLI_EXIT_OK;

	if (r->res && r->batch.count && query_residency(r->res, r->proc, &r->batch, &resinfo) < 0)
		r->status = CLI_EXIT_FAIL;
	for (size_t i = 0; r->status == CLI_EXIT_OK && i < r->batch.count; i++) {
		r->total_size += ms_mapping_size(&r->batch.items[i]);
		r->total_rss += resinfo ? resinfo[i].rss : 0;
		r->total_swap += resinfo ? resinfo[i].swap : 0;
		if (add_row(r, &r->batch.items[i], resinfo ? &resinfo[i] : NULL) < 0) {
			cli_error("pid %d: out of memory", (int)ms_proc_pid(r->proc));
			r->status = CLI_EXIT_FAIL;
		}
	}
	if (last && r->total_row && r->status == CLI_EXIT_OK && add_total(r) < 0) {
		cli_error("pid %d: out of memory", (int)ms_proc_pid(r->proc));
		r->status = CLI_EXIT_FAIL;
	}
	r->shown += r->batch.count;
	ms_maplist_clear(&r->batch);
	free(resinfo);
	/* What was read before a failure is still worth showing. */
	if (!r->w && (!last || r->stream.chunks))
		wrote = cli_stream_chunk(&r->stream, r->tb);
	if (r->status == CLI_EXIT_OK)
		r->status = wrote;
	return r->status == CLI_EXIT_OK ? 0 : -1;
}

static int take_mapping(void *ctx, struct ms_mapping *m)
{
	struct list_run *r = ctx;

	if (ms_maplist_push(&r->batch, m) < 0)
		return ms_error_set(r->err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
				    (int)ms_proc_pid(r->proc));
	if (r->batch.count < r->chunk)
		return 0;
	return flush_batch(r, false) < 0 ? 1 : 0;
}

static int finish(struct list_run *r)
{
	if (r->w) {
		if (r->json_tail[0])
			colw_set_json_tail(r->w, r->json_tail);
		return cli_stdout_done(colw_finish(r->w) < 0);
	}
	if (r->json_tail[0])
		return print_json_tail(r);
	return r->stream.chunks ? cli_stream_end(&r->stream) : cli_table_print(r->tb);
}

/* The writer, or else the libsmartcols table; an exit status. */
static int open_output(struct list_run *r)
{
	int status = cli_writer_new(r->o, "mappings", mapcols, r->selected, r->nselected,
				    r->chunk, &r->w);

	if (status != CLI_EXIT_OK || r->w)
		return status;
	r->tb = cli_table_new(r->o, "mappings", mapcols, r->selected, r->nselected);
	if (!r->tb)
		return CLI_EXIT_FAIL;
	/* libsmartcols needs the whole JSON document at once. */
	if (r->o->json)
		r->chunk = SIZE_MAX;
	cli_stream_init(&r->stream, r->o, r->nselected);
	return CLI_EXIT_OK;
}

static const int list_defaults[] = {
	MAPCOL_START, MAPCOL_END, MAPCOL_SIZE, MAPCOL_PERMS, MAPCOL_OFFSET,
	MAPCOL_DEV, MAPCOL_INODE, MAPCOL_NAME,
};

/* With --total, the sums it prints show in the default columns, as pmap -x shows RSS. */
static const int list_total_defaults[] = {
	MAPCOL_START, MAPCOL_END, MAPCOL_SIZE, MAPCOL_RSS, MAPCOL_SWAP, MAPCOL_PERMS,
	MAPCOL_OFFSET, MAPCOL_DEV, MAPCOL_INODE, MAPCOL_NAME,
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
	       "      --total            a last line with SIZE, RSS and SWAP summed (-J: a\n"
	       "                         \"total\" object); RSS and SWAP join the default columns\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Columns:\n");
	listcols_init();
	cli_columns_help(listcols, LISTCOL_COUNT);
	filecols_help();
}

enum { OPT_BY_FILE = CLI_OPT_HELP + 1, OPT_TOTAL };

struct list_flags {
	bool by_file;
	bool total;
};

static int list_own_option(void *ctx, int opt, const char *arg)
{
	struct list_flags *f = ctx;

	(void)arg;
	if (opt == OPT_BY_FILE)
		f->by_file = true;
	else if (opt == OPT_TOTAL)
		f->total = true;
	else
		return 0;
	return 1;
}

static const struct option list_options[] = {
	{ "file-backed", no_argument, NULL, CLI_OPT_FILE_BACKED },
	{ "perms", required_argument, NULL, CLI_OPT_PERMS },
	{ "by-file", no_argument, NULL, OPT_BY_FILE },
	{ "total", no_argument, NULL, OPT_TOTAL },
	CLI_OUTPUT_LONG_OPTIONS,
};

int cmd_list(int argc, char **argv)
{
	struct cli_opts o;
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_error err;
	struct list_run run = { 0 };
	int selected[CLI_MAX_COLUMNS];
	int nsel, rc = 0, status;
	struct list_flags flags = { false, false };
	pid_t pid;

	status = cli_getopt_own(argc, argv, "list", list_options, list_usage, &o, list_own_option,
				&flags);
	if (status >= 0)
		return status;
	listcols_init();
	if (o.list_columns)
		return flags.by_file ? cli_columns_list(&o, filecols, FILECOL_COUNT)
				     : cli_columns_list(&o, listcols, LISTCOL_COUNT);
	if (optind + 1 != argc)
		return cli_usage_error("list", "list: expected one PID");
	if (cli_parse_pid(argv[optind], &pid) < 0)
		return CLI_EXIT_USAGE;
	if (flags.by_file && flags.total)
		return cli_usage_error("list", "list: --total does not apply to --by-file");
	if (flags.by_file)
		return cmd_list_by_file(pid, &o);
	if (flags.total)
		nsel = cli_columns_parse(o.columns, listcols, LISTCOL_COUNT, list_total_defaults,
					 sizeof(list_total_defaults) / sizeof(list_total_defaults[0]),
					 selected, CLI_MAX_COLUMNS);
	else
		nsel = cli_columns_parse(o.columns, listcols, LISTCOL_COUNT, list_defaults,
					 sizeof(list_defaults) / sizeof(list_defaults[0]), selected,
					 CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	if (listcols_want_facts(selected, (size_t)nsel)) {
		if (flags.total)
			return cli_usage_error("list", "list: --total does not apply to the columns of a mapping's file");
		return cmd_list_facts(pid, &o, selected, (size_t)nsel);
	}

	status = cli_open_maps(pid, &o, &proc, &maps);
	if (status != CLI_EXIT_OK)
		return status;
	run.o = &o;
	run.selected = selected;
	run.nselected = (size_t)nsel;
	run.proc = proc;
	run.err = &err;
	/* The total sums RSS and SWAP whatever the columns (-J prints them all). */
	if (flags.total || mapcols_want_residency(selected, (size_t)nsel, 0)) {
		status = open_residency(proc, &run.res);
		if (status != CLI_EXIT_OK)
			goto out;
	}
	ms_maps_set_fields(maps, mapcols_fields(selected, (size_t)nsel));
	/*
	 * Long listings go out in chunks, so memory stays bounded whatever the
	 * size of the process.  The text backend, asked for by name, prints
	 * one table, as it always has.
	 */
	run.chunk = ms_maps_backend(maps) != MS_BACKEND_IOCTL ? SIZE_MAX : LIST_CHUNK;
	status = open_output(&run);
	if (status != CLI_EXIT_OK)
		goto out;
	rc = ms_maps_walk(maps, 0, o.filter, take_mapping, &run, &err);
	/* A partial listing gets no total: it would not be the process's. */
	run.total_row = flags.total && rc >= 0;
	if (run.status == CLI_EXIT_OK)
		flush_batch(&run, true);
	status = run.status;
	if (status == CLI_EXIT_OK)
		status = finish(&run);
	if (rc < 0) {
		cli_error("%s%s", err.msg, run.shown ? " (the listing above is partial)" : "");
		status = ms_error_exit_status(err.code);
	} else if (ms_maps_stats(maps)->malformed_lines) {
		cli_error("pid %d: %zu malformed %s of maps text skipped", (int)pid,
			  ms_maps_stats(maps)->malformed_lines,
			  ms_plural(ms_maps_stats(maps)->malformed_lines, "line", "lines"));
	}
out:
	colw_free(run.w);
	if (run.tb)
		scols_unref_table(run.tb);
	ms_maplist_free(&run.batch);
	ms_residency_close(run.res);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
