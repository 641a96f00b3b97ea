#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "cli/colwriter.h"
#include "core/base/grow.h"

struct cell {
	size_t off;
	size_t len;
	size_t width;
};

struct colw {
	FILE *out;
	struct colw_opts o;
	size_t ncols;
	struct colw_column *cols;
	size_t *header_width;
	size_t *floor;     /* the first chunk's widths, once streaming */
	size_t *chunk_max; /* widest cell of each column in the buffered rows */
	size_t *width;
	char *text;
	size_t text_len, text_cap;
	struct cell *cells;
	size_t ncells, cells_cap;
	size_t rows;       /* rows buffered */
	size_t col;        /* the column of the next cell */
	size_t chunks;     /* table chunks printed */
	size_t rows_out;   /* rows printed (raw, JSON) */
	bool header_done;
	bool failed;       /* out of memory while printing */
	const char *json_tail; /* JSON: members after the array, or NULL */
	char **json_key;   /* per column: the separator, indentation and "key": */
	bool raw_hex[256];
	/*
	 * Output, written to out in large blocks.  Not part of the zeroed
	 * struct: clearing 64 KiB faulted in 16 pages that a short listing
	 * never writes.
	 */
	char *obuf;
	size_t olen;
};

#define OBUF_SIZE (64 * 1024)

static int make_json_keys(struct colw *w);

bool colw_wanted(enum colw_format format, bool to_terminal)
{
	const char *force = getenv("MAPSCOPE_OUTPUT");

	if (force && !strcmp(force, "smartcols"))
		return false;
	return format != COLW_TABLE || !to_terminal;
}

size_t colw_width(const char *s, size_t len)
{
	size_t i = 0, width = 0;
	mbstate_t st;

	/* ASCII: controls (the same in every locale) count nothing. */
	for (; i < len; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b >= 0x80)
			break;
		width += b >= 0x20 && b != 0x7f;
	}
	if (i == len)
		return width;
	memset(&st, 0, sizeof(st));
	while (i < len && s[i]) {
		wchar_t wc;
		size_t n;

		if (iscntrl((unsigned char)s[i])) {
			i++;
			continue;
		}
		n = mbrtowc(&wc, s + i, len - i, &st);
		if (n == 0)
			break;
		if (n == (size_t)-1 || n == (size_t)-2) {
			/* Not from ms_escape, whose output is valid; libsmartcols counts 0. */
			memset(&st, 0, sizeof(st));
			n = 1;
		} else if (iswprint((wint_t)wc)) {
			int w = wcwidth(wc);

			if (w > 0)
				width += (size_t)w;
		}
		i += n;
	}
	return width;
}

struct colw *colw_new(FILE *out, const struct colw_opts *o,
		      const struct colw_column *cols, size_t ncols)
{
	struct colw *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->out = out;
	w->o = *o;
	w->ncols = ncols;
	w->cols = calloc(ncols ? ncols : 1, sizeof(*w->cols));
	w->header_width = calloc(4 * (ncols ? ncols : 1), sizeof(size_t));
	w->obuf = malloc(OBUF_SIZE);
	if (!w->cols || !w->header_width || !w->obuf) {
		colw_free(w);
		return NULL;
	}
	w->floor = w->header_width + ncols;
	w->chunk_max = w->floor + ncols;
	w->width = w->chunk_max + ncols;
	memcpy(w->cols, cols, ncols * sizeof(*cols));
	for (size_t c = 0; c < ncols; c++)
		w->header_width[c] = colw_width(cols[c].name, strlen(cols[c].name));
	if (o->format == COLW_JSON && make_json_keys(w) < 0) {
		colw_free(w);
		return NULL;
	}
	/* fputs_nonblank in util-linux: what raw mode prints as \xNN. */
	for (int b = 1; b < 256; b++)
		w->raw_hex[b] = isblank(b) || b == '\\' || !isprint(b) || iscntrl(b);
	return w;
}

void colw_free(struct colw *w)
{
	if (!w)
		return;
	for (size_t c = 0; w->json_key && c < w->ncols; c++)
		free(w->json_key[c]);
	free(w->json_key);
	free(w->cols);
	free(w->header_width);
	free(w->text);
	free(w->cells);
	free(w->obuf);
	free(w);
}

char *colw_cell_buf(struct colw *w, size_t max)
{
	/* Room already (every cell but a few after each doubling): no call. */
	if (w->ncells < w->cells_cap && max <= w->text_cap - w->text_len)
		return w->text + w->text_len;
	if (ms_grow((void **)&w->cells, &w->cells_cap, w->ncells, sizeof(*w->cells), 64 * w->ncols) < 0)
		return NULL;
	if (max > SIZE_MAX / 2 - w->text_len)
		return NULL;
	/* Doubling (ms_grow) until max more bytes fit; an empty first cell needs a buffer too. */
	while (!w->text || w->text_len + max > w->text_cap)
		if (ms_grow((void **)&w->text, &w->text_cap, w->text_cap, 1, 64 * 1024) < 0)
			return NULL;
	return w->text + w->text_len;
}

