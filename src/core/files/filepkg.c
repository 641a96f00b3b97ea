/* filepkg.c - the package of each file row: see filepkg.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "files/filepkg.h"
#include "stale/ignore.h"

static bool wanted(const struct ms_filerow *r)
{
	return !r->info.pkg_known && r->kind == MS_FILEKIND_FILE && r->name && !r->name_ambiguous &&
	       r->name[0] == '/';
}

/* Rows that will not be asked about: known, with why. */
static size_t settle_unasked(struct ms_filemap *fm, size_t from, size_t end, bool other_root)
{
	size_t n = 0;

	for (size_t i = from; i < end; i++) {
		struct ms_filerow *r = &fm->rows[i];

		if (r->info.pkg_known)
			continue;
		if (r->kind != MS_FILEKIND_FILE || !r->name) {
			r->info.pkg_known = true;
			r->info.pkg_why = "not a file";
		} else if (r->name_ambiguous || r->name[0] != '/') {
			r->info.pkg_known = true;
			r->info.pkg_why = "the name is not a path to look up";
		} else if (other_root) {
			r->info.pkg_known = true;
			r->info.pkg_why = "the process lives under another root";
		} else {
			n++;
		}
	}
	return n;
}

int ms_filepkg_describe(const struct ms_owner_opts *opts, struct ms_filemap *fm, size_t from, size_t n,
			bool other_root, struct ms_error *err)
{
	size_t end = from < fm->count ? (n < fm->count - from ? from + n : fm->count) : from;
	size_t want = settle_unasked(fm, from, end, other_root), k = 0;
	const char **paths;
	size_t *lens;
	struct ms_pkg *found;
	struct ms_owner *owner = NULL;
	int rc;

	if (!want)
		return 0;
	paths = calloc(want, sizeof(*paths));
	lens = calloc(want, sizeof(*lens));
	found = calloc(want, sizeof(*found));
	rc = paths && lens && found ? 0 : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory for packages");
	for (size_t i = from; rc == 0 && i < end; i++)
		if (wanted(&fm->rows[i])) {
			paths[k] = fm->rows[i].name;
			lens[k++] = ms_name_strip_deleted(fm->rows[i].name, fm->rows[i].name_len);
		}
	if (rc == 0)
		rc = ms_owner_open(opts, &owner, err);
	if (rc == 0)
		rc = ms_owner_find(owner, paths, lens, k, found, err);
	for (size_t i = from, at = 0; rc == 0 && i < end; i++)
		if (wanted(&fm->rows[i])) {
			struct ms_fileinfo *info = &fm->rows[i].info;

			info->pkg = found[at++];
			info->pkg_known = true;
			/* The version installed now is not the one a replaced or deleted copy holds. */
			if (info->pkg.found && info->verdict_known &&
			    ms_stale_verdict_is_stale(info->verdict.verdict) &&
			    info->pkg.running_state == MS_PKG_RUNNING_INSTALLED)
				info->pkg.running_state = MS_PKG_RUNNING_UNKNOWN;
		}
	ms_owner_close(owner);
	free(paths);
	free(lens);
	free(found);
	return rc;
}
