#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "core/files/facts.h"
#include "core/stale/stale_report.h"
#include "tui/maps_model.h"
#include "tui/stale_model.h"
#include "tui/stale_units.h"

void tui_staleview_init(struct tui_staleview *sv, size_t height)
{
	memset(sv, 0, sizeof(*sv));
	sv->height = height ? height : 1;
	sv->sel_file = -1;
	sv->pkgdb_dir = MS_PKGDB_DIR;
}

void tui_staleview_forget_packages(struct tui_staleview *sv)
{
	for (size_t i = 0; i < sv->nknown; i++)
		free(sv->known[i].name);
	sv->nknown = 0;
	sv->pkg_scans = 0;
}

static const struct tui_stale_pkg *known_pkg(const struct tui_staleview *sv,
					     const struct ms_stale_file *f)
{
	for (size_t i = 0; i < sv->nknown; i++) {
		const struct tui_stale_pkg *k = &sv->known[i];

		if (k->inode == f->inode && k->dev_major == f->dev_major && k->dev_minor == f->dev_minor &&
		    k->name_len == f->name_len && !memcmp(k->name, f->name, f->name_len))
			return k;
	}
	return NULL;
}

static int remember_pkg(struct tui_staleview *sv, const struct ms_stale_file *f, const struct ms_pkg *pkg)
{
	struct tui_stale_pkg *k;

	if (known_pkg(sv, f))
		return 0;
	if (sv->nknown >= TUI_STALE_PACKAGES_MAX)
		tui_staleview_forget_packages(sv);
	if (tui_grow((void **)&sv->known, &sv->known_cap, sv->nknown, sizeof(*sv->known)) < 0)
		return MS_ERR_NOMEM;
	k = &sv->known[sv->nknown];
	memset(k, 0, sizeof(*k));
	k->name = malloc(f->name_len + 1);
	if (!k->name)
		return MS_ERR_NOMEM;
	memcpy(k->name, f->name, f->name_len);
	k->name[f->name_len] = '\0';
	k->name_len = f->name_len;
	k->inode = f->inode;
	k->dev_major = f->dev_major;
	k->dev_minor = f->dev_minor;
	if (pkg)
		k->pkg = *pkg;
	sv->nknown++;
	return 0;
}

/*
 * Every stale file of the report known, looking packages up in one pass
 * (a dpkg database opened for it) when one is not.  0 or MS_ERR_NOMEM.
 */
static int learn_packages(struct tui_staleview *sv, struct ms_stale_report *report, struct ms_error *err)
{
	struct ms_owner *db = NULL;
	struct ms_owner_opts opts = { .dpkg_dir = sv->pkgdb_dir, .dpkg_log_dir = sv->dpkglog_dir };
	bool missing = false;
	const char *why;
	int rc;

	if (++sv->pkg_scans > TUI_STALE_PACKAGE_TICKS)
		tui_staleview_forget_packages(sv);
	for (size_t i = 0; i < report->count && !missing; i++)
		for (size_t j = 0; j < report->procs[i].files.count && !missing; j++)
			missing = ms_stale_verdict_is_stale(report->procs[i].files.items[j].result.verdict) &&
				  !known_pkg(sv, &report->procs[i].files.items[j]);
	if (!missing)
		return 0;
	/* Not a dpkg system: no database, and every package is not found. */
	/* The index is the real database's: a test's own directory has none. */
	opts.index_path = !strcmp(sv->pkgdb_dir, MS_PKGDB_DIR) ? MS_PKGDB_INDEX : NULL;
	if (ms_owner_open(&opts, &db, err) == MS_ERR_NOMEM)
		return MS_ERR_NOMEM;
	rc = ms_stale_report_packages(report, db, &why, err);
	sv->pkg_why = rc < 0 ? "the package database could not be read" : why;
	ms_owner_close(db);
	/* A database that cannot be read leaves the packages unknown, not the view empty. */
	if (rc < 0 && rc != MS_ERR_NOMEM)
		rc = 0;
	for (size_t i = 0; rc == 0 && i < report->count; i++) {
		const struct ms_stale_proc *p = &report->procs[i];

		for (size_t j = 0; rc == 0 && j < p->files.count; j++)
			if (ms_stale_verdict_is_stale(p->files.items[j].result.verdict))
				rc = remember_pkg(sv, &p->files.items[j], p->pkgs ? &p->pkgs[j] : NULL);
	}
	return rc;
}

const struct ms_pkg *tui_staleview_package(const struct tui_stale_entry *e, size_t f)
{
	return e->pkgs && f < e->files.count && e->pkgs[f].found ? &e->pkgs[f] : NULL;
}

