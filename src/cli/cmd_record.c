/*
 * `mapscope record PID -o FILE`: append each change of a process's map to a
 * JSON-lines file, until the process exits, N records, or a signal.
 *
 * SIGINT, SIGTERM and SIGHUP are blocked for the whole run and taken only
 * by sigtimedwait between polls, so a signal never lands in the middle of a
 * write: the file always ends with a whole line.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/base/escape.h"
#include "core/snap/record.h"
#include "core/snap/snapshot_write.h"

enum { REC_OPT_INTERVAL = 300, REC_OPT_COUNT, REC_OPT_FORCE };

static void record_usage(void)
{
	printf("Usage: mapscope record PID -o FILE [--interval SECONDS] [--count N]\n\n"
	       "Append one JSON line to FILE for each change of process PID's memory map\n"
	       "(mappings added, removed or changed, with a timestamp), until the process\n"
	       "exits, N records were written, or Ctrl-C.  A new FILE starts with a header\n"
	       "line; an existing FILE must be a recording of the same process, and is\n"
	       "continued.  A symlink, FIFO, directory or device at FILE is refused, and\n"
	       "a new FILE is made mode 0600.\n\n"
	       "Options:\n"
	       "  -o, --output=FILE         the recording (required)\n"
	       "  -i, --interval=SECONDS    time between looks (default 1; fractions allowed)\n"
	       "  -c, --count=N             stop after N records\n"
	       "      --force               continue FILE even if another user owns it or\n"
	       "                            it has other hard links\n"
	       "      --backend=WHICH       auto, ioctl or text (default auto)\n"
	       "  -h, --help                this help\n\n"
	       "Exit status: 0 stopped (process exited, N records, or a signal), 1 the\n"
	       "process is missing or unreadable, or FILE was refused or could not be\n"
	       "written, 2 usage error.\n");
}

static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'c' },
	{ "force", no_argument, NULL, REC_OPT_FORCE },
	{ "backend", required_argument, NULL, CLI_OPT_BACKEND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct record_args {
	struct cli_opts o;
	const char *out;
	struct ms_safewrite_opts so;
	struct timespec interval;
	unsigned long count; /* 0: no limit */
	pid_t pid;
};

static int parse_interval(const char *s, struct timespec *ts)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* At least 10 ms, at most a day: a busy loop or a typo otherwise. */
	if (errno || end == s || *end || !isfinite(v) || v < 0.01 || v > 86400)
		return -1;
	ts->tv_sec = (time_t)v;
	ts->tv_nsec = (long)((v - (double)ts->tv_sec) * 1e9);
	return 0;
}

static int parse_args(int argc, char **argv, struct record_args *a)
{
	int opt;

	memset(a, 0, sizeof(*a));
	cli_opts_init(&a->o);
	a->interval.tv_sec = 1;
	while ((opt = getopt_long(argc, argv, "o:i:c:h", record_options, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'o': a->out = optarg; break;
		case 'i':
			if (parse_interval(optarg, &a->interval) < 0)
				return cli_usage_error("record", "--interval: a number of seconds from 0.01 to 86400");
			break;
		case 'c':
			errno = 0;
			a->count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' || a->count == 0)
				return cli_usage_error("record", "--count: a positive number");
			break;
		case REC_OPT_FORCE: a->so.force = true; break;
		case 'h': record_usage(); return cli_stdout_done(0);
		case CLI_OPT_BACKEND:
			if (cli_opts_common(&a->o, opt, optarg) < 0)
				return CLI_EXIT_USAGE;
			break;
		default:
			fprintf(stderr, "Try 'mapscope record --help'.\n");
			return CLI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("record", "record: expected one PID");
	if (!a->out)
		return cli_usage_error("record", "record: -o FILE is required");
	if (!strcmp(a->out, "-"))
		return cli_usage_error("record", "record: FILE must be a file: it is read back to be continued");
	if (cli_parse_pid(argv[optind], &a->pid) < 0)
		return CLI_EXIT_USAGE;
	return -1;
}

/* The map now; follows an exec, since the PID and start time stay. */
static int look(struct ms_maps *maps, struct ms_maplist *now, struct ms_error *err)
{
	int rc;

	/* record reports build-ID changes (MS_DIFF_F_BUILDID). */
	ms_maps_set_fields(maps, MS_FIELDS_ALL);
	ms_maplist_clear(now);
	rc = ms_snapshot_collect(maps, "recording", now, err);
	if (rc == MS_ERR_EXECED) {
		ms_maplist_clear(now);
		rc = ms_maps_reopen(maps, err);
		if (rc == 0)
			rc = ms_snapshot_collect(maps, "recording", now, err);
	}
	return rc;
}

/* Whether the map now fits a recording line (snapshot_write.h's bounds). */
static bool within_bounds(struct ms_maps *maps, struct ms_error *err)
{
	struct ms_maplist now = { 0 };
	int rc = look(maps, &now, err);

	ms_maplist_free(&now);
	return rc != MS_ERR_LIMIT;
}

static int record_loop(const struct record_args *a, struct ms_maps *maps, struct ms_recorder *r,
		       const sigset_t *stop)
{
	struct ms_maplist now = { 0 };
	unsigned long written = 0;
	struct ms_error err;
	int status = CLI_EXIT_OK;

	for (;;) {
		bool wrote = false;
		int rc = look(maps, &now, &err);

		if (rc == MS_ERR_EXITED || rc == MS_ERR_NOMM) {
			cli_error("%s; recording ended", err.msg);
			break;
		}
		if (rc == 0)
			rc = ms_recorder_step(r, &now, &wrote, &err);
		if (rc < 0) {
			cli_error_pid(a->pid, &err);
			status = CLI_EXIT_FAIL;
			break;
		}
		if (wrote && a->count && ++written == a->count)
			break;
		rc = sigtimedwait(stop, NULL, &a->interval);
		if (rc > 0)
			break;
	}
	ms_maplist_free(&now);
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a;
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_recorder r;
	struct ms_error err;
	sigset_t stop, old;
	int status;

	status = parse_args(argc, argv, &a);
	if (status >= 0)
		return status;
	status = cli_open_maps(a.pid, &a.o, &proc, &maps);
	if (status != CLI_EXIT_OK)
		return status;
	/* The header names the process by its start time: read it now, while it runs. */
	(void)ms_proc_stat_at_open(proc);
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);

	if (!within_bounds(maps, &err)) {
		/* Before the file: a process past the bounds leaves nothing behind. */
		cli_error_pid(a.pid, &err);
		status = CLI_EXIT_FAIL;
	} else if (ms_recorder_open(a.out, maps, &a.so, &r, &err) < 0) {
		/* Refused or unwritable: about the file or the process, never usage. */
		cli_error_output(a.pid, &err);
		status = CLI_EXIT_FAIL;
	} else {
		char *shown = ms_escape_dup(a.out, strlen(a.out), MS_ESC_ASCII);

		cli_error("pid %d: %s %s", (int)a.pid,
			  r.appended ? "appending to" : "created", shown ? shown : "the file");
		free(shown);
		status = record_loop(&a, maps, &r, &stop);
		if (ms_recorder_close(&r, &err) < 0) {
			cli_error_pid(a.pid, &err);
			status = CLI_EXIT_FAIL;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
