/*
 * cli.h - what the batch commands share: option parsing, column selection
 * and libsmartcols output in util-linux's conventions (-o, -J, -r, -n, -b).
 *
 * Sizes are human-readable ("188K") in tables and raw output unless -b,
 * and JSON numbers of bytes with -J, as lsblk -J -b prints them; addresses
 * stay hex strings.
 *
 * A command describes its columns in a table of struct cli_column, picks its
 * defaults, and lets cli_columns_parse turn "-o START,NAME" (or "-o +BUILDID"
 * to add to the defaults) into indexes.  cli_table_new builds a libsmartcols
 * table with those columns and the output mode; the command fills lines with
 * escaped text only.  Nothing here touches curses.
 *
 * Exit statuses: 0 success, 1 the process is missing or unreadable (or the
 * asked-for thing is absent), 2 usage errors.  Messages are
 * "mapscope: <what>: <why>".
 */
#ifndef MAPSCOPE_CLI_H
#define MAPSCOPE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <sys/types.h>

#include <libsmartcols.h>

#include "core/base/error.h"
#include "core/maps/maps.h"
#include "core/base/units.h"
#include "core/files/facts.h"

#define CLI_EXIT_OK MS_EXIT_OK
#define CLI_EXIT_FAIL MS_EXIT_FAIL
#define CLI_EXIT_USAGE MS_EXIT_USAGE

#define CLI_MAX_COLUMNS 32

/*
 * A column of a command's table.  A column that shows a file fact
 * (core/files/facts.h) names it with CLI_FACT: its name, help and JSON type
 * are the registry's (read them with cli_column_name, cli_column_help_print
 * and the writers), its cell text is ms_fact_text's (cli_fact_cell), and
 * help is only a short addition where the command's meaning differs
 * ("(file lines)").  Other columns spell everything out.
 */
struct cli_column {
	const char *name;
	double whint;
	int flags;     /* SCOLS_FL_* */
	int json_type; /* SCOLS_JSON_*; numbers only when sizes are in bytes */
	bool numeric_in_bytes; /* a size: human-readable unless -b or -J (a JSON number of bytes) */
	const char *help;
	bool is_fact;
	enum ms_fact fact;
};

