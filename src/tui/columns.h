/*
 * columns.h - which columns each explorer list shows, in what order, and
 * where they sit on a screen of a given width; without curses.
 *
 * Every list (process list, maps view, files view, stale view, libraries
 * view and its process sub-list) is a row of
 * columns followed by one last column that takes the rest of the line
 * (COMMAND, NAME, the stale view's UNIT/COMMAND, or on its file lines the
 * file's name after VERDICT and VERSION: stale_cols.h).  A view's columns
 * are one table beside its model (procs_cols.c, maps_cols.c, files_cols.c,
 * libs_cols.c, stale_cols.c): each entry is a struct tui_column (name,
 * width policy, alignment, drop rank, sort key, flags).  This file and
 * columns.c are the engine: the choice, the layout and the heading.
 * Adding a column (a size BAR, say) is one table entry, one enum value
 * below, and one case in the view's cell function; the chooser, the
 * settings file, heading clicks and the drop order follow from the table.
 *
 * What the user chose is a struct tui_colset per view: the order of the
 * non-last columns and which of them are hidden.  The config file stores it
 * as `columns.VIEW = NAME,NAME,...` (the shown columns, in order; see
 * settings.h).  A column's former name still reads as the column (the
 * files view's VERSION is FILEVER now); it is saved under its new name.  The last column is always shown, always last.
 *
 * Width policy.  Each column has a preferred width, a minimum, and what
 * may be cut of a cell wider than its column (tui_cut): the end of plain
 * text, the middle of a path (never its file name), or nothing (a
 * version).  A cut is marked with tui_ellipsis: U+2026 in a UTF-8 locale,
 * "..." otherwise; never '~', which Debian versions hold
 * ("1:2.3-1~deb12u1").  tui_layout_fit places the shown columns on a
 * screen `width` wide, each cell followed by one space, the last column
 * from last_x on:
 *   1. A TUI_CUT_NEVER column is as wide as the widest of its cells on
 *      screen (the view's want[], at least its heading); without want it
 *      has its preferred width.
 *   2. The last column wants want[last] (the room that keeps the file
 *      names on screen whole, tui_elide_want), at least TUI_LAST_MIN (24).
 *      Columns whose drop rank is below the last column's own rank drop,
 *      lowest first, until it has that room; then cuttable columns shrink
 *      toward their minimum.  A want no dropping could meet (a name
 *      longer than the screen) drops nothing.
 *   3. While the last column has fewer than TUI_LAST_MIN, any column with
 *      a rank drops, lowest first (rank 0 never drops).
 * So a version is never cut: other columns drop first, and the path (the
 * last column) gives way.  The drop order of each view is said in the help
 * (tui_columns_drop_order) and the man page.  Some columns also need a
 * screen at least min_screen wide (the files view's SONAME and BUILDID,
 * which cost a read of the file).
 *
 * A band (tui_columns_band: the maps view's address-space strip) is drawn
 * apart from the rows, at the right edge, under a heading of its own; it
 * is no column of the rows, but it takes cells of the line and has a
 * width policy like one: its cells, a drop rank among the columns' (it
 * gives way for the names before the columns ranked above it), and the
 * least screen it shows on.
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
		   TUI_LC_INSTALLED, TUI_LC_SONAME, TUI_LC_LIBVER, TUI_LC_BUILDID, TUI_LC_WHERE, TUI_LC_NAME };
enum tui_lpcol_id { TUI_LPC_PID, TUI_LPC_MAPS, TUI_LPC_RSS, TUI_LPC_WHERE, TUI_LPC_COMM };

#define TUI_COLS_MAX 16
/* Bytes of a cell's text, whole (a version, a package name, escaped). */
#define TUI_CELL_MAX 1024
/* The fewest columns the last column (NAME, COMMAND) gets while others can drop. */
#define TUI_LAST_MIN 24

/* Column flags. */
#define TUI_COLF_KEEP 0x1u    /* cannot be hidden (START-END) */
#define TUI_COLF_TOGGLED 0x2u /* shown by a key of the view, not the chooser (the maps view's R) */
#define TUI_COLF_OFF 0x4u     /* hidden until chosen */

/* What of a cell wider than its column may be cut. */
enum tui_cut {
	TUI_CUT_END,   /* plain text: its end, marked with the ellipsis */
	TUI_CUT_PATH,  /* a path: its middle, never its file name (tui_elide) */
	TUI_CUT_MIDDLE, /* a name whose end matters (libpython3.11-stdlib): its middle */
	TUI_CUT_NEVER, /* a version: the column widens to its widest cell on screen */
};

/*
 * One column.  Tables use designated initializers: a field left out is 0
 * (min: the width; cut: TUI_CUT_END).
 */
struct tui_column {
	const char *name;    /* the config name, and the heading unless heading is set */
	const char *heading; /* NULL: name */
	int width;           /* preferred cells; 0 for the last column */
	bool left;           /* left-aligned (else right) */
	/*
	 * Priority on narrow screens: place in the drop order, 1 first; 0
	 * never drops.  The last column's own rank: columns ranked below it
	 * drop to keep its file names whole.
	 */
	int drop;
	int sort;            /* the view's sort key a click on it picks; -1 none */
	bool desc;           /* that key sorts largest first unless reversed */
	int min_screen;      /* shown only on screens at least this wide; 0 any */
	unsigned flags;      /* TUI_COLF_* */
	int min;             /* the fewest cells it is cut to; 0: width */
	enum tui_cut cut;
	int fact;            /* 1 + the file's fact it shows (core/files/facts.h); 0: the view's own */
};

