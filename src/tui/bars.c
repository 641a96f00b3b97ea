#include "config.h"

#include <string.h>

#include "tui/bars.h"

void tui_bar_format(char *buf, uint64_t value, uint64_t max, bool known)
{
	unsigned fill = 0;

	if (known && value && max) {
		if (value >= max)
			fill = TUI_BAR_FILL;
		else
			/* In long double: value * 10 overflows near 2^64 (a 16 EiB mapping). */
			fill = (unsigned)((long double)value * TUI_BAR_FILL / (long double)max + 0.5L);
		if (!fill)
			fill = 1;
	}
	buf[0] = '[';
	memset(buf + 1, '#', fill);
	memset(buf + 1 + fill, ' ', TUI_BAR_FILL - fill);
	buf[TUI_BAR_W - 1] = ']';
	buf[TUI_BAR_W] = '\0';
}

/* Open len bytes at byte at of buf, cutting the end when it no longer fits. */
static void open_gap(char *buf, size_t size, size_t at, size_t len, const char *text)
{
	size_t have = strlen(buf), tail;

	if (!size || at > have || at + len >= size)
		return;
	tail = have - at;
	if (at + len + tail >= size)
		tail = size - 1 - at - len;
	memmove(buf + at + len, buf + at, tail);
	buf[at + len + tail] = '\0';
	memcpy(buf + at, text, len);
}

size_t tui_bar_insert(char *buf, size_t size, size_t at, uint64_t value, uint64_t max, bool known)
{
	char bar[TUI_BAR_W + 2];

	tui_bar_format(bar, value, max, known);
	bar[TUI_BAR_W] = ' ';
	bar[TUI_BAR_W + 1] = '\0';
	if (at > strlen(buf) || at + TUI_BAR_W + 1 >= size)
		return at;
	open_gap(buf, size, at, TUI_BAR_W + 1, bar);
	return at + TUI_BAR_W + 1;
}

void tui_bar_insert_heading(char *buf, size_t size, const char *label)
{
	size_t n = strlen(label);
	char *p = buf, *last = NULL, cell[TUI_BAR_W + 2];

	/* The last label that starts a column: after a space (" SONAME" is not " NAME"). */
	while ((p = strstr(p, label))) {
		if (p > buf && p[-1] == ' ')
			last = p;
		p += n;
	}
	if (!last)
		return;
	memset(cell, ' ', TUI_BAR_W + 1);
	memcpy(cell, "BAR", 3);
	cell[TUI_BAR_W + 1] = '\0';
	open_gap(buf, size, (size_t)(last - buf), TUI_BAR_W + 1, cell);
}
