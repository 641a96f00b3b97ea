#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/compat.h"
#include "resid/residency_backend.h"

/*
 * 8192 regions (192 KiB) per call: a 60,000-mapping process with most
 * mappings resident needs a handful of calls, not thousands.
 */
#define MS_RES_VEC_DEFAULT 8192u
#define MS_RES_VEC_MAX (1u << 20)

static int real_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

const char *ms_res_backend_name(enum ms_res_backend backend)
{
	switch (backend) {
	case MS_RES_PAGEMAP: return "pagemap";
	case MS_RES_SMAPS: return "smaps";
	case MS_RES_AUTO: break;
	}
	return "auto";
}

size_t ms_res_skip_before(const struct ms_mapping *maps, size_t lo, size_t count,
			  uint64_t addr)
{
	while (lo < count && maps[lo].end <= addr)
		lo++;
	return lo;
}

int ms_res_openat(struct ms_residency *res, const char *name, struct ms_error *err)
{
	pid_t pid = ms_proc_pid(res->proc);
	int fd = openat(ms_proc_dirfd(res->proc), name, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	switch (errno) {
	case EACCES:
	case EPERM:
		return ms_error_set(err, MS_ERR_NOACCESS, errno,
				    "pid %d: no access to its %s: needs ptrace access: same user or CAP_SYS_PTRACE",
				    (int)pid, name);
	case ENOENT:
		/* The process is gone, or the kernel lacks CONFIG_PROC_PAGE_MONITOR. */
		if (ms_proc_liveness(res->proc) != MS_PROC_ALIVE)
			return ms_error_set(err, MS_ERR_EXITED, errno, "pid %d: the process exited", (int)pid);
		return ms_error_set(err, MS_ERR_NOTSUP, errno, "pid %d: this kernel has no %s file",
				    (int)pid, name);
	case ESRCH:
		return ms_error_set(err, MS_ERR_EXITED, errno, "pid %d: the process exited", (int)pid);
	default:
		return ms_error_set(err, MS_ERR_IO, errno, "pid %d: cannot open %s: %s",
				    (int)pid, name, strerror(errno));
	}
}

static int open_pagemap(struct ms_residency *res, struct ms_error *err)
{
	int fd = ms_res_openat(res, "pagemap", err);

	if (fd < 0)
		return fd;
	res->fd = fd;
	return 0;
}

/*
 * An empty range costs nothing and tells whether the ioctl exists:
 * pagemap_scan_get_args() accepts start == end with no vector, and kernels
 * before 6.7 have no ioctl on pagemap at all (ENOTTY).
 */
static int probe_scan(struct ms_residency *res, struct ms_error *err)
{
	struct pm_scan_arg arg;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	for (;;) {
		if (res->ioctl_fn(res->fd, PAGEMAP_SCAN, &arg) >= 0)
			return 0;
		if (errno != EINTR)
			break;
	}
	if (errno == ENOTTY)
		return ms_error_set(err, MS_ERR_NOTSUP, ENOTTY,
				    "pid %d: this kernel lacks PAGEMAP_SCAN (Linux 6.7)",
				    (int)ms_proc_pid(res->proc));
	return ms_error_set(err, MS_ERR_IO, errno, "pid %d: PAGEMAP_SCAN: %s",
			    (int)ms_proc_pid(res->proc), strerror(errno));
}

static void use_smaps(struct ms_residency *res)
{
	if (res->fd >= 0)
		close(res->fd);
	res->fd = -1;
	res->ops = &ms_res_smaps_ops;
}

static int setup_scan(struct ms_residency *res, enum ms_res_backend asked,
		      struct ms_error *err)
{
	int rc = open_pagemap(res, err);

	if (rc == 0)
		rc = probe_scan(res, err);
	if (rc == MS_ERR_NOTSUP && asked == MS_RES_AUTO) {
		use_smaps(res);
		ms_error_clear(err);
		return 0;
	}
	if (rc < 0)
		return rc;
	res->vec = calloc(res->vec_len, sizeof(*res->vec));
	if (!res->vec)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
				    (int)ms_proc_pid(res->proc));
	return 0;
}

int ms_residency_open(struct ms_proc *proc, const struct ms_res_opts *opts,
		      struct ms_residency **out, struct ms_error *err)
{
	enum ms_res_backend asked = opts ? opts->backend : MS_RES_AUTO;
	struct ms_residency *res = calloc(1, sizeof(*res));
	long page = sysconf(_SC_PAGESIZE);
	int rc = 0;

	if (!res)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)ms_proc_pid(proc));
	res->proc = proc;
	res->fd = -1;
	res->ioctl_fn = opts && opts->ioctl_fn ? opts->ioctl_fn : real_ioctl;
	res->page_size = page > 0 ? (uint64_t)page : 4096;
	res->vec_len = opts && opts->vec_len ? opts->vec_len : MS_RES_VEC_DEFAULT;
	if (res->vec_len > MS_RES_VEC_MAX)
		res->vec_len = MS_RES_VEC_MAX;
	if (asked == MS_RES_SMAPS) {
		use_smaps(res);
	} else {
		res->ops = &ms_res_scan_ops;
		rc = setup_scan(res, asked, err);
	}
	if (rc < 0) {
		ms_residency_close(res);
		return rc;
	}
	*out = res;
	return 0;
}

void ms_residency_close(struct ms_residency *res)
{
	if (!res)
		return;
	if (res->fd >= 0)
		close(res->fd);
	free(res->vec);
	free(res);
}

enum ms_res_backend ms_residency_backend(const struct ms_residency *res)
{
	return res->ops->kind;
}

const struct ms_res_stats *ms_residency_stats(const struct ms_residency *res)
{
	return &res->stats;
}

int ms_residency_query(struct ms_residency *res, const struct ms_mapping *maps,
		       size_t count, struct ms_resinfo *out, struct ms_error *err)
{
	pid_t pid = ms_proc_pid(res->proc);
	int rc;

	for (size_t i = 0; i < count; i++) {
		if (maps[i].end <= maps[i].start || (i && maps[i].start < maps[i - 1].end))
			return ms_error_set(err, MS_ERR_INVAL, EINVAL,
					    "pid %d: residency asked for mappings out of address order", (int)pid);
		memset(&out[i], 0, sizeof(out[i]));
	}
	if (!count)
		return 0;
	rc = res->ops->query(res, maps, count, out, err);
	if (rc < 0)
		return rc;
	/*
	 * The descriptor pins the mm, not the process: after an exit the walk
	 * finds no mappings and answers zeros instead of failing.
	 */
	switch (ms_proc_liveness(res->proc)) {
	case MS_PROC_ALIVE:
		return 0;
	case MS_PROC_ZOMBIE:
	case MS_PROC_GONE:
		break;
	}
	return ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the process exited", (int)pid);
}
