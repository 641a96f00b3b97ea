/*
 * The column chooser (C): the columns of the list below it, one a line, to
 * show, hide and reorder.  It edits app->cfg.cols[view] in place, so the
 * list shows the change as soon as the chooser closes (Esc, q).  Each
 * change is saved to the settings file at once
 * (tui_settings_save_columns), and the message line says where, or why not;
 * when the settings are off (another user's HOME) it lasts the session.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "tui/columns.h"
#include "tui/settings.h"
#include "tui/tui.h"

struct columns_view {
	struct tui_view base;
	enum tui_colview view;
	size_t sel;   /* position in the colset's order */
	int beside;   /* what a bar or the strip take of the view's line (tui_view_ops.beside) */
};

static struct columns_view *cv_of(struct tui_view *v)
{
	return (struct columns_view *)v;
}

static void save(struct tui_app *app, struct columns_view *c)
{
	struct ms_confdir *where = &app->settings_dir;
	char shown[1024];
	struct ms_error err;

	app->cfg.cols[c->view].given = true;
	if (!where->var) {
		tui_message(app, "columns for this session only: neither XDG_CONFIG_HOME nor HOME is set");
		return;
	}
	if (tui_settings_save_columns(&app->cfg, where, &err) == 0) {
		ms_confdir_shown(where, TUI_SETTINGS_FILE, shown, sizeof(shown));
		tui_message(app, "columns saved to %s", shown);
	} else if (where->foreign) {
		tui_message(app, "columns for this session only; settings off: %s", err.msg);
	} else {
		tui_message(app, "%s; columns not saved", err.msg);
	}
}

static unsigned columns_handle(struct tui_app *app, struct tui_view *v, enum tui_action act)
{
	struct columns_view *c = cv_of(v);
	struct tui_colset *set = &app->cfg.cols[c->view];

	if (act == TUI_ACT_BACK || act == TUI_ACT_QUIT)
		return TUI_F_BACK;
	switch (act) {
	case TUI_ACT_DOWN:
		if (c->sel + 1 < set->n)
			c->sel++;
		break;
	case TUI_ACT_UP:
		if (c->sel)
			c->sel--;
		break;
	case TUI_ACT_HOME: c->sel = 0; break;
	case TUI_ACT_END: c->sel = set->n ? set->n - 1 : 0; break;
	case TUI_ACT_COLUMN_TOGGLE:
		if (tui_colset_toggle(set, c->view, c->sel))
			save(app, c);
		else
			tui_message(app, "this column cannot be hidden here");
		break;
	case TUI_ACT_COLUMN_EARLIER:
	case TUI_ACT_COLUMN_LATER:
		if (tui_colset_move(set, c->sel, act == TUI_ACT_COLUMN_EARLIER ? -1 : 1)) {
			c->sel += act == TUI_ACT_COLUMN_EARLIER ? (size_t)-1 : 1;
			save(app, c);
		}
		break;
	default:
		return 0;
	}
	return TUI_F_REDRAW;
}

static unsigned columns_tick(struct tui_app *app, struct tui_view *v, bool timer)
{
	return 0;
}

static unsigned columns_click(struct tui_app *app, struct tui_view *v, int y)
{
	struct columns_view *c = cv_of(v);

	if (y < 2 || (size_t)(y - 2) >= app->cfg.cols[c->view].n)
		return 0;
	c->sel = (size_t)(y - 2);
	return TUI_F_REDRAW;
}

/* What the chooser says of a column beside its name. */
static const char *column_note(const struct tui_column *col, const struct tui_layout *l, int id)
{
	if (col->flags & TUI_COLF_KEEP)
		return "always shown";
	if (col->flags & TUI_COLF_TOGGLED)
		return "R shows or hides it";
	if (l->dropped & (1u << id))
		return col->min_screen ? "too narrow here: needs a wider screen" :
					 "dropped at this width, to leave NAME room";
	return "";
}

static void columns_draw(struct tui_app *app, struct tui_view *v, WINDOW *win)
{
	struct columns_view *c = cv_of(v);
	const struct tui_colset *set = &app->cfg.cols[c->view];
	int w = getmaxx(win), last = getmaxy(win) - 1;
	size_t n;
	const struct tui_column *cols = tui_columns(c->view, &n);
	struct tui_layout l;
	char text[256];

	werase(win);
	if (tui_draw_too_small(win))
		return;
	if (v->below && v->below->ops->layout)
		v->below->ops->layout(app, v->below, w, &l);
	else
		tui_layout_make_beside(&l, c->view, set, 0, 0, w, c->beside);
	snprintf(text, sizeof(text), "mapscope | columns of the %s | Space show/hide, [ ] move, Esc close",
		 tui_colview_title(c->view));
	tui_draw_header(app, win, text);
	wattron(win, A_BOLD);
	tui_put(win, 1, 0, "    COLUMN     WIDTH", w, false);
	wattroff(win, A_BOLD);
	for (size_t i = 0; i <= set->n && 2 + (int)i < last; i++) {
		bool is_last = i == set->n;
		int id = is_last ? (int)n - 1 : set->order[i];
		char width[16];

		snprintf(width, sizeof(width), cols[id].width ? "%d" : "rest", cols[id].width);
		snprintf(text, sizeof(text), "[%c] %-10s %5s  %s",
			 is_last || !(set->hidden & (1u << id)) ? 'x' : ' ', cols[id].name, width,
			 is_last ? "always shown, last" : column_note(&cols[id], &l, id));
		if (i == c->sel)
			wattron(win, A_REVERSE);
		tui_put(win, 2 + (int)i, 0, text, w, true);
		wattroff(win, A_REVERSE);
	}
	tui_draw_message(app, win, NULL);
}

static void columns_destroy(struct tui_view *v)
{
	free(v);
}

static const struct tui_view_ops columns_ops = {
	.scope = TUI_SCOPE_COLUMNS,
	.handle = columns_handle,
	.tick = columns_tick,
	.draw = columns_draw,
	.click = columns_click,
	.destroy = columns_destroy,
};

struct tui_view *tui_columns_view_new(struct tui_app *app, enum tui_colview view, int beside)
{
	struct columns_view *c = calloc(1, sizeof(*c));

	(void)app;
	if (!c)
		return NULL;
	c->base.ops = &columns_ops;
	c->view = view;
	c->beside = beside;
	return &c->base;
}
