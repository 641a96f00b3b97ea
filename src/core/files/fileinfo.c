#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfdyn.h"
#include "elf/pkgnote.h"
#include "files/fileinfo.h"
#include "files/filepkg.h"
#include "untrusted/lookup.h"
#include "untrusted/mapfiles.h"

struct ms_fileinfo_ctx {
	struct ms_proc *proc;
	struct ms_maps *maps;
	/* Its lookups and root serve the SONAME reads too: one walk a file for both. */
	struct ms_stale_ctx *stale;
	struct ms_elfdyn *elf; /* the reader's state, 64 KiB: allocated at the first read */
};

int ms_fileinfo_ctx_new(const struct ms_ignore *ignore, struct ms_proc *proc, struct ms_maps *maps,
			struct ms_fileinfo_ctx **out, struct ms_error *err)
{
	struct ms_fileinfo_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	c->proc = proc;
	c->maps = maps;
	if (ms_stale_ctx_new(ignore, &c->stale, err) < 0) {
		ms_fileinfo_ctx_free(c);
		return err ? err->code : MS_ERR_NOMEM;
	}
	*out = c;
	return 0;
}

void ms_fileinfo_forget(struct ms_fileinfo_ctx *c)
{
	ms_stale_ctx_forget(c->stale);
}

void ms_fileinfo_ctx_free(struct ms_fileinfo_ctx *c)
{
	if (!c)
		return;
	ms_stale_ctx_free(c->stale);
	free(c->elf);
	free(c);
}

static int describe_build_id(struct ms_fileinfo_ctx *c, struct ms_filerow *r, struct ms_error *err)
{
	struct ms_mapping m = { 0 };
	unsigned old;
	int rc;

	if (ms_maps_backend(c->maps) != MS_BACKEND_IOCTL) {
		r->info.build_id_why = "the text backend has no build IDs";
		return 0;
	}
	old = ms_maps_set_fields(c->maps, MS_FIELD_NAME | MS_FIELD_BUILD_ID);
	rc = ms_maps_at(c->maps, r->first_addr, &m, err);
	ms_maps_set_fields(c->maps, old);
	if (rc == MS_END || (rc == 0 && (m.inode != r->inode || m.dev_major != r->dev_major ||
					  m.dev_minor != r->dev_minor))) {
		r->info.build_id_why = "the mapping changed under us";
		rc = 0;
	} else if (rc == 0 && m.build_id_len) {
		r->info.build_id_len = m.build_id_len;
		memcpy(r->info.build_id, m.build_id, m.build_id_len);
	} else if (rc == 0) {
		r->info.build_id_why = m.build_id_skipped ? m.build_id_skipped : "no build ID";
	}
	ms_mapping_reset(&m);
	return rc;
}

static void set_why(char *dst, size_t size, const char *why)
{
	snprintf(dst, size, "%.*s", (int)size - 1, why);
}

/* The SONAME and LIBVER asked for are unknown, for the same reason. */
static void elf_unknown(struct ms_filerow *r, unsigned what, int rc, const char *why)
{
	if (what & MS_FILEINFO_SONAME) {
		r->info.soname_rc = rc;
		set_why(r->info.soname_why, sizeof(r->info.soname_why), why);
	}
	if (what & MS_FILEINFO_LIBVER) {
		r->info.libver_rc = rc;
		set_why(r->info.libver_why, sizeof(r->info.libver_why), why);
	}
}

/* SONAME and LIBVER (what says which) from one open of the mapped file, its headers read once. */
static int describe_elf(struct ms_fileinfo_ctx *c, struct ms_filerow *r, const struct ms_mapping *m,
			unsigned what)
{
	struct ms_error err = { 0 };
	char why[sizeof(r->info.soname_why)];
	const struct ms_lookup_root *root;
	bool other = false;
	int fd, rc;

	r->info.no_pkgnote = false;

	if (r->name_ambiguous || !r->name_len || r->name[0] != '/') {
		elf_unknown(r, what, MS_ERR_LIMIT, "the name is not a path to look up");
		return 0;
	}
	root = ms_stale_ctx_root(c->stale, c->proc);
	if (root->fd < 0) {
		elf_unknown(r, what, MS_ERR_LIMIT, "the process's root cannot be opened");
		return 0;
	}
	if (!c->elf && !(c->elf = malloc(sizeof(*c->elf))))
		return MS_ERR_NOMEM;
	why[0] = '\0';
	fd = ms_mapfiles_open_mapped(ms_stale_ctx_lookups(c->stale), root, c->proc, m, NULL, why, sizeof(why),
				     &other);
	if (fd == MS_ERR_NOMEM)
		return fd;
	if (fd < 0) {
		elf_unknown(r, what, MS_ERR_LIMIT, why);
		return 0;
	}
	rc = ms_elfdyn_open_fd(c->elf, fd, &err);
	if (rc != 0)
		elf_unknown(r, what, rc, err.msg);
	if (rc == 0 && (what & MS_FILEINFO_SONAME) &&
	    (r->info.soname_rc = ms_soname_of(c->elf, r->info.soname, &err)) != 0)
		set_why(r->info.soname_why, sizeof(r->info.soname_why), err.msg);
	if (rc == 0 && (what & MS_FILEINFO_LIBVER) &&
	    (r->info.libver_rc = ms_verdef_of(c->elf, r->info.libver, &err)) != 0)
		set_why(r->info.libver_why, sizeof(r->info.libver_why), err.msg);
	/*
	 * The file at the path under our root, open now: its package note, if
	 * any, is what the note source would read there (notepkg.h).  Only
	 * "none" is kept, so a file with a note is still read the note source's way.
	 */
	if ((what & MS_FILEINFO_PACKAGE) && root->ours && !other) {
		struct ms_pkgnote note;
		struct ms_error ignored;

		r->info.no_pkgnote = ms_pkgnote_read_fd(fd, &note, &ignored) == MS_END;
	}
	close(fd);
	return 0;
}

