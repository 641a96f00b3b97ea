#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "maps/maps.h"
#include "proc/proc.h"
#include "stale/stale_prefetch.h"
#include "stale/stale_report.h"
#include "maps/ancestry.h"

void ms_stale_report_free(struct ms_stale_report *r)
{
	for (size_t i = 0; i < r->count; i++) {
		ms_stale_list_free(&r->procs[i].files);
		free(r->procs[i].cmd);
	}
	free(r->procs);
	free(r->pkgs);
	memset(r, 0, sizeof(*r));
}

/*
 * Count every file of the scan, and copy into p those whose verdict is
 * shown (most processes have none: the scan's list and its names are
 * reused for the next process).  p's list is allocated to the size shown,
 * no more: a fleet's report keeps one for every stale process, and each
 * new page of memory touched costs a fault.  0 or MS_ERR_NOMEM.
 */
static int keep_shown(struct ms_stale_report *r, struct ms_stale_proc *p, const struct ms_stale_list *scan,
		      unsigned show)
{
	size_t shown = 0;

	ms_stale_counts_add(&r->totals, scan);
	for (size_t i = 0; i < scan->count; i++) {
		p->stale_files += ms_stale_verdict_is_stale(scan->items[i].result.verdict);
		shown += (show & (1u << scan->items[i].result.verdict)) != 0;
	}
	if (p->stale_files)
		r->stale_procs++;
	if (!shown)
		return 0;
	p->files.items = malloc(shown * sizeof(*p->files.items));
	if (!p->files.items)
		return MS_ERR_NOMEM;
	p->files.capacity = shown;
	for (size_t i = 0; i < scan->count; i++) {
		const struct ms_stale_file *f = &scan->items[i];
		struct ms_stale_file *copy;

		if (!(show & (1u << f->result.verdict)))
			continue;
		copy = &p->files.items[p->files.count];
		*copy = *f;
		copy->name = malloc(f->name_len + 1);
		if (!copy->name)
			return MS_ERR_NOMEM;
		memcpy(copy->name, f->name, f->name_len + 1);
		p->files.count++;
	}
	return 0;
}

