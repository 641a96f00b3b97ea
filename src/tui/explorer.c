/* `mapscope [PID]`: the interactive explorer's options and main loop. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/escape.h"
#include "core/elf/symbols.h"
#include "core/base/units.h"
#include "tui/elide.h"
#include "tui/keydec.h"
#include "tui/stopsig.h"
#include "tui/tui.h"

/* How long a lone ESC waits for the rest of a sequence, in curses and here. */
#define ESC_DELAY_MS 50

#define OPT_DUMP_KEYS 300
#define OPT_BACKEND 301
#define OPT_DEBUGINFOD 302

static void explorer_usage(FILE *out)
{
	fprintf(out, "Usage: mapscope [options] [PID]\n"
		     "       mapscope -p PID [options]\n\n"
		     "The interactive explorer: the process list, or the live mappings of PID.\n\n"
		     "Options:\n"
		     "  -p, --pid=PID          open this process's mappings directly\n"
		     "  -d, --delay=SECONDS    refresh period (default 1, or the config file's)\n"
		     "      --backend=WHICH    auto, ioctl or text (default auto)\n"
#ifdef HAVE_LIBDW
		     "      --debuginfod       g may fetch missing debug files from the servers\n"
		     "                         in DEBUGINFOD_URLS (off by default; at most %u s)\n"
#endif
		     "  -h, --help             this help\n\n"
		     "Press ? inside for the keys.  It needs a terminal; for batch output use\n"
		     "'mapscope list PID'.  Settings: $XDG_CONFIG_HOME/mapscope/config.\n"
#ifdef HAVE_LIBDW
		     , MS_SYMBOLS_DEBUGINFOD_SECONDS
#endif
		     );
#ifndef HAVE_LIBDW
	fprintf(out, "\nBuilt without libdw: g shows no symbol or source line.\n");
#endif
}

/* The explorer's own messages on stderr, before or after curses: "mapscope: " + text + tail. */
static void say(const char *tail, const char *fmt, va_list ap)
{
	fputs("mapscope: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

static void __attribute__((format(printf, 1, 2))) explorer_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("\n", fmt, ap);
	va_end(ap);
}

static int __attribute__((format(printf, 1, 2))) explorer_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("\nTry 'mapscope --help'.\n", fmt, ap);
	va_end(ap);
	return MS_EXIT_USAGE;
}

static int not_a_pid(const char *arg)
{
	char *safe = ms_escape_dup(arg, strlen(arg), MS_ESC_ASCII);
	int rc = explorer_usage_error("'%s' is not a process ID", safe ? safe : "?");

	free(safe);
	return rc;
}

