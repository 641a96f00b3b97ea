/*
 * sbom_budget.c - who gets the SBOM's hash budget: see sbom.h.
 *
 * The order is decided on owners and sizes alone, before any file is read,
 * so what a user maps decides only how their own share is spent.
 */
#include "config.h"

#include <stdlib.h>

#include "files/sbom.h"

/* One owner's candidates: idx[start, end) in name order, next the first not planned. */
struct owner {
	size_t start;
	size_t end;
	size_t next;
	uint64_t demand; /* bytes of all its candidates */
	uint64_t quota;
	uint64_t used;
};

static int cmp_uid_item(const void *pa, const void *pb, void *arg)
{
	const struct ms_sbom_cand *c = arg;
	const struct ms_sbom_cand *a = &c[*(const size_t *)pa], *b = &c[*(const size_t *)pb];

	if (a->uid != b->uid)
		return a->uid < b->uid ? -1 : 1;
	return (a->item > b->item) - (a->item < b->item);
}

/* Fewer bytes first; then by uid (start follows uid), so the plan is the same every run. */
static int cmp_demand(const void *pa, const void *pb)
{
	const struct owner *a = pa, *b = pb;

	if (a->demand != b->demand)
		return a->demand < b->demand ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/*
 * Equal shares of left, water-filled: an owner that needs less than its
 * share takes what it needs and the others split the rest.  own is sorted
 * by demand, so each owner's share is settled when it is reached.
 */
static void share_bytes(struct owner *own, size_t n, uint64_t left)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t share = left / (n - k);

		own[k].quota = own[k].demand < share ? own[k].demand : share;
		left -= own[k].quota;
	}
}

/*
 * One file a round per owner, the next that fits its bytes (those that do
 * not fit are BYTES), until the files run out.  Each step plans a file or
 * drops an owner, so this is linear however the files are spread.
 */
static void round_robin(struct ms_sbom_cand *c, const size_t *idx, struct owner *own, size_t live,
			size_t files, size_t max_files)
{
	while (live && files < max_files) {
		size_t kept = 0;

		for (size_t k = 0; k < live && files < max_files; k++) {
			struct owner o = own[k];

			while (o.next < o.end && c[idx[o.next]].size > o.quota - o.used)
				c[idx[o.next++]].plan = MS_SBOM_PLAN_BYTES;
			if (o.next < o.end) {
				c[idx[o.next]].plan = MS_SBOM_PLAN_HASH;
				o.used += c[idx[o.next++]].size;
				files++;
			}
			if (o.next < o.end)
				own[kept++] = o;
		}
		live = kept;
	}
}

int ms_sbom_budget_plan(struct ms_sbom_cand *c, size_t n, size_t max_files, uint64_t max_bytes)
{
	size_t *idx, m = 0, nown = 0, files = 0, i = 0;
	uint64_t bytes = 0;
	struct owner *own;

	for (size_t k = 0; k < n; k++)
		m += c[k].plan != MS_SBOM_PLAN_NONE;
	idx = malloc((m ? m : 1) * sizeof(*idx));
	own = malloc((m ? m : 1) * sizeof(*own));
	if (!idx || !own) {
		free(idx);
		free(own);
		return MS_ERR_NOMEM;
	}
	m = 0;
	for (size_t k = 0; k < n; k++)
		if (c[k].plan != MS_SBOM_PLAN_NONE) {
			c[k].plan = MS_SBOM_PLAN_FILES; /* unless planned otherwise below */
			idx[m++] = k;
		}
	qsort_r(idx, m, sizeof(*idx), cmp_uid_item, c);
	/* Root's files first, in name order, while the budget lasts. */
	for (; i < m && c[idx[i]].uid == 0 && files < max_files; i++) {
		struct ms_sbom_cand *r = &c[idx[i]];

		if (r->size > max_bytes - bytes) {
			r->plan = MS_SBOM_PLAN_BYTES;
			continue;
		}
		r->plan = MS_SBOM_PLAN_HASH;
		bytes += r->size;
		files++;
	}
	while (i < m && c[idx[i]].uid == 0)
		i++;
	while (i < m) {
		struct owner *o = &own[nown++];

		*o = (struct owner){ .start = i, .next = i };
		for (uid_t uid = c[idx[i]].uid; i < m && c[idx[i]].uid == uid; i++)
			o->demand += c[idx[i]].size;
		o->end = i;
	}
	qsort(own, nown, sizeof(*own), cmp_demand);
	share_bytes(own, nown, max_bytes - bytes);
	round_robin(c, idx, own, nown, files, max_files);
	free(idx);
	free(own);
	return 0;
}
