/*
 * colwriter.h - a streaming column writer for long listings: the table,
 * raw (-r) and JSON (-J) output of libsmartcols 2.38, byte for byte, for
 * the tables mapscope builds (flat, no tree, no colours, no wrapping or
 * truncation, cells already escaped by ms_escape), without a table in
 * memory and without measuring ASCII cells character by character.  A
 * one-level tree (stale's) is drawn by its caller: libsmartcols' marks
 * before a child's cell of the tree column, in the cell's own text.
 *
 * Why: libsmartcols keeps every cell of a table as its own allocation and
 * measures each with mbrtowc and wcwidth; on 60,000 mappings that was most
 * of `mapscope list`.  This writer keeps one chunk of rows in one buffer
 * (table mode) or none (raw and JSON), and measures a cell only where it
 * holds a byte above 0x7f.
 *
 * What it reproduces (read from util-linux 2.38.1 libsmartcols, print.c and
 * calculate.c, and lib/jsonwrt.c; the test tests/test_colwriter.sh compares
 * both writers on hostile, wide and empty cells, column subsets and 60,000
 * rows):
 *   - table: a column is as wide as its widest cell, but never narrower than
 *     its header (even with -n); a column with a width hint of 1 or more
 *     whose widest cell is at least as wide as the header is widened to the
 *     hint (libsmartcols' count_column_width).  Cells are padded with spaces
 *     (right-aligned columns on the left), one space separates columns, the
 *     last column is not padded unless it is right-aligned, and an empty
 *     cell of a right-aligned last column prints nothing.
 *   - long tables go out in chunks of chunk_rows rows, as cli_stream_chunk
 *     prints them through libsmartcols: the first chunk's widest cell or
 *     header sets a floor for each column but the last, and every chunk
 *     then widens its columns by its own cells.  A table that ends before
 *     its first chunk is full is one table, without that floor.
 *   - raw: cells separated by one space; blanks, backslashes and every
 *     byte that is not printable in the locale become "\xNN".
 *   - JSON: {"NAME": [ {"column": value, ...}, ... ]} with libsmartcols'
 *     indentation; keys are the lower-cased headers; an empty cell is null;
 *     number columns print their text unquoted.
 *   - a table with no rows prints nothing (JSON: an empty array).
 * Only output that is not a terminal may take the table mode: on a
 * terminal libsmartcols fits the columns to its width, and the caller keeps
 * libsmartcols there.  Raw and JSON never depend on the terminal.
 *
 * The environment variable MAPSCOPE_OUTPUT=smartcols makes
 * colw_wanted() say no, so that a command prints through libsmartcols
 * instead; the comparison test uses it, and nothing else should.
 *
 * Writes go to the FILE given; write errors show in ferror() and are the
 * caller's to report.  Functions return 0, or -1 when out of memory.
 */
#ifndef MAPSCOPE_CLI_COLWRITER_H
#define MAPSCOPE_CLI_COLWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum colw_format {
	COLW_TABLE,
	COLW_RAW,
	COLW_JSON,
};

struct colw_column {
	const char *name;   /* header; ASCII */
	double whint;       /* libsmartcols width hint; >= 1 is a minimum */
	bool right;         /* right-aligned */
	bool json_number;   /* JSON: the text unquoted */
};

struct colw_opts {
	enum colw_format format;
	bool noheadings;
	const char *json_name;  /* JSON: the array's name */
	size_t chunk_rows;      /* table: rows per chunk; SIZE_MAX for one table */
};

struct colw;

/* May this output go through the writer?  (format, and stdout a terminal) */
bool colw_wanted(enum colw_format format, bool to_terminal);

/* NULL when out of memory.  cols is copied (the names are not). */
struct colw *colw_new(FILE *out, const struct colw_opts *o,
		      const struct colw_column *cols, size_t ncols);
void colw_free(struct colw *w);

/*
 * Room for the next cell of the current row, at least max bytes; write the
 * text there and call colw_cell_end with its length.  NULL when out of
 * memory.
 */
char *colw_cell_buf(struct colw *w, size_t max);
void colw_cell_end(struct colw *w, size_t len);
/* colw_cell_end for text whose width the caller knows (printable ASCII: len). */
void colw_cell_end_width(struct colw *w, size_t len, size_t width);

/* A whole cell at once. */
int colw_cell(struct colw *w, const char *text, size_t len);

/* The row is complete (every column given, in order). */
int colw_row_end(struct colw *w);

/*
 * JSON: members to print after the array, inside the object (tail: lines
 * ending in a newline, indented as libsmartcols indents, borrowed until
 * colw_finish), as `list --total` adds "total".
 */
void colw_set_json_tail(struct colw *w, const char *tail);

/* Print what is left; 0, or -1 when out of memory. */
int colw_finish(struct colw *w);

/*
 * Display width of len bytes of escaped text, as libsmartcols measures it
 * (mbs_nwidth): ASCII counts one a byte, other characters wcwidth where
 * printable.
 */
size_t colw_width(const char *s, size_t len);

#endif
