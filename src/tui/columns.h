/*
 * columns.h - which columns each explorer list shows, in what order, and
 * where they sit on a screen of a given width; without curses.
 *
 * Every list (process list, maps view, files view, stale view, libraries
 * view and its process sub-list) is a row of
 * fixed-width columns followed by one last column that takes the rest of
 * the line (COMMAND, NAME, the stale view's UNIT/COMMAND or FILE/WHY).  A
 * view's columns are one table in columns.c: each entry is a
 * struct tui_column (name, width, alignment, drop rank, sort key, flags).
 * Adding a column (a size BAR, say) is one table entry, one enum value
 * below, and one case in the view's cell function in format.c; the chooser,
 * the settings file, heading clicks and the drop order follow from the
 * table.
 *
 * What the user chose is a struct tui_colset per view: the order of the
 * non-last columns and which of them are hidden.  The config file stores it
 * as `columns.VIEW = NAME,NAME,...` (the shown columns, in order; see
 * settings.h).  A column's former name still reads as the column (the
 * files view's VERSION is FILEVER now); it is saved under its new name.  The last column is always shown, always last.
 *
 * tui_layout_make places the shown columns on a screen `width` wide, each
 * cell followed by one space, the last column from last_x on.  The last
 * column never gets fewer than TUI_LAST_MIN (24) columns while another
 * column can still go: columns drop in the order of their drop rank (rank
 * 1 first; rank 0 never drops).  The drop order of each view is said in
 * the help (tui_columns_drop_order) and the man page.  Some columns also
 * need a screen at least min_screen wide (the files view's SONAME and
 * BUILDID, which cost a read of the file).
 *
 * Sort arrows mean one thing everywhere: "^" after a heading is ascending
 * (smallest, lowest address, A to Z first), "v" descending.
 */
#ifndef MAPSCOPE_TUI_COLUMNS_H
#define MAPSCOPE_TUI_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

/* The views with columns. */
enum tui_colview {
	TUI_CV_PROCS,
	TUI_CV_MAPS,
	TUI_CV_FILES,
	TUI_CV_STALE,
	TUI_CV_LIBS,
	TUI_CV_LIBPROCS,
	TUI_CV_COUNT,
};

/* Column ids, per view: the index in that view's table; the last is the last column. */
enum tui_pcol_id { TUI_PC_PID, TUI_PC_USER, TUI_PC_MAPS, TUI_PC_MAPPED, TUI_PC_RSS, TUI_PC_STALE,
		   TUI_PC_COMMAND };
enum tui_mcol_id { TUI_MC_RANGE, TUI_MC_SIZE, TUI_MC_RSS, TUI_MC_PERMS, TUI_MC_OFFSET, TUI_MC_DEV,
		   TUI_MC_NAME };
enum tui_fcol_id { TUI_FC_MAPS, TUI_FC_SIZE, TUI_FC_RSS, TUI_FC_PERMS, TUI_FC_VERDICT,
		   TUI_FC_PACKAGE, TUI_FC_VERSION, TUI_FC_FILEVER, TUI_FC_SONAME, TUI_FC_LIBVER,
		   TUI_FC_BUILDID, TUI_FC_NAME };
enum tui_lcol_id { TUI_LC_PROCS, TUI_LC_RSS, TUI_LC_VERDICT, TUI_LC_PACKAGE, TUI_LC_VERSION,
		   TUI_LC_INSTALLED, TUI_LC_SONAME, TUI_LC_BUILDID, TUI_LC_WHERE, TUI_LC_NAME };
enum tui_lpcol_id { TUI_LPC_PID, TUI_LPC_MAPS, TUI_LPC_RSS, TUI_LPC_WHERE, TUI_LPC_COMM };

#define TUI_COLS_MAX 16
/* The fewest columns the last column (NAME, COMMAND) gets while others can drop. */
#define TUI_LAST_MIN 24

/* Column flags. */
#define TUI_COLF_KEEP 0x1u    /* cannot be hidden (START-END) */
#define TUI_COLF_TOGGLED 0x2u /* shown by a key of the view, not the chooser (the maps view's R) */
#define TUI_COLF_OFF 0x4u     /* hidden until chosen */

struct tui_column {
	const char *name;    /* the config name, and the heading unless heading is set */
	const char *heading; /* NULL: name */
	int width;           /* cells; 0 for the last column */
	bool left;           /* left-aligned (else right) */
	int drop;            /* place in the drop order, 1 first; 0 never drops */
	int sort;            /* the view's sort key a click on it picks; -1 none */
	bool desc;           /* that key sorts largest first unless reversed */
	int min_screen;      /* shown only on screens at least this wide; 0 any */
	unsigned flags;      /* TUI_COLF_* */
};

