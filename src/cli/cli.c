#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <langinfo.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/colindex.h"
#include "cli/colwriter.h"
#include "core/base/escape.h"
#include "core/base/units.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("mapscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_error_pid(pid_t pid, const struct ms_error *err)
{
	/* File errors name the file; add the process, as every message does. */
	if (!strncmp(err->msg, "pid ", 4))
		cli_error("%s", err->msg);
	else
		cli_error("pid %d: %s", (int)pid, err->msg);
}

void cli_error_output(pid_t pid, const struct ms_error *err)
{
	/* safewrite.h: this pair is only its refusal of another owner's file. */
	if (err->code == MS_ERR_NOACCESS && err->sys_errno == EPERM)
		cli_error("pid %d: %s (--force writes it anyway)", (int)pid, err->msg);
	else
		cli_error_pid(pid, err);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("mapscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'mapscope %s --help'.\n", cmd);
	return CLI_EXIT_USAGE;
}

void cli_set_escape_flags(struct cli_opts *o)
{
	const char *cs = nl_langinfo(CODESET);

	o->escape_flags = cs && !strcasecmp(cs, "UTF-8") ? 0 : MS_ESC_ASCII;
}

int cli_getopt(int argc, char **argv, const char *cmd, const struct option *longopts,
	       void (*usage)(void), struct cli_opts *o)
{
	return cli_getopt_own(argc, argv, cmd, longopts, usage, o, NULL, NULL);
}

int cli_getopt_own(int argc, char **argv, const char *cmd, const struct option *longopts,
		   void (*usage)(void), struct cli_opts *o,
		   int (*own)(void *ctx, int opt, const char *arg), void *ctx)
{
	int opt;

	cli_opts_init(o);
	cli_set_command(cmd);
	while ((opt = getopt_long(argc, argv, "o:JrnbhH", longopts, NULL)) != -1) {
		int rc;

		if (opt == 'h') {
			usage();
			return cli_stdout_done(0);
		}
		rc = cli_opts_common(o, opt, optarg);
		if (rc == 0 && own)
			rc = own(ctx, opt, optarg);
		if (rc < 0)
			return CLI_EXIT_USAGE;
		if (rc == 0) {
			fprintf(stderr, "Try 'mapscope %s --help'.\n", cmd);
			return CLI_EXIT_USAGE;
		}
	}
	cli_set_escape_flags(o);
	return -1;
}

void cli_opts_init(struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = MS_BACKEND_AUTO;
}