/* The command line with its NULs as spaces; an empty one (kernel, zombie) stays NULL. */
static int read_cmdline(struct ms_stale_proc *p, const struct ms_proc *proc)
{
	bool truncated;
	size_t len;
	char *buf;

	if (ms_proc_read_file(proc, "cmdline", MS_STALE_CMDLINE_MAX, &buf, &len, &truncated, NULL) < 0)
		return 0;
	while (len && buf[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	if (!len) {
		free(buf);
		return 0;
	}
	p->cmd = buf;
	p->cmd_len = len;
	return 0;
}

/* The unit (only worth restarting when something is stale) and the container. */
static void read_cgroup(struct ms_stale_proc *p, const struct ms_proc *proc)
{
	struct ms_cgroup_paths cg;
	const char *path;
	size_t len, path_len;
	bool truncated;
	char *buf;

	if (!p->stale_files && !p->other_root)
		return;
	if (ms_proc_read_piece(proc, "cgroup", MS_UNIT_CGROUP_READ_MAX, &buf, &len, &truncated, NULL) < 0)
		return;
	if (p->stale_files)
		p->has_unit = ms_unit_parse(buf, len, &p->unit) == 0;
	if (p->other_root && ms_cgroup_paths(buf, len, &cg) == 0) {
		path = cg.v2 ? cg.v2 : cg.v1;
		path_len = cg.v2 ? cg.v2_len : cg.v1_len;
		p->has_container = path && ms_container_parse(path, path_len, &p->container) == 0;
	}
	free(buf);
}

/* Does m hold one of p's stale copies (the same device and inode)? */
static bool holds_stale_copy(void *arg, const struct ms_mapping *m)
{
	const struct ms_stale_proc *p = arg;

	for (size_t j = 0; j < p->files.count; j++) {
		const struct ms_stale_file *f = &p->files.items[j];

		if (ms_stale_verdict_is_stale(f->result.verdict) && f->inode == m->inode &&
		    f->dev_major == m->dev_major && f->dev_minor == m->dev_minor)
			return true;
	}
	return false;
}

/* The earliest start among p's process and the ancestors that map one of its stale copies. */
static unsigned long long mapped_since(struct ms_ancestry *memo, const struct ms_stale_proc *p)
{
	return ms_ancestry_mapped_since_in(memo, p->start_time, p->ppid, holds_stale_copy, (void *)p);
}

/*
 * Judge one open process into r.  0 (recorded or nothing to keep),
 * MS_ERR_NOMEM, or the scan's error with err filled (the process went away,
 * or its maps could not be read), which the caller counts.
 */
static int ms_stale_report_add(struct ms_stale_report *r, struct ms_stale_ctx *ctx,
			struct ms_proc *proc, struct ms_maps *maps, const struct ms_maplist *walked,
			struct ms_stale_scratch *scan, const struct ms_stale_report_opts *opts,
			struct ms_error *err)
{
	struct ms_stale_proc *p;
	int rc;

	if (ms_grow((void **)&r->procs, &r->capacity, r->count, sizeof(*r->procs), 64) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "stale: out of memory");
	p = &r->procs[r->count];
	memset(p, 0, sizeof(*p));
	p->pid = ms_proc_pid(proc);
	/* Files shown although current: their process's executable is marked too. */
	rc = ms_stale_scan_scratch(ctx, maps,
			   opts->scan_flags | (opts->show & ((1u << MS_STALE_OK) | (1u << MS_STALE_IGNORED))
						       ? MS_STALE_MARK_EXE : 0),
			   walked, scan, err);
	if (rc < 0)
		return rc;
	if (keep_shown(r, p, &scan->list, opts->show) < 0) {
		ms_stale_list_free(&p->files);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "stale: out of memory");
	}
	/* Packages will be looked up: the lists can be read while the walk goes on. */
	if (p->stale_files)
		ms_owner_read_ahead(opts->owner);
	if (!p->files.count && !p->stale_files) {
		ms_stale_list_free(&p->files);
		return 0;
	}
	memcpy(p->comm, ms_proc_stat_at_open(proc)->comm, sizeof(p->comm));
	p->start_time = ms_proc_stat_at_open(proc)->start_time;
	p->ppid = ms_proc_stat_at_open(proc)->ppid;
	p->other_root = ms_stale_ctx_other_root(ctx, proc);
	read_cgroup(p, proc);
	if (opts->cmdline)
		read_cmdline(p, proc);
	r->count++;
	return 0;
}

static bool wants_package(const struct ms_stale_proc *p, const struct ms_stale_file *f)
{
	return !p->other_root && ms_stale_verdict_is_stale(f->result.verdict) && f->result.path_ours;
}

struct copy_ref {
	const struct ms_stale_file *file;
	struct ms_copy *copy;
};

static int copy_cmp(const void *a, const void *b)
{
	const struct ms_stale_file *x = ((const struct copy_ref *)a)->file;
	const struct ms_stale_file *y = ((const struct copy_ref *)b)->file;

	if (x->dev_major != y->dev_major)
		return x->dev_major < y->dev_major ? -1 : 1;
	if (x->dev_minor != y->dev_minor)
		return x->dev_minor < y->dev_minor ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/*
 * Each copy as the history is asked about it (pkg.h): its unlink time,
 * one mapping of it, and its process's start (or its parent's that mapped
 * the copy, for a process with a copy dpkg owns), then the earliest of
 * those that map the same copy.
 */
static int copy_starts(struct ms_stale_report *r, const struct ms_pkg *found, struct ms_copy *copies, size_t n,
		       struct ms_error *err)
{
	struct copy_ref *refs = calloc(n ? n : 1, sizeof(*refs));
	/* Workers of one server climb to the same parents: each is read once (NULL: no memo). */
	struct ms_ancestry *memo = ms_ancestry_new();
	struct ms_error why;
	time_t btime;
	size_t k = 0;

	if (!refs) {
		ms_ancestry_free(memo);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "stale: out of memory");
	}
	/* Without the boot time no start is known: the earliest possible one. */
	if (ms_boot_time(&btime, &why) < 0)
		btime = 0;
	for (size_t i = 0; i < r->count; i++) {
		size_t first = k;
		bool dpkg = false;

		for (size_t j = 0; j < r->procs[i].files.count; j++) {
			if (!wants_package(&r->procs[i], &r->procs[i].files.items[j]))
				continue;
			dpkg = dpkg || (found[k].found && found[k].source == MS_PKG_SOURCE_DPKG);
			refs[k] = (struct copy_ref){ &r->procs[i].files.items[j], &copies[k] };
			copies[k] = ms_stale_file_copy(&r->procs[i].files.items[j], r->procs[i].pid);
			k++;
		}
		if (dpkg)
			r->procs[i].start_time = mapped_since(memo, &r->procs[i]);
		for (size_t at = first; at < k; at++)
			copies[at].start = btime ? ms_proc_started_at(r->procs[i].start_time, btime) : 0;
	}
	ms_ancestry_free(memo);
	qsort(refs, n, sizeof(*refs), copy_cmp);
	for (size_t a = 0, b; a < n; a = b) {
		time_t earliest = refs[a].copy->start;
		struct timespec unlinked = refs[a].copy->unlinked;

		for (b = a; b < n && !copy_cmp(&refs[a], &refs[b]); b++) {
			if (refs[b].copy->start < earliest)
				earliest = refs[b].copy->start;
			if (!unlinked.tv_sec)
				unlinked = refs[b].copy->unlinked;
		}
		for (; a < b; a++) {
			refs[a].copy->start = earliest;
			refs[a].copy->unlinked = unlinked;
		}
	}
	free(refs);
	return 0;
}

int ms_stale_report_packages(struct ms_stale_report *r, struct ms_owner *db,
			     const char **why, struct ms_error *err)
{
	struct ms_copy *copies = NULL;
	const char **paths = NULL;
	struct ms_pkg *found = NULL;
	size_t *lens = NULL, n = 0, k = 0, files = 0;
	bool *gone = NULL;
	int rc = 0;

	*why = NULL;
	for (size_t i = 0; i < r->count; i++) {
		files += r->procs[i].files.count;
		for (size_t j = 0; j < r->procs[i].files.count; j++)
			n += wants_package(&r->procs[i], &r->procs[i].files.items[j]);
	}
	if (!n)
		return 0;
	/*
	 * One answer per file shown, in one block the processes point into
	 * (r->pkgs); looked up in place when every file wants one, as by
	 * default, so that the answers are not copied into fresh memory.
	 */
	free(r->pkgs);
	r->pkgs = calloc(files, sizeof(*r->pkgs));
	found = n == files ? r->pkgs : calloc(n, sizeof(*found));
	paths = calloc(n, sizeof(*paths));
	lens = calloc(n, sizeof(*lens));
	gone = calloc(n, sizeof(*gone));
	copies = calloc(n, sizeof(*copies));
	for (size_t i = 0; paths && lens && gone && found && i < r->count; i++)
		for (size_t j = 0; j < r->procs[i].files.count; j++) {
			const struct ms_stale_file *f = &r->procs[i].files.items[j];

			if (!wants_package(&r->procs[i], f))
				continue;
			paths[k] = f->name;
			/* Deleted: the name proof found nothing at the path (MS_NAME_GONE). */
			gone[k] = f->result.verdict == MS_STALE_DELETED;
			lens[k++] = ms_name_strip_deleted(f->name, f->name_len);
		}
	if (!r->pkgs || !paths || !lens || !gone || !found || !copies)
		rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "stale: out of memory");
	else
		rc = db ? ms_owner_find_seen(db, paths, lens, gone, n, found, err) : 0;
	if (rc == 0 && db)
		rc = copy_starts(r, found, copies, n, err);
	if (rc == 0 && db)
		rc = ms_owner_running(db, found, copies, n, err);
	if (rc == 0 && !ms_owner_has_db(db))
		*why = "not a dpkg or rpm system";
	/* Without a system database, Python distributions may still have answered. */
	for (size_t i = 0, at = 0, base = 0; rc == 0 && db && i < r->count; i++) {
		struct ms_stale_proc *p = &r->procs[i];

		p->pkgs = r->pkgs + base;
		base += p->files.count;
		if (found == r->pkgs)
			continue;
		for (size_t j = 0; j < p->files.count; j++)
			if (wants_package(p, &p->files.items[j]))
				p->pkgs[j] = found[at++];
	}
	if (found != r->pkgs)
		free(found);
	free(paths);
	free(lens);
	free(gone);
	free(copies);
	return rc;
}

