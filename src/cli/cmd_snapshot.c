/* `mapscope snapshot PID -o FILE`: a process's memory map as one JSON document. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/mapcols.h"
#include "core/base/escape.h"
#include "core/snap/snapshot.h"
#include "core/snap/snapshot_write.h"

enum { SNAP_OPT_NO_CLOBBER = 300, SNAP_OPT_RESIDENCY, SNAP_OPT_FORCE, SNAP_OPT_NO_PACKAGES };

static void snapshot_usage(void)
{
	printf("Usage: mapscope snapshot PID [-o FILE] [options]\n\n"
	       "Save every mapping of process PID, with a header naming the process,\n"
	       "as one JSON document (see mapscope(1) for the format).  Each mapped file\n"
	       "owned by a package carries its package and version (dpkg, rpm, Python),\n"
	       "so that 'mapscope diff' can compare them by file later (a version 3\n"
	       "document).\n\n"
	       "Options:\n"
	       "  -o, --output=FILE      where to write; - (the default) is stdout\n"
	       "      --no-clobber       leave an existing FILE untouched and fail\n"
	       "      --force            overwrite FILE even if another user owns it or\n"
	       "                         it has other hard links\n"
	       "      --residency        add RSS, swap and huge pages per mapping\n"
	       "                         (a version 2 document)\n"
	       "      --no-packages      leave the packages out (a version 1 or 2\n"
	       "                         document, as older mapscope reads)\n"
	       "      --backend=WHICH    auto, ioctl or text (default auto)\n"
	       "  -h, --help             this help\n\n"
	       "FILE is written only if it is a regular file or new: a symlink, FIFO,\n"
	       "directory or device there is refused.  New files are made mode 0600.\n\n"
	       "Exit status: 0 written, 1 the process is missing or unreadable, FILE\n"
	       "exists (--no-clobber), was refused or cannot be written, 2 usage error.\n");
}

static const struct option snapshot_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "no-clobber", no_argument, NULL, SNAP_OPT_NO_CLOBBER },
	{ "force", no_argument, NULL, SNAP_OPT_FORCE },
	{ "residency", no_argument, NULL, SNAP_OPT_RESIDENCY },
	{ "no-packages", no_argument, NULL, SNAP_OPT_NO_PACKAGES },
	{ "backend", required_argument, NULL, CLI_OPT_BACKEND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int to_stdout(const struct ms_snapshot *snap, pid_t pid)
{
	int fd = STDOUT_FILENO;
	struct ms_error err;

	/* Streamed: the bounds are checked before the first byte. */
	if (ms_snapshot_stream(snap, ms_snapshot_sink_fd, &fd, &err) == 0)
		return CLI_EXIT_OK;
	if (err.code == MS_ERR_IO && err.sys_errno == EPIPE)
		return CLI_EXIT_OK;
	if (err.code == MS_ERR_IO)
		cli_error("pid %d: stdout: %s", (int)pid, err.msg);
	else
		cli_error_pid(pid, &err);
	return err.code == MS_ERR_IO ? CLI_EXIT_FAIL : ms_error_exit_status(err.code);
}

static int to_file(const struct ms_snapshot *snap, pid_t pid, const char *out,
		   const struct ms_safewrite_opts *so)
{
	struct ms_error err;
	bool created = false;
	char *shown;

	if (ms_snapshot_write(snap, out, so, &created, &err) < 0) {
		cli_error_output(pid, &err);
		return ms_error_exit_status(err.code);
	}
	shown = ms_escape_dup(out, strlen(out), MS_ESC_ASCII);
	cli_error("pid %d: %s %s", (int)pid, created ? "created" : "overwrote", shown ? shown : "the file");
	free(shown);
	return CLI_EXIT_OK;
}

/* Take the snapshot (with residency and packages when asked), so only writing is left. */
static int take(struct ms_maps *maps, bool residency, bool packages, struct ms_snapshot *snap)
{
	struct ms_error err;
	int rc = ms_snapshot_take(maps, snap, &err);

	if (rc == 0 && residency) {
		rc = ms_snapshot_add_residency(snap, ms_maps_proc(maps), &err);
		if (rc == 0 && snap->res_backend == MS_RES_SMAPS)
			mapcols_note_smaps(ms_proc_pid(ms_maps_proc(maps)));
	}
	if (rc == 0 && packages)
		rc = ms_snapshot_add_packages(snap, maps, &err);
	/* Freeing twice is harmless: ms_snapshot_take leaves a failed one empty. */
	if (rc < 0)
		ms_snapshot_free(snap);
	if (rc < 0) {
		cli_error_pid(ms_proc_pid(ms_maps_proc(maps)), &err);
		return ms_error_exit_status(err.code);
	}
	return CLI_EXIT_OK;
}

int cmd_snapshot(int argc, char **argv)
{
	struct ms_safewrite_opts so = { 0 };
	const char *out = "-";
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_snapshot snap;
	struct cli_opts o;
	bool residency = false, packages = true;
	int opt, status;
	pid_t pid;

	cli_opts_init(&o);
	while ((opt = getopt_long(argc, argv, "o:h", snapshot_options, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case SNAP_OPT_NO_CLOBBER: so.no_clobber = true; break;
		case SNAP_OPT_FORCE: so.force = true; break;
		case SNAP_OPT_RESIDENCY: residency = true; break;
		case SNAP_OPT_NO_PACKAGES: packages = false; break;
		case 'h': snapshot_usage(); return cli_stdout_done(0);
		case CLI_OPT_BACKEND:
			if (cli_opts_common(&o, opt, optarg) < 0)
				return CLI_EXIT_USAGE;
			break;
		default:
			fprintf(stderr, "Try 'mapscope snapshot --help'.\n");
			return CLI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("snapshot", "snapshot: expected one PID");
	if (cli_parse_pid(argv[optind], &pid) < 0)
		return CLI_EXIT_USAGE;

	status = cli_open_maps(pid, &o, &proc, &maps);
	if (status != CLI_EXIT_OK)
		return status;
	/* The header names the process by its start time: read it now, while it runs. */
	(void)ms_proc_stat_at_open(proc);
	status = take(maps, residency, packages, &snap);
	if (status == CLI_EXIT_OK) {
		status = !strcmp(out, "-") ? to_stdout(&snap, pid) : to_file(&snap, pid, out, &so);
		ms_snapshot_free(&snap);
	}
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
