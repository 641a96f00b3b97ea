/* libtable_res.c - RSS, PSS, USS and DIRTY of a libraries table's rows: see libtable_res.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "files/libtable_res.h"
#include "resid/residency.h"

/* The use of m's file by this process, when its row is kept (this process's use is its last). */
static struct ms_libtable_use *use_of(struct ms_libtable *t, size_t proc_index, const struct ms_mapping *m,
				      struct ms_libtable_row **row)
{
	*row = ms_libtable_find(t, m->dev_major, m->dev_minor, m->inode);
	if (!*row || !(*row)->kept || !(*row)->nuses || (*row)->uses[(*row)->nuses - 1].proc != proc_index)
		return NULL;
	return &(*row)->uses[(*row)->nuses - 1];
}

static int query(struct ms_libtable *t, struct ms_proc *proc, const struct ms_mapping *maps, size_t n,
		 struct ms_resinfo *info)
{
	struct ms_res_opts ro = { .backend = (t->opts.what & MS_LIBTABLE_PSS) ? MS_RES_SMAPS : MS_RES_AUTO };
	struct ms_residency *res = NULL;
	struct ms_error e;
	int rc = ms_residency_open(proc, &ro, &res, &e);

	if (rc == 0)
		rc = ms_residency_query(res, maps, n, info, &e);
	if (rc == 0 && ms_residency_backend(res) == MS_RES_SMAPS && !(t->opts.what & MS_LIBTABLE_PSS))
		t->res_smaps = true;
	ms_residency_close(res);
	if (rc < 0 && !t->res_why)
		t->res_why = rc == MS_ERR_NOMEM ? "out of memory" : "a residency query failed";
	return rc;
}

int ms_libtable_residency(struct ms_libtable *t, size_t proc_index, struct ms_proc *proc,
			  struct ms_maps *maps, struct ms_error *err)
{
	struct ms_maplist list = { 0 };
	struct ms_resinfo *info = NULL;
	struct ms_libtable_row *row;
	size_t n = 0;
	unsigned old = ms_maps_set_fields(maps, 0);
	/* A library's data mappings count with its code, unless only the code is asked. */
	unsigned filter = (t->opts.what & MS_LIBTABLE_CODE_ONLY) ? ms_stale_filter(t->opts.scan_flags) : 0;
	int rc = ms_maps_collect(maps, filter, &list, err);

	ms_maps_set_fields(maps, old);
	if (rc == MS_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		if (!t->res_why)
			t->res_why = "the mappings could not be read again";
		return 0;
	}
	/* Only the mappings of kept rows, in address order as listed. */
	for (size_t i = 0; i < list.count; i++) {
		if (use_of(t, proc_index, &list.items[i], &row))
			list.items[n++] = list.items[i];
		else
			ms_mapping_reset(&list.items[i]);
	}
	list.count = n;
	info = calloc(n ? n : 1, sizeof(*info));
	if (!info) {
		ms_maplist_free(&list);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	}
	if (n && query(t, proc, list.items, n, info) == 0) {
		for (size_t i = 0; i < n; i++) {
			struct ms_libtable_use *u = use_of(t, proc_index, &list.items[i], &row);

			u->res_known = true;
			u->rss += info[i].rss;
			u->pss += info[i].pss;
			u->uss += info[i].uss;
			u->dirty += info[i].dirty;
			row->rss += info[i].rss;
			row->pss += info[i].pss;
			row->uss += info[i].uss;
			row->dirty += info[i].dirty;
		}
	}
	free(info);
	ms_maplist_free(&list);
	return 0;
}
