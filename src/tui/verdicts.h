/*
 * verdicts.h - stale verdicts for the maps view, cached between ticks.
 *
 * The maps view judges only the rows on screen, every tick.  To keep a tick
 * from looking every file up again, verdicts are kept per (device, inode,
 * name) until tui_verdicts_forget: the view forgets every
 * TUI_VERDICT_FORGET_TICKS timer ticks and on F5, so a library replaced on
 * disk shows up within a few seconds.  Underneath, the core's ms_stale_ctx
 * caches path lookups with the same lifetime.
 *
 * Verdicts are ms_stale_judge's (stale.h), the same as every other view's
 * and command's: a row read without its build ID gets it from the kernel
 * when its verdict needs one, whatever fields the view asked for.
 *
 * The cache belongs to one process's mapping engine (maps, borrowed); the
 * ignore list is borrowed too and must outlive it.  Curses-free; errors are
 * MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_TUI_VERDICTS_H
#define MAPSCOPE_TUI_VERDICTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/stale/ignore.h"
#include "core/maps/mapping.h"
#include "core/maps/maps.h"
#include "core/stale/stale.h"

#define TUI_VERDICT_FORGET_TICKS 5
/* Past this many distinct files (a long scroll through a huge process), start over. */
#define TUI_VERDICT_CACHE_MAX 4096

struct tui_verdict {
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	char *name;
	size_t name_len;
	struct ms_stale_result result;
};

struct tui_verdicts {
	struct ms_stale_ctx *ctx;
	struct ms_maps *maps;
	struct tui_verdict *items;
	size_t count, cap;
	unsigned age;   /* timer ticks since the last forget */
	size_t judged;  /* verdicts computed (cache misses), for the curious and the tests */
};

int tui_verdicts_init(struct tui_verdicts *vc, const struct ms_ignore *ignore,
		      struct ms_maps *maps, struct ms_error *err);
void tui_verdicts_free(struct tui_verdicts *vc);

/* Drop every verdict and the core's lookups: the next ones see the disk now. */
void tui_verdicts_forget(struct tui_verdicts *vc);

/* A timer tick: forget when TUI_VERDICT_FORGET_TICKS have passed.  true if it forgot. */
bool tui_verdicts_tick(struct tui_verdicts *vc);

/* The cached verdict of m, or NULL (never judges). */
const struct ms_stale_result *tui_verdicts_find(const struct tui_verdicts *vc,
						const struct ms_mapping *m);

/* The verdict of m, from the cache or judged now.  0 or MS_ERR_NOMEM. */
int tui_verdicts_get(struct tui_verdicts *vc, const struct ms_mapping *m,
		     const struct ms_stale_result **out);

/* Adapter for tui_mapview_judge_visible (ctx is a struct tui_verdicts). */
int tui_verdicts_judge(void *ctx, const struct ms_mapping *m, enum ms_stale_verdict *out);

#endif