static const struct option explorer_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "delay", required_argument, NULL, 'd' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
	{ "dump-keys", required_argument, NULL, OPT_DUMP_KEYS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct config_source {
	struct tui_app *app;
	const char *path; /* escaped: it comes from HOME or XDG_CONFIG_HOME */
};

static void config_warn(void *ctx, unsigned line, const char *msg)
{
	struct config_source *src = ctx;

	explorer_error("%s: line %u: %s", src->path, line, msg);
	if (!src->app->message[0])
		tui_message(src->app, "%s: line %u: %s", src->path, line, msg);
}

static void load_config(struct tui_app *app)
{
	struct ms_confdir *where = &app->settings_dir;
	char shown[1024];
	struct ms_error err;
	struct config_source src = { app, shown };

	if (ms_confdir_locate(where) < 0)
		return;
	/* Before the locale is looked at: ASCII escapes read anywhere. */
	ms_confdir_shown(where, TUI_SETTINGS_FILE, shown, sizeof(shown));
	if (tui_settings_load(&app->cfg, where, config_warn, &src, &err) == 0)
		return;
	if (where->foreign) {
		/* Root under `sudo -E`: the user's folder is never touched. */
		explorer_error("settings off: %s", err.msg);
		tui_message(app, "settings off: %s", err.msg);
		return;
	}
	if (err.sys_errno == ENOENT || err.sys_errno == ENOTDIR)
		return;
	explorer_error("%s; settings file ignored", err.msg);
	if (!app->message[0])
		tui_message(app, "%s; settings file ignored", err.msg);
}

/* The same list `mapscope stale` uses; a broken user file falls back to the defaults. */
static void load_ignore(struct tui_app *app)
{
	struct ms_error err;

	if (ms_ignore_load_user(&app->ignore, &err) == 0)
		return;
	explorer_error("%s", err.msg);
	tui_message(app, "%s; using the built-in stale-ignore list", err.msg);
	if (ms_ignore_default(&app->ignore, &err) < 0)
		app->ignore = NULL;
}

static bool need_terminal(void)
{
	const char *term = getenv("TERM");
	const char *why = NULL;

	if (!isatty(STDOUT_FILENO))
		why = "standard output is not a terminal";
	else if (!isatty(STDIN_FILENO))
		why = "standard input is not a terminal";
	else if (!term || !*term || !strcmp(term, "dumb"))
		why = "TERM is unset or dumb";
	if (!why)
		return false;
	explorer_error("the explorer needs a terminal (%s); for batch output use 'mapscope list PID'", why);
	return true;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pop(struct tui_app *app)
{
	struct tui_view *v = app->top;
	pid_t pid;

	if (!v)
		return;
	pid = v->pid;
	app->top = v->below;
	v->ops->destroy(v);
	app->message[0] = '\0';
	if (app->top && pid && app->top->ops->back_from)
		app->top->ops->back_from(app, app->top, pid);
}

static unsigned prompt_key(struct tui_app *app, int ch)
{
	struct tui_prompt *p = &app->prompt;
	bool done = false, accepted = false;

	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		done = accepted = true;
	} else if (ch == TUI_KEY_ESC) {
		done = true;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (p->len)
			p->text[--p->len] = '\0';
	} else if (ch == TUI_KEY_CTRL_U) {
		p->len = 0;
		p->text[0] = '\0';
	} else if (ch >= 0x20 && ch < 0x7f && p->len + 1 < sizeof(p->text)) {
		p->text[p->len++] = (char)ch;
		p->text[p->len] = '\0';
	} else {
		return 0;
	}
	if (done)
		p->active = false;
	return p->fn(app, p->owner, p->text, done, accepted);
}

/* The list a view shows columns of, for C; -1 for none (help, the chooser). */
static int colview_of(enum tui_scope scope)
{
	switch (scope) {
	case TUI_SCOPE_PROCS: return TUI_CV_PROCS;
	case TUI_SCOPE_MAPS: return TUI_CV_MAPS;
	case TUI_SCOPE_FILES: return TUI_CV_FILES;
	case TUI_SCOPE_STALE: return TUI_CV_STALE;
	case TUI_SCOPE_LIBS: return TUI_CV_LIBS;
	case TUI_SCOPE_LIBPROCS: return TUI_CV_LIBPROCS;
	default: return -1;
	}
}

/*
 * The mouse: the wheel moves the selection MOUSE_WHEEL_ROWS rows; a press
 * on line 1 is a heading click; on a row it selects, and a second press on
 * the same line within MOUSE_DOUBLE_SECONDS opens (Enter's action there).
 * Presses are reported at once (mouseinterval 0), so double clicks are
 * told here, the same under every terminal.
 */
#define MOUSE_WHEEL_ROWS 3
#define MOUSE_DOUBLE_SECONDS 0.4

static unsigned mouse(struct tui_app *app)
{
	const struct tui_view_ops *ops = app->top->ops;
	unsigned flags = 0;
	enum tui_action act;
	double now = now_seconds();
	bool twice;
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return 0;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		act = ev.bstate & BUTTON4_PRESSED ? TUI_ACT_UP : TUI_ACT_DOWN;
		for (int i = 0; i < MOUSE_WHEEL_ROWS; i++)
			flags |= ops->handle(app, app->top, act);
		return flags;
	}
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
		return 0;
	twice = ev.y == app->mouse_y && now - app->mouse_press < MOUSE_DOUBLE_SECONDS;
	app->mouse_press = twice ? 0 : now;
	app->mouse_y = ev.y;
	if (ev.y == 1)
		return ops->heading ? ops->heading(app, app->top, ev.x) : 0;
	if (ops->click)
		flags = ops->click(app, app->top, ev.y);
	act = tui_key_action(ops->scope, '\n');
	if (twice && ev.y >= 2 && act != TUI_ACT_NONE && ops->scope != TUI_SCOPE_COLUMNS)
		flags |= ops->handle(app, app->top, act);
	return flags;
}

