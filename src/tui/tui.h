/*
 * tui.h - the explorer's screens: the application context, the view
 * interface and the drawing helpers they share (curses).
 *
 * Views form a stack (process list, maps view, stale view, files view,
 * libraries view and its processes, help).  Each is a small ops
 * table: it handles actions from the table in actions.h (returning TUI_F_*
 * flags, never drawing), refreshes its data on a tick, and draws the whole
 * screen from its model.  One struct tui_app is passed everywhere; there
 * are no globals.
 *
 * Screen layout: line 0 a header, line 1 column headings, the rows, an
 * optional detail pane, and the last line for messages, prompts and the
 * exited/exec'd banner.  Below TUI_MIN_COLS x TUI_MIN_LINES only a
 * "terminal too small" line is drawn.
 *
 * Adding a view (a list with columns), in this order:
 *   1. its model, curses-free, in VIEW_model.[ch] (rows, sort, selection,
 *      search; tests link it from libmapscope-tui.a);
 *   2. its columns beside it in VIEW_cols.c: a table of struct tui_column
 *      with TUI_COL and designated fields, each with its width policy
 *      (min, cut: TUI_CUT_NEVER for a version, TUI_CUT_PATH for the last
 *      column's path, a drop rank), its count, and its cell function
 *      (tui_cell_fn; a file's facts through tui_fact_cell, never its own
 *      wording); a want function when a column is TUI_CUT_NEVER or the last
 *      one is a path (tui_layout_want, tui_elide_want);
 *   3. in columns.h an enum tui_colview value and the column ids, the
 *      table's extern and a case in tui_columns, its config key and title
 *      in columns.c (the settings key `columns.KEY` follows);
 *   4. the screen in view_VIEW.c: a struct tui_view_ops with a scope, its
 *      layout op (tui_layout_fit with the rows' want) so the chooser says
 *      what drops, its keys in actions.c and the key that opens it;
 *   5. the help notes (its drop order: actions.c), README.md and the man
 *      page (keys: mapscope --dump-keys=roff; its columns and drop order);
 *   6. tests: the model and the cells (tests/tui), its screen at 80x24
 *      (tests/screens), and an e2e tmux test (tests/e2e).
 */
#ifndef MAPSCOPE_TUI_H
#define MAPSCOPE_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <curses.h>

#include "tui/actions.h"
#include "tui/columns.h"
#include "tui/settings.h"
#include "tui/maps_model.h"
#include "core/stale/ignore.h"
#include "tui/symbol_at.h"
#include "tui/strip.h"

#define TUI_MIN_COLS 20
#define TUI_MIN_LINES 5

enum tui_pair {
	TUI_PAIR_EXEC = 1,
	TUI_PAIR_WRITE,
	TUI_PAIR_SHARED,
	TUI_PAIR_ANOMALY,
	TUI_PAIR_ADDED,
	TUI_PAIR_REMOVED,
	TUI_PAIR_BANNER,
	TUI_PAIR_STALE,
	TUI_PAIR_STRIP_HEAP, /* the address-space strip's kinds without a row colour */
	TUI_PAIR_STRIP_STACK,
	TUI_PAIR_STRIP_ANON,
};

struct tui_app;
struct tui_view;

struct tui_view_ops {
	enum tui_scope scope;
	unsigned (*handle)(struct tui_app *app, struct tui_view *v, enum tui_action act);
	/* Query again (timer: a timer tick, which ages highlights).  TUI_F_* flags. */
	unsigned (*tick)(struct tui_app *app, struct tui_view *v, bool timer);
	void (*draw)(struct tui_app *app, struct tui_view *v, WINDOW *win);
	/* A click at screen line y. */
	unsigned (*click)(struct tui_app *app, struct tui_view *v, int y);
	/* A click on the column headings at screen column x (NULL: they do not sort). */
	unsigned (*heading)(struct tui_app *app, struct tui_view *v, int x);
	/* The view above, which showed process pid, was closed (NULL: nothing to do). */
	void (*back_from)(struct tui_app *app, struct tui_view *v, pid_t pid);
	/*
	 * Select the row at or after address addr (NULL: the view has no
	 * addresses): how a view above (the files view's Enter) moves the view
	 * below without knowing its internals.
	 */
	void (*jump)(struct tui_view *v, uint64_t addr);
	/*
	 * The columns of the line a size bar or the strip take now, beside the
	 * view's columns (tui_layout_make_beside; NULL: none), so the column
	 * chooser says what this screen drops.
	 */
	int (*beside)(const struct tui_view *v);
	/*
	 * The columns as the view places them now on a screen width wide,
	 * for the rows it shows (versions whole, names whole where room
	 * allows); NULL: tui_layout_make_beside with beside's columns.  The
	 * chooser says what this screen drops from it.
	 */
	void (*layout)(const struct tui_app *app, const struct tui_view *v, int width,
		       struct tui_layout *l);
	void (*destroy)(struct tui_view *v);
};

