/* The process list read straight from /proc: stat, status and cmdline. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc.h"
#include "procs/proclist_backend.h"

#define STATUS_CAP 8192

/* The effective UID: the second number of status's "Uid:" line. */
static int status_euid(int dirfd, uid_t *uid)
{
	char *buf, *line, *end;
	unsigned long real, eff;
	size_t len;
	int rc = ms_read_file_at(dirfd, "status", STATUS_CAP, &buf, &len, NULL);

	if (rc < 0)
		return rc;
	rc = -EPROTO;
	line = strstr(buf, "\nUid:");
	if (line) {
		real = strtoul(line + 5, &end, 10);
		eff = strtoul(end, &end, 10);
		(void)real;
		*uid = (uid_t)eff;
		rc = 0;
	}
	free(buf);
	return rc;
}

static void read_statm(int dirfd, struct ms_proclist_statm *out)
{
	struct ms_statm st;
	char *buf;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (ms_read_file_at(dirfd, "statm", 256, &buf, &len, NULL) < 0)
		return;
	if (ms_statm_parse(buf, &st) == 0) {
		out->read = true;
		out->size = st.size;
		out->resident = st.resident;
		out->text = st.text;
		out->data = st.data;
	}
	free(buf);
}

static int scan_one(struct ms_proclist *list, pid_t pid, struct ms_error *err)
{
	struct ms_proclist_statm statm;
	struct ms_proc_stat st;
	char path[32], *buf = NULL;
	size_t len = 0;
	uid_t uid = 0;
	int dirfd, rc = 0;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return 0; /* gone since the directory listing */
	if (ms_read_file_at(dirfd, "stat", 4096, &buf, &len, NULL) < 0 ||
	    ms_proc_stat_parse(buf, len, &st) < 0 || status_euid(dirfd, &uid) < 0)
		goto out;
	free(buf);
	buf = NULL;
	len = 0;
	if (ms_read_file_at(dirfd, "cmdline", MS_PROCLIST_CMD_MAX, &buf, &len, NULL) < 0)
		len = 0;
	rc = ms_proclist_append(list, pid, uid, NULL, ms_proc_is_kernel_thread(&st),
				buf ? buf : "", len, st.comm, err);
	if (rc == 0) {
		read_statm(dirfd, &statm);
		ms_proclist_set_stat(&list->rows[list->count - 1], st.state, st.start_time, &statm);
	}
out:
	free(buf);
	close(dirfd);
	return rc;
}

static int procfs_scan(struct ms_proclist *list, struct ms_error *err)
{
	pid_t *pids;
	size_t n;
	int rc = ms_pid_list(&pids, &n, err);

	if (rc < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = scan_one(list, pids[i], err);
	free(pids);
	return rc;
}

const struct ms_proclist_ops ms_proclist_procfs_ops = {
	.name = "proc",
	.scan = procfs_scan,
};
