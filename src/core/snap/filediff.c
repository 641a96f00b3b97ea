#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "snap/filediff.h"

struct file {
	const char *path;
	size_t len;
	size_t first; /* index of its mapping; after grouping, its first */
};

static int path_cmp(const struct file *a, const struct file *b)
{
	int c = memcmp(a->path, b->path, a->len < b->len ? a->len : b->len);

	if (c || a->len == b->len)
		return c;
	return a->len < b->len ? -1 : 1;
}

static int by_path(const void *x, const void *y)
{
	const struct file *a = x, *b = y;
	int c = path_cmp(a, b);

	return c ? c : a->first < b->first ? -1 : a->first > b->first;
}

/* Every file mapping of snap, sorted by path, then by address. */
static struct file *files_of(const struct ms_snapshot *snap, size_t *n)
{
	struct file *f = malloc((snap->maps.count ? snap->maps.count : 1) * sizeof(*f));

	*n = 0;
	if (!f)
		return NULL;
	for (size_t i = 0; i < snap->maps.count; i++) {
		const struct ms_mapping *m = &snap->maps.items[i];

		if (m->name_len && m->name[0] == '/')
			f[(*n)++] = (struct file){ m->name, ms_mapping_name_undeleted(m->name, m->name_len), i };
	}
	qsort(f, *n, sizeof(*f), by_path);
	return f;
}

/* The side of the file at f[*at], and *at moved past all its mappings. */
static struct ms_filediff_side side_of(const struct ms_snapshot *snap, const struct file *f,
				       size_t n, size_t *at)
{
	const struct ms_mapping *m = &snap->maps.items[f[*at].first];
	struct ms_filediff_side s = { m, NULL, snap->pkgs ? &snap->pkgs[f[*at].first] : NULL, 0, 0,
				      ms_mapping_name_undeleted(m->name, m->name_len) != m->name_len };
	size_t i = *at;

	for (; i < n && !path_cmp(&f[i], &f[*at]); i++) {
		const struct ms_mapping *each = &snap->maps.items[f[i].first];

		if (!s.build_id && each->build_id_len)
			s.build_id = each;
		s.mappings++;
		s.size += ms_mapping_size(each);
	}
	*at = i;
	return s;
}

static unsigned differences(const struct ms_filediff_side *a, const struct ms_filediff_side *b,
			    bool same_boot)
{
	unsigned d = 0;

	if (same_boot && (a->map->dev_major != b->map->dev_major ||
			  a->map->dev_minor != b->map->dev_minor || a->map->inode != b->map->inode))
		d |= MS_FILEDIFF_F_FILE;
	if (a->build_id && b->build_id &&
	    (ms_mapping_differences(a->build_id, b->build_id) & MS_DIFF_F_BUILDID))
		d |= MS_FILEDIFF_F_BUILDID;
	if (a->pkg && b->pkg && (a->pkg->found != b->pkg->found || strcmp(a->pkg->name, b->pkg->name)))
		d |= MS_FILEDIFF_F_PACKAGE;
	else if (a->pkg && b->pkg && a->pkg->found && a->pkg->version[0] && b->pkg->version[0] &&
		 strcmp(a->pkg->version, b->pkg->version))
		d |= MS_FILEDIFF_F_VERSION;
	if (a->deleted != b->deleted)
		d |= MS_FILEDIFF_F_DELETED;
	return d;
}

bool ms_snapshot_same_boot(const struct ms_snapshot *a, const struct ms_snapshot *b)
{
	return !a->hdr.boot_id[0] || !b->hdr.boot_id[0] || !strcmp(a->hdr.boot_id, b->hdr.boot_id);
}

int ms_snapshot_diff_files(const struct ms_snapshot *old_snap, const struct ms_snapshot *new_snap,
			   ms_filediff_fn fn, void *ctx, struct ms_diff_summary *summary)
{
	struct ms_diff_summary s = { 0 };
	size_t na, nb, i = 0, j = 0;
	struct file *fa = files_of(old_snap, &na), *fb = files_of(new_snap, &nb);
	bool same_boot = ms_snapshot_same_boot(old_snap, new_snap);
	int rc = fa && fb ? 0 : MS_ERR_NOMEM;

	while (rc == 0 && (i < na || j < nb)) {
		struct ms_filediff_entry e = { 0 };
		int c = i == na ? 1 : j == nb ? -1 : path_cmp(&fa[i], &fb[j]);

		e.path = c <= 0 ? fa[i].path : fb[j].path;
		e.path_len = c <= 0 ? fa[i].len : fb[j].len;
		if (c <= 0)
			e.old_side = side_of(old_snap, fa, na, &i);
		if (c >= 0)
			e.new_side = side_of(new_snap, fb, nb, &j);
		if (c < 0) {
			e.kind = MS_DIFF_REMOVED;
			s.removed++;
		} else if (c > 0) {
			e.kind = MS_DIFF_ADDED;
			s.added++;
		} else {
			e.kind = MS_DIFF_CHANGED;
			e.changed = differences(&e.old_side, &e.new_side, same_boot);
			if (!e.changed) {
				s.unchanged++;
				continue;
			}
			s.changed++;
		}
		if (fn)
			rc = fn(ctx, &e);
	}
	free(fa);
	free(fb);
	if (summary)
		*summary = s;
	return rc;
}
