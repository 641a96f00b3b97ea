#include "config.h"

#include <string.h>

#include "tui/listfind.h"

bool tui_find_in(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	return !n || (hay && memmem(hay, len, needle, n) != NULL);
}

size_t tui_find_row(size_t n, size_t sel, int dir, bool from_current,
		    bool (*match)(const void *ctx, size_t row), const void *ctx)
{
	if (!n)
		return 0;
	if (sel >= n)
		sel = n - 1;
	for (size_t step = from_current ? 0 : 1; step <= n; step++) {
		size_t row = dir > 0 ? (sel + step) % n : (sel + n - step % n) % n;

		if (match(ctx, row))
			return row;
	}
	return n;
}