void tui_staleview_fact_src(const struct tui_staleview *sv, const struct tui_stale_entry *e, size_t f,
			    struct ms_fact_src *src)
{
	const struct ms_stale_file *file = &e->files.items[f];

	memset(src, 0, sizeof(*src));
	src->pkg_known = e->pkgs && !e->other_root && file->result.path_ours;
	src->pkg = tui_staleview_package(e, f);
	/* Python may answer where there is no dpkg or rpm: then its answer stands. */
	src->pkg_why = src->pkg ? NULL : sv->pkg_why;
	src->build_id = file->build_id;
	src->build_id_len = file->build_id_len;
	src->verdict_known = true;
	src->verdict = file->result.verdict;
}

static void tui_staleview_clear(struct tui_staleview *sv)
{
	for (size_t i = 0; i < sv->count; i++) {
		free(sv->entries[i].cmd);
		free(sv->entries[i].pkgs);
		ms_stale_list_free(&sv->entries[i].files);
	}
	sv->count = 0;
	sv->nlines = 0;
	tui_stale_units_free(sv);
	sv->scanned = 0;
	sv->unreadable = 0;
	sv->denied = 0;
	sv->ignored = 0;
}

void tui_staleview_free(struct tui_staleview *sv)
{
	tui_staleview_clear(sv);
	tui_staleview_forget_packages(sv);
	free(sv->known);
	free(sv->entries);
	free(sv->lines);
	memset(sv, 0, sizeof(*sv));
}

static int keep_file(struct ms_stale_list *dst, const struct ms_stale_file *f)
{
	struct ms_stale_file *copy;

	if (tui_grow((void **)&dst->items, &dst->capacity, dst->count, sizeof(*dst->items)) < 0)
		return MS_ERR_NOMEM;
	copy = &dst->items[dst->count];
	*copy = *f;
	copy->name = malloc(f->name_len + 1);
	if (!copy->name)
		return MS_ERR_NOMEM;
	memcpy(copy->name, f->name, f->name_len);
	copy->name[f->name_len] = '\0';
	dst->count++;
	return 0;
}

int tui_staleview_add(struct tui_staleview *sv, const struct ms_procrow *row,
		      const struct ms_unit *unit, const struct ms_stale_list *files)
{
	struct tui_stale_entry *e;
	size_t stale = 0;

	for (size_t i = 0; i < files->count; i++)
		stale += ms_stale_verdict_is_stale(files->items[i].result.verdict);
	if (!stale)
		return 0;
	if (tui_grow((void **)&sv->entries, &sv->cap, sv->count, sizeof(*sv->entries)) < 0)
		return MS_ERR_NOMEM;
	e = &sv->entries[sv->count];
	memset(e, 0, sizeof(*e));
	e->pid = row->pid;
	memcpy(e->user, row->user, sizeof(e->user));
	e->cmd = malloc(row->cmd_len + 1);
	if (!e->cmd)
		return MS_ERR_NOMEM;
	memcpy(e->cmd, row->cmd, row->cmd_len);
	e->cmd[row->cmd_len] = '\0';
	e->cmd_len = row->cmd_len;
	if (unit) {
		e->has_unit = true;
		e->unit = *unit;
	}
	sv->count++;
	for (size_t i = 0; i < files->count; i++)
		if (ms_stale_verdict_is_stale(files->items[i].result.verdict) &&
		    keep_file(&e->files, &files->items[i]) < 0)
			return MS_ERR_NOMEM;
	return 0;
}

static int push_line(struct tui_staleview *sv, size_t entry, long file, size_t group)
{
	if (tui_grow((void **)&sv->lines, &sv->lines_cap, sv->nlines, sizeof(*sv->lines)) < 0)
		return MS_ERR_NOMEM;
	sv->lines[sv->nlines].entry = entry;
	sv->lines[sv->nlines].file = file;
	sv->lines[sv->nlines].group = group;
	sv->lines[sv->nlines].shown = 0;
	sv->nlines++;
	return 0;
}

static void keep_visible(struct tui_staleview *sv)
{
	if (sv->sel_row < sv->top_row)
		sv->top_row = sv->sel_row;
	else if (sv->sel_row >= sv->top_row + sv->height)
		sv->top_row = sv->sel_row - sv->height + 1;
	if (sv->nlines <= sv->height)
		sv->top_row = 0;
	else if (sv->top_row > sv->nlines - sv->height)
		sv->top_row = sv->nlines - sv->height;
}

void tui_staleview_select(struct tui_staleview *sv, size_t row)
{
	if (!sv->nlines) {
		sv->sel_row = sv->top_row = 0;
		return;
	}
	if (row >= sv->nlines)
		row = sv->nlines - 1;
	sv->sel_row = row;
	sv->sel_pid = sv->entries[sv->lines[row].entry].pid;
	sv->sel_file = sv->lines[row].file;
	keep_visible(sv);
}

