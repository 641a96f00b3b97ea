/* A detail pane: label and value lines, each value wrapped whole at word boundaries. */
#include "config.h"

#include <string.h>

#include "tui/format.h"
#include "tui/tui.h"
#include "tui/wrap.h"

int tui_pane_height(int width, const struct tui_detail_line *d, size_t n, int max)
{
	int need = 1;

	for (size_t i = 0; i < n; i++) {
		const char *val = d[i].value;
		size_t left = strlen(val);

		do {
			size_t next;

			tui_wrap_line(val, left, width - TUI_PANE_LABEL_W, &next);
			val += next;
			left -= next;
			need++;
		} while (left && need < max);
	}
	return need;
}

void tui_draw_pane(WINDOW *win, const struct tui_detail_line *lines, size_t n, int y, int last)
{
	int w = getmaxx(win);

	mvwhline(win, y, 0, '-', w);
	tui_put(win, y, 0, "- detail ", w, false);
	for (size_t i = 0; i < n && ++y < last; i++) {
		const char *val = lines[i].value;
		size_t left = strlen(val);

		tui_put(win, y, 0, lines[i].label, TUI_PANE_LABEL_W, true);
		/* A value is shown whole: wrapped over as many lines as it needs, between words. */
		while (left) {
			size_t next, fit = tui_wrap_line(val, left, w - TUI_PANE_LABEL_W, &next);
			char part[TUI_LINE_MAX];

			memcpy(part, val, fit);
			part[fit] = '\0';
			tui_put(win, y, TUI_PANE_LABEL_W, part, w - TUI_PANE_LABEL_W, false);
			val += next;
			left -= next;
			if (!left || y + 1 >= last)
				break;
			y++;
		}
	}
}
