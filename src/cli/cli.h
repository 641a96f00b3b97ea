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

#define CLI_EXIT_OK MS_EXIT_OK
#define CLI_EXIT_FAIL MS_EXIT_FAIL
#define CLI_EXIT_USAGE MS_EXIT_USAGE

#define CLI_MAX_COLUMNS 32

struct cli_column {
	const char *name;
	double whint;
	int flags;     /* SCOLS_FL_* */
	int json_type; /* SCOLS_JSON_*; numbers only when sizes are in bytes */
	bool numeric_in_bytes; /* a size: human-readable unless -b or -J (a JSON number of bytes) */
	const char *help;
};

struct cli_opts {
	enum ms_backend backend;
	const char *columns;
	bool json;
	bool raw;
	bool noheadings;
	bool bytes;    /* sizes in bytes: -b, and always with -J */
	unsigned filter;
	unsigned escape_flags; /* MS_ESC_ASCII outside UTF-8 locales */
};

/* Long options shared by the commands; CLI_OPT_* values above 255. */
enum {
	CLI_OPT_BACKEND = 256,
	CLI_OPT_FILE_BACKED,
	CLI_OPT_PERMS,
	CLI_OPT_HELP,
};

/* The output options every table command takes, for its option table... */
#define CLI_OUTPUT_LONG_OPTIONS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "json", no_argument, NULL, 'J' }, \
	{ "raw", no_argument, NULL, 'r' }, \
	{ "noheadings", no_argument, NULL, 'n' }, \
	{ "bytes", no_argument, NULL, 'b' }, \
	{ "backend", required_argument, NULL, CLI_OPT_BACKEND }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ NULL, 0, NULL, 0 }

/* ...and for its --help. */
#define CLI_OUTPUT_OPTIONS_HELP \
	"  -o, --output=COLUMNS   columns to show; +COLUMNS adds to the default\n" \
	"  -J, --json             JSON output\n" \
	"  -r, --raw              raw output\n" \
	"  -n, --noheadings       no column headings\n" \
	"  -b, --bytes            sizes in bytes\n" \
	"      --backend=WHICH    auto, ioctl or text (default auto)\n" \
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

/* Print the column help lines for --help. */
void cli_columns_help(const struct cli_column *cols, size_t ncols);

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