static unsigned dispatch(struct tui_app *app, int ch, double *deadline)
{
	enum tui_action act;

	if (ch == KEY_RESIZE)
		return TUI_F_REDRAW | TUI_F_REQUERY;
	if (app->prompt.active)
		return prompt_key(app, ch);
	if (ch == KEY_MOUSE)
		return mouse(app);
	act = tui_key_action(app->top->ops->scope, ch);
	app->message[0] = '\0';
	switch (act) {
	case TUI_ACT_NONE:
		return 0;
	case TUI_ACT_PAUSE:
		/* The help (the one view of scope ALL) pages on with Space, as less does. */
		if (app->top->ops->scope == TUI_SCOPE_ALL)
			break;
		app->paused = !app->paused;
		*deadline = now_seconds();
		return TUI_F_REDRAW;
	case TUI_ACT_REFRESH:
		/* Views may drop caches first (the maps view forgets its stale verdicts). */
		clearok(curscr, TRUE);
		return app->top->ops->handle(app, app->top, act) | TUI_F_REDRAW | TUI_F_REQUERY;
	case TUI_ACT_COLUMNS:
		if (colview_of(app->top->ops->scope) < 0)
			break;
		{
			int beside = app->top->ops->beside ? app->top->ops->beside(app->top) : 0;
			struct tui_view *c = tui_columns_view_new(app,
						(enum tui_colview)colview_of(app->top->ops->scope), beside);

			if (c)
				tui_push(app, c);
		}
		return TUI_F_REDRAW;
	case TUI_ACT_STALE_VIEW:
		if (app->top->ops->scope == TUI_SCOPE_ALL || app->top->ops->scope == TUI_SCOPE_STALE ||
		    app->top->ops->scope == TUI_SCOPE_COLUMNS)
			break;
		{
			struct tui_view *s = tui_stale_new(app);

			if (!s) {
				tui_message(app, "stale view: out of memory");
				return TUI_F_REDRAW;
			}
			tui_push(app, s);
		}
		return TUI_F_REDRAW | TUI_F_REQUERY;
	case TUI_ACT_HELP:
		if (app->top->ops->handle == NULL || app->top->ops->scope == TUI_SCOPE_ALL)
			break;
		{
			struct tui_view *h = tui_help_new(app, app->top->ops->scope);

			if (h)
				tui_push(app, h);
		}
		return TUI_F_REDRAW;
	default:
		break;
	}
	return app->top->ops->handle(app, app->top, act);
}

/*
 * One value from curses -> one key, through the escape decoder.  A curses
 * key that cuts a sequence short ends it (as a timeout would) and is kept
 * in *held for the next turn.
 */
static int decode(struct tui_keydec *dec, int ch, int *held)
{
	if (ch == ERR)
		return tui_keydec_timeout(dec);
	if ((ch < 0 || ch > 0xff) && tui_keydec_pending(dec)) {
		*held = ch;
		return tui_keydec_timeout(dec);
	}
	return tui_keydec_feed(dec, ch);
}

static void run(struct tui_app *app)
{
	double deadline = now_seconds();
	unsigned flags = TUI_F_REDRAW;
	struct tui_keydec dec;
	int held = ERR;

	tui_keydec_init(&dec);
	while (app->top) {
		double left;
		int ch, key;

		if (!app->paused && now_seconds() >= deadline) {
			flags |= app->top->ops->tick(app, app->top, true);
			deadline = now_seconds() + app->cfg.delay;
		}
		if (flags & TUI_F_REQUERY)
			flags |= app->top->ops->tick(app, app->top, false);
		if (flags & TUI_F_REDRAW) {
			app->top->ops->draw(app, app->top, stdscr);
			wnoutrefresh(stdscr);
			doupdate();
		}
		flags = 0;
		if (held != ERR) {
			ch = held;
			held = ERR;
		} else if ((ch = tui_keydec_held(&dec)) >= 0) {
			/* The byte after an Esc: Esc is handled, now this. */
		} else {
			/* At most a second asleep, should a signal not interrupt the read. */
			left = app->paused ? 1 : deadline - now_seconds();
			timeout(tui_keydec_pending(&dec) ? ESC_DELAY_MS :
				left <= 0 ? 0 : left >= 1 ? 1000 : (int)(left * 1000) + 1);
			ch = getch();
		}
		if (tui_stopsig_pending())
			break;
		if (ch == ERR && !tui_keydec_pending(&dec))
			continue;
		key = decode(&dec, ch, &held);
		if (key == TUI_KEY_PENDING || key == TUI_KEY_IGNORED)
			continue;
		flags = dispatch(app, key, &deadline);
		if (flags & TUI_F_QUIT)
			break;
		if (flags & TUI_F_BACK) {
			pop(app);
			flags = TUI_F_REDRAW | TUI_F_REQUERY;
		}
	}
}

