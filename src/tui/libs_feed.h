/*
 * libs_feed.h - the libraries view's walk, spread over ticks; no curses.
 *
 * The view's table (libs_model.h) is rebuilt over one whole walk of every
 * process (core/maps/fleet.h), as libtable.h asks: a new table, one
 * ms_libtable_add per process, the packages looked up once when the walk
 * ends, then handed to the view to swap in.  A walk is spread over
 * TUI_LIBFEED_TICKS timer ticks: each tick adds a share of the processes
 * found when the walk began (at least one), so a fleet of any size costs
 * about the same per tick and the process list's budget (2% of a core at
 * 1 Hz) holds.  The first walk runs whole, so the view opens full.  Each
 * walk starts with ms_stale_ctx_forget, so verdicts see the disk as it is.
 *
 * Processes that vanish or deny access are counted (scanned, unreadable:
 * the last whole walk's), not errors.  Nothing here prints.
 */
#ifndef MAPSCOPE_TUI_LIBS_FEED_H
#define MAPSCOPE_TUI_LIBS_FEED_H

#include <stdbool.h>
#include <stddef.h>

#include "core/files/libtable.h"
#include "core/maps/fleet.h"
#include "core/stale/ignore.h"

#define TUI_LIBFEED_TICKS 10

struct tui_libfeed {
	struct ms_stale_ctx *ctx;
	enum ms_backend backend;
	unsigned what;              /* MS_LIBTABLE_* for the next walk */
	struct ms_fleet fleet;
	bool walking;
	struct ms_libtable *next;   /* the table being built */
	size_t share;               /* processes per tick in this walk */
	size_t walks;               /* whole walks done */
	size_t scanned, unreadable; /* of the last whole walk */
	const char *pkg_why;        /* the last walk's reason packages are unknown, or NULL */
};

/* ignore is borrowed.  0 or MS_ERR_NOMEM. */
int tui_libfeed_init(struct tui_libfeed *f, const struct ms_ignore *ignore, enum ms_backend backend,
		     struct ms_error *err);
void tui_libfeed_free(struct tui_libfeed *f);

/* Drop the walk under way: the next step starts a new one (F5). */
void tui_libfeed_restart(struct tui_libfeed *f);

/*
 * One tick's share of the walk (whole: to its end), starting a walk when
 * none runs.  When a walk ends, *done is its table (malloc'd, for
 * tui_libview_apply), else NULL.  0, or MS_ERR_NOMEM / MS_ERR_IO (err).
 */
int tui_libfeed_step(struct tui_libfeed *f, bool whole, struct ms_libtable **done, struct ms_error *err);

#endif