void colw_cell_end_width(struct colw *w, size_t len, size_t width)
{
	struct cell *ce = &w->cells[w->ncells++];

	ce->off = w->text_len;
	ce->len = len;
	ce->width = width;
	if (width > w->chunk_max[w->col])
		w->chunk_max[w->col] = width;
	w->text_len += len;
	if (++w->col == w->ncols)
		w->col = 0;
}

void colw_cell_end(struct colw *w, size_t len)
{
	size_t width = 0;

	if (w->o.format == COLW_TABLE)
		width = colw_width(w->text + w->text_len, len);
	colw_cell_end_width(w, len, width);
}

int colw_cell(struct colw *w, const char *text, size_t len)
{
	char *dst = colw_cell_buf(w, len);

	if (!dst)
		return -1;
	memcpy(dst, text, len);
	colw_cell_end(w, len);
	return 0;
}

static void flush_out(struct colw *w)
{
	if (w->olen)
		fwrite(w->obuf, 1, w->olen, w->out);
	w->olen = 0;
}

static void put(struct colw *w, const char *s, size_t len)
{
	if (len > OBUF_SIZE - w->olen) {
		flush_out(w);
		if (len > OBUF_SIZE) {
			fwrite(s, 1, len, w->out);
			return;
		}
	}
	memcpy(w->obuf + w->olen, s, len);
	w->olen += len;
}

static void put_char(struct colw *w, char c)
{
	if (w->olen == OBUF_SIZE)
		flush_out(w);
	w->obuf[w->olen++] = c;
}

static void put_spaces(struct colw *w, size_t n)
{
	static const char spaces[] = "                                                                ";

	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		put(w, spaces, k);
		n -= k;
	}
}

/* One cell of the table: padded, aligned, separated from the next. */
static void put_table_cell(struct colw *w, size_t col, const char *s, size_t len, size_t tw)
{
	size_t width = w->width[col];
	size_t fill = tw < width ? width - tw : 0;
	bool last = col + 1 == w->ncols;
	bool right = w->cols[col].right;
	char *o;

	if (last && !right) {
		put(w, s, len);
		return;
	}
	if (last && !len)
		return;
	/* Room for the separator too (written, but not kept after the last). */
	if (len + fill + 1 > OBUF_SIZE - w->olen)
		flush_out(w);
	if (len + fill + 1 > OBUF_SIZE) {
		if (right)
			put_spaces(w, fill);
		put(w, s, len);
		if (!right)
			put_spaces(w, fill);
		if (!last)
			put_char(w, ' ');
		return;
	}
	/* The common case: straight into the output buffer. */
	o = w->obuf + w->olen;
	if (right) {
		memset(o, ' ', fill);
		memcpy(o + fill, s, len);
	} else {
		memcpy(o, s, len);
		memset(o + len, ' ', fill);
	}
	o[len + fill] = ' ';
	w->olen += len + fill + !last;
}

/* libsmartcols' count_column_width for output that is not a terminal. */
static size_t column_width(const struct colw *w, size_t col, size_t widest)
{
	size_t min = w->header_width[col] ? w->header_width[col] : 1;
	double hint = w->cols[col].whint;

	if (widest < min)
		return min;
	if (hint >= 1 && widest < (size_t)hint && min < (size_t)hint)
		return (size_t)hint;
	return widest;
}

static void print_chunk(struct colw *w, bool streaming)
{
	if (!w->rows)
		return;
	for (size_t c = 0; c < w->ncols; c++) {
		size_t widest = w->chunk_max[c];

		if (streaming && c + 1 < w->ncols) {
			/* cli_stream_chunk pads every cell to the first chunk's widths. */
			if (w->chunks == 0)
				w->floor[c] = widest > w->header_width[c] ? widest : w->header_width[c];
			if (w->floor[c] > widest)
				widest = w->floor[c];
		}
		w->width[c] = column_width(w, c, widest);
	}
	if (!w->o.noheadings && !w->header_done) {
		for (size_t c = 0; c < w->ncols; c++)
			put_table_cell(w, c, w->cols[c].name, strlen(w->cols[c].name), w->header_width[c]);
		put_char(w, '\n');
	}
	w->header_done = true;
	for (size_t i = 0, col = 0; i < w->ncells; i++) {
		const struct cell *ce = &w->cells[i];

		put_table_cell(w, col, w->text + ce->off, ce->len, ce->width);
		if (++col == w->ncols) {
			put_char(w, '\n');
			col = 0;
		}
	}
	flush_out(w);
	if (streaming)
		w->chunks++;
	memset(w->chunk_max, 0, w->ncols * sizeof(size_t));
}

static void put_raw(struct colw *w, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)s[i];
		char esc[4] = { '\\', 'x', hex[b >> 4], hex[b & 0xf] };

		if (!w->raw_hex[b])
			continue;
		put(w, s + run, i - run);
		put(w, esc, sizeof(esc));
		run = i + 1;
	}
	put(w, s + run, len - run);
}

