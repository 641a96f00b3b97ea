/*
 * The process list through libproc2 (procps-ng 4): you pay for the items
 * you ask for.  The library is loaded with dlopen at the first scan, not
 * linked: its own dependencies (libsystemd, libgcrypt, liblzma, libzstd,
 * liblz4, libcap) took about a millisecond from the start-up of every
 * command, most of which never list processes.  Where it cannot be loaded,
 * the automatic choice is /proc.
 */
#include "config.h"

#include "procs/proclist_backend.h"

#ifdef HAVE_LIBPROC2

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libproc2/pids.h>

#include "base/dlload.h"
#include "proc/proc.h"

enum { I_PID, I_EUID, I_EUSER, I_FLAGS, I_CMD, I_STATE, I_BEGAN, I_VIRT, I_RES, I_CODE, I_DATA };

static enum pids_item items[] = {
	[I_PID] = PIDS_ID_PID,
	[I_EUID] = PIDS_ID_EUID,
	[I_EUSER] = PIDS_ID_EUSER,
	[I_FLAGS] = PIDS_FLAGS,
	[I_CMD] = PIDS_CMD,
	[I_STATE] = PIDS_STATE,
	[I_BEGAN] = PIDS_TICS_BEGAN,
	[I_VIRT] = PIDS_MEM_VIRT_PGS,
	[I_RES] = PIDS_MEM_RES_PGS,
	[I_CODE] = PIDS_MEM_CODE_PGS,
	[I_DATA] = PIDS_MEM_DATA_PGS,
};

/*
 * libproc2 rewrites control bytes in command lines (a newline becomes a
 * space) and drops them from the command name, which would make its rows
 * differ from the /proc source and hide what ms_escape shows.  The raw
 * bytes come from cmdline and comm themselves.
 */
static char *raw_cmdline(pid_t pid, size_t *len, char comm[64])
{
	char path[32], *buf = NULL, *c = NULL;
	size_t clen = 0;
	int dirfd;

	*len = 0;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd >= 0) {
		if (ms_read_file_at(dirfd, "cmdline", MS_PROCLIST_CMD_MAX, &buf, len, NULL) < 0) {
			buf = NULL;
			*len = 0;
		}
		/* comm is at most TASK_COMM_LEN (16) bytes and a newline. */
		if (ms_read_file_at(dirfd, "comm", 63, &c, &clen, NULL) == 0) {
			if (clen && c[clen - 1] == '\n')
				clen--;
			memcpy(comm, c, clen);
			comm[clen] = '\0';
			free(c);
		}
		close(dirfd);
	}
	return buf ? buf : strdup("");
}

/* Resolved once, on first use; the handle stays open for the program's life. */
static struct {
	struct ms_dl dl;
	const char *soname;
	int (*pids_new)(struct pids_info **info, enum pids_item *items, int numitems);
	struct pids_stack *(*pids_get)(struct pids_info *info, enum pids_fetch_type which);
	int (*pids_unref)(struct pids_info **info);
} lib = { .soname = LIBPROC2_SONAME };

void ms_proclist_libproc2_set_soname(const char *soname)
{
	lib.soname = soname ? soname : LIBPROC2_SONAME;
	ms_dl_forget(&lib.dl);
}

bool ms_proclist_libproc2_available(void)
{
	const struct ms_dl_sym syms[] = {
		{ "procps_pids_new", (void **)&lib.pids_new },
		{ "procps_pids_get", (void **)&lib.pids_get },
		{ "procps_pids_unref", (void **)&lib.pids_unref },
	};

	return ms_dl_load(&lib.dl, lib.soname, syms, sizeof(syms) / sizeof(syms[0]));
}

static int libproc2_scan(struct ms_proclist *list, struct ms_error *err)
{
	struct pids_info *info = NULL;
	struct pids_stack *stack;
	int rc = 0, n = (int)(sizeof(items) / sizeof(items[0]));

	if (!ms_proclist_libproc2_available())
		return ms_error_set(err, MS_ERR_NOTSUP, 0, "process list: %s could not be loaded", lib.soname);
	if (lib.pids_new(&info, items, n) < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "process list: libproc2 failed");
	while (rc == 0 && (stack = lib.pids_get(info, PIDS_FETCH_TASKS_ONLY))) {
		unsigned long flags = PIDS_VAL(I_FLAGS, ul_int, stack, info);
		bool kthread = (flags & MS_PF_KTHREAD) != 0;
		pid_t pid = PIDS_VAL(I_PID, s_int, stack, info);
		size_t len = 0;
		char comm[64];
		char *cmdline;

		snprintf(comm, sizeof(comm), "%s", PIDS_VAL(I_CMD, str, stack, info));
		cmdline = raw_cmdline(pid, &len, comm);

		if (!cmdline) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "process list: out of memory");
			break;
		}
		rc = ms_proclist_append(list, pid,
					PIDS_VAL(I_EUID, u_int, stack, info),
					PIDS_VAL(I_EUSER, str, stack, info), kthread,
					cmdline, len, comm, err);
		if (rc == 0) {
			/* libproc2 leaves statm's items 0 when it cannot read it. */
			struct ms_proclist_statm statm = {
				.read = true,
				.size = PIDS_VAL(I_VIRT, ul_int, stack, info),
				.resident = PIDS_VAL(I_RES, ul_int, stack, info),
				.text = PIDS_VAL(I_CODE, ul_int, stack, info),
				.data = PIDS_VAL(I_DATA, ul_int, stack, info),
			};

			ms_proclist_set_stat(&list->rows[list->count - 1],
					     PIDS_VAL(I_STATE, s_ch, stack, info),
					     PIDS_VAL(I_BEGAN, ull_int, stack, info), &statm);
		}
		free(cmdline);
	}
	lib.pids_unref(&info);
	return rc;
}

const struct ms_proclist_ops ms_proclist_libproc2_ops = {
	.name = "libproc2",
	.scan = libproc2_scan,
};

#else

void ms_proclist_libproc2_set_soname(const char *soname)
{
	(void)soname;
}

#endif