/*
 * The next process of the walk, from the fleet or, when p is not NULL, from
 * the thread walking ahead (*walked then holds its mappings): like
 * ms_fleet_next, errors of the walk itself counted here.
 */
static int next_process(struct ms_fleet *fleet, struct ms_stale_prefetch *p, struct ms_proc **proc,
			struct ms_maps **maps, struct ms_maplist *walked, bool *named, struct ms_error *why)
{
	int rc, walk_rc;

	*named = false;
	if (!p)
		return ms_fleet_next(fleet, proc, maps, why);
	for (;;) {
		rc = ms_stale_prefetch_next(p, proc, maps, walked, &walk_rc, named, why);
		/* A process the thread could not walk is counted already; only a named one is said. */
		if (rc != MS_FLEET_OPEN || walk_rc == 0 || *named)
			return rc;
	}
}

int ms_stale_report_walk(struct ms_stale_report *r, struct ms_stale_ctx *ctx,
			 struct ms_fleet *fleet, const struct ms_stale_report_opts *opts,
			 void (*named_failed)(void *arg, const struct ms_error *err), void *arg,
			 struct ms_error *err)
{
	struct ms_stale_scratch scan = { 0 }; /* each process's files, the buffers reused */
	struct ms_maplist walked = { 0 };
	struct ms_stale_prefetch *p = NULL;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error why;
	bool named;
	int rc;