/* The headers when header, else the buffered row. */
static void put_raw_row(struct colw *w, bool header)
{
	for (size_t c = 0; c < w->ncols; c++) {
		if (c)
			put_char(w, ' ');
		if (header)
			put_raw(w, w->cols[c].name, strlen(w->cols[c].name));
		else
			put_raw(w, w->text + w->cells[c].off, w->cells[c].len);
	}
	put_char(w, '\n');
}

/*
 * lib/jsonwrt.c: fputs_quoted_case_json (lower-casing ASCII letters for
 * keys), into dst, which has room for json_quoted_max(len) bytes; returns the
 * length written.
 */
static size_t json_quoted_max(size_t len)
{
	return 6 * len + 2;
}

static size_t json_quote(const char *s, size_t len, bool lower, char *dst)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	dst[o++] = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != '"' && c != '\\') {
			dst[o++] = (char)(lower && c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
			continue;
		}
		dst[o++] = '\\';
		switch (c) {
		case '"': case '\\': dst[o++] = (char)c; break;
		case '\b': dst[o++] = 'b'; break;
		case '\t': dst[o++] = 't'; break;
		case '\n': dst[o++] = 'n'; break;
		case '\f': dst[o++] = 'f'; break;
		case '\r': dst[o++] = 'r'; break;
		default:
			memcpy(dst + o, "u00", 3);
			dst[o + 3] = hex[c >> 4];
			dst[o + 4] = hex[c & 0xf];
			o += 5;
			break;
		}
	}
	dst[o++] = '"';
	return o;
}

static void put_json_string(struct colw *w, const char *s, size_t len, bool lower)
{
	size_t max = json_quoted_max(len);
	char *tmp;

	if (max <= OBUF_SIZE - w->olen) {
		w->olen += json_quote(s, len, lower, w->obuf + w->olen);
		return;
	}
	flush_out(w);
	if (max <= OBUF_SIZE) {
		w->olen = json_quote(s, len, lower, w->obuf);
		return;
	}
	tmp = malloc(max);
	if (!tmp) {
		w->failed = true;
		return;
	}
	put(w, tmp, json_quote(s, len, lower, tmp));
	free(tmp);
}

static void put_json_open(struct colw *w)
{
	const char *name = w->o.json_name ? w->o.json_name : "";

	put(w, "{\n   ", 5);
	put_json_string(w, name, strlen(name), true);
	put(w, ": [\n", 4);
	w->header_done = true;
}

static void put_json_row(struct colw *w)
{
	if (!w->header_done)
		put_json_open(w);
	if (w->rows_out)
		put(w, ",{\n", 3);
	else
		put(w, "      {\n", 8);
	for (size_t c = 0; c < w->ncols; c++) {
		const struct cell *ce = &w->cells[c];
		const char *s = w->text + ce->off;

		put(w, w->json_key[c], strlen(w->json_key[c]));
		if (!ce->len)
			put(w, "null", 4);
		else if (w->cols[c].json_number)
			put(w, s, ce->len);
		else
			put_json_string(w, s, ce->len, false);
	}
	put(w, "\n      }", 8);
}

/* ul_jsonwrt_value_open's text before each value of a record. */
static int make_json_keys(struct colw *w)
{
	w->json_key = calloc(w->ncols, sizeof(*w->json_key));
	if (!w->json_key)
		return -1;
	for (size_t c = 0; c < w->ncols; c++) {
		size_t len = strlen(w->cols[c].name), o = 0;
		char *key = malloc(2 + 9 + json_quoted_max(len) + 3);

		if (!key)
			return -1;
		if (c) {
			memcpy(key, ",\n", 2);
			o = 2;
		}
		memset(key + o, ' ', 9);
		o += 9;
		o += json_quote(w->cols[c].name, len, true, key + o);
		memcpy(key + o, ": ", 3);
		w->json_key[c] = key;
	}
	return 0;
}

static void drop_cells(struct colw *w)
{
	w->ncells = 0;
	w->text_len = 0;
	w->rows = 0;
}

int colw_row_end(struct colw *w)
{
	w->rows++;
	switch (w->o.format) {
	case COLW_TABLE:
		if (w->rows < w->o.chunk_rows)
			return 0;
		print_chunk(w, true);
		break;
	case COLW_RAW:
		if (!w->header_done && !w->o.noheadings)
			put_raw_row(w, true);
		w->header_done = true;
		put_raw_row(w, false);
		break;
	case COLW_JSON:
		put_json_row(w);
		break;
	}
	w->rows_out++;
	drop_cells(w);
	return 0;
}

void colw_set_json_tail(struct colw *w, const char *tail)
{
	w->json_tail = tail;
}

int colw_finish(struct colw *w)
{
	switch (w->o.format) {
	case COLW_TABLE:
		print_chunk(w, w->chunks > 0);
		break;
	case COLW_RAW:
		break;
	case COLW_JSON:
		if (!w->header_done)
			put_json_open(w);
		put(w, "\n   ]", 5);
		if (w->json_tail) {
			put(w, ",\n", 2);
			put(w, w->json_tail, strlen(w->json_tail));
		} else {
			put(w, "\n", 1);
		}
		put(w, "}\n", 2);
		break;
	}
	flush_out(w);
	drop_cells(w);
	return w->failed ? -1 : 0;
}
