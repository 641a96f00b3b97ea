/*
 * `mapscope at PID ADDR...`: the mapping covering each address, the file
 * offset there and, with libdw, the symbol and source line.  Addresses come
 * from the arguments, or from standard input one per line.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/colindex.h"
#include "cli/colwriter.h"
#include "cli/mapcols.h"
#include "core/base/escape.h"
#ifdef HAVE_LIBDW
#include "core/elf/symbol_text.h"
#include "core/elf/symbols.h"
#endif

enum {
	ATCOL_SYMBOL = MAPCOL_COUNT,
	ATCOL_SOURCE,
	ATCOL_COUNT,
};

#ifdef HAVE_LIBDW
#define AT_NCOLS ATCOL_COUNT
#else
#define AT_NCOLS MAPCOL_COUNT
#endif

/* An address per line, at most this long; and this many in one run. */
#define AT_LINE_MAX 128
#define AT_ADDRS_MAX 1000000u
/* Rows printed at a time (a table on a terminal is aligned per chunk). */
#define AT_CHUNK 4096
/* Addresses asked of the symbol reader at once. */
#define AT_BATCH 1024
/* Files the symbol reader gave up on, named on stderr at most this often. */
#define AT_WARNINGS_MAX 20u

static const int at_defaults[] = {
	MAPCOL_ADDR, MAPCOL_START, MAPCOL_END, MAPCOL_PERMS, MAPCOL_FILEOFF, MAPCOL_NAME,
#ifdef HAVE_LIBDW
	ATCOL_SYMBOL, ATCOL_SOURCE,
#endif
};

static struct cli_column at_cols[ATCOL_COUNT];

static void at_columns_init(void)
{
	memcpy(at_cols, mapcols, MAPCOL_COUNT * sizeof(mapcols[0]));
	at_cols[ATCOL_SYMBOL] = (struct cli_column){ .name = "SYMBOL", .whint = 0.2, .flags = SCOLS_FL_NOEXTREMES, .json_type = SCOLS_JSON_STRING,
		.help = "symbol covering ADDR, as name+0xOFFSET (.symtab or .dynsym), escaped" };
	at_cols[ATCOL_SOURCE] = (struct cli_column){ .name = "SOURCE", .whint = 0.2, .flags = SCOLS_FL_NOEXTREMES, .json_type = SCOLS_JSON_STRING,
		.help = "source file:line of ADDR, when DWARF is there, escaped" };
}

size_t at_column_table(struct cli_column *out)
{
	at_columns_init();
	memcpy(out, at_cols, sizeof(at_cols));
	return ATCOL_COUNT;
}

static void at_usage(void)
{
	at_columns_init();
	printf("Usage: mapscope at PID [ADDR...] [options]\n\n"
	       "Show the mapping of process PID that covers each address ADDR (hex, 0x\n"
	       "optional) and the file offset that ADDR corresponds to.  Without ADDR\n"
	       "arguments, addresses are read from standard input, one per line.\n\n"
	       "Options:\n"
	       CLI_OUTPUT_OPTIONS_HELP
#ifdef HAVE_LIBDW
	       "      --debuginfod       fetch missing debug files from the servers in\n"
	       "                         DEBUGINFOD_URLS (off by default; at most %u s)\n"
#endif
	       "\n"
	       "Columns:\n"
#ifdef HAVE_LIBDW
	       , MS_SYMBOLS_DEBUGINFOD_SECONDS
#endif
	       );
	cli_columns_help(at_cols, AT_NCOLS);
#ifndef HAVE_LIBDW
	printf("\nSYMBOL and SOURCE are not available: mapscope was built without libdw.\n");
#endif
}

enum { AT_OPT_DEBUGINFOD = 300 };

static const struct option at_options[] = {
	{ "debuginfod", no_argument, NULL, AT_OPT_DEBUGINFOD },
	CLI_OUTPUT_LONG_OPTIONS,
};

#ifdef HAVE_LIBDW
typedef struct ms_symbol at_symbol;
#else
typedef int at_symbol; /* no symbols without libdw */
#endif

struct at_run {
	struct cli_opts o;
	int selected[CLI_MAX_COLUMNS];
	size_t nselected;
	pid_t pid;
	struct ms_maplist list;
	struct colw *w;             /* the streaming writer, or NULL: the table below */
	struct libscols_table *tb;
	struct cli_stream stream;
	size_t rows, count;
	int status;     /* the worst so far */
	bool debuginfod;
	bool want_symbols;
	/*
	 * Addresses checked and waiting for their rows, in two batches: the
	 * one being filled (cur), and the other, asked of the symbol reader
	 * (asked) while this one fills, and printed while the reader answers
	 * this one (flush).
	 */
	struct at_batch {
		size_t n;
		size_t idx[AT_BATCH];
		uint64_t addr[AT_BATCH];
		at_symbol *syms;    /* AT_BATCH answers, with symbols */
		int rc;             /* the ask's: < 0 when out of memory */
	} batch[2];
	unsigned cur;
	bool asked;
#ifdef HAVE_LIBDW
	struct ms_symbols *sym;
	uint64_t warned_inode;      /* the last file the reader gave up on */
	uint32_t warned_major, warned_minor;
	unsigned warnings;
#endif
};

