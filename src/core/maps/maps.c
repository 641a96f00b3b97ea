#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/grow.h"
#include "maps/maps_backend.h"
#include "proc/access.h"

/*
 * Far above any real map (vm.max_map_count defaults to 65530) yet small
 * enough that a kernel bug or a hostile seam cannot keep us walking forever.
 */
#define MS_MAX_ITERATIONS (16u * 1024 * 1024)

static int real_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

const char *ms_backend_name(enum ms_backend backend)
{
	switch (backend) {
	case MS_BACKEND_IOCTL: return "ioctl";
	case MS_BACKEND_TEXT: return "text";
	case MS_BACKEND_AUTO: break;
	}
	return "auto";
}

int ms_backend_parse(const char *s, enum ms_backend *out)
{
	if (!strcmp(s, "auto"))
		*out = MS_BACKEND_AUTO;
	else if (!strcmp(s, "ioctl"))
		*out = MS_BACKEND_IOCTL;
	else if (!strcmp(s, "text"))
		*out = MS_BACKEND_TEXT;
	else
		return -1;
	return 0;
}

static int open_maps_fd(struct ms_maps *maps, struct ms_error *err)
{
	pid_t pid = ms_proc_pid(maps->proc);
	int fd = openat(ms_proc_dirfd(maps->proc), "maps", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		maps->fd = fd;
		return 0;
	}
	switch (errno) {
	case EACCES:
	case EPERM: {
		int saved = errno;
		struct ms_access_facts facts;
		char why[512];

		ms_access_facts_read(ms_proc_dirfd(maps->proc), &facts);
		ms_access_explain(&facts, why, sizeof(why));
		return ms_error_set(err, MS_ERR_NOACCESS, saved, "pid %d: no access to its memory map: %s",
				    (int)pid, why);
	}
	case ENOENT:
	case ESRCH:
		return ms_error_set(err, MS_ERR_EXITED, errno, "pid %d: the process exited", (int)pid);
	default:
		return ms_error_set(err, MS_ERR_IO, errno, "pid %d: cannot open maps: %s",
				    (int)pid, strerror(errno));
	}
}

/* Gone, exec'd or a kernel thread: what a query's ESRCH means. */
static int ms_maps_gone(struct ms_maps *maps, struct ms_error *err)
{
	pid_t pid = ms_proc_pid(maps->proc);
	struct ms_proc_stat now;

	switch (ms_proc_liveness_now(maps->proc, &now)) {
	case MS_PROC_GONE:
		return ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the process exited", (int)pid);
	case MS_PROC_ZOMBIE:
		return ms_error_set(err, MS_ERR_EXITED, ESRCH,
				    "pid %d: the process exited (zombie): no user address space", (int)pid);
	case MS_PROC_ALIVE:
		break;
	}
	if (ms_proc_is_kernel_thread(&now))
		return ms_error_set(err, MS_ERR_NOMM, ESRCH,
				    "pid %d: kernel thread: no user address space", (int)pid);
	/* Between exit_mm and becoming a zombie: gone, not a new program. */
	if (ms_proc_is_exiting(&now))
		return ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the process exited", (int)pid);
	return ms_error_set(err, MS_ERR_EXECED, ESRCH,
			    "pid %d: the process exec'd a new program", (int)pid);
}

/* On the first query: does the kernel know PROCMAP_QUERY? */
static int probe_ioctl(struct ms_maps *maps, enum ms_backend asked, struct ms_error *err)
{
	struct ms_mapping m = { 0 };
	unsigned fields = maps->fields;
	int rc;

	/* The probe needs an answer, not a name or a build ID (an ELF read). */
	maps->fields = 0;
	rc = maps->ops->query(maps, 0, MS_Q_COVERING_OR_NEXT, &m, err);
	maps->fields = fields;
	ms_mapping_reset(&m);
	if (rc == MS_ERR_NOTSUP && asked == MS_BACKEND_AUTO) {
		maps->ops->destroy(maps);
		maps->ops = &ms_maps_text_ops;
		maps->ioctl_missing = true;
		ms_error_clear(err);
		return 0;
	}
	if (rc == MS_ERR_EXITED) {
		rc = ms_maps_gone(maps, err);
		/* exec'd between open and probe: the new image is what we want. */
		if (rc == MS_ERR_EXECED)
			return ms_maps_reopen(maps, err);
		return rc;
	}
	if (rc == MS_END)
		return 0;
	return rc;
}