/* Tables: designated initializers; a field left out is 0. */
#define TUI_COL(n, w, ...) { .name = n, .width = w, __VA_ARGS__ }
/*
 * The width policy of a file's fact (core/files/facts.h), one for every
 * view that shows it: a version is never cut ("3.0.19-1~deb12u1" is 16);
 * a package or SONAME loses its middle, its flavour at the end kept
 * ("not packaged" is 12); a build ID is 40 hex digits; a path (the last
 * column) keeps its file name.  A view's entry adds its rank and sort key.
 */
#define TUI_FACT_COL(n, w, ...) TUI_COL(n, w, .left = true, __VA_ARGS__)
#define TUI_FACT(f) .fact = 1 + (f)
#define TUI_COL_VERSION(n, ...) TUI_FACT_COL(n, 16, .cut = TUI_CUT_NEVER, __VA_ARGS__)
#define TUI_COL_PACKAGE(...) TUI_FACT_COL("PACKAGE", 13, .min = 12, .cut = TUI_CUT_MIDDLE, __VA_ARGS__)
#define TUI_COL_SONAME(...) TUI_FACT_COL("SONAME", 22, .min = 12, .cut = TUI_CUT_MIDDLE, __VA_ARGS__)
#define TUI_COL_VERDICT(...) TUI_FACT_COL("VERDICT", 10, .min = 7, __VA_ARGS__)
#define TUI_COL_BUILDID(...) TUI_FACT_COL("BUILDID", 40, __VA_ARGS__)
#define TUI_COL_PATH(n, ...) TUI_FACT_COL(n, 0, .cut = TUI_CUT_PATH, __VA_ARGS__)
/*
 * Each view's table, beside its model and cell function (procs_cols.c,
 * maps_cols.c, files_cols.c, libs_cols.c), with its count.
 */
extern const struct tui_column tui_procs_cols[], tui_maps_cols[], tui_files_cols[], tui_libs_cols[],
	tui_libprocs_cols[];
extern const size_t tui_procs_ncols, tui_maps_ncols, tui_files_ncols, tui_libs_ncols,
	tui_libprocs_ncols;

/*
 * The view's band, or NULL: name (what the drop order calls it), heading
 * (the label over it), width + 1 cells (the width and the space before),
 * drop, min_screen.  Beside its table (maps_cols.c).
 */
extern const struct tui_column tui_maps_band;
const struct tui_column *tui_columns_band(enum tui_colview view);

/* The file's fact (enum ms_fact) column id of view shows, or -1: the view's own text. */
int tui_column_fact(enum tui_colview view, int id);

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

/*
 * The text of a cell: what a view's row holds for column id, whole (ASCII
 * or escaped text); ctx is the row.  Written into out (size bytes); the
 * layout cuts it to the column as the column's tui_cut says.
 */
typedef void (*tui_cell_fn)(const void *ctx, int id, char *out, size_t size);

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
	int band;                   /* the band's cells at the right edge; 0: none (not asked, or no room) */
	const char *ellipsis;       /* the cut mark (tui_ellipsis of the locale) */
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
/*
 * The whole policy: beside as above; want (NULL: none) holds, per column
 * id, the widest cell of each TUI_CUT_NEVER column among the rows on
 * screen, and at the last column's id what that column wants (0: only
 * TUI_LAST_MIN); escape_flags pick the cut mark.  The two above are this
 * with no want and the locale's mark.
 */
void tui_layout_fit(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
		    unsigned off, int x0, int width, int beside, const int *want, unsigned escape_flags);
/*
 * The same with the view's band at the right edge when `band` (it may
 * give way: l->band says whether it shows; beside does not count it).
 */
void tui_layout_fit_band(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
			 unsigned off, int x0, int width, int beside, bool band, const int *want,
			 unsigned escape_flags);
/*
 * The most room tui_layout_fit could give the last column with these
 * versions (want's TUI_CUT_NEVER entries): a view counts in want[last]
 * only the names that fit in it, so one name longer than the screen does
 * not cost the others their room.
 */
int tui_layout_reach(enum tui_colview view, const struct tui_colset *s, unsigned off, int x0,
		     int width, int beside, const int *want);
int tui_layout_reach_band(enum tui_colview view, const struct tui_colset *s, unsigned off, int x0,
			  int width, int beside, bool band, const int *want);
/*
 * The same where what takes the beside columns (a size bar) gives way
 * when without it the last column gets its want, or more columns show:
 * false when it does (l then has none).
 */
bool tui_layout_fit_yielding(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
			     unsigned off, int x0, int width, int beside, const int *want,
			     unsigned escape_flags);
/* Raise want[id] of each TUI_CUT_NEVER column to the width of its cell of one row. */
void tui_layout_want(int *want, enum tui_colview view, tui_cell_fn cell, const void *ctx);
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
 * A row: every shown cell of l, cut as its column says (with l->ellipsis),
 * aligned in its width and followed by a space, after the prefix already
 * in buf (l->x0 columns, at bytes).
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

/*
 * The same over the column whose sort key is key (none: no arrow), its
 * arrow as that key sorts: largest first for a desc column unless reverse.
 */
void tui_layout_heading_by_key(char *buf, size_t size, const struct tui_layout *l, int key,
				bool reverse, const char *last);

/* "BUILDID, SONAME, ..." : the view's columns in drop order. */
void tui_columns_drop_order(enum tui_colview view, char *buf, size_t size);

#endif
