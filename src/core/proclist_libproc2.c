/* The process list through libproc2 (procps-ng 4): you pay for the items you ask for. */
#include "config.h"

#ifdef HAVE_LIBPROC2

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libproc2/pids.h>

#include "proc.h"
#include "proclist_backend.h"

enum { I_PID, I_EUID, I_EUSER, I_FLAGS, I_CMD, I_CMDLINE_V };

static enum pids_item items[] = {
	[I_PID] = PIDS_ID_PID,
	[I_EUID] = PIDS_ID_EUID,
	[I_EUSER] = PIDS_ID_EUSER,
	[I_FLAGS] = PIDS_FLAGS,
	[I_CMD] = PIDS_CMD,
	[I_CMDLINE_V] = PIDS_CMDLINE_V,
};

/* Rebuild cmdline's bytes (NUL between arguments) so both sources agree. */
static char *join_argv(char **argv, size_t *len)
{
	size_t total = 0, at = 0;
	char *out;

	for (size_t i = 0; argv && argv[i] && total < MS_PROCLIST_CMD_MAX; i++)
		total += strlen(argv[i]) + 1;
	out = malloc(total + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; argv && argv[i] && at < total; i++) {
		size_t n = strlen(argv[i]);

		memcpy(out + at, argv[i], n + 1);
		at += n + 1;
	}
	out[at] = '\0';
	*len = at;
	return out;
}

static int libproc2_scan(struct ms_proclist *list, struct ms_error *err)
{
	struct pids_info *info = NULL;
	struct pids_stack *stack;
	int rc = 0, n = (int)(sizeof(items) / sizeof(items[0]));

	if (procps_pids_new(&info, items, n) < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "process list: libproc2 failed");
	while (rc == 0 && (stack = procps_pids_get(info, PIDS_FETCH_TASKS_ONLY))) {
		unsigned long flags = PIDS_VAL(I_FLAGS, ul_int, stack, info);
		bool kthread = (flags & MS_PF_KTHREAD) != 0;
		char **argv = PIDS_VAL(I_CMDLINE_V, strv, stack, info);
		size_t len = 0;
		char *cmdline;

		/* libproc2 substitutes a placeholder for an empty cmdline; use comm instead. */
		if (kthread || !argv || !argv[0] || (!argv[1] && !strcmp(argv[0], "-")))
			argv = NULL;
		cmdline = join_argv(argv, &len);
		if (!cmdline) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "process list: out of memory");
			break;
		}
		rc = ms_proclist_append(list, PIDS_VAL(I_PID, s_int, stack, info),
					PIDS_VAL(I_EUID, u_int, stack, info),
					PIDS_VAL(I_EUSER, str, stack, info), kthread,
					cmdline, len, PIDS_VAL(I_CMD, str, stack, info), err);
		free(cmdline);
	}
	procps_pids_unref(&info);
	return rc;
}

const struct ms_proclist_ops ms_proclist_libproc2_ops = {
	.name = "libproc2",
	.scan = libproc2_scan,
};

#endif
