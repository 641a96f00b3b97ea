/*
 * procs_model.h - the process list screen's model, without curses.
 *
 * It owns a scanned ms_proclist and shows a subset of its rows: the user's
 * own processes or everyone's, kernel threads or not, sorted by any column
 * (ties by PID), only those whose raw command line contains the filter (\\)
 * when one is set.  The selection is a PID, kept across rescans and filter
 * changes; when that process is gone or filtered out, the row now at the
 * same position is selected, and the rows fill the screen.  Search (/ n N)
 * matches a substring of the raw command line (listfind.h).
 *
 * Mappings are counted for the rows on screen only
 * (tui_procview_count_shown); the others keep their last known counts, so
 * sorting by MAPS, MAPPED or STALE orders by what is known, and rows with no
 * count yet (blank) or none to have ("-") come last in either direction.
 *
 * A change of sort (tui_procview_sort) selects the first row, as htop does,
 * and the selection stays on the first row while counts re-sort the list,
 * until a move, a click, a search or a reveal selects a process.
 */
#ifndef MAPSCOPE_TUI_PROCS_MODEL_H
#define MAPSCOPE_TUI_PROCS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/procs/proclist.h"
#include "tui/listfind.h"

struct ms_stale_ctx;

enum tui_proc_col {
	TUI_PCOL_PID,
	TUI_PCOL_USER,
	TUI_PCOL_MAPS,
	TUI_PCOL_MAPPED,
	TUI_PCOL_RSS,
	TUI_PCOL_STALE,
	TUI_PCOL_COMMAND,
	TUI_PCOL_COUNT,
};

struct tui_procview {
	struct ms_proclist list;
	size_t *shown;           /* indexes into list.rows, in display order */
	size_t nshown, shown_cap;
	enum tui_proc_col sort_col;
	bool reverse;
	bool all_users;
	bool kthreads;
	uid_t me;
	pid_t sel;
	size_t sel_row;
	size_t top_row;
	size_t height;
	char search[TUI_FIND_MAX];
	char filter[TUI_FIND_MAX]; /* only command lines containing this; "" all */
	size_t hscroll;          /* COMMAND scrolled by this many columns */
	bool reveal;             /* the next rebuild widens the filters to show sel */
	bool sel_first;          /* since a sort change: the first row, whichever process */
};

void tui_procview_init(struct tui_procview *pv, uid_t me, size_t height);
void tui_procview_free(struct tui_procview *pv);

const char *tui_proc_col_name(enum tui_proc_col col);

/* Filter and sort list again, keep the selection.  0 or MS_ERR_NOMEM. */
int tui_procview_rebuild(struct tui_procview *pv);

/* Sort by col (reverse: descending) and select the first row. */
void tui_procview_sort(struct tui_procview *pv, enum tui_proc_col col, bool reverse);

const struct ms_procrow *tui_procview_row(const struct tui_procview *pv, size_t i);
const struct ms_procrow *tui_procview_selected(const struct tui_procview *pv);

/*
 * Select pid and show it, now or at the first scan, turning on everyone's
 * processes or kernel threads if that is what hides it (going back from
 * its maps view).  0 or MS_ERR_NOMEM.
 */
int tui_procview_reveal(struct tui_procview *pv, pid_t pid);

/*
 * Count the rows on screen (ms_proclist_count; only_new: those without a
 * count yet), and sort again when the order depends on the counts.
 */
void tui_procview_count_shown(struct tui_procview *pv, struct ms_stale_ctx *stale, bool only_new);

void tui_procview_move(struct tui_procview *pv, long delta);
void tui_procview_select(struct tui_procview *pv, size_t row);
bool tui_procview_click(struct tui_procview *pv, size_t line);
void tui_procview_set_height(struct tui_procview *pv, size_t height);

/* Select the next (dir > 0) or previous match of pv->search; from_current:
 * the selected row may itself match (incremental typing).  false if none. */
bool tui_procview_search(struct tui_procview *pv, int dir, bool from_current);

/* Show only command lines containing text ("" all), keeping the selection.  0 or MS_ERR_NOMEM. */
int tui_procview_set_filter(struct tui_procview *pv, const char *text);

#endif