int ms_maps_open(struct ms_proc *proc, const struct ms_maps_opts *opts,
		 struct ms_maps **out, struct ms_error *err)
{
	enum ms_backend asked = opts ? opts->backend : MS_BACKEND_AUTO;
	struct ms_maps *maps = calloc(1, sizeof(*maps));
	int rc;

	if (!maps)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)ms_proc_pid(proc));
	maps->proc = proc;
	maps->fd = -1;
	maps->fields = MS_FIELD_NAME;
	maps->asked = asked;
	maps->ioctl_fn = opts && opts->ioctl_fn ? opts->ioctl_fn : real_ioctl;
	maps->fstypes_shared = opts ? opts->fstypes_shared : NULL;
	maps->ops = asked == MS_BACKEND_TEXT ? &ms_maps_text_ops : &ms_maps_ioctl_ops;
	rc = open_maps_fd(maps, err);
	if (rc == 0 && maps->ops == &ms_maps_ioctl_ops && !(opts && opts->ioctl_known)) {
		rc = probe_ioctl(maps, asked, err);
		if (rc == MS_ERR_NOTSUP)
			ms_error_set(err, MS_ERR_NOTSUP, ENOTTY,
				     "pid %d: this kernel lacks PROCMAP_QUERY (Linux 6.11); use --backend=text",
				     (int)ms_proc_pid(proc));
	}
	if (rc < 0) {
		ms_maps_close(maps);
		return rc;
	}
	*out = maps;
	return 0;
}

void ms_maps_close(struct ms_maps *maps)
{
	if (!maps)
		return;
	if (maps->ops->destroy)
		maps->ops->destroy(maps);
	if (maps->fd >= 0)
		close(maps->fd);
	free(maps);
}

int ms_maps_reopen(struct ms_maps *maps, struct ms_error *err)
{
	if (maps->fd >= 0)
		close(maps->fd);
	maps->fd = -1;
	if (maps->ops->reset)
		maps->ops->reset(maps);
	return open_maps_fd(maps, err);
}

unsigned ms_maps_set_fields(struct ms_maps *maps, unsigned fields)
{
	unsigned old = maps->fields;

	maps->fields = fields & MS_FIELDS_ALL;
	return old;
}

bool ms_maps_set_read_ahead(struct ms_maps *maps, bool on)
{
	bool old = !maps->no_read_ahead;

	maps->no_read_ahead = !on;
	return old;
}

enum ms_backend ms_maps_backend(const struct ms_maps *maps)
{
	return maps->ops->kind;
}

struct ms_proc *ms_maps_proc(const struct ms_maps *maps)
{
	return maps->proc;
}

const struct ms_maps_stats *ms_maps_stats(const struct ms_maps *maps)
{
	return &maps->stats;
}

static int finish_error(struct ms_maps *maps, int rc, struct ms_error *err)
{
	if (rc == MS_ERR_EXITED && err && err->sys_errno == ESRCH)
		return ms_maps_gone(maps, err);
	return rc;
}

static int query(struct ms_maps *maps, uint64_t addr, unsigned flags,
		 struct ms_mapping *out, struct ms_error *err)
{
	int rc = maps->ops->begin ? maps->ops->begin(maps, err) : 0;

	if (rc == 0) {
		maps->stats.queries++;
		rc = maps->ops->query(maps, addr, flags, out, err);
	}
	return finish_error(maps, rc, err);
}

int ms_maps_next(struct ms_maps *maps, uint64_t addr, unsigned filter,
		 struct ms_mapping *out, struct ms_error *err)
{
	if (filter & ~MS_FILTER_ALL)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "unknown filter bits 0x%x", filter);
	return query(maps, addr, filter | MS_Q_COVERING_OR_NEXT, out, err);
}

int ms_maps_at(struct ms_maps *maps, uint64_t addr, struct ms_mapping *out,
	       struct ms_error *err)
{
	return query(maps, addr, 0, out, err);
}

/* One walk by queries: where it stands, and how far it went (the bound). */
struct walk {
	struct ms_maps *maps;
	uint64_t addr;
	unsigned flags;
	size_t got;
};