int cli_opts_common(struct cli_opts *o, int opt, const char *arg)
{
	char bad = 0;
	unsigned perms;

	switch (opt) {
	case 'o': o->columns = arg; return 1;
	case 'J':
		/* JSON sizes are numbers of bytes, as lsblk -J -b prints them. */
		o->json = true;
		o->bytes = true;
		return 1;
	case 'r': o->raw = true; return 1;
	case 'H': o->list_columns = true; return 1;
	case 'n': o->noheadings = true; return 1;
	case 'b': o->bytes = true; return 1;
	case CLI_OPT_FILE_BACKED: o->filter |= MS_FILTER_FILE_BACKED; return 1;
	case CLI_OPT_PERMS:
		if (ms_filter_parse(arg, &perms, &bad) < 0) {
			cli_error("--perms: '%c' is not one of r, w, x, s", bad);
			return -1;
		}
		o->filter |= perms;
		return 1;
	case CLI_OPT_BACKEND:
		if (ms_backend_parse(arg, &o->backend) < 0) {
			cli_error("--backend: '%s' is not auto, ioctl or text", arg);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

int cli_parse_pid(const char *s, pid_t *pid)
{
	char *safe;

	if (ms_parse_pid(s, pid) == 0)
		return 0;
	safe = ms_escape_dup(s, strlen(s), MS_ESC_ASCII);
	cli_error("'%s' is not a process ID", safe ? safe : "?");
	free(safe);
	return -1;
}

static const char *command = "mapscope";

void cli_set_command(const char *cmd)
{
	command = cmd;
}

static int column_by_name(const char *name, size_t len, const struct cli_column *cols, size_t ncols)
{
	for (size_t i = 0; i < ncols; i++)
		if (strlen(cli_column_name(&cols[i])) == len && !strncasecmp(cli_column_name(&cols[i]), name, len))
			return (int)i;
	return -1;
}

/* The message for a column cols lacks: the commands whose -o has it (colindex.h), if any. */
static void unknown_column(const char *name, size_t len)
{
	char *safe = ms_escape_dup(name, len, MS_ESC_ASCII);
	char where[512];

	if (cli_colindex_where(name, len, where, sizeof(where)) > 0)
		cli_error("%s: column %s is not available here; %s", command, safe ? safe : "?", where);
	else
		cli_error("unknown column: %s", safe ? safe : "?");
	free(safe);
}

int cli_columns_parse(const char *spec, const struct cli_column *cols, size_t ncols,
		      const int *defaults, size_t ndefaults, int *out, size_t out_max)
{
	size_t n = 0;
	const char *p;

	if (!spec || *spec == '+') {
		for (; n < ndefaults && n < out_max; n++)
			out[n] = defaults[n];
		if (!spec)
			return (int)n;
		spec++;
	}
	for (p = spec; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int id = column_by_name(p, len, cols, ncols);

		if (id < 0) {
			unknown_column(p, len);
			return -1;
		}
		if (n == out_max) {
			cli_error("too many columns");
			return -1;
		}
		out[n++] = id;
		p += len;
		if (*p == ',')
			p++;
	}
	if (n == 0) {
		cli_error("no columns selected");
		return -1;
	}
	return (int)n;
}

struct libscols_table *cli_table_new(const struct cli_opts *o, const char *json_name,
				     const struct cli_column *cols, const int *selected,
				     size_t nselected)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb) {
		cli_error("cannot create output table");
		return NULL;
	}
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_noheadings(tb, o->noheadings);
	/* Cells are escaped already (ms_escape); a second encoding would turn
	 * every "\\" into "\x5c\x5c".  Raw mode keeps its own, which also
	 * encodes the blanks that separate its columns. */
	scols_table_enable_noencoding(tb, !o->raw);
	if (json_name)
		scols_table_set_name(tb, json_name);
	for (size_t i = 0; i < nselected; i++) {
		const struct cli_column *c = &cols[selected[i]];
		/* Raw output has no tree, as lsblk -r: children follow their parent, flat. */
		int flags = o->raw ? c->flags & ~SCOLS_FL_TREE : c->flags;
		struct libscols_column *cl = scols_table_new_column(tb, cli_column_name(c), c->whint, flags);

		if (!cl) {
			scols_unref_table(tb);
			cli_error("cannot create output column %s", cli_column_name(c));
			return NULL;
		}
		if (o->json)
			scols_column_set_json_type(cl, cli_column_json_type(c, o->bytes));
	}
	return tb;
}

int cli_stdout_done(int failed)
{
	if (fflush(stdout) != 0 || ferror(stdout) || failed) {
		if (errno == EPIPE)
			return CLI_EXIT_OK;
		cli_error("write error: %s", strerror(errno ? errno : EIO));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static size_t colw_width_z(const char *s)
{
	return s ? colw_width(s, strlen(s)) : 0;
}

int cli_writer_new(const struct cli_opts *o, const char *json_name, const struct cli_column *cols,
		   const int *selected, size_t nselected, size_t chunk_rows, struct colw **out)
{
	struct colw_opts wo = {
		.format = o->json ? COLW_JSON : o->raw ? COLW_RAW : COLW_TABLE,
		.noheadings = o->noheadings,
		.json_name = json_name,
		.chunk_rows = chunk_rows,
	};
	struct colw_column wc[CLI_MAX_COLUMNS];

	*out = NULL;
	if (nselected > CLI_MAX_COLUMNS || !colw_wanted(wo.format, isatty(STDOUT_FILENO)))
		return CLI_EXIT_OK;
	for (size_t i = 0; i < nselected; i++) {
		const struct cli_column *c = &cols[selected[i]];

		wc[i].name = cli_column_name(c);
		wc[i].whint = c->whint;
		wc[i].right = c->flags & SCOLS_FL_RIGHT;
		wc[i].json_number = cli_column_json_type(c, o->bytes) == SCOLS_JSON_NUMBER;
	}
	*out = colw_new(stdout, &wo, wc, nselected);
	if (!*out) {
		cli_error("out of memory");
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

void cli_stream_init(struct cli_stream *st, const struct cli_opts *o, size_t ncolumns)
{
	memset(st, 0, sizeof(*st));
	st->ncolumns = ncolumns < CLI_MAX_COLUMNS ? ncolumns : CLI_MAX_COLUMNS;
	st->align = !o->raw && !o->json;
}

static const char *cell_text(struct libscols_line *ln, size_t c)
{
	const char *text = scols_cell_get_data(scols_line_get_cell(ln, c));

	return text ? text : "";
}

/* The widest header or cell of each column but the last, in the first chunk. */
static void measure(struct cli_stream *st, struct libscols_table *tb)
{
	struct libscols_iter *itr = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;

	for (size_t c = 0; c + 1 < st->ncolumns; c++)
		st->width[c] = colw_width_z(scols_cell_get_data(
			scols_column_get_header(scols_table_get_column(tb, c))));
	while (itr && scols_table_next_line(tb, itr, &ln) == 0)
		for (size_t c = 0; c + 1 < st->ncolumns; c++) {
			size_t w = colw_width_z(cell_text(ln, c));

			if (w > st->width[c])
				st->width[c] = w;
		}
	scols_free_iter(itr);
}

/*
 * Pad each cell to its column's width, so that every chunk measures the
 * same widths and the chunks line up.  -1 when out of memory.
 */
static int pad(const struct cli_stream *st, struct libscols_table *tb)
{
	struct libscols_iter *itr = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;
	int rc = itr ? 0 : -1;

	while (rc == 0 && scols_table_next_line(tb, itr, &ln) == 0) {
		for (size_t c = 0; rc == 0 && c + 1 < st->ncolumns; c++) {
			const char *text = cell_text(ln, c);
			size_t w = colw_width_z(text), len = strlen(text), fill;
			bool right = scols_column_is_right(scols_table_get_column(tb, c));
			char *padded;

			if (w >= st->width[c])
				continue;
			fill = st->width[c] - w;
			padded = malloc(len + fill + 1);
			if (!padded) {
				rc = -1;
				break;
			}
			memset(padded + (right ? 0 : len), ' ', fill);
			memcpy(padded + (right ? fill : 0), text, len);
			padded[len + fill] = '\0';
			if (scols_line_refer_data(ln, c, padded) != 0) {
				free(padded);
				rc = -1;
			}
		}
	}
	scols_free_iter(itr);
	return rc;
}

int cli_stream_chunk(struct cli_stream *st, struct libscols_table *tb)
{
	int rc = 0;

	if (scols_table_get_nlines(tb) == 0)
		return CLI_EXIT_OK;
	if (st->align) {
		if (st->chunks == 0) {
			measure(st, tb);
			/*
			 * No fitting to the terminal: it would narrow each chunk by
			 * its own names.  A long name runs on, as with cat.
			 */
			scols_table_set_termwidth(tb, 1u << 20);
		}
		if (pad(st, tb) < 0) {
			cli_error("out of memory");
			return CLI_EXIT_FAIL;
		}
	}
	/* A range ends without its last newline; the next one starts with it. */
	if (st->chunks++ > 0 && fputc('\n', stdout) == EOF)
		return cli_stdout_done(1);
	rc = scols_table_print_range(tb, NULL, NULL);
	scols_table_remove_lines(tb);
	return cli_stdout_done(rc != 0);
}

int cli_stream_end(const struct cli_stream *st)
{
	if (!st->chunks)
		return CLI_EXIT_OK;
	return cli_stdout_done(fputc('\n', stdout) == EOF);
}

int cli_table_fill_print(const struct cli_opts *o, const char *json_name, const struct cli_column *cols,
			 const int *selected, size_t nselected, int (*fill)(struct libscols_table *tb, void *ctx),
			 void *ctx)
{
	struct libscols_table *tb = cli_table_new(o, json_name, cols, selected, nselected);
	int status;

	if (!tb)
		return CLI_EXIT_FAIL;
	if (fill(tb, ctx) < 0) {
		cli_error("out of memory");
		status = CLI_EXIT_FAIL;
	} else {
		status = cli_table_print(tb);
	}
	scols_unref_table(tb);
	return status;
}

int cli_table_print(struct libscols_table *tb)
{
	return cli_stdout_done(scols_print_table(tb) != 0);
}

int cli_open_maps(pid_t pid, const struct cli_opts *o, struct ms_proc **proc,
		  struct ms_maps **maps)
{
	struct ms_maps_opts mo = { .backend = o->backend, .ioctl_fn = NULL };
	struct ms_error err;
	int rc;

	/* Stat is read if a command asks (proc.h); the maps' probe tells a kernel thread. */
	rc = ms_proc_open_dir(pid, proc, &err);
	if (rc < 0) {
		cli_error("%s", err.msg);
		return ms_error_exit_status(err.code);
	}
	rc = ms_maps_open(*proc, &mo, maps, &err);
	if (rc < 0) {
		cli_error("%s", err.msg);
		ms_proc_close(*proc);
		*proc = NULL;
		return ms_error_exit_status(err.code);
	}
	return CLI_EXIT_OK;
}

const char *cli_column_name(const struct cli_column *c)
{
	return c->is_fact ? ms_fact_desc(c->fact)->name : c->name;
}

int cli_column_json_type(const struct cli_column *c, bool bytes)
{
	bool sized = c->is_fact ? ms_fact_desc(c->fact)->json == MS_FACT_JSON_NUMBER : c->numeric_in_bytes;
	int type = c->is_fact ? (sized ? SCOLS_JSON_NUMBER : SCOLS_JSON_STRING) : c->json_type;

	return sized && !bytes ? SCOLS_JSON_STRING : type;
}

/* The help line: the registry's for a fact, with the command's addition. */
static int column_help(const struct cli_column *c, char *buf, size_t size)
{
	if (!c->is_fact)
		return snprintf(buf, size, "%s", c->help);
	return snprintf(buf, size, "%s%s%s", ms_fact_desc(c->fact)->help, c->help ? " " : "", c->help ? c->help : "");
}

void cli_columns_help(const struct cli_column *cols, size_t ncols)
{
	char help[1024];

	for (size_t i = 0; i < ncols; i++) {
		column_help(&cols[i], help, sizeof(help));
		printf("  %-9s %s\n", cli_column_name(&cols[i]), help);
	}
}

char *cli_fact_cell(const struct cli_opts *o, enum ms_fact f, const struct ms_fact_src *s)
{
	char buf[MS_FACT_TEXT_MAX];
	size_t len;
	const char *text = ms_fact_text(f, s, (o->json ? MS_FACT_JSON : 0) | (o->bytes ? MS_FACT_BYTES : 0), buf,
					sizeof(buf), &len);

	return ms_escape_dup(text, len, o->escape_flags);
}

char *cli_cell_or_null(char *s)
{
	if (s && !s[0]) {
		free(s);
		return NULL;
	}
	return s;
}

static const char *type_name(const struct cli_column *c)
{
	switch (cli_column_json_type(c, true)) {
	case SCOLS_JSON_NUMBER: return cli_column_json_type(c, false) == SCOLS_JSON_NUMBER ? "<integer>" : "<string|number>";
	case SCOLS_JSON_BOOLEAN: return "<boolean>";
	default: return "<string>";
	}
}

int cli_columns_list(const struct cli_opts *o, const struct cli_column *cols, size_t ncols)
{
	static const struct cli_column list_cols[] = {
		{ .name = "HOLDER", .flags = SCOLS_FL_RIGHT, .json_type = SCOLS_JSON_STRING },
		{ .name = "TYPE", .json_type = SCOLS_JSON_STRING },
		{ .name = "DESCRIPTION", .json_type = SCOLS_JSON_STRING },
	};
	static const int all[] = { 0, 1, 2 };
	struct cli_opts lo = *o;
	struct libscols_table *tb;
	int status = CLI_EXIT_OK;

	lo.noheadings = true;
	tb = cli_table_new(&lo, "columns", list_cols, all, 3);
	if (!tb)
		return CLI_EXIT_FAIL;
	for (size_t i = 0; i < ncols && status == CLI_EXIT_OK; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char help[1024];

		column_help(&cols[i], help, sizeof(help));
		if (!ln || scols_line_set_data(ln, 0, cli_column_name(&cols[i])) || scols_line_set_data(ln, 1, type_name(&cols[i])) ||
		    scols_line_set_data(ln, 2, help)) {
			cli_error("out of memory");
			status = CLI_EXIT_FAIL;
		}
	}
	if (status == CLI_EXIT_OK)
		status = cli_table_print(tb);
	scols_unref_table(tb);
	return status;
}
