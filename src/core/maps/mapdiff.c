#include "config.h"

#include <string.h>

#include "maps/mapdiff.h"

unsigned ms_mapping_differences(const struct ms_mapping *a, const struct ms_mapping *b)
{
	unsigned d = 0;

	if (a->perms != b->perms)
		d |= MS_DIFF_F_PERMS;
	if (a->offset != b->offset)
		d |= MS_DIFF_F_OFFSET;
	if (a->dev_major != b->dev_major || a->dev_minor != b->dev_minor)
		d |= MS_DIFF_F_DEV;
	if (a->inode != b->inode)
		d |= MS_DIFF_F_INODE;
	if (a->name_len != b->name_len ||
	    (a->name_len && memcmp(a->name, b->name, a->name_len) != 0))
		d |= MS_DIFF_F_NAME;
	if (a->build_id_len && b->build_id_len &&
	    (a->build_id_len != b->build_id_len ||
	     memcmp(a->build_id, b->build_id, a->build_id_len) != 0))
		d |= MS_DIFF_F_BUILDID;
	return d;
}

static int emit(ms_diff_fn fn, void *ctx, enum ms_diff_kind kind,
		const struct ms_mapping *o, const struct ms_mapping *n, unsigned changed)
{
	struct ms_diff_entry e = { kind, o, n, changed };

	return fn ? fn(ctx, &e) : 0;
}

int ms_maplist_diff(const struct ms_maplist *old_list, const struct ms_maplist *new_list,
		    ms_diff_fn fn, void *ctx, struct ms_diff_summary *summary)
{
	struct ms_diff_summary s = { 0 };
	size_t i = 0, j = 0;
	int rc = 0;

	while (rc == 0 && (i < old_list->count || j < new_list->count)) {
		const struct ms_mapping *a = i < old_list->count ? &old_list->items[i] : NULL;
		const struct ms_mapping *b = j < new_list->count ? &new_list->items[j] : NULL;

		if (a && b && a->start == b->start && a->end == b->end) {
			unsigned d = ms_mapping_differences(a, b);

			if (d) {
				s.changed++;
				rc = emit(fn, ctx, MS_DIFF_CHANGED, a, b, d);
			} else {
				s.unchanged++;
			}
			i++;
			j++;
		} else if (a && (!b || a->start < b->start ||
				 (a->start == b->start && a->end < b->end))) {
			s.removed++;
			rc = emit(fn, ctx, MS_DIFF_REMOVED, a, NULL, 0);
			i++;
		} else {
			s.added++;
			rc = emit(fn, ctx, MS_DIFF_ADDED, NULL, b, 0);
			j++;
		}
	}
	if (summary)
		*summary = s;
	return rc;
}
