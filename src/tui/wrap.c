#include "config.h"

#include "tui/elide.h"
#include "tui/wrap.h"

static size_t skip_blanks(const char *s, size_t len, size_t at)
{
	while (at < len && s[at] == ' ')
		at++;
	return at;
}

size_t tui_wrap_line(const char *s, size_t len, int width, size_t *next)
{
	size_t fit = tui_units_fit(s, len, width, NULL), end;

	if (fit == len) {
		*next = len;
		return len;
	}
	if (!fit) {
		/* Not even one unit fits: show one anyway, or nothing would move. */
		*next = tui_skip_cols(s, len, 1);
		return *next;
	}
	/* A blank never sits inside an escape unit: breaking there splits no unit. */
	if (s[fit] == ' ') {
		end = fit;
	} else {
		end = fit;
		while (end > 0 && s[end - 1] != ' ')
			end--;
		if (!end) {
			/* One word wider than the line: cut it between units. */
			*next = fit;
			return fit;
		}
	}
	*next = skip_blanks(s, len, end);
	while (end > 0 && s[end - 1] == ' ')
		end--;
	/* A line of blanks only: show them, rather than nothing. */
	return end ? end : *next;
}
