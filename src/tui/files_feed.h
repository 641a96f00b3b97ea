/*
 * files_feed.h - the files view's queries: when it walks the whole process
 * again and regroups it (files_model.h), and what it asks the engine for
 * on the other ticks.  Curses-free, so a test drives the view's own code
 * path against a real process and counts its walks.
 *
 * A whole walk (ms_maps_collect, then tui_fileview_apply) costs time in
 * the number of mappings (about 44 ms at 60,000), so a timer tick does one
 * only when:
 *   - nothing is grouped yet, or the caller asked (a new name filter, the
 *     refresh key): tui_filefeed_invalidate;
 *   - the period is up: TUI_INDEX_TICKS plus one tick per thousand
 *     mappings, as the maps view rebuilds its index (60,000 mappings: once
 *     a minute at 1 Hz).  This bounds how late any change shows;
 *   - the process's statm size, text or data moved (one small read per
 *     tick): a mapping appeared, vanished, grew, shrank or turned writable
 *     or not, anywhere;
 *   - the on-screen check found a difference.  It asks the engine again,
 *     by address, for the mappings of the rows on screen (their places are
 *     known from the last grouping): each run of them that is consecutive
 *     in the list is one window query from the end of the mapping before
 *     it, one longer than the run, so a mapping that appeared in the gap
 *     before or after a run, vanished, or changed identity (range, perms,
 *     offset, device, inode, name) is seen, even when statm did not move
 *     (an mprotect between read-only and executable).  Under a name
 *     filter the gaps hold what it leaves out, maybe most of the process:
 *     a run's own span is read then, no more.  Every mapping of
 *     the rows on screen with at most TUI_FILES_ROW_SMALL mappings is
 *     asked for at every tick (a library has a handful); of the bigger
 *     rows (the anonymous memory of a big process) TUI_FILES_CHECK_BIG
 *     mappings a tick, going on where the last tick stopped: statm and
 *     the period cover the rest of them.
 * A walk keeps the selection on its file (tui_fileview_apply).  Other
 * ticks (after a key) query nothing unless a walk is due.
 *
 * Describing rows (verdicts, SONAMEs) and their RSS stay with the view.
 * Errors come back as negative ms_errcodes with err filled; MS_ERR_EXITED,
 * MS_ERR_EXECED and MS_ERR_NOMM say the address space is gone.
 */
#ifndef MAPSCOPE_TUI_FILES_FEED_H
#define MAPSCOPE_TUI_FILES_FEED_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"
#include "core/maps/maps.h"
#include "core/proc/proc.h"
#include "tui/files_model.h"

/* A row with more mappings than this is big: checked a share per tick. */
#define TUI_FILES_ROW_SMALL 64
/* Mappings of big rows on screen the check asks for per tick. */
#define TUI_FILES_CHECK_BIG 256

/* Why a whole walk was made; the feed counts each. */
enum tui_filewalk {
	TUI_FW_ASKED,    /* the first, or tui_filefeed_invalidate */
	TUI_FW_PERIODIC, /* tui_filefeed_period ticks since the last */
	TUI_FW_STATM,    /* statm moved */
	TUI_FW_CHANGED,  /* the on-screen check saw a difference */
	TUI_FW_COUNT,
};

struct tui_filefeed {
	unsigned filter;           /* the kernel filter of every query */
	bool due;                  /* walk at the next refresh */
	unsigned age;              /* timer ticks since the last walk */
	bool have_statm;
	struct ms_statm statm;     /* as last read */
	size_t cursor;             /* list index the big rows' share goes on from */
	size_t walks[TUI_FW_COUNT]; /* walks made, by reason */
	size_t checked;            /* mappings the on-screen checks queried */
};

/* A feed with nothing grouped: the first refresh walks. */
void tui_filefeed_init(struct tui_filefeed *ff, unsigned filter);
/* Walk at the next refresh (the name filter changed, the refresh key). */
void tui_filefeed_invalidate(struct tui_filefeed *ff);
/* Timer ticks between periodic walks for what fv holds now. */
unsigned tui_filefeed_period(const struct tui_fileview *fv);

/*
 * The refresh of a tick; timer: a timer tick (ages, may check and walk),
 * else only a walk that is due.  1: walked and regrouped, 0: nothing to
 * change, or a negative ms_errcode.
 */
int tui_filefeed_refresh(struct tui_filefeed *ff, struct tui_fileview *fv, struct ms_maps *maps,
			 bool timer, struct ms_error *err);

#endif