static int walk_begin(struct walk *w, struct ms_maps *maps, uint64_t addr, unsigned filter,
		      struct ms_error *err)
{
	*w = (struct walk){ .maps = maps, .addr = addr, .flags = filter | MS_Q_COVERING_OR_NEXT };
	return maps->ops->begin ? maps->ops->begin(maps, err) : 0;
}

/*
 * The next mapping into m (a record whose name is NULL or its own): 0,
 * MS_END, or an error.  Every mapping must end past the last one, so a
 * kernel bug or a hostile seam cannot hold the walk in place.
 */
static int walk_step(struct walk *w, struct ms_mapping *m, struct ms_error *err)
{
	struct ms_maps *maps = w->maps;
	int rc;

	if (w->got == MS_MAX_ITERATIONS)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "pid %d: more than %u mappings",
				    (int)ms_proc_pid(maps->proc), MS_MAX_ITERATIONS);
	maps->stats.queries++;
	rc = maps->ops->query(maps, w->addr, w->flags, m, err);
	if (rc < 0)
		return rc;
	if (m->end <= w->addr || m->end <= m->start)
		return ms_error_set(err, MS_ERR_PROTO, 0,
				    "pid %d: mapping at 0x%llx does not advance past 0x%llx",
				    (int)ms_proc_pid(maps->proc),
				    (unsigned long long)m->start, (unsigned long long)w->addr);
	w->addr = m->end;
	w->got++;
	return 0;
}

static int walk_queries(struct ms_maps *maps, uint64_t addr, unsigned filter,
			ms_maps_walk_fn fn, void *ctx, struct ms_error *err)
{
	struct ms_mapping m = { 0 };
	struct walk w;
	int rc = walk_begin(&w, maps, addr, filter, err);

	while (rc == 0) {
		rc = walk_step(&w, &m, err);
		if (rc == 0)
			rc = fn(ctx, &m);
	}
	ms_mapping_reset(&m);
	return finish_error(maps, rc > 0 || rc == MS_END ? 0 : rc, err);
}

static bool whole_text_is_cheaper(const struct ms_maps *maps, uint64_t addr, unsigned filter)
{
	return addr == 0 && filter == 0 && maps->asked == MS_BACKEND_AUTO &&
	       maps->ops == &ms_maps_ioctl_ops &&
	       !(maps->fields & (MS_FIELD_BUILD_ID | MS_FIELD_PAGE_SIZE));
}

int ms_maps_walk(struct ms_maps *maps, uint64_t addr, unsigned filter,
		 ms_maps_walk_fn fn, void *ctx, struct ms_error *err)
{
	if (filter & ~MS_FILTER_ALL)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "unknown filter bits 0x%x", filter);
	if (whole_text_is_cheaper(maps, addr, filter))
		return finish_error(maps, ms_maps_text_walk(maps, fn, ctx, err), err);
	return walk_queries(maps, addr, filter, fn, ctx, err);
}

/*
 * Each mapping is queried straight into the list's next slot: no record
 * in between to copy and clear, which on 60,000 mappings was a fifth of
 * the engine's own time.
 */
int ms_maps_window(struct ms_maps *maps, uint64_t addr, unsigned filter,
		   size_t max, struct ms_maplist *list, struct ms_error *err)
{
	struct walk w;
	int rc;

	if (filter & ~MS_FILTER_ALL)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "unknown filter bits 0x%x", filter);
	rc = walk_begin(&w, maps, addr, filter, err);
	for (; rc == 0 && max > 0; max--) {
		struct ms_mapping *slot;

		if (ms_grow((void **)&list->items, &list->capacity, list->count, sizeof(*list->items), 64) < 0) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
					  (int)ms_proc_pid(maps->proc));
			break;
		}
		slot = &list->items[list->count];
		slot->name = NULL;
		rc = walk_step(&w, slot, err);
		if (rc == 0)
			list->count++;
		else
			ms_mapping_reset(slot);
	}
	return finish_error(maps, rc == MS_END ? 0 : rc, err);
}

int ms_maps_collect(struct ms_maps *maps, unsigned filter,
		    struct ms_maplist *list, struct ms_error *err)
{
	return ms_maps_window(maps, 0, filter, SIZE_MAX, list, err);
}
