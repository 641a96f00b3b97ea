/* filepkg.c - the package of each file row: see filepkg.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "files/filepkg.h"
#include "maps/ancestry.h"
#include "stale/ignore.h"
#include "untrusted/nameproof.h"

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
		} else if (!r->info.verdict_known || !r->info.verdict.path_ours) {
			/* Only a name proven a path here may be looked up (nameproof.h). */
			r->info.pkg_known = true;
			r->info.pkg_why = MS_NAME_WHY_NOT_OURS;
		} else {
			n++;
		}
	}
	return n;
}

/* Does m hold the row's copy (the same device and inode)? */
static bool holds_row(void *arg, const struct ms_mapping *m)
{
	const struct ms_filerow *r = arg;

	return m->inode == r->inode && m->dev_major == r->dev_major && m->dev_minor == r->dev_minor;
}

static bool old_copy(const struct ms_fileinfo *info)
{
	return info->pkg.found && info->verdict_known && ms_stale_verdict_is_stale(info->verdict.verdict) &&
	       info->pkg.running_state == MS_PKG_RUNNING_INSTALLED;
}

/*
 * The version of each old copy among rows [from, end) just looked up: the
 * one installed when proc (or the ancestor that mapped it first) started,
 * else UNKNOWN.  0 or MS_ERR_NOMEM.
 */
static int running_versions(struct ms_owner *owner, struct ms_filemap *fm, size_t from, size_t end,
			    const struct ms_proc *proc, struct ms_error *err)
{
	const struct ms_proc_stat *st = proc ? ms_proc_stat_at_open(proc) : NULL;
	size_t k = 0, at = 0;
	struct ms_pkg *pkgs;
	struct ms_copy *copies;
	time_t btime;
	struct ms_error why;
	int rc = 0;

	for (size_t i = from; i < end; i++)
		k += old_copy(&fm->rows[i].info);
	if (!k)
		return 0;
	if (!st || ms_boot_time(&btime, &why) < 0)
		btime = 0;
	pkgs = calloc(k, sizeof(*pkgs));
	copies = calloc(k, sizeof(*copies));
	if (!pkgs || !copies)
		rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory for packages");
	for (size_t i = from; rc == 0 && i < end; i++)
		if (old_copy(&fm->rows[i].info)) {
			const struct ms_filerow *r = &fm->rows[i];

			pkgs[at] = r->info.pkg;
			copies[at] = (struct ms_copy){
				.unlinked = r->info.verdict.unlinked,
				.start = btime ? ms_proc_started_at(ms_ancestry_mapped_since(st->start_time, st->ppid,
											     holds_row, &fm->rows[i]),
								    btime)
					       : 0,
				.pid = proc ? ms_proc_pid(proc) : 0,
				.addr = r->first_addr,
				.end = r->first_end,
				.ino = r->inode,
				.dev_major = r->dev_major,
				.dev_minor = r->dev_minor,
			};
			at++;
		}
	if (rc == 0)
		rc = ms_owner_running(owner, pkgs, copies, k, err);
	for (size_t i = from, j = 0; i < end && j < k; i++)
		if (old_copy(&fm->rows[i].info)) {
			fm->rows[i].info.pkg = pkgs[j++];
			/* Out of memory on the way: still not the installed version. */
			if (fm->rows[i].info.pkg.running_state == MS_PKG_RUNNING_INSTALLED)
				fm->rows[i].info.pkg.running_state = MS_PKG_RUNNING_UNKNOWN;
		}
	free(pkgs);
	free(copies);
	return rc;
}

int ms_filepkg_describe(const struct ms_owner_opts *opts, struct ms_filemap *fm, size_t from, size_t n,
			const struct ms_proc *proc, bool other_root, struct ms_error *err)
{
	size_t end = from < fm->count ? (n < fm->count - from ? from + n : fm->count) : from;
	size_t want = settle_unasked(fm, from, end, other_root), k = 0;
	const char **paths;
	size_t *lens;
	bool *no_note;
	struct ms_pkg *found;
	struct ms_owner *owner = NULL;
	int rc;

	if (!want)
		return 0;
	paths = calloc(want, sizeof(*paths));
	lens = calloc(want, sizeof(*lens));
	no_note = calloc(want, sizeof(*no_note));
	found = calloc(want, sizeof(*found));
	rc = paths && lens && no_note && found ? 0 :
		ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory for packages");
	for (size_t i = from; rc == 0 && i < end; i++)
		if (wanted(&fm->rows[i])) {
			paths[k] = fm->rows[i].name;
			/* The SONAME's read found no note in the file at the path (fileinfo.h). */
			no_note[k] = fm->rows[i].info.no_pkgnote;
			lens[k++] = ms_name_strip_deleted(fm->rows[i].name, fm->rows[i].name_len);
		}
	if (rc == 0)
		rc = ms_owner_open(opts, &owner, err);
	if (rc == 0)
		rc = ms_owner_find_seen(owner, paths, lens, no_note, k, found, err);
	for (size_t i = from, at = 0; rc == 0 && i < end; i++)
		if (wanted(&fm->rows[i])) {
			fm->rows[i].info.pkg = found[at++];
			fm->rows[i].info.pkg_known = true;
		}
	if (rc == 0)
		rc = running_versions(owner, fm, from, end, proc, err);
	ms_owner_close(owner);
	free(paths);
	free(lens);
	free(no_note);
	free(found);
	return rc;
}