static bool want_symbols(const int *selected, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (selected[i] >= MAPCOL_COUNT)
			return true;
	return false;
}

static void worse(struct at_run *r, int status)
{
	if (status != CLI_EXIT_OK && r->status == CLI_EXIT_OK)
		r->status = status;
}


#ifdef HAVE_LIBDW
/*
 * The symbol reader gave up on a file (a deadline, its memory limit), or
 * a replaced or deleted file's running copy could not be read: say so once
 * per file, the row still printed without the symbol.
 */
static void warn_reader(struct at_run *r, const struct ms_mapping *m, const char *why)
{
	char *name;

	if (m->inode == r->warned_inode && m->dev_major == r->warned_major &&
	    m->dev_minor == r->warned_minor)
		return;
	r->warned_inode = m->inode;
	r->warned_major = m->dev_major;
	r->warned_minor = m->dev_minor;
	if (r->warnings++ >= AT_WARNINGS_MAX)
		return;
	name = ms_escape_dup(m->name ? m->name : "", m->name ? m->name_len : 0, MS_ESC_ASCII);
	cli_error("pid %d: %s: %s", (int)r->pid, name ? name : "?", why);
	free(name);
}
#endif

#ifdef HAVE_LIBDW
/* Column i's symbol text into buf (size bytes); its length, 0 when unknown (JSON null). */
static size_t symbol_text(const struct at_run *r, size_t i, const struct ms_symbol *s, char *buf,
			  size_t size)
{
	if (r->selected[i] == ATCOL_SYMBOL && s->name)
		return ms_symbol_text_name(s, r->o.escape_flags, buf, size);
	if (r->selected[i] == ATCOL_SOURCE && s->file)
		return ms_symbol_text_source(s, r->o.escape_flags, buf, size);
	return 0;
}

/* What the reader could not read, said once per file. */
static void symbol_warn(struct at_run *r, const struct ms_symbol *s)
{
	if (s->why && (s->tell || !strncmp(s->why, "symbols: ", 9)) && s->mapping >= 0)
		warn_reader(r, &r->list.items[s->mapping], s->why);
}
#endif

