/*
 * The maps view's g: the symbol and source line at the address asked, on
 * the message line and in the detail pane, and the debuginfod progress
 * line while a fetch runs.
 */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/elf/symbols.h"
#include "tui/elide.h"
#include "tui/stopsig.h"
#include "tui/tui.h"

/* Progress redraws at most this often (the client calls back far more). */
#define PROGRESS_INTERVAL_NS 100000000L
/* The message line's widest text: app->message holds it in any UTF-8. */
#define STATUS_COLS_MAX 250

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Called from inside a look-up: the message line alone is redrawn, then back to the fetch. */
static void fetch_progress(void *arg, long done, long total)
{
	struct tui_symbols_shown *ss = arg;
	struct tui_app *app = ss->app;
	long long t = now_ns();

	if (!app->in_curses || t - ss->last_progress_ns < PROGRESS_INTERVAL_NS)
		return;
	ss->last_progress_ns = t;
	if (total > 0)
		tui_message(app, "debuginfod: fetching debug info, %ld of %ld KiB (at most %u s)",
			    done / 1024, total / 1024, MS_SYMBOLS_DEBUGINFOD_SECONDS);
	else
		tui_message(app, "debuginfod: fetching debug info, %ld KiB (at most %u s)",
			    done / 1024, MS_SYMBOLS_DEBUGINFOD_SECONDS);
	tui_draw_message(app, stdscr, NULL);
	wnoutrefresh(stdscr);
	doupdate();
}

/*
 * Asked while the symbol reader works: a key pressed, or a signal to stop,
 * ends the look-up; the key stays in the input and is handled as usual.
 */
static bool input_waiting(void *arg)
{
	struct tui_symbols_shown *ss = arg;
	int ch;

	if (tui_stopsig_pending())
		return true;
	if (!ss->app->in_curses)
		return false;
	timeout(0);
	ch = getch();
	if (ch == ERR)
		return false;
	ungetch(ch);
	return true;
}

static int cols_of(const char *s)
{
	int cols = 0;

	tui_units_fit(s, strlen(s), INT_MAX, &cols);
	return cols;
}

/*
 * "ADDR: symbol  source" in the screen's width: the source path loses its
 * middle (elide.h keeps its file name) down to half the room, then the
 * symbol loses its middle too.
 */
static void status_text(const struct tui_app *app, uint64_t addr, const struct tui_symbol_text *t,
			char *out, size_t size)
{
	const char *dots = tui_ellipsis(app->escape_flags);
	char sym[4 * STATUS_COLS_MAX + 1], src[4 * STATUS_COLS_MAX + 1];
	int width = COLS < STATUS_COLS_MAX ? COLS : STATUS_COLS_MAX;
	int prefix = snprintf(out, size, "at %" PRIx64 ": ", addr), room, src_want;

	room = width - prefix - 1;
	if (room < 16)
		room = 16;
	if (!t->symbol[0]) {
		snprintf(out + prefix, size - (size_t)prefix, "no symbol (%s)", t->why);
		return;
	}
	src[0] = '\0';
	src_want = t->source[0] ? cols_of(t->source) : 0;
	if (src_want > room / 2)
		src_want = room / 2;
	tui_elide(t->symbol, strlen(t->symbol), src_want ? room - src_want - 2 : room, dots, sym,
		  sizeof(sym));
	if (src_want)
		tui_elide(t->source, strlen(t->source), room - cols_of(sym) - 2, dots, src, sizeof(src));
	snprintf(out + prefix, size - (size_t)prefix, "%s%s%s", sym, src[0] ? "  " : "", src);
}

int tui_symbols_show_goto(struct tui_app *app, struct tui_symbols_shown *ss, struct ms_proc *proc,
			  struct ms_maps *maps, uint64_t addr, struct ms_error *err)
{
	struct tui_symbol_text *t = &ss->text;
	char status[sizeof(app->message)];
	int rc;

	ss->valid = false;
	ss->app = app;
	if (!ss->at && !(ss->at = tui_symbol_at_new(proc, maps, app->debuginfod, fetch_progress,
						       input_waiting, ss)))
		return 0; /* without libdw, g only jumps */
	ss->last_progress_ns = 0;
	rc = tui_symbol_at_describe(ss->at, addr, app->escape_flags, t, err);
	if (rc == MS_END) {
		tui_message(app, "no mapping covers %" PRIx64 ": showing the next one", addr);
		return 0;
	}
	if (rc < 0)
		return rc;
	ss->valid = true;
	ss->addr = addr;
	if (t->symbol[0])
		snprintf(ss->line, sizeof(ss->line), "at %" PRIx64 ": %s%s%s", addr, t->symbol,
			 t->source[0] ? "  " : "", t->source);
	else
		snprintf(ss->line, sizeof(ss->line), "at %" PRIx64 ": none (%s)", addr, t->why);
	status_text(app, addr, t, status, sizeof(status));
	tui_message(app, "%s", status);
	return 0;
}

const char *tui_symbols_show_line(const struct tui_symbols_shown *ss, const struct ms_mapping *sel)
{
	return ss->valid && sel && sel->start <= ss->addr && ss->addr < sel->end ? ss->line : NULL;
}

void tui_symbols_show_forget(struct tui_symbols_shown *ss)
{
	tui_symbol_at_free(ss->at);
	ss->at = NULL;
	ss->valid = false;
}
