/* ancestry.c - since when a process has held a copy: see ancestry.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "maps/ancestry.h"
#include "maps/maps.h"
#include "proc/proc.h"

/* One file an ancestor maps, by device and inode. */
struct held {
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
};

/* An ancestor as first read in this pass. */
struct ancestor {
	int pid;
	bool readable;         /* its stat was read and it was not gone */
	bool complete;         /* every file it maps is in held */
	int ppid;
	unsigned long long start_time;
	struct held *held;
	size_t nheld;
	size_t held_cap;
};

struct ms_ancestry {
	struct ancestor *items; /* by pid */
	size_t count;
	size_t capacity;
	size_t held_total;
};

struct holds_ctx {
	ms_ancestry_holds_fn holds;
	void *arg;
	bool found;
};

/* Walk callback: stop at the first mapping of one of the copies. */
static int holds_copy(void *arg, struct ms_mapping *m)
{
	struct holds_ctx *h = arg;

	if (h->holds(h->arg, m))
		h->found = true;
	return h->found;
}

struct ms_ancestry *ms_ancestry_new(void)
{
	return calloc(1, sizeof(struct ms_ancestry));
}

void ms_ancestry_free(struct ms_ancestry *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->count; i++)
		free(a->items[i].held);
	free(a->items);
	free(a);
}

/* Walk callback: keep each file mapped, once per run of mappings of it. */
static int keep_held(void *arg, struct ms_mapping *m)
{
	struct ancestor *e = ((void **)arg)[0];
	struct ms_ancestry *a = ((void **)arg)[1];
	const struct held *last = e->nheld ? &e->held[e->nheld - 1] : NULL;

	if (last && last->inode == m->inode && last->dev_major == m->dev_major && last->dev_minor == m->dev_minor)
		return 0;
	if (e->nheld == MS_ANCESTRY_HELD_MAX || a->held_total == MS_ANCESTRY_HELD_TOTAL ||
	    ms_grow((void **)&e->held, &e->held_cap, e->nheld, sizeof(*e->held), 16) < 0) {
		e->complete = false;
		return 1;
	}
	e->held[e->nheld++] = (struct held){ m->inode, m->dev_major, m->dev_minor };
	a->held_total++;
	return 0;
}

/* Read pid's stat and the files it maps into e. */
static void read_ancestor(struct ms_ancestry *a, struct ancestor *e)
{
	void *ctx[2] = { e, a };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_error why;
	const struct ms_proc_stat *st;

	if (ms_proc_open((pid_t)e->pid, &proc, &why) < 0)
		return;
	st = ms_proc_stat_at_open(proc);
	if (st->state != 'X') {
		e->readable = true;
		e->ppid = st->ppid;
		e->start_time = st->start_time;
		if (ms_maps_open(proc, &(struct ms_maps_opts){ .backend = MS_BACKEND_AUTO }, &maps, &why) == 0) {
			e->complete = true;
			ms_maps_set_fields(maps, 0);
			if (ms_maps_walk(maps, 0, MS_FILTER_FILE_BACKED, keep_held, ctx, &why) < 0)
				e->complete = false;
			ms_maps_close(maps);
		}
	}
	ms_proc_close(proc);
}

/* pid's entry, read at the first ask; NULL when it cannot be kept. */
static const struct ancestor *ancestor_of(struct ms_ancestry *a, int pid)
{
	size_t lo = 0, hi = a->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->items[mid].pid == pid)
			return &a->items[mid];
		if (a->items[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (a->count == MS_ANCESTRY_MEMO_MAX)
		return NULL;
	if (ms_grow((void **)&a->items, &a->capacity, a->count, sizeof(*a->items), 16) < 0)
		return NULL;
	memmove(&a->items[lo + 1], &a->items[lo], (a->count - lo) * sizeof(*a->items));
	a->count++;
	a->items[lo] = (struct ancestor){ .pid = pid };
	read_ancestor(a, &a->items[lo]);
	return &a->items[lo];
}

/* Does the remembered e map one of the caller's copies? */
static bool remembered_holds(const struct ancestor *e, ms_ancestry_holds_fn holds, void *arg)
{
	struct ms_mapping m = { 0 };

	for (size_t i = 0; i < e->nheld; i++) {
		m.inode = e->held[i].inode;
		m.dev_major = e->held[i].dev_major;
		m.dev_minor = e->held[i].dev_minor;
		if (holds(arg, &m))
			return true;
	}
	return false;
}

/* Without a memo (or past its bounds): open ppid and walk it now. */
static bool read_now(int ppid, unsigned long long start, ms_ancestry_holds_fn holds, void *arg,
		     unsigned long long *its_start, int *its_ppid)
{
	struct holds_ctx h = { .holds = holds, .arg = arg };
	struct ms_proc *parent = NULL;
	struct ms_maps *maps = NULL;
	struct ms_error why;
	const struct ms_proc_stat *st;

	if (ms_proc_open((pid_t)ppid, &parent, &why) < 0)
		return false;
	st = ms_proc_stat_at_open(parent);
	if (st->state != 'X' && st->start_time <= start &&
	    ms_maps_open(parent, &(struct ms_maps_opts){ .backend = MS_BACKEND_AUTO }, &maps, &why) == 0) {
		ms_maps_set_fields(maps, 0);
		ms_maps_walk(maps, 0, MS_FILTER_FILE_BACKED, holds_copy, &h, &why);
		ms_maps_close(maps);
	}
	*its_start = st->start_time;
	*its_ppid = st->ppid;
	ms_proc_close(parent);
	return h.found;
}

unsigned long long ms_ancestry_mapped_since_in(struct ms_ancestry *memo, unsigned long long start, int ppid,
					       ms_ancestry_holds_fn holds, void *arg)
{
	for (int depth = 0; depth < MS_ANCESTRY_MAX && ppid > 1; depth++) {
		const struct ancestor *e = memo ? ancestor_of(memo, ppid) : NULL;
		unsigned long long its_start;
		int its_ppid;
		bool found;

		if (e && e->complete) {
			found = e->readable && e->start_time <= start && remembered_holds(e, holds, arg);
			its_start = e->start_time;
			its_ppid = e->ppid;
		} else {
			found = read_now(ppid, start, holds, arg, &its_start, &its_ppid);
		}
		if (!found)
			break;
		start = its_start;
		ppid = its_ppid;
	}
	return start;
}

unsigned long long ms_ancestry_mapped_since(unsigned long long start, int ppid, ms_ancestry_holds_fn holds,
					    void *arg)
{
	return ms_ancestry_mapped_since_in(NULL, start, ppid, holds, arg);
}