static int parse_delay(const char *s, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !(d >= 0.1 && d <= 3600))
		return -1;
	*out = d;
	return 0;
}

int tui_main(int argc, char **argv)
{
	struct tui_app app;
	SCREEN *scr;
	pid_t pid = 0;
	bool have_backend = false;
	double delay = 0;
	int opt;

	memset(&app, 0, sizeof(app));
	tui_settings_defaults(&app.cfg);
	while ((opt = getopt_long(argc, argv, "p:d:h", explorer_options, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (ms_parse_pid(optarg, &pid) < 0)
				return not_a_pid(optarg);
			break;
		case 'd':
			if (parse_delay(optarg, &delay) < 0)
				return explorer_usage_error("--delay: expected seconds between 0.1 and 3600");
			break;
		case OPT_BACKEND:
			if (ms_backend_parse(optarg, &app.backend) < 0)
				return explorer_usage_error("--backend: '%s' is not auto, ioctl or text", optarg);
			have_backend = true;
			break;
		case OPT_DEBUGINFOD:
#ifndef HAVE_LIBDW
			return explorer_usage_error("--debuginfod: mapscope was built without libdw");
#endif
			app.debuginfod = true;
			break;
		case OPT_DUMP_KEYS:
			if (strcmp(optarg, "roff"))
				return explorer_usage_error("--dump-keys: only roff");
			tui_actions_dump_roff(stdout);
			return MS_EXIT_OK;
		case 'h':
			explorer_usage(stdout);
			return MS_EXIT_OK;
		default:
			fprintf(stderr, "Try 'mapscope --help'.\n");
			return MS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		if (pid || optind + 1 < argc)
			return explorer_usage_error("expected at most one PID");
		if (ms_parse_pid(argv[optind], &pid) < 0)
			return not_a_pid(argv[optind]);
	}
	load_config(&app);
	if (delay > 0)
		app.cfg.delay = delay;
	if (!have_backend)
		app.backend = app.cfg.backend;
	if (need_terminal())
		return MS_EXIT_USAGE;
#ifdef HAVE_LIBDW
	struct ms_error err;

	if (app.debuginfod && ms_symbols_debuginfod_check(&err) < 0) {
		explorer_error("--debuginfod: %s: nothing is fetched", err.msg);
		tui_message(&app, "--debuginfod: %s: nothing is fetched", err.msg);
	}
#endif
	load_ignore(&app);
	app.escape_flags = tui_locale_escape_flags();
	app.color = app.cfg.color && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
	app.me = geteuid();

	app.top = NULL;
	{
		struct tui_view *procs = tui_procs_new(&app);

		if (procs)
			tui_push(&app, procs);
	}
	if (pid) {
		char why[256];
		struct tui_view *mv = tui_maps_new(&app, pid, why, sizeof(why));

		if (!mv) {
			while (app.top)
				pop(&app);
			explorer_error("%s", why);
			ms_ignore_free(app.ignore);
			return MS_EXIT_FAIL;
		}
		tui_push(&app, mv);
	}
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		while (app.top)
			pop(&app);
		explorer_error("cannot start the terminal (TERM=%s); for batch output use 'mapscope list PID'",
			  getenv("TERM"));
		ms_ignore_free(app.ignore);
		return MS_EXIT_USAGE;
	}
	app.in_curses = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(ESC_DELAY_MS);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	tui_colors_init(&app);
	tui_stopsig_install();
	run(&app);
	while (app.top)
		pop(&app);
	endwin();
	delscreen(scr);
	ms_ignore_free(app.ignore);
	tui_stopsig_reraise();
	return MS_EXIT_OK;
}