/* The column of fact MS_FACT_<F>, WHINT and FLAGS as libsmartcols takes them; MORE NULL or an addition to the help. */
#define CLI_FACT(F, WHINT, FLAGS, MORE) \
	{ .whint = (WHINT), .flags = (FLAGS), .help = (MORE), .is_fact = true, .fact = MS_FACT_##F }

/* The column's name ("PACKAGE"). */
const char *cli_column_name(const struct cli_column *c);
/* Its JSON type for these options (SCOLS_JSON_*): a size is a number only in bytes. */
int cli_column_json_type(const struct cli_column *c, bool bytes);

struct cli_opts {
	enum ms_backend backend;
	const char *columns;
	bool json;
	bool raw;
	bool noheadings;
	bool bytes;    /* sizes in bytes: -b, and always with -J */
	unsigned filter;
	unsigned escape_flags; /* MS_ESC_ASCII outside UTF-8 locales */
	bool list_columns; /* -H: list the columns -o takes, and exit */
};

/* Long options shared by the commands; CLI_OPT_* values above 255. */
enum {
	CLI_OPT_BACKEND = 256,
	CLI_OPT_FILE_BACKED,
	CLI_OPT_PERMS,
	CLI_OPT_HELP,
};

/* -H, --list-columns: every table command takes it, as lsblk does. */
#define CLI_LIST_COLUMNS_LONG_OPTION { "list-columns", no_argument, NULL, 'H' }
#define CLI_LIST_COLUMNS_HELP "  -H, --list-columns     list the columns -o takes (with -J or -r too), and exit\n"

/* The output options every table command takes, for its option table... */
#define CLI_OUTPUT_LONG_OPTIONS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "json", no_argument, NULL, 'J' }, \
	{ "raw", no_argument, NULL, 'r' }, \
	{ "noheadings", no_argument, NULL, 'n' }, \
	{ "bytes", no_argument, NULL, 'b' }, \
	{ "backend", required_argument, NULL, CLI_OPT_BACKEND }, \
	{ "help", no_argument, NULL, 'h' }, \
	CLI_LIST_COLUMNS_LONG_OPTION, \
	{ NULL, 0, NULL, 0 }

/* ...and for its --help. */
#define CLI_OUTPUT_OPTIONS_HELP \
	"  -o, --output=COLUMNS   columns to show; +COLUMNS adds to the default\n" \
	"  -J, --json             JSON output\n" \
	"  -r, --raw              raw output\n" \
	"  -n, --noheadings       no column headings\n" \
	"  -b, --bytes            sizes in bytes\n" \
	"      --backend=WHICH    auto, ioctl or text (default auto)\n" \
	CLI_LIST_COLUMNS_HELP \
	"  -h, --help             this help\n"

void cli_opts_init(struct cli_opts *o);

/*
 * Handle one option common to the commands (-o -J -r -n -b --backend
 * --file-backed --perms).  Returns 1 if it was one, 0 if not, -1 on a bad
 * value (message already printed).
 */
int cli_opts_common(struct cli_opts *o, int opt, const char *arg);

/* MS_ESC_ASCII unless the locale's codeset is UTF-8. */
void cli_set_escape_flags(struct cli_opts *o);

/*
 * Run getopt_long over a command's options, handling the common ones and -h.
 * Returns -1 when parsing is done (optind is the first operand), or an exit
 * status when the command should stop now (help shown, or a usage error).
 */
int cli_getopt(int argc, char **argv, const char *cmd, const struct option *longopts,
	       void (*usage)(void), struct cli_opts *o);

/*
 * cli_getopt for a command with options of its own: own(ctx, opt, arg) is
 * asked about each option that is not a common one, and returns 1 (taken),
 * 0 (unknown) or -1 (bad value, message printed).
 */
int cli_getopt_own(int argc, char **argv, const char *cmd, const struct option *longopts,
		   void (*usage)(void), struct cli_opts *o,
		   int (*own)(void *ctx, int opt, const char *arg), void *ctx);

/* Usage error about cmd: message, the --help hint, and CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ms_parse_pid that prints the message; -1 if not a PID. */
int cli_parse_pid(const char *s, pid_t *pid);


/*
 * Select columns.  spec NULL means the defaults; "+A,B" appends to them.
 * Returns the count, or -1 (message printed).
 */
int cli_columns_parse(const char *spec, const struct cli_column *cols, size_t ncols,
		      const int *defaults, size_t ndefaults, int *out, size_t out_max);

/* A table set up for the options and selected columns, or NULL (message printed). */
struct libscols_table *cli_table_new(const struct cli_opts *o, const char *json_name,
				     const struct cli_column *cols, const int *selected,
				     size_t nselected);

/*
 * The streaming writer (colwriter.h) for these options and columns, when
 * it may print this output: *out is NULL when libsmartcols must (a table
 * on a terminal).  chunk_rows: as cli_stream_chunk's chunks.  Returns an
 * exit status (message printed).
 */
struct colw;
int cli_writer_new(const struct cli_opts *o, const char *json_name, const struct cli_column *cols,
		   const int *selected, size_t nselected, size_t chunk_rows, struct colw **out);

/*
 * A table for these columns, filled by fill(tb, ctx) (0, or -1 when out of
 * memory), printed and freed.  Returns an exit status (message printed).
 */
int cli_table_fill_print(const struct cli_opts *o, const char *json_name, const struct cli_column *cols,
			 const int *selected, size_t nselected, int (*fill)(struct libscols_table *tb, void *ctx),
			 void *ctx);

/* Print and flush; returns an exit status (EPIPE is quiet success). */
int cli_table_print(struct libscols_table *tb);

/*
 * Streaming a long table in chunks: after filling tb with some lines, call
 * cli_stream_chunk to print and drop them; finish with cli_stream_end.
 * The first chunk sets each column's width (but the last one's) from its
 * header and cells, and every chunk's cells are padded to those widths, so
 * the chunks line up.  Both return an exit status.
 */
struct cli_stream {
	size_t ncolumns;
	size_t chunks;
	bool align; /* not raw, not JSON */
	size_t width[CLI_MAX_COLUMNS];
};

void cli_stream_init(struct cli_stream *st, const struct cli_opts *o, size_t ncolumns);
int cli_stream_chunk(struct cli_stream *st, struct libscols_table *tb);
int cli_stream_end(const struct cli_stream *st);


/* Open a process and its maps; prints the message and returns an exit status on failure. */
int cli_open_maps(pid_t pid, const struct cli_opts *o, struct ms_proc **proc,
		  struct ms_maps **maps);

/* "mapscope: " + msg on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * -H: the columns of cols, one a line, as lsblk --list-columns prints
 * them: the name (right-aligned), its type (<string>, <integer>,
 * <boolean>, or <string|number> for a size) and its help; no headings;
 * -r and -J as for any table (JSON: "columns", with "holder", "type" and
 * "description").  Returns an exit status.
 */
int cli_columns_list(const struct cli_opts *o, const struct cli_column *cols, size_t ncols);

/*
 * The command whose options are being read ("list"), for messages: set by
 * cli_getopt_own, or by a command that reads its own.
 */
void cli_set_command(const char *cmd);

/* Print the column help lines for --help. */
void cli_columns_help(const struct cli_column *cols, size_t ncols);

/*
 * The cell of fact f for s, escaped for o's output (malloc'd; NULL when
 * out of memory): ms_fact_text with JSON's and -b's flags.
 */
struct ms_fact_src;
char *cli_fact_cell(const struct cli_opts *o, enum ms_fact f, const struct ms_fact_src *s);
/* An empty cell as no cell (NULL: null in JSON); s is freed then. */
char *cli_cell_or_null(char *s);

int cmd_list(int argc, char **argv);
int cmd_at(int argc, char **argv);
int cmd_stale(int argc, char **argv);
int cmd_who(int argc, char **argv);
int cmd_libs(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_diff(int argc, char **argv);
/* "mapscope: pid N: " + err->msg, unless the message names the process already. */
void cli_error_pid(pid_t pid, const struct ms_error *err);
/* The same for a failure to write -o FILE: a refused owner names --force. */
void cli_error_output(pid_t pid, const struct ms_error *err);

/*
 * Flush stdout and report a write error (a full disk) once, as
 * "mapscope: write error: ...": CLI_EXIT_FAIL.  A closed pipe (EPIPE) is a
 * reader that has seen enough: quietly CLI_EXIT_OK.  failed: the caller's
 * own write already failed.
 */
int cli_stdout_done(int failed);

#endif
