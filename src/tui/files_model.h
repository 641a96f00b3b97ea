/*
 * files_model.h - the files view's model (F from a maps view): one row per
 * file or kind of anonymous memory (core/filemap.h), sorted, with a
 * selection that follows its file across refreshes and sorts.  No curses.
 *
 * tui_fileview_apply takes a fresh list of the process's mappings
 * (ownership passes to the model), groups it, lends the previous rows'
 * details (build ID, verdict, SONAME) to the same files, sorts, and keeps
 * the selected file selected.  The view then describes only the rows on
 * screen (tui_fileview_visible) through core/fileinfo.h.
 *
 * A filter (\\) keeps only the mappings whose raw name contains the text,
 * before they are grouped: the rows, their sizes and counts are those of
 * the matching mappings.  It applies from the next tui_fileview_apply.
 * Search (/ n N) selects the next row whose name contains the text
 * (listfind.h).
 *
 * Sorting: TUI_FILESORT_KEYS orders the keys < and > step through; sizes
 * sort largest first, names A to Z, I reverses.  RSS is in the cycle only
 * while the RSS column is on.
 *
 * Rows format to text in files_cols.c (tui_format_filerow_cols): MAPS SIZE [RSS]
 * PERMS VERDICT PACKAGE VERSION [FILEVER] SONAME [LIBVER] [BUILDID] NAME
 * (FILEVER and LIBVER hidden until chosen), every field escaped, the
 * columns before NAME ASCII (MS_ESC_ASCII) but for a cut's U+2026, so
 * tui_fit_last_column can elide or scroll NAME.  SONAME shows when the screen is at least
 * TUI_FILEVIEW_SONAME_COLS wide, BUILDID from TUI_FILEVIEW_BUILDID_COLS:
 * NAME keeps room on an 80-column terminal, and what is not shown is not
 * read.
 */
#ifndef MAPSCOPE_TUI_FILES_MODEL_H
#define MAPSCOPE_TUI_FILES_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/files/filemap.h"
#include "core/maps/mapping.h"
#include "tui/listfind.h"

#define TUI_FILEVIEW_SONAME_COLS 100
#define TUI_FILEVIEW_BUILDID_COLS 200

struct tui_fileview {
	struct ms_maplist list;    /* the mappings grouped, address order */
	struct ms_filemap fm;      /* rows, sorted */
	enum ms_filesort sort;
	bool reverse;
	bool rss_column;
	size_t sel, top, height;
	size_t hscroll;
	bool have_sel;             /* sel_key names the selected file */
	struct ms_filerow sel_key; /* kind, device, inode, name (borrowed from fm) */
	char filter[TUI_FIND_MAX]; /* "" keeps every mapping */
	char search[TUI_FIND_MAX];
};

void tui_fileview_init(struct tui_fileview *fv, size_t height);

void tui_fileview_free(struct tui_fileview *fv);

/* Does the filter keep mapping m (its name contains the text, or there is none)? */
bool tui_fileview_keeps(const struct tui_fileview *fv, const struct ms_mapping *m);

/* Take fresh (left empty) as the mappings; 0 or MS_ERR_NOMEM (err filled). */
int tui_fileview_apply(struct tui_fileview *fv, struct ms_maplist *fresh, struct ms_error *err);

void tui_fileview_set_height(struct tui_fileview *fv, size_t height);
void tui_fileview_select(struct tui_fileview *fv, size_t row);
void tui_fileview_move(struct tui_fileview *fv, long delta);
/* A click on body line `line`; true if it selected a row. */
bool tui_fileview_click(struct tui_fileview *fv, size_t line);
/* The selected row, or NULL when there are none. */
const struct ms_filerow *tui_fileview_selected(const struct tui_fileview *fv);

/* < (dir -1) and > (dir 1); I.  Both resort now. */
void tui_fileview_sort_step(struct tui_fileview *fv, int dir);
void tui_fileview_sort_reverse(struct tui_fileview *fv);
void tui_fileview_set_rss(struct tui_fileview *fv, bool on);
/* Sort again (RSS known now), keeping the selected file selected; 0 or MS_ERR_NOMEM. */
int tui_fileview_resort(struct tui_fileview *fv);

/* Select the next (dir > 0) or previous row matching fv->search; false if none. */
bool tui_fileview_search(struct tui_fileview *fv, int dir, bool from_current);

/* The rows on screen: [*from, *from + *n). */
void tui_fileview_visible(const struct tui_fileview *fv, size_t *from, size_t *n);

#endif