/* A view's table and its count (the last entry is the last column). */
const struct tui_column *tui_columns(enum tui_colview view, size_t *count);
/* "procs", "maps", "files", "stale": the config key's suffix. */
const char *tui_colview_key(enum tui_colview view);
/* "process list" ... for titles. */
const char *tui_colview_title(enum tui_colview view);

/* What the user chose for one view. */
struct tui_colset {
	unsigned char order[TUI_COLS_MAX]; /* every non-last column id, in order */
	unsigned char n;
	unsigned hidden;                   /* bit per column id */
	bool given;                        /* set by a columns.VIEW line */
};

/* The table's order, with TUI_COLF_OFF columns hidden. */
void tui_colset_default(struct tui_colset *s, enum tui_colview view);
/*
 * "NAME,NAME,...": the shown columns in order (case-insensitive; the last
 * column may be named, last).  The others follow hidden, in table order;
 * a TUI_COLF_KEEP column left out comes first.  0, or -1 with s untouched
 * for an unknown or repeated name.
 */
int tui_colset_parse(struct tui_colset *s, enum tui_colview view, const char *text);
/* The inverse: the shown columns in order, the last column at the end. */
void tui_colset_format(const struct tui_colset *s, enum tui_colview view, char *buf, size_t size);

/* The chooser's edits: position pos in s->order.  false when nothing changed. */
bool tui_colset_toggle(struct tui_colset *s, enum tui_colview view, size_t pos);
bool tui_colset_move(struct tui_colset *s, size_t pos, int dir);

/* The columns placed on a screen. */
struct tui_layout {
	enum tui_colview view;
	size_t n;                   /* shown, non-last */
	unsigned char id[TUI_COLS_MAX];
	int x[TUI_COLS_MAX];
	int width[TUI_COLS_MAX];
	int x0;                     /* where the first column starts */
	int last_x;                 /* where the last column starts */
	unsigned dropped;           /* bit per column id: chosen, but no room */
};

/*
 * Place s's columns (less those in `off`: bits of TUI_COLF_TOGGLED columns
 * the view has switched off) after x0 columns of prefix on a screen width
 * columns wide, as the header comment says.
 */
void tui_layout_make(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
		     unsigned off, int x0, int width);
/*
 * The same with `beside` columns of the line taken by something outside
 * the table (a size bar before the last column, the maps view's strip):
 * they come out of the last column's room, so other columns drop for them,
 * while min_screen is still compared with the whole screen's width.
 */
void tui_layout_make_beside(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
			    unsigned off, int x0, int width, int beside);
bool tui_layout_shows(const struct tui_layout *l, int id);

/* The column id under screen column x: the last column from last_x on; -1 between. */
int tui_layout_hit(const struct tui_layout *l, int x);

/*
 * A click on the heading at x: the sort key of the column there into *sort
 * (ascending, or the key's natural order: reverse false), or *reverse
 * flipped when that key already sorts.  false: no sortable column at x.
 */
bool tui_layout_sort_click(const struct tui_layout *l, int x, int *sort, bool *reverse);

/* "^" ascending, "v" descending (the help says so). */
const char *tui_sort_arrow(bool descending);

/*
 * The text of a cell: what a view's row holds for column id.  ctx is the
 * row.  Written into out (size bytes); longer text is cut at the cell.
 */
typedef void (*tui_cell_fn)(const void *ctx, int id, char *out, size_t size);

/*
 * A row: every shown cell of l, aligned in its width and followed by a
 * space, after the prefix already in buf (l->x0 columns, *at bytes).
 * Returns where the last column starts (the caller appends it).
 */
size_t tui_layout_row(char *buf, size_t size, size_t at, const struct tui_layout *l,
		      tui_cell_fn cell, const void *ctx);
/*
 * The heading: each column's heading, the sorted one (id sort_id, -1 none)
 * with its arrow, then last (the last column's heading, may be NULL).
 */
void tui_layout_heading(char *buf, size_t size, const struct tui_layout *l, int sort_id,
			bool descending, const char *last);

/* "BUILDID, SONAME, ..." : the view's columns in drop order. */
void tui_columns_drop_order(enum tui_colview view, char *buf, size_t size);

#endif