/* The SYMBOL or SOURCE cell: NULL data (JSON null) when unknown. */
static int add_symbol_cells(struct at_run *r, struct libscols_line *ln, const at_symbol *sym)
{
#ifdef HAVE_LIBDW
	symbol_warn(r, sym);
	for (size_t i = 0; i < r->nselected; i++) {
		size_t size = ms_symbol_text_bound(sym);
		char *text;

		if (r->selected[i] < MAPCOL_COUNT)
			continue;
		if (!(text = malloc(size)))
			return -1;
		if (!symbol_text(r, i, sym, text, size)) {
			free(text);
			continue;
		}
		if (scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
#else
	(void)r; (void)ln; (void)sym;
#endif
	return 0;
}

/* A row through the streaming writer: the same cells, written in place. */
static int write_row(struct at_run *r, const struct ms_mapping *m, uint64_t addr, const at_symbol *sym)
{
#ifdef HAVE_LIBDW
	if (r->want_symbols)
		symbol_warn(r, sym);
#else
	(void)sym;
#endif
	for (size_t i = 0; i < r->nselected; i++) {
		int col = r->selected[i];
		size_t max = col < MAPCOL_COUNT ? mapcols_cell_max(col, m) : 0;
		char *dst;

#ifdef HAVE_LIBDW
		if (col >= MAPCOL_COUNT)
			max = ms_symbol_text_bound(sym);
#endif
		if (!(dst = colw_cell_buf(r->w, max)))
			return -1;
		if (col < MAPCOL_COUNT) {
			size_t len = mapcols_render_to(&r->o, col, m, addr, NULL, dst);

			/* Every mapping column but the name is printable ASCII by construction. */
			if (col == MAPCOL_NAME)
				colw_cell_end(r->w, len);
			else
				colw_cell_end_width(r->w, len, len);
			continue;
		}
#ifdef HAVE_LIBDW
		colw_cell_end(r->w, symbol_text(r, i, sym, dst, max));
#endif
	}
	return colw_row_end(r->w);
}

static int add_row(struct at_run *r, const struct ms_mapping *m, uint64_t addr,
		   const at_symbol *sym)
{
	struct libscols_line *ln;

	if (r->w)
		return write_row(r, m, addr, sym);
	if (!(ln = scols_table_new_line(r->tb, NULL)))
		return -1;
	for (size_t i = 0; i < r->nselected; i++) {
		char *text;

		if (r->selected[i] >= MAPCOL_COUNT)
			continue;
		text = mapcols_render(&r->o, r->selected[i], m, addr);
		if (!text || scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
	return r->want_symbols ? add_symbol_cells(r, ln, sym) : 0;
}

/* The batch's rows, in order, its answers complete. */
static void print_batch(struct at_run *r, struct at_batch *b, int rc)
{
	for (size_t k = 0; k < b->n; k++) {
		if (rc < 0 || b->rc < 0 || add_row(r, &r->list.items[b->idx[k]], b->addr[k], &b->syms[k]) < 0) {
			cli_error("pid %d: out of memory", (int)r->pid);
			worse(r, CLI_EXIT_FAIL);
			break;
		}
		/* libsmartcols needs a JSON document whole; the writer chunks by itself. */
		if (++r->rows % AT_CHUNK == 0 && !r->o.json && !r->w)
			worse(r, cli_stream_chunk(&r->stream, r->tb));
	}
	b->n = 0;
}

/* The symbol reader's answers to the batch asked; 0, or MS_ERR_NOMEM. */
static int take(struct at_run *r)
{
	if (!r->asked)
		return 0;
	r->asked = false;
#ifdef HAVE_LIBDW
	return ms_symbols_take(r->sym);
#else
	return 0;
#endif
}

/*
 * The current batch is full (or the input ended, last): the symbol reader
 * is asked about all of it in one round trip (a lookup each would cost two
 * context switches), and the batch asked before is printed while the
 * reader answers.  Every batch is printed, in order, once its answers
 * are all in: the last one after waiting for them.
 */
static void flush(struct at_run *r, bool last)
{
	struct at_batch *b = &r->batch[r->cur], *prev = &r->batch[r->cur ^ 1];
	int rc = take(r);

#ifdef HAVE_LIBDW
	if (r->want_symbols && r->sym && b->n) {
		unsigned what = 0;

		for (size_t i = 0; i < r->nselected; i++)
			what |= r->selected[i] == ATCOL_SYMBOL ? MS_SYMBOLS_NAME :
				r->selected[i] == ATCOL_SOURCE ? MS_SYMBOLS_SOURCE : 0;
		b->rc = ms_symbols_ask(r->sym, b->addr, b->n, what, b->syms);
		r->asked = b->rc == 0;
	}
#endif
	print_batch(r, prev, rc);
	r->cur ^= 1;
	if (last)
		print_batch(r, b, take(r));
}

/* One address: a row, or a message when nothing covers it. */
static void at_one(struct at_run *r, const char *text)
{
	uint64_t addr;
	size_t idx;

	if (r->count++ >= AT_ADDRS_MAX) {
		if (r->count == AT_ADDRS_MAX + 1)
			cli_error("more than %u addresses: the rest are ignored", AT_ADDRS_MAX);
		worse(r, CLI_EXIT_FAIL);
		return;
	}
	if (ms_parse_addr(text, &addr) < 0) {
		char *safe = ms_escape_dup(text, strlen(text), MS_ESC_ASCII);

		cli_error("'%s' is not a hex address", safe ? safe : "?");
		free(safe);
		worse(r, CLI_EXIT_USAGE);
		return;
	}
	idx = ms_maplist_lower_bound(&r->list, addr);
	if (idx >= r->list.count || r->list.items[idx].start > addr) {
		cli_error("pid %d: no mapping covers address 0x%" PRIx64, (int)r->pid, addr);
		worse(r, CLI_EXIT_FAIL);
		return;
	}
	{
		struct at_batch *b = &r->batch[r->cur];

		b->idx[b->n] = idx;
		b->addr[b->n++] = addr;
		if (b->n == AT_BATCH)
			flush(r, false);
	}
}

/* Addresses from standard input, one per line; blank lines are skipped. */
static void at_stdin(struct at_run *r)
{
	char line[AT_LINE_MAX];

	while (fgets(line, sizeof(line), stdin)) {
		size_t len = strlen(line);
		char *s = line, *e;

		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			int c;

			while ((c = getchar()) != EOF && c != '\n')
				;
			cli_error("an input line longer than %d bytes is not an address", AT_LINE_MAX - 2);
			worse(r, CLI_EXIT_USAGE);
			continue;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (*s)
			at_one(r, s);
	}
}

static int at_own_option(void *ctx, int opt, const char *arg)
{
	struct at_run *r = ctx;

	(void)arg;
	if (opt != AT_OPT_DEBUGINFOD)
		return 0;
	r->debuginfod = true;
	return 1;
}

static int at_prepare(struct at_run *r, struct ms_proc *proc, struct ms_maps *maps)
{
	struct ms_error err;
	int rc;

	ms_maps_set_fields(maps, mapcols_fields(r->selected, r->nselected) |
				 (r->want_symbols ? MS_FIELD_NAME : 0));
	rc = ms_maps_collect(maps, 0, &r->list, &err);
	if (rc < 0 && rc != MS_END) {
		cli_error_pid(r->pid, &err);
		return ms_error_exit_status(err.code);
	}
#ifdef HAVE_LIBDW
	if (r->want_symbols) {
		struct ms_symbols_opts so = { .debuginfod = r->debuginfod };

		if (r->debuginfod && ms_symbols_debuginfod_check(&err) < 0)
			cli_error("--debuginfod: %s: nothing is fetched", err.msg);
		if (ms_symbols_new(proc, &r->list, &so, &r->sym, &err) < 0) {
			cli_error_pid(r->pid, &err);
			return ms_error_exit_status(err.code);
		}
		if (!(r->batch[0].syms = calloc(AT_BATCH, sizeof(at_symbol))) ||
		    !(r->batch[1].syms = calloc(AT_BATCH, sizeof(at_symbol)))) {
			cli_error("pid %d: out of memory", (int)r->pid);
			return CLI_EXIT_FAIL;
		}
	}
#else
	(void)proc;
#endif
	rc = cli_writer_new(&r->o, "mappings", at_cols, r->selected, r->nselected, AT_CHUNK, &r->w);
	if (rc != CLI_EXIT_OK || r->w)
		return rc;
	r->tb = cli_table_new(&r->o, "mappings", at_cols, r->selected, r->nselected);
	if (!r->tb)
		return CLI_EXIT_FAIL;
	cli_stream_init(&r->stream, &r->o, r->nselected);
	return CLI_EXIT_OK;
}

int cmd_at(int argc, char **argv)
{
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct at_run r = { .status = CLI_EXIT_OK };
	int nsel, status;

	at_columns_init();
	status = cli_getopt_own(argc, argv, "at", at_options, at_usage, &r.o, at_own_option, &r);
	if (status >= 0)
		return status;
	if (r.o.list_columns)
		return cli_columns_list(&r.o, at_cols, ATCOL_COUNT);
	if (optind >= argc)
		return cli_usage_error("at", "at: expected PID and ADDR");
	if (cli_parse_pid(argv[optind], &r.pid) < 0)
		return CLI_EXIT_USAGE;
	/* Every name is known, so that a build without libdw says why SYMBOL is not there. */
	nsel = cli_columns_parse(r.o.columns, at_cols, ATCOL_COUNT, at_defaults,
				 sizeof(at_defaults) / sizeof(at_defaults[0]), r.selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	r.nselected = (size_t)nsel;
	r.want_symbols = want_symbols(r.selected, r.nselected);
#ifndef HAVE_LIBDW
	if (r.want_symbols)
		return cli_usage_error("at", "at: SYMBOL and SOURCE are not available: mapscope was built without libdw");
	if (r.debuginfod)
		return cli_usage_error("at", "at: --debuginfod: mapscope was built without libdw");
#endif

	status = cli_open_maps(r.pid, &r.o, &proc, &maps);
	if (status == CLI_EXIT_OK)
		status = at_prepare(&r, proc, maps);
	if (status == CLI_EXIT_OK) {
		if (optind + 1 == argc)
			at_stdin(&r);
		for (int i = optind + 1; i < argc; i++)
			at_one(&r, argv[i]);
		flush(&r, true);
		if (r.w) {
			/* As libsmartcols: no rows, nothing printed (not even JSON's empty array). */
			if (r.rows)
				worse(&r, cli_stdout_done(colw_finish(r.w) < 0));
		} else if (!r.o.json && r.stream.chunks) {
			worse(&r, cli_stream_chunk(&r.stream, r.tb));
			worse(&r, cli_stream_end(&r.stream));
		} else if (r.rows) {
			worse(&r, cli_table_print(r.tb));
		}
		status = r.status;
	}
	if (r.tb)
		scols_unref_table(r.tb);
	colw_free(r.w);
#ifdef HAVE_LIBDW
	ms_symbols_free(r.sym);
	free(r.batch[0].syms);
	free(r.batch[1].syms);
#endif
	ms_maplist_free(&r.list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
