#include "config.h"

#include <langinfo.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/base/escape.h"
#include "tui/elide.h"
#include "tui/format.h"

const char *tui_ellipsis(unsigned escape_flags)
{
	return escape_flags & MS_ESC_ASCII ? "..." : "\xe2\x80\xa6";
}

unsigned tui_locale_escape_flags(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && !strcasecmp(cs, "UTF-8") ? 0 : MS_ESC_ASCII;
}

/* "\xNN", "\\", or one UTF-8 character (escaped text is valid UTF-8). */
static size_t unit_len(const char *s, size_t len)
{
	unsigned char c = (unsigned char)s[0];
	size_t n = 1;

	if (c == '\\')
		n = len >= 4 && s[1] == 'x' ? 4 : 2;
	else if (c >= 0xf0)
		n = 4;
	else if (c >= 0xe0)
		n = 3;
	else if (c >= 0xc0)
		n = 2;
	return n < len ? n : len;
}

static int cols_of(const char *s, size_t len)
{
	int cols;

	tui_text_fit(s, len, INT_MAX / 2, &cols);
	return cols;
}

static size_t unit_step(const char *s, size_t len, int *cols)
{
	size_t n = unit_len(s, len);

	*cols = cols_of(s, n);
	return n;
}

size_t tui_units_fit(const char *s, size_t len, int width, int *cols)
{
	return tui_fit_by(s, len, width, cols, unit_step);
}

/* Where the longest run of whole units up to the end within width starts. */
static size_t suffix_fit(const char *s, size_t len, int width)
{
	int total = cols_of(s, len);
	size_t at = 0;

	while (at < len && total > width) {
		size_t n = unit_len(s + at, len - at);

		total -= cols_of(s + at, n);
		at += n;
	}
	return at;
}

size_t tui_skip_cols(const char *s, size_t len, size_t cols)
{
	size_t at = 0, used = 0;

	while (at < len && used < cols) {
		size_t n = unit_len(s + at, len - at);

		used += (size_t)cols_of(s + at, n);
		at += n;
	}
	return at;
}

static void put(char *out, size_t size, size_t *at, const char *s, size_t n)
{
	if (*at + n >= size)
		n = size - 1 - *at; /* cut, never overflow; our buffers are TUI_LINE_MAX */
	memcpy(out + *at, s, n);
	*at += n;
}

/* s[0, head) + ellipsis + s[tail, len) into out. */
static size_t join(const char *s, size_t head, const char *ellipsis, size_t tail, size_t len,
		   char *out, size_t size)
{
	size_t at = 0;

	if (!size)
		return 0;
	put(out, size, &at, s, head);
	put(out, size, &at, ellipsis, strlen(ellipsis));
	put(out, size, &at, s + tail, len - tail);
	out[at] = '\0';
	return at;
}

static size_t copy_prefix(const char *s, size_t n, char *out, size_t size)
{
	if (n >= size)
		n = size ? size - 1 : 0;
	memcpy(out, s, n);
	if (size)
		out[n] = '\0';
	return n;
}

/* A third of the room for the start, the rest for the end, where file names end. */
static size_t elide_middle(const char *s, size_t len, int width, const char *ellipsis,
			   char *out, size_t size)
{
	int room = width - cols_of(ellipsis, strlen(ellipsis)), head_cols;
	size_t head, tail;

	if (room < 2)
		return copy_prefix(s, tui_units_fit(s, len, width, NULL), out, size);
	head = tui_units_fit(s, len, room / 3, &head_cols);
	tail = suffix_fit(s, len, room - head_cols);
	return join(s, head, ellipsis, tail < head ? head : tail, len, out, size);
}

#define DELETED_SUFFIX " (deleted)"

/* Where the last '/' of s is, 0 when the only one is the first byte or there is none. */
static size_t last_slash(const char *s, size_t len)
{
	size_t at = len;

	while (at > 1 && s[at - 1] != '/')
		at--;
	return at > 1 ? at - 1 : 0;
}

/* s[from, len): its middle goes, a " (deleted)" suffix kept whole. */
static size_t elide_name(const char *s, size_t len, size_t from, int width, const char *ellipsis,
			 char *out, size_t size)
{
	size_t sl = strlen(DELETED_SUFFIX), n;
	int ew = cols_of(ellipsis, strlen(ellipsis));

	s += from;
	len -= from;
	if (len > sl && !memcmp(s + len - sl, DELETED_SUFFIX, sl) && width - (int)sl > ew + 2) {
		n = elide_middle(s, len - sl, width - (int)sl, ellipsis, out, size);
		return n + copy_prefix(DELETED_SUFFIX, sl, out + n, size - n);
	}
	return elide_middle(s, len, width, ellipsis, out, size);
}

