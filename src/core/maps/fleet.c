#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps/fleet.h"
#include "proc/fstype_shared.h"

int ms_fleet_init(struct ms_fleet *f, const pid_t *pids, size_t n, bool named,
		  enum ms_backend backend, struct ms_error *err)
{
	memset(f, 0, sizeof(*f));
	f->backend = backend;
	f->self = getpid();
	/* Out of memory here only means that every handle loads its own table. */
	f->fstypes = ms_fstypes_shared_new();
	if (!pids)
		return ms_pid_list(&f->pids, &f->count, err);
	f->pids = calloc(n ? n : 1, sizeof(*f->pids));
	if (!f->pids)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	if (n)
		memcpy(f->pids, pids, n * sizeof(*pids));
	f->count = n;
	f->named = named;
	return 0;
}

void ms_fleet_free(struct ms_fleet *f)
{
	ms_fstypes_shared_free(f->fstypes);
	f->fstypes = NULL;
	free(f->pids);
	f->pids = NULL;
	f->count = 0;
}

bool ms_fleet_note_error(struct ms_fleet *f, const struct ms_error *err)
{
	if (f->scanned)
		f->scanned--;
	switch (err->code) {
	case MS_ERR_NOPROC:
	case MS_ERR_EXITED:
	case MS_ERR_EXECED:
		f->vanished++;
		break;
	case MS_ERR_NOACCESS:
		f->denied++;
		break;
	case MS_ERR_NOMM:
		/* A kernel thread or a zombie has no mappings: nothing to report. */
		return false;
	default:
		f->failed++;
		break;
	}
	if (f->named)
		f->named_failed = true;
	return f->named;
}

static int open_one(pid_t pid, enum ms_backend backend, struct ms_fstypes_shared *fstypes,
		    struct ms_proc **proc, struct ms_maps **maps, bool *ioctl_known, struct ms_error *err)
{
	struct ms_maps_opts mo = {
		.backend = backend, .ioctl_fn = NULL, .ioctl_known = ioctl_known && *ioctl_known,
		.fstypes_shared = fstypes,
	};
	int rc;

	*proc = NULL;
	*maps = NULL;
	/*
	 * No stat read per process: a process without an address space
	 * answers ESRCH (the text backend reports an empty maps file so), and
	 * ms_maps reads stat then to say which (kernel thread, zombie, exec).
	 */
	rc = ms_proc_open_dir(pid, proc, err);
	if (rc < 0)
		return rc;
	rc = ms_maps_open(*proc, &mo, maps, err);
	if (rc < 0) {
		ms_proc_close(*proc);
		*proc = NULL;
	} else if (ioctl_known && ms_maps_backend(*maps) == MS_BACKEND_IOCTL) {
		*ioctl_known = true;
	}
	return rc;
}

int ms_fleet_open_one(pid_t pid, enum ms_backend backend, struct ms_proc **proc,
		      struct ms_maps **maps, bool *ioctl_known, struct ms_error *err)
{
	return open_one(pid, backend, NULL, proc, maps, ioctl_known, err);
}

int ms_fleet_open_at(const struct ms_fleet *f, size_t i, bool *ioctl_known, struct ms_proc **proc,
		     struct ms_maps **maps, struct ms_error *err)
{
	int rc;

	*proc = NULL;
	*maps = NULL;
	if (f->pids[i] == f->self && !f->named)
		return MS_FLEET_SKIP;
	rc = open_one(f->pids[i], f->backend, f->fstypes, proc, maps, ioctl_known, err);
	return rc < 0 ? rc : MS_FLEET_OPEN;
}

int ms_fleet_settle(struct ms_fleet *f, int rc, const struct ms_error *err)
{
	if (rc == MS_FLEET_SKIP)
		return rc;
	f->scanned++;
	if (rc == MS_FLEET_OPEN)
		return rc;
	/* Counted; a kernel thread is not a process we skipped (note_error). */
	return ms_fleet_note_error(f, err) ? MS_FLEET_NAMED_FAILED : MS_FLEET_SKIP;
}

int ms_fleet_next(struct ms_fleet *f, struct ms_proc **proc, struct ms_maps **maps,
		  struct ms_error *err)
{
	while (f->next < f->count) {
		size_t i = f->next++;
		int kind = ms_fleet_settle(f, ms_fleet_open_at(f, i, &f->ioctl_known, proc, maps, err), err);

		if (kind != MS_FLEET_SKIP)
			return kind;
	}
	return MS_FLEET_DONE;
}

bool ms_fleet_failed(const struct ms_fleet *f)
{
	return f->named_failed;
}

bool ms_fleet_skipped_any(const struct ms_fleet *f)
{
	return !f->named && (f->vanished || f->denied || f->failed);
}
