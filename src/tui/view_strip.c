#include "config.h"

#include <ctype.h>

#include "tui/view_strip.h"

static attr_t kind_attr(const struct tui_app *app, enum tui_strip_kind kind)
{
	switch (kind) {
	case TUI_STRIP_CODE: return tui_pair_attr(app, TUI_PAIR_EXEC);
	case TUI_STRIP_DATA: return tui_pair_attr(app, TUI_PAIR_WRITE);
	case TUI_STRIP_HEAP: return tui_pair_attr(app, TUI_PAIR_STRIP_HEAP);
	case TUI_STRIP_STACK: return tui_pair_attr(app, TUI_PAIR_STRIP_STACK);
	case TUI_STRIP_ANON: return tui_pair_attr(app, TUI_PAIR_STRIP_ANON);
	default: return A_NORMAL;
	}
}

void tui_strip_draw(const struct tui_app *app, WINDOW *win, const struct tui_strip *s,
		    const struct tui_mapview *vm, size_t first, int rows, int y, int x)
{
	struct tui_strip_cell cells[TUI_STRIP_MAX_CELLS];
	size_t height = rows > 0 ? (size_t)rows : 0;

	if (height > TUI_STRIP_MAX_CELLS)
		height = TUI_STRIP_MAX_CELLS;
	tui_strip_layout(s, cells, height);
	for (size_t i = 0; i < (size_t)rows && first + i < vm->nrows; i++) {
		const struct tui_maprow *r = &vm->rows[first + i];

		if (r->mark != TUI_MARK_REMOVED)
			tui_strip_mark(s, cells, height, r->m->start, r->m->end);
	}
	for (size_t i = 0; i < height; i++) {
		int ch = tui_strip_letter(cells[i].kind);
		attr_t a = kind_attr(app, cells[i].kind);

		if (cells[i].window) {
			ch = toupper(ch);
			a |= A_REVERSE;
		}
		mvwaddch(win, y + (int)i, x, (chtype)ch | a);
	}
}