static size_t elide_path(const char *s, size_t len, int width, const char *ellipsis,
			 char *out, size_t size)
{
	int ew = cols_of(ellipsis, strlen(ellipsis)), head_cols, tail_cols, name_cols;
	const char *second = memchr(s + 1, '/', len - 1);
	size_t head, tail, last = last_slash(s, len);
	const char *slash;

	if (!last || !second)
		return elide_name(s, len, 0, width, ellipsis, out, size);
	name_cols = cols_of(s + last, len - last);
	/* Not even "/…/NAME": the file name's middle goes, nothing of its folders shows. */
	if (1 + ew + name_cols > width)
		return elide_name(s, len, last, width, ellipsis, out, size);
	head = (size_t)(second - s) + 1; /* "/opt/" */
	head_cols = cols_of(s, head);
	/* The file name before the first folder: "/…/NAME" rather than "/opt/NA…ME". */
	if (head > last || head_cols + ew + name_cols > width) {
		head = 1;
		head_cols = 1;
	}
	tail = suffix_fit(s, len, width - head_cols - ew);
	if (tail < head)
		tail = head;
	/* The tail starts at a component: "/lib-dynload/_ssl.so", not "ynload/_ssl.so". */
	slash = memchr(s + tail, '/', len - tail);
	tail = slash ? (size_t)(slash - s) : last;
	tail_cols = cols_of(s + tail, len - tail);
	/* Room left: more leading components. */
	for (;;) {
		const char *next = tail > head ? memchr(s + head, '/', tail - head) : NULL;
		int more;

		if (!next)
			break;
		more = cols_of(s + head, (size_t)(next - s) + 1 - head);
		if (head_cols + more + ew + tail_cols > width)
			break;
		head = (size_t)(next - s) + 1;
		head_cols += more;
	}
	return join(s, head, ellipsis, tail, len, out, size);
}

int tui_elide_want(const char *s, size_t len, const char *ellipsis)
{
	int whole = cols_of(s, len), name;
	size_t last = len && s[0] == '/' ? last_slash(s, len) : 0;

	if (!last)
		return whole;
	name = 1 + cols_of(ellipsis, strlen(ellipsis)) + cols_of(s + last, len - last);
	return name < whole ? name : whole;
}

size_t tui_cut_end(const char *s, size_t len, int width, const char *ellipsis, char *out,
		   size_t size)
{
	int ew = cols_of(ellipsis, strlen(ellipsis));

	if (cols_of(s, len) <= width)
		return copy_prefix(s, len, out, size);
	if (width <= ew)
		return copy_prefix(s, tui_units_fit(s, len, width, NULL), out, size);
	return join(s, tui_units_fit(s, len, width - ew, NULL), ellipsis, len, len, out, size);
}

size_t tui_elide(const char *s, size_t len, int width, const char *ellipsis, char *out,
		 size_t size)
{
	if (width <= 0)
		return copy_prefix(s, 0, out, size);
	if (cols_of(s, len) <= width)
		return copy_prefix(s, len, out, size);
	if (s[0] == '/')
		return elide_path(s, len, width, ellipsis, out, size);
	return elide_middle(s, len, width, ellipsis, out, size);
}

size_t tui_fit_last_column(char *line, size_t size, size_t name_at, int width, size_t scroll,
			   bool path_column, unsigned escape_flags)
{
	size_t len = strlen(line), off, n, whole;
	char fitted[TUI_LINE_MAX];
	int name_x;

	if (name_at >= len || name_at >= size)
		return 0;
	whole = (size_t)cols_of(line + name_at, len - name_at);
	/* The cells before may hold a cut mark: columns, not bytes. */
	name_x = cols_of(line, name_at);
	if (name_x >= width)
		return whole;
	if (scroll) {
		off = tui_skip_cols(line + name_at, len - name_at, scroll);
		memmove(line + name_at, line + name_at + off, len - name_at - off + 1);
		return whole;
	}
	if (path_column) {
		n = tui_elide(line + name_at, len - name_at, width - name_x,
			      tui_ellipsis(escape_flags), fitted, sizeof(fitted));
		copy_prefix(fitted, n, line + name_at, size - name_at);
	}
	return whole;
}

void tui_heading_offset(char *heading, size_t size, size_t scroll)
{
	size_t len = strlen(heading);

	if (scroll && len < size)
		snprintf(heading + len, size - len, " +%zu", scroll);
}

void tui_hscroll(size_t *scroll, int dir, size_t widest)
{
	if (dir > 0)
		*scroll = *scroll + TUI_HSCROLL_STEP < widest ? *scroll + TUI_HSCROLL_STEP : *scroll;
	else
		*scroll = *scroll > TUI_HSCROLL_STEP ? *scroll - TUI_HSCROLL_STEP : 0;
}
