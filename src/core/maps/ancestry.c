/* ancestry.c - since when a process has held a copy: see ancestry.h. */
#include "config.h"

#include "maps/ancestry.h"
#include "maps/maps.h"
#include "proc/proc.h"

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

unsigned long long ms_ancestry_mapped_since(unsigned long long start, int ppid, ms_ancestry_holds_fn holds,
					    void *arg)
{
	for (int depth = 0; depth < MS_ANCESTRY_MAX && ppid > 1; depth++) {
		struct holds_ctx h = { .holds = holds, .arg = arg };
		struct ms_proc *parent = NULL;
		struct ms_maps *maps = NULL;
		struct ms_error why;
		const struct ms_proc_stat *st;

		if (ms_proc_open((pid_t)ppid, &parent, &why) < 0)
			break;
		st = ms_proc_stat_at_open(parent);
		if (st->state != 'X' && st->start_time <= start &&
		    ms_maps_open(parent, &(struct ms_maps_opts){ .backend = MS_BACKEND_AUTO }, &maps, &why) == 0) {
			ms_maps_set_fields(maps, 0);
			ms_maps_walk(maps, 0, MS_FILTER_FILE_BACKED, holds_copy, &h, &why);
			ms_maps_close(maps);
		}
		if (h.found) {
			start = st->start_time;
			ppid = st->ppid;
		}
		ms_proc_close(parent);
		if (!h.found)
			break;
	}
	return start;
}