int ms_fileinfo_describe(struct ms_fileinfo_ctx *c, struct ms_filemap *fm,
			 const struct ms_maplist *list, size_t from, size_t n, unsigned what,
			 struct ms_error *err)
{
	/* A package's version is the copy's: a replaced or deleted one needs its verdict. */
	if (what & MS_FILEINFO_PACKAGE)
		what |= MS_FILEINFO_VERDICT;
	for (size_t i = from; i < fm->count && i - from < n; i++) {
		struct ms_filerow *r = &fm->rows[i];
		/* A row described already gets only the parts asked for since (a column chosen). */
		unsigned todo = r->info.described ? what & ~r->info.asked : what;
		int rc = 0;

		if (r->info.described && !todo)
			continue;
		if (!r->info.described)
			r->info.asked = 0;
		if (todo & MS_FILEINFO_SONAME)
			r->info.soname_rc = MS_END;
		if (todo & MS_FILEINFO_LIBVER)
			r->info.libver_rc = MS_END;
		if (r->kind != MS_FILEKIND_FILE) {
			r->info.asked |= todo;
			r->info.described = true;
			continue;
		}
		ms_version_from_name(r->name, r->name_len, r->info.filever);
		if (todo & MS_FILEINFO_BUILD_ID)
			rc = describe_build_id(c, r, err);
		/* The SONAME's walk first: it opens the file, and the verdict's proof then finds it cached. */
		if (rc == 0 && (todo & (MS_FILEINFO_SONAME | MS_FILEINFO_LIBVER)) &&
		    describe_elf(c, r, &list->items[r->first], todo) < 0)
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory looking files up");
		if (rc == 0 && (todo & MS_FILEINFO_VERDICT)) {
			rc = ms_stale_judge(c->stale, c->maps, &list->items[r->first], &r->info.verdict);
			r->info.verdict_known = rc == 0;
			if (rc < 0)
				ms_error_set(err, rc, ENOMEM, "out of memory for stale verdicts");
		}
		if (rc < 0)
			return rc;
		r->info.asked |= todo;
		r->info.described = true;
	}
	if (what & MS_FILEINFO_PACKAGE)
		return ms_filepkg_describe(NULL, fm, from, n, c->proc, ms_stale_ctx_other_root(c->stale, c->proc),
					   err);
	return 0;
}

int ms_fileinfo_residency(struct ms_residency *res, struct ms_filemap *fm,
			  const struct ms_maplist *list, size_t from, size_t n,
			  struct ms_error *err)
{
	struct ms_mapping *maps;
	struct ms_resinfo *info;
	size_t *rows, count = 0;
	int rc = 0;

	for (size_t i = from; i < fm->count && i - from < n; i++) {
		fm->rows[i].info.rss = 0;
		fm->rows[i].info.rss_known = false;
	}
	maps = calloc(list->count ? list->count : 1, sizeof(*maps));
	rows = calloc(list->count ? list->count : 1, sizeof(*rows));
	if (!maps || !rows) {
		free(maps);
		free(rows);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	/* Borrowed records (names not owned): the walk reads only the ranges. */
	for (size_t i = 0; i < list->count; i++)
		if (fm->row_of[i] >= from && fm->row_of[i] - from < n) {
			maps[count] = list->items[i];
			rows[count++] = fm->row_of[i];
		}
	info = calloc(count ? count : 1, sizeof(*info));
	if (!info)
		rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	if (rc == 0 && count)
		rc = ms_residency_query(res, maps, count, info, err);
	for (size_t i = 0; rc == 0 && i < count; i++)
		fm->rows[rows[i]].info.rss += info[i].rss;
	for (size_t i = from; rc == 0 && i < fm->count && i - from < n; i++)
		fm->rows[i].info.rss_known = true;
	free(info);
	free(maps);
	free(rows);
	return rc;
}
