/* who_pkg.c - `who`'s package cells: see who_pkg.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/who_pkg.h"
#include "core/base/escape.h"
#include "core/base/grow.h"
#include "core/maps/ancestry.h"
#include "core/pkg/owner.h"
#include "core/stale/ignore.h"

static int path_index(struct who_pkgs *wp, const char *name, size_t len, size_t *out)
{
	struct who_pkg_path *p;

	for (size_t i = wp->npaths; i-- > 0;)
		if (wp->paths[i].len == len && !memcmp(wp->paths[i].name, name, len)) {
			*out = i;
			return 0;
		}
	if (ms_grow((void **)&wp->paths, &wp->cap_paths, wp->npaths, sizeof(*wp->paths), 16) < 0)
		return -1;
	p = &wp->paths[wp->npaths];
	p->name = malloc(len + 1);
	if (!p->name)
		return -1;
	memcpy(p->name, name, len);
	p->name[len] = '\0';
	p->len = len;
	*out = wp->npaths++;
	return 0;
}

int who_pkg_note(struct who_pkgs *wp, struct libscols_line *ln, const struct ms_proc *proc,
		 const struct ms_mapping *m, bool no_lookup, enum ms_filecopy copy, const struct timespec *unlinked)
{
	const struct ms_proc_stat *st = ms_proc_stat_at_open(proc);
	struct who_pkg_line *l;

	if (no_lookup || !m->name || !m->name_len || m->name[0] != '/' || m->name_ambiguous)
		return 0;
	if (ms_grow((void **)&wp->lines, &wp->cap_lines, wp->nlines, sizeof(*wp->lines), 64) < 0)
		return -1;
	l = &wp->lines[wp->nlines];
	l->ln = ln;
	l->copy = copy;
	l->start_time = st->start_time;
	l->ppid = st->ppid;
	l->dev_major = m->dev_major;
	l->dev_minor = m->dev_minor;
	l->inode = m->inode;
	l->unlinked = *unlinked;
	l->pid = ms_proc_pid(proc);
	l->addr = m->start;
	l->end = m->end;
	if (path_index(wp, m->name, ms_name_strip_deleted(m->name, m->name_len), &l->path) < 0)
		return -1;
	wp->nlines++;
	return 0;
}

static bool holds_line(void *arg, const struct ms_mapping *m)
{
	const struct who_pkg_line *l = arg;

	return m->inode == l->inode && m->dev_major == l->dev_major && m->dev_minor == l->dev_minor;
}

/*
 * *mine: a package per line, with its running version for the lines of an
 * old copy the owner found (NULL when there is none).  0 or MS_ERR_NOMEM.
 */
static int running_versions(struct who_pkgs *wp, struct ms_owner *owner, const struct ms_pkg *found,
			    struct ms_pkg **mine, struct ms_error *err)
{
	struct ms_error why;
	struct ms_copy *copies;
	struct ms_ancestry *memo;
	time_t btime;
	bool any = false;
	int rc;

	for (size_t i = 0; i < wp->nlines; i++)
		any = any || (wp->lines[i].copy != MS_FILECOPY_CURRENT && found[wp->lines[i].path].found);
	if (!any)
		return 0;
	*mine = calloc(wp->nlines, sizeof(**mine));
	copies = calloc(wp->nlines, sizeof(*copies));
	if (!*mine || !copies) {
		free(copies);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "who: out of memory");
	}
	if (ms_boot_time(&btime, &why) < 0)
		btime = 0;
	/* The holders of one file are often one server's workers: each parent is read once. */
	memo = ms_ancestry_new();
	for (size_t i = 0; i < wp->nlines; i++) {
		struct who_pkg_line *l = &wp->lines[i];

		(*mine)[i] = found[l->path];
		if (l->copy == MS_FILECOPY_CURRENT || !(*mine)[i].found)
			(*mine)[i].found = false; /* not asked: ms_owner_running skips it */
		else
			copies[i] = (struct ms_copy){
				.start = btime ? ms_proc_started_at(ms_ancestry_mapped_since_in(memo, l->start_time,
												l->ppid, holds_line, l),
								    btime)
					       : 0,
				.unlinked = l->unlinked,
				.pid = l->pid,
				.addr = l->addr,
				.end = l->end,
				.ino = l->inode,
				.dev_major = l->dev_major,
				.dev_minor = l->dev_minor,
			};
	}
	ms_ancestry_free(memo);
	rc = ms_owner_running(owner, *mine, copies, wp->nlines, err);
	for (size_t i = 0; i < wp->nlines; i++) {
		/* Back to the lookup's answer where nothing was asked; unknown where nothing was said. */
		if (wp->lines[i].copy == MS_FILECOPY_CURRENT || !found[wp->lines[i].path].found)
			(*mine)[i] = found[wp->lines[i].path];
		else if ((*mine)[i].running_state == MS_PKG_RUNNING_INSTALLED)
			(*mine)[i].running_state = MS_PKG_RUNNING_UNKNOWN;
	}
	free(copies);
	return rc;
}

static int set_cell(struct libscols_line *ln, int col, char *text)
{
	if (!text || scols_line_refer_data(ln, (size_t)col, text) != 0) {
		free(text);
		return -1;
	}
	return 0;
}

int who_pkg_fill(struct who_pkgs *wp, const struct cli_opts *o, const int cols[WHO_PKG_FACTS],
		 struct ms_error *err)
{
	struct ms_pkg *found, *mine = NULL;
	struct ms_owner *owner = NULL;
	const char **names;
	size_t *lens;
	int rc = 0;

	bool any = false;

	for (int c = 0; c < WHO_PKG_FACTS; c++)
		any = any || cols[c] >= 0;
	if (!wp->nlines || !any)
		return 0;
	found = calloc(wp->npaths, sizeof(*found));
	names = calloc(wp->npaths, sizeof(*names));
	lens = calloc(wp->npaths, sizeof(*lens));
	if (!found || !names || !lens)
		rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "who: out of memory");
	for (size_t i = 0; rc == 0 && i < wp->npaths; i++) {
		names[i] = wp->paths[i].name;
		lens[i] = wp->paths[i].len;
	}
	if (rc == 0)
		rc = ms_owner_open(NULL, &owner, err);
	if (rc == 0)
		rc = ms_owner_find(owner, names, lens, wp->npaths, found, err);
	if (rc == 0)
		rc = running_versions(wp, owner, found, &mine, err);
	ms_owner_close(owner);
	free(names);
	free(lens);
	for (size_t i = 0; rc == 0 && i < wp->nlines; i++) {
		const struct who_pkg_line *l = &wp->lines[i];
		const struct ms_pkg *p = mine && l->copy != MS_FILECOPY_CURRENT ? &mine[i] : &found[l->path];
		struct ms_fact_src src = { .pkg_known = true, .pkg = p->found ? p : NULL };

		for (int c = 0; rc == 0 && c < WHO_PKG_FACTS; c++)
			if (cols[c] >= 0 && set_cell(l->ln, cols[c], cli_fact_cell(o, (enum ms_fact)(MS_FACT_PACKAGE + c), &src)) < 0)
				rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "who: out of memory");
	}
	free(found);
	free(mine);
	return rc;
}

void who_pkg_free(struct who_pkgs *wp)
{
	for (size_t i = 0; i < wp->npaths; i++)
		free(wp->paths[i].name);
	free(wp->paths);
	free(wp->lines);
	memset(wp, 0, sizeof(*wp));
}