struct tui_view {
	const struct tui_view_ops *ops;
	struct tui_view *below;
	pid_t pid; /* the process this view shows, 0 for none */
};

typedef unsigned (*tui_prompt_fn)(struct tui_app *app, struct tui_view *v, const char *text,
				  bool done, bool accepted);

/* Ctrl-U in a prompt clears what was typed, as in a shell. */
#define TUI_KEY_CTRL_U 0x15

struct tui_prompt {
	bool active;
	const char *label;
	char text[1024];
	size_t len;
	tui_prompt_fn fn;   /* called on each change (done false) and at the end */
	struct tui_view *owner;
};

struct tui_app {
	struct tui_settings cfg;
	/* Where cfg came from, located once at start (foreign: the settings are off). */
	struct ms_confdir settings_dir;
	struct tui_view *top;
	enum ms_backend backend;
	unsigned escape_flags;
	bool color;
	bool paused;
	bool in_curses;
	uid_t me;
	char message[1024]; /* 250 columns of any UTF-8 */
	struct tui_prompt prompt;
	/* The stale-ignore list every view's verdicts use (NULL: ignore nothing). */
	struct ms_ignore *ignore;
	bool debuginfod; /* --debuginfod: g may fetch debug files */
	double mouse_press; /* when the last button press came (a second one opens) */
	int mouse_y;        /* and on which line */
};

/* Body height for a screen of `lines` lines (header, headings, message line). */
int tui_body_lines(int lines);

void tui_push(struct tui_app *app, struct tui_view *v);

/* Push the maps view of pid (0: nothing); a failure goes to the message line.  TUI_F_* flags. */
unsigned tui_open_maps(struct tui_app *app, pid_t pid);

/* Start a one-line prompt on the message line. */
void tui_prompt_start(struct tui_app *app, struct tui_view *owner, const char *label,
		      const char *initial, tui_prompt_fn fn);

/*
 * A search prompt's step in any list: keep the text typed in dst (size
 * bytes) and clear the message line.  True when the caller should now move
 * the selection to the first match at or after it, and say "no match" when
 * there is none (typing or Enter; not after Esc, nor for an empty text).
 */
bool tui_search_step(struct tui_app *app, char *dst, size_t size, const char *text, bool done,
		     bool accepted);

/* printf into app->message (shown on the last line until replaced). */
void tui_message(struct tui_app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Draw UTF-8 text at (y, x), clipped to width columns; pads with spaces if pad. */
void tui_put(WINDOW *win, int y, int x, const char *s, int width, bool pad);

/*
 * One body row whose last column (from byte last_at of text, size bytes)
 * is fitted with tui_fit_last_column, drawn at line y with attribute a.
 * Returns the last column's whole width, for tui_hscroll.
 */
size_t tui_put_fitted_row(WINDOW *win, int y, char *text, size_t size, size_t last_at,
			  size_t scroll, bool path_column, attr_t a, unsigned escape_flags);

/* The attribute for a colour role, or plain when colours are off. */
attr_t tui_pair_attr(const struct tui_app *app, enum tui_pair pair);
void tui_colors_init(struct tui_app *app);

/*
 * A detail pane (pane.c): a rule at line y, then each label and its value
 * (format.h), the value wrapped whole at word boundaries (wrap.h), up to
 * the line before last.  tui_pane_height: the lines it takes at width, the
 * rule included, counting no further than max.
 */
#define TUI_PANE_LABEL_W 10
struct tui_detail_line;
void tui_draw_pane(WINDOW *win, const struct tui_detail_line *lines, size_t n, int y, int last);
int tui_pane_height(int width, const struct tui_detail_line *d, size_t n, int max);

/* Header and message lines common to every view. */
void tui_draw_header(struct tui_app *app, WINDOW *win, const char *text);
/* Line 1, the column headings, in bold, scrolled as NAME is (tui_heading_offset), width wide. */
void tui_draw_heading(WINDOW *win, char *text, size_t size, size_t hscroll, int width);
void tui_draw_message(struct tui_app *app, WINDOW *win, const char *banner);
/* "terminal too small": true if that is all there is room for. */
bool tui_draw_too_small(WINDOW *win);

/*
 * A heading click at x on view's columns as laid out now (TUI_COLF_TOGGLED
 * columns in off, x0 columns of prefix, `beside` columns taken by a size
 * bar or the strip, as tui_layout_make_beside): the column's sort key into *sort,
 * or *reverse flipped when it already sorts.  false: no sortable column there.
 */
bool tui_heading_sort(const struct tui_app *app, enum tui_colview view, unsigned off, int x0,
		      int beside, int x, int *sort, bool *reverse);

/* The column chooser (C) for view; pushed over the view it configures. */
struct tui_view *tui_columns_view_new(struct tui_app *app, enum tui_colview view, int beside);

/* Key code -> action for a scope (ALL actions apply everywhere). */
enum tui_action tui_key_action(enum tui_scope scope, int key);

/* The views. */
struct tui_view *tui_procs_new(struct tui_app *app);
struct tui_view *tui_maps_new(struct tui_app *app, pid_t pid, char *errbuf, size_t errsize);
struct tui_view *tui_help_new(struct tui_app *app, enum tui_scope scope);
struct tui_view *tui_stale_new(struct tui_app *app);
/* The libraries view (L): every mapped file of every process, live (libs_model.h, libs_feed.h). */
unsigned tui_open_libs(struct tui_app *app);

/* Draw the maps screen from a model alone (used by the view and screen tests). */
struct tui_maps_frame {
	const struct tui_mapview *vm;
	const char *title;    /* "pid 123 cmd" */
	const char *backend;  /* "ioctl" or "text" */
	const char *banner;   /* NULL, or "process exited ..." */
	bool detail;
	bool ioctl_backend;
	const struct ms_resinfo *res; /* the selected mapping's residency, or NULL */
	const char *res_source;       /* "pagemap" or "smaps"; NULL: no residency lines */
	const struct ms_stale_result *verdict; /* the selected row's, or NULL */
	const struct ms_mapping *detail_map;   /* the selected row with its build ID; NULL: the row's */
	bool rss_column;              /* the RSS column (rows' rss from the model) */
	const char *where;            /* NULL, or where a process under another root lives */
	const char *symbol;           /* NULL, or g's symbol line for the selected mapping */
	const char *package;          /* NULL, or the selected file's package line (detail_pkg.h) */
	const struct tui_strip *strip; /* the address-space strip, or NULL */
	bool rss_total_known;         /* rss_total: the filtered list's RSS, from the index */
	uint64_t rss_total;
};
/* What a frame showed: a pane grown for a long name leaves fewer rows, from a later one. */
struct tui_maps_drawn {
	size_t first; /* index in vm->rows of the top row */
	int rows;
	size_t widest; /* columns of the widest NAME shown, whole */
};
void tui_maps_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_maps_frame *f,
			 struct tui_maps_drawn *drawn);

