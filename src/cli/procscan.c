#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "cli/procscan.h"

int procscan_init(struct procscan *ps, int argc, char **argv, int *status)
{
	struct ms_error err;

	*ps = (struct procscan){ 0 };
	if (argc > 0) {
		ps->pids = calloc((size_t)argc, sizeof(*ps->pids));
		if (!ps->pids) {
			cli_error("out of memory");
			*status = CLI_EXIT_USAGE;
			return -1;
		}
		for (int i = 0; i < argc; i++) {
			if (cli_parse_pid(argv[i], &ps->pids[i]) < 0) {
				procscan_free(ps);
				*status = CLI_EXIT_USAGE;
				return -1;
			}
		}
		ps->count = (size_t)argc;
		ps->explicit = true;
		return 0;
	}
	if (ms_pid_list(&ps->pids, &ps->count, &err) < 0) {
		cli_error("%s", err.msg);
		*status = CLI_EXIT_USAGE;
		return -1;
	}
	return 0;
}

void procscan_free(struct procscan *ps)
{
	free(ps->pids);
	ps->pids = NULL;
	ps->count = 0;
}

void procscan_note_error(struct procscan *ps, const struct ms_error *err)
{
	if (ps->scanned)
		ps->scanned--;
	switch (err->code) {
	case MS_ERR_NOPROC:
	case MS_ERR_EXITED:
	case MS_ERR_EXECED:
		ps->vanished++;
		break;
	case MS_ERR_NOACCESS:
		ps->denied++;
		break;
	case MS_ERR_NOMM:
		/* A kernel thread has no mappings: nothing to report. */
		return;
	default:
		ps->failed++;
		break;
	}
	if (ps->explicit) {
		cli_error("%s", err->msg);
		ps->named_failed = true;
	}
}

int procscan_next(struct procscan *ps, const struct cli_opts *o, struct ms_proc **proc,
		  struct ms_maps **maps)
{
	struct ms_maps_opts mo = { .backend = o->backend, .ioctl_fn = NULL };
	pid_t self = getpid();
	struct ms_error err;

	while (ps->next < ps->count) {
		pid_t pid = ps->pids[ps->next++];

		if (pid == self && !ps->explicit)
			continue;
		*proc = NULL;
		*maps = NULL;
		ps->scanned++;
		if (ms_proc_open(pid, proc, &err) < 0) {
			procscan_note_error(ps, &err);
			continue;
		}
		if (!ps->explicit && ms_proc_is_kernel_thread(ms_proc_stat_at_open(*proc))) {
			ps->scanned--;
			ms_proc_close(*proc);
			continue;
		}
		if (ms_maps_open(*proc, &mo, maps, &err) < 0) {
			procscan_note_error(ps, &err);
			ms_proc_close(*proc);
			continue;
		}
		return 1;
	}
	return 0;
}

bool procscan_failed(const struct procscan *ps)
{
	return ps->named_failed;
}

void procscan_summary(const struct procscan *ps, const char *cmd)
{
	if (ps->explicit || (!ps->vanished && !ps->denied && !ps->failed))
		return;
	cli_error("%s: %zu processes scanned; skipped %zu that exited, %zu without access%s, %zu unreadable",
		  cmd, ps->scanned, ps->vanished, ps->denied,
		  ps->denied && geteuid() != 0 ? " (run as root to see them)" : "", ps->failed);
}
