/* Curses helpers shared by the views: text clipping, colours, common lines. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "core/base/escape.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/tui.h"

int tui_body_lines(int lines)
{
	return lines > 3 ? lines - 3 : 1;
}

void tui_push(struct tui_app *app, struct tui_view *v)
{
	v->below = app->top;
	app->top = v;
}

void tui_message(struct tui_app *app, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(app->message, sizeof(app->message), fmt, ap);
	va_end(ap);
}

void tui_prompt_start(struct tui_app *app, struct tui_view *owner, const char *label,
		      const char *initial, tui_prompt_fn fn)
{
	struct tui_prompt *p = &app->prompt;

	p->active = true;
	p->label = label;
	snprintf(p->text, sizeof(p->text), "%s", initial ? initial : "");
	p->len = strlen(p->text);
	p->fn = fn;
	p->owner = owner;
}

bool tui_search_step(struct tui_app *app, char *dst, size_t size, const char *text, bool done,
		     bool accepted)
{
	snprintf(dst, size, "%s", text);
	app->message[0] = '\0';
	return !(done && !accepted) && text[0];
}

void tui_put(WINDOW *win, int y, int x, const char *s, int width, bool pad)
{
	int cols = 0;
	size_t n;

	if (width <= 0)
		return;
	n = tui_text_fit(s, strlen(s), width, &cols);
	mvwaddnstr(win, y, x, s, (int)n);
	if (pad)
		for (; cols < width; cols++)
			waddch(win, ' ');
}

void tui_colors_init(struct tui_app *app)
{
	static const enum tui_color_role roles[] = {
		[TUI_PAIR_EXEC] = TUI_COLOR_EXEC, [TUI_PAIR_WRITE] = TUI_COLOR_WRITE,
		[TUI_PAIR_SHARED] = TUI_COLOR_SHARED, [TUI_PAIR_ANOMALY] = TUI_COLOR_ANOMALY,
		[TUI_PAIR_ADDED] = TUI_COLOR_ADDED, [TUI_PAIR_REMOVED] = TUI_COLOR_REMOVED,
		[TUI_PAIR_STALE] = TUI_COLOR_STALE,
	};

	if (!app->color || !has_colors() || start_color() == ERR) {
		app->color = false;
		return;
	}
	use_default_colors();
	for (int p = TUI_PAIR_EXEC; p <= TUI_PAIR_REMOVED; p++)
		init_pair((short)p, (short)app->cfg.colors[roles[p]], -1);
	init_pair(TUI_PAIR_BANNER, COLOR_WHITE, COLOR_RED);
	init_pair(TUI_PAIR_STALE, (short)app->cfg.colors[roles[TUI_PAIR_STALE]], -1);
	init_pair(TUI_PAIR_STRIP_HEAP, COLOR_MAGENTA, -1);
	init_pair(TUI_PAIR_STRIP_STACK, COLOR_CYAN, -1);
	init_pair(TUI_PAIR_STRIP_ANON, COLOR_BLUE, -1);
}

attr_t tui_pair_attr(const struct tui_app *app, enum tui_pair pair)
{
	if (!app->color)
		return pair == TUI_PAIR_ADDED || pair == TUI_PAIR_STALE ? A_BOLD :
		       pair == TUI_PAIR_REMOVED ? A_DIM : pair == TUI_PAIR_BANNER ? A_REVERSE : A_NORMAL;
	return COLOR_PAIR(pair) | (pair == TUI_PAIR_ADDED || pair == TUI_PAIR_BANNER ||
				   pair == TUI_PAIR_STALE ? A_BOLD : 0);
}

void tui_draw_header(struct tui_app *app, WINDOW *win, const char *text)
{
	char line[512], cut[512];
	int n = snprintf(line, sizeof(line), "%s%s", text, app->paused ? " [paused]" : "");

	/* A header longer than the screen ends in the ellipsis, as every cut does. */
	tui_cut_end(line, n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1, getmaxx(win),
		    tui_ellipsis(app->escape_flags), cut, sizeof(cut));
	wattron(win, A_REVERSE);
	tui_put(win, 0, 0, cut, getmaxx(win), true);
	wattroff(win, A_REVERSE);
}

void tui_draw_message(struct tui_app *app, WINDOW *win, const char *banner)
{
	int y = getmaxy(win) - 1, w = getmaxx(win);

	if (app->prompt.active) {
		char text[4 * sizeof(app->prompt.text) + 1];
		int lw = (int)strlen(app->prompt.label);
		size_t n = ms_escape(app->prompt.text, app->prompt.len, text, sizeof(text),
				     app->escape_flags | MS_ESC_ASCII);

		tui_put(win, y, 0, app->prompt.label, w, true);
		/* Typed text is ASCII once escaped: keep its end, where the typing is, in view. */
		if (lw < w) {
			size_t room = (size_t)(w - lw - 1);

			tui_put(win, y, lw, text + (n > room ? n - room : 0), w - lw, false);
		}
		return;
	}
	if (banner) {
		wattron(win, tui_pair_attr(app, TUI_PAIR_BANNER));
		tui_put(win, y, 0, banner, w, true);
		wattroff(win, tui_pair_attr(app, TUI_PAIR_BANNER));
		return;
	}
	tui_put(win, y, 0, app->message[0] ? app->message : "? help  q back/quit", w, true);
}

bool tui_draw_too_small(WINDOW *win)
{
	if (getmaxx(win) >= TUI_MIN_COLS && getmaxy(win) >= TUI_MIN_LINES)
		return false;
	werase(win);
	tui_put(win, 0, 0, "terminal too small", getmaxx(win), false);
	return true;
}

size_t tui_put_fitted_row(WINDOW *win, int y, char *text, size_t size, size_t last_at,
			  size_t scroll, bool path_column, attr_t a, unsigned escape_flags)
{
	int w = getmaxx(win);
	size_t whole = tui_fit_last_column(text, size, last_at, w, scroll, path_column, escape_flags);

	wattron(win, a);
	tui_put(win, y, 0, text, w, true);
	wattroff(win, a);
	return whole;
}

void tui_draw_heading(WINDOW *win, char *text, size_t size, size_t hscroll, int width)
{
	tui_heading_offset(text, size, hscroll);
	wattron(win, A_BOLD);
	tui_put(win, 1, 0, text, width, false);
	wattroff(win, A_BOLD);
}

bool tui_heading_sort(const struct tui_app *app, enum tui_colview view, unsigned off, int x0,
		      int beside, int x, int *sort, bool *reverse)
{
	struct tui_layout l;

	tui_layout_make_beside(&l, view, &app->cfg.cols[view], off, x0, COLS, beside);
	return tui_layout_sort_click(&l, x, sort, reverse);
}
