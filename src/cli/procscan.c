#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "cli/procscan.h"
#include "core/base/units.h"

int procscan_init(struct procscan *ps, int argc, char **argv, const struct cli_opts *o,
		  int *status)
{
	struct ms_error err;
	pid_t *pids = NULL;
	int rc;

	if (argc > 0) {
		pids = calloc((size_t)argc, sizeof(*pids));
		if (!pids) {
			cli_error("out of memory");
			*status = CLI_EXIT_USAGE;
			return -1;
		}
		for (int i = 0; i < argc; i++) {
			if (cli_parse_pid(argv[i], &pids[i]) < 0) {
				free(pids);
				*status = CLI_EXIT_USAGE;
				return -1;
			}
		}
	}
	rc = ms_fleet_init(&ps->fleet, pids, (size_t)(argc > 0 ? argc : 0), argc > 0, o->backend, &err);
	free(pids);
	if (rc < 0) {
		cli_error("%s", err.msg);
		*status = CLI_EXIT_USAGE;
		return -1;
	}
	return 0;
}

void procscan_free(struct procscan *ps)
{
	ms_fleet_free(&ps->fleet);
}

void procscan_note_error(struct procscan *ps, const struct ms_error *err)
{
	if (ms_fleet_note_error(&ps->fleet, err))
		cli_error("%s", err->msg);
}

int procscan_next(struct procscan *ps, struct ms_proc **proc, struct ms_maps **maps)
{
	struct ms_error err;

	for (;;) {
		switch (ms_fleet_next(&ps->fleet, proc, maps, &err)) {
		case MS_FLEET_OPEN:
			return 1;
		case MS_FLEET_NAMED_FAILED:
			cli_error("%s", err.msg);
			continue;
		default:
			return 0;
		}
	}
}

bool procscan_failed(const struct procscan *ps)
{
	return ms_fleet_failed(&ps->fleet);
}

void procscan_summary(const struct procscan *ps, const char *cmd)
{
	const struct ms_fleet *f = &ps->fleet;

	if (!ms_fleet_skipped_any(f))
		return;
	cli_error("%s: %zu %s scanned; skipped %zu that exited, %zu without access%s, %zu unreadable",
		  cmd, f->scanned, ms_plural(f->scanned, "process", "processes"), f->vanished, f->denied,
		  f->denied && geteuid() != 0 ? " (run as root to see them)" : "", f->failed);
}