static bool file_has(const struct ms_stale_file *f, const char *text)
{
	return tui_find_in(f->name, f->name_len, text);
}

/*
 * Entry i's lines that the filter keeps (all of them when whole), in group
 * group; *shown says whether any was.  0 or MS_ERR_NOMEM.
 */
static int push_entry(struct tui_staleview *sv, size_t i, size_t group, bool whole, bool *shown)
{
	const struct tui_stale_entry *e = &sv->entries[i];
	bool any;

	whole = whole || tui_find_in(e->cmd, e->cmd_len, sv->filter);
	any = whole;
	for (size_t f = 0; f < e->files.count && !any; f++)
		any = file_has(&e->files.items[f], sv->filter);
	*shown = any;
	if (!any)
		return 0;
	if (push_line(sv, i, -1, group) < 0)
		return MS_ERR_NOMEM;
	for (size_t f = 0; f < e->files.count; f++)
		if ((whole || file_has(&e->files.items[f], sv->filter)) && push_line(sv, i, (long)f, group) < 0)
			return MS_ERR_NOMEM;
	return 0;
}

static bool unit_has(const struct ms_plan_group *g, const char *text)
{
	return g->unit && tui_find_in(g->unit->name, strlen(g->unit->name), text);
}

/*
 * The restart plan's groups, each heading followed by its processes' lines,
 * and counting them; a group with none left goes.
 */
static int push_groups(struct tui_staleview *sv)
{
	sv->services_shown = 0;
	if (tui_stale_units_build(sv) < 0)
		return MS_ERR_NOMEM;
	for (size_t g = 0; g < sv->plan.count; g++) {
		const struct ms_plan_group *grp = &sv->plan.groups[g];
		size_t heading = sv->nlines;
		bool whole = sv->filter[0] && unit_has(grp, sv->filter), shown;
		size_t count = 0;

		if (push_line(sv, tui_stale_units_entry(sv, grp->procs[0]), TUI_STALE_UNIT_LINE, g) < 0)
			return MS_ERR_NOMEM;
		for (size_t p = 0; p < grp->count; p++) {
			size_t e = tui_stale_units_entry(sv, grp->procs[p]);

			if (push_entry(sv, e, g, whole, &shown) < 0)
				return MS_ERR_NOMEM;
			/* The heading stands for its first process shown: Enter opens it. */
			if (shown && !count++)
				sv->lines[heading].entry = e;
		}
		sv->lines[heading].shown = count;
		if (!count)
			sv->nlines = heading;
		else
			sv->services_shown += grp->kind == MS_PLAN_SERVICE;
	}
	return 0;
}

int tui_staleview_rebuild(struct tui_staleview *sv)
{
	size_t old = sv->sel_row, found = (size_t)-1;
	bool shown;

	sv->nlines = 0;
	if (sv->by_unit) {
		if (push_groups(sv) < 0)
			return MS_ERR_NOMEM;
	} else {
		tui_stale_units_free(sv);
		for (size_t i = 0; i < sv->count; i++)
			if (push_entry(sv, i, 0, false, &shown) < 0)
				return MS_ERR_NOMEM;
	}
	for (size_t l = 0; l < sv->nlines && found == (size_t)-1; l++) {
		const struct tui_stale_line *ln = &sv->lines[l];

		if (sv->entries[ln->entry].pid == sv->sel_pid && ln->file == sv->sel_file)
			found = l;
	}
	/* The same process, another file count: its first line. */
	for (size_t l = 0; l < sv->nlines && found == (size_t)-1; l++)
		if (sv->entries[sv->lines[l].entry].pid == sv->sel_pid)
			found = l;
	tui_staleview_select(sv, found != (size_t)-1 ? found : old);
	return 0;
}

/* The entry's files' packages, from what learn_packages found. */
static int set_packages(const struct tui_staleview *sv, struct tui_stale_entry *e)
{
	e->pkgs = calloc(e->files.count ? e->files.count : 1, sizeof(*e->pkgs));
	if (!e->pkgs)
		return MS_ERR_NOMEM;
	for (size_t j = 0; j < e->files.count; j++) {
		const struct tui_stale_pkg *k = known_pkg(sv, &e->files.items[j]);

		if (k)
			e->pkgs[j] = k->pkg;
	}
	return 0;
}

int tui_staleview_scan(struct tui_staleview *sv, struct ms_stale_ctx *ctx,
		       const struct ms_proclist *procs, enum ms_backend backend, pid_t self,
		       struct ms_error *err)
{
	const struct ms_stale_report_opts opts = {
		.show = 1u << MS_STALE_DELETED | 1u << MS_STALE_REPLACED,
	};
	struct ms_stale_report report = { 0 };
	struct ms_fleet fleet = { 0 };
	pid_t *pids = calloc(procs->count ? procs->count : 1, sizeof(*pids));
	size_t n = 0;
	int rc;