	/* A thread walks ahead, but never for build IDs (stale_prefetch.h). */
	if (opts->walk_ahead && !(opts->scan_flags & MS_STALE_BUILD_IDS))
		p = ms_stale_prefetch_start(fleet, ms_stale_filter(opts->scan_flags));
	for (;;) {
		rc = next_process(fleet, p, &proc, &maps, &walked, &named, &why);
		if (rc == MS_FLEET_DONE)
			break;
		if (rc == MS_ERR_NOMEM) {
			*err = why;
			break;
		}
		if (rc == MS_FLEET_NAMED_FAILED || named) {
			if (named_failed)
				named_failed(arg, &why);
			continue;
		}
		rc = ms_stale_report_add(r, ctx, proc, maps, p ? &walked : NULL, &scan, opts, &why);
		ms_maps_close(maps);
		ms_proc_close(proc);
		if (rc == MS_ERR_NOMEM) {
			*err = why;
			break;
		}
		/*
		 * The walk's errors; with the thread they were counted there, and
		 * a scan of walked mappings fails only for memory.
		 */
		if (rc < 0 && !p && ms_fleet_note_error(fleet, &why) && named_failed)
			named_failed(arg, &why);
	}
	ms_stale_prefetch_stop(p);
	ms_maplist_free(&walked);
	ms_stale_scratch_free(&scan);
	return rc == MS_ERR_NOMEM ? rc : 0;
}