/* Draw the stale view from its model alone (used by the view and screen tests). */
struct tui_staleview;
/* Returns the columns of the widest last column shown, whole (for tui_hscroll). */
size_t tui_stale_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_staleview *sv);

/* Draw the process list from its model alone (used by the view and screen tests). */
struct tui_procview;
/* Returns the columns of the widest COMMAND shown, whole (for tui_hscroll). */
size_t tui_procs_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_procview *pv);
/* The files view (F), over the maps view below it, which lends its process. */
struct tui_files_source {
	struct tui_view *maps_view;
	struct ms_proc *proc;
	struct ms_maps *maps;
	unsigned filter;     /* the maps view's kernel filters */
	bool rss_column;     /* R is on in the maps view */
	const char *title;   /* "pid 123 cmd" */
};
unsigned tui_open_files(struct tui_app *app, const struct tui_files_source *src);
/* Draw the files view from its model alone (used by the view and screen tests). */
struct tui_fileview;
size_t tui_files_draw_frame(struct tui_app *app, WINDOW *win, const struct tui_fileview *fv,
			    const char *title);

/*
 * The maps view's g: the symbol at the address asked (symbol_at.h, made on
 * the first g) on the message line, and a line for the detail pane while
 * the selected mapping covers that address.  A debuginfod fetch redraws
 * the message line with its progress.  Forget it when the process exec's.
 */
struct tui_symbols_shown {
	struct tui_symbol_at *at;
	struct tui_app *app;
	bool valid;
	uint64_t addr;
	long long last_progress_ns;
	struct tui_symbol_text text;
	char line[2 * TUI_SYMBOL_TEXT_MAX + 64];
};
/* 0, or a negative MS_ERR_* in err (the address space may be gone). */
int tui_symbols_show_goto(struct tui_app *app, struct tui_symbols_shown *ss, struct ms_proc *proc,
			  struct ms_maps *maps, uint64_t addr, struct ms_error *err);
/* The pane's line for the selected mapping sel, or NULL. */
const char *tui_symbols_show_line(const struct tui_symbols_shown *ss, const struct ms_mapping *sel);
void tui_symbols_show_forget(struct tui_symbols_shown *ss);

struct tui_strip;
/*
 * The maps view's columns on a screen width wide (RSS while rss_column),
 * beside the size bar while sorted by SIZE or RSS, with the strip (NULL:
 * none) as the band at the right edge (l->band: its cells, 0 when it gave
 * way): the columns and the strip drop by rank before a name on screen is cut.
 */
void tui_maps_layout(const struct tui_app *app, const struct tui_mapview *vm, const struct tui_strip *strip,
		     bool rss_column, int width, struct tui_layout *l);

/* The maps body height for a screen with/without the detail pane. */
int tui_maps_rows(int lines, bool detail);

/* Entry point: `mapscope [PID] [options]`. */
int tui_main(int argc, char **argv);

#endif