	tui_staleview_clear(sv);
	if (!pids)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "stale view: out of memory");
	for (size_t i = 0; i < procs->count; i++)
		if (!procs->rows[i].kthread && procs->rows[i].pid != self)
			pids[n++] = procs->rows[i].pid;
	rc = ms_fleet_init(&fleet, pids, n, false, backend, err);
	free(pids);
	if (rc == 0)
		rc = ms_stale_report_walk(&report, ctx, &fleet, &opts, NULL, NULL, err);
	if (rc == 0)
		rc = learn_packages(sv, &report, err);
	for (size_t i = 0; rc == 0 && i < report.count; i++) {
		const struct ms_stale_proc *p = &report.procs[i];
		size_t row = ms_proclist_find(procs, p->pid);

		size_t before = sv->count;

		if (row < procs->count &&
		    tui_staleview_add(sv, &procs->rows[row], p->has_unit ? &p->unit : NULL, &p->files) < 0)
			rc = MS_ERR_NOMEM;
		if (sv->count > before) {
			sv->entries[before].other_root = p->other_root;
			sv->entries[before].has_container = p->has_container;
			sv->entries[before].container = p->container;
			if (set_packages(sv, &sv->entries[before]) < 0)
				rc = MS_ERR_NOMEM;
		}
	}
	sv->scanned = fleet.scanned;
	sv->denied = fleet.denied;
	sv->unreadable = fleet.failed;
	sv->ignored = report.totals.ignored_deleted;
	ms_stale_report_free(&report);
	ms_fleet_free(&fleet);
	if (rc == 0 && tui_staleview_rebuild(sv) < 0)
		rc = MS_ERR_NOMEM;
	if (rc == MS_ERR_NOMEM)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "stale view: out of memory");
	return rc;
}

const struct tui_stale_line *tui_staleview_line(const struct tui_staleview *sv, size_t i)
{
	return i < sv->nlines ? &sv->lines[i] : NULL;
}

pid_t tui_staleview_selected_pid(const struct tui_staleview *sv)
{
	const struct tui_stale_line *l = tui_staleview_line(sv, sv->sel_row);

	return l ? sv->entries[l->entry].pid : 0;
}

void tui_staleview_move(struct tui_staleview *sv, long delta)
{
	long target = (long)sv->sel_row + delta;

	tui_staleview_select(sv, target < 0 ? 0 : (size_t)target);
}

bool tui_staleview_click(struct tui_staleview *sv, size_t line)
{
	if (line >= sv->height || sv->top_row + line >= sv->nlines)
		return false;
	tui_staleview_select(sv, sv->top_row + line);
	return true;
}

void tui_staleview_set_height(struct tui_staleview *sv, size_t height)
{
	sv->height = height ? height : 1;
	keep_visible(sv);
}

int tui_staleview_set_by_unit(struct tui_staleview *sv, bool on)
{
	sv->by_unit = on;
	return tui_staleview_rebuild(sv);
}

const struct ms_plan_group *tui_staleview_line_group(const struct tui_staleview *sv,
						     const struct tui_stale_line *line)
{
	return line && line->file == TUI_STALE_UNIT_LINE && line->group < sv->plan.count
		       ? &sv->plan.groups[line->group] : NULL;
}

int tui_staleview_set_filter(struct tui_staleview *sv, const char *text)
{
	snprintf(sv->filter, sizeof(sv->filter), "%s", text);
	return tui_staleview_rebuild(sv);
}

static bool line_has_search(const void *ctx, size_t row)
{
	const struct tui_staleview *sv = ctx;
	const struct tui_stale_line *l = &sv->lines[row];
	const struct tui_stale_entry *e = &sv->entries[l->entry];
	const struct ms_plan_group *g = tui_staleview_line_group(sv, l);

	if (l->file == TUI_STALE_UNIT_LINE)
		return g && unit_has(g, sv->search);
	return l->file < 0 ? tui_find_in(e->cmd, e->cmd_len, sv->search)
			   : file_has(&e->files.items[l->file], sv->search);
}

bool tui_staleview_search(struct tui_staleview *sv, int dir, bool from_current)
{
	size_t row;

	if (!sv->nlines || !sv->search[0])
		return false;
	row = tui_find_row(sv->nlines, sv->sel_row, dir, from_current, line_has_search, sv);
	if (row >= sv->nlines)
		return false;
	tui_staleview_select(sv, row);
	return true;
}
