/* The help screen, drawn from the action table. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "tui/tui.h"

struct help_view {
	struct tui_view base;
	enum tui_scope scope; /* the screen it was opened from, listed first */
	int scroll;
};

/* The help's lines: the actions of its screen, a blank, those of all, a blank, the notes. */
static size_t help_lines(const struct help_view *h)
{
	size_t n, nnotes, lines = 0;
	const struct tui_action_info *a = tui_actions(&n);

	tui_action_notes(&nnotes);
	for (size_t i = 0; i < n; i++)
		lines += a[i].scope == h->scope || a[i].scope == TUI_SCOPE_ALL;
	return lines + (h->scope == TUI_SCOPE_ALL ? 1 : 2) + nnotes;
}

/* Lines of help on a screen of rows: between the header and the message line. */
static int help_page(int rows)
{
	return rows > 3 ? rows - 2 : 1;
}

/* Scrolled to line, kept where the last page still fills the screen. */
static void help_scroll_to(struct help_view *h, long line)
{
	long last = (long)help_lines(h) - help_page(LINES);

	if (line > last)
		line = last;
	h->scroll = line > 0 ? (int)line : 0;
}

/* As in less: Space and PgDn page on, PgUp back; Space never pauses here. */
static unsigned help_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct help_view *h = (struct help_view *)v;
	int page = help_page(LINES);

	switch (act) {
	case TUI_ACT_DOWN: help_scroll_to(h, h->scroll + 1L); return TUI_F_REDRAW;
	case TUI_ACT_UP: help_scroll_to(h, h->scroll - 1L); return TUI_F_REDRAW;
	case TUI_ACT_PAGE_DOWN: case TUI_ACT_PAUSE: help_scroll_to(h, (long)h->scroll + page); return TUI_F_REDRAW;
	case TUI_ACT_PAGE_UP: help_scroll_to(h, (long)h->scroll - page); return TUI_F_REDRAW;
	case TUI_ACT_HOME: h->scroll = 0; return TUI_F_REDRAW;
	case TUI_ACT_END: help_scroll_to(h, (long)help_lines(h)); return TUI_F_REDRAW;
	case TUI_ACT_BACK: case TUI_ACT_QUIT: case TUI_ACT_HELP: return TUI_F_BACK;
	default: return 0;
	}
}

static unsigned help_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	return 0;
}

static void help_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	struct help_view *h = (struct help_view *)v;
	enum tui_scope order[2] = { h->scope, TUI_SCOPE_ALL };
	int w = getmaxx(win), last = getmaxy(win) - 1, line = 0, y = 1;
	const struct tui_action_info *a;
	const char *const *notes;
	char text[256], keys[64];
	size_t n, nnotes;

	werase(win);
	if (tui_draw_too_small(win))
		return;
	tui_draw_header(app, win, "mapscope help");
	a = tui_actions(&n);
	notes = tui_action_notes(&nnotes);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i <= n; i++) {
			if (i < n && a[i].scope != order[s])
				continue;
			if (i == n)
				snprintf(text, sizeof(text), " ");
			else {
				tui_action_keys_label(&a[i], keys, sizeof(keys));
				snprintf(text, sizeof(text), "  %-10s %s", keys, a[i].help);
			}
			if (line++ < h->scroll || y >= last)
				continue;
			tui_put(win, y++, 0, text, w, false);
		}
		if (order[0] == TUI_SCOPE_ALL)
			break;
	}
	for (size_t i = 0; i < nnotes; i++) {
		snprintf(text, sizeof(text), "  %s", notes[i]);
		if (line++ >= h->scroll && y < last)
			tui_put(win, y++, 0, text, w, false);
	}
	tui_draw_message(app, win, NULL);
}

static void help_destroy(struct tui_view *v)
{
	free(v);
}

static const struct tui_view_ops help_ops = {
	.scope = TUI_SCOPE_ALL,
	.handle = help_handle,
	.tick = help_tick,
	.draw = help_draw,
	.click = NULL,
	.destroy = help_destroy,
};

struct tui_view *tui_help_new(struct tui_app *app, enum tui_scope scope)
{
	struct help_view *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->base.ops = &help_ops;
	h->scope = scope;
	return &h->base;
}
