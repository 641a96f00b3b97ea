#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/colindex.h"
#include "cli/diff_files.h"
#include "cli/diff_out.h"
#include "core/base/escape.h"
#include "core/pkg/owner.h"
#include "core/snap/filediff.h"

enum {
	FDCOL_CHANGE, FDCOL_PACKAGE, FDCOL_VERSION, FDCOL_PKGSRC, FDCOL_OLDPACKAGE, FDCOL_OLDVERSION,
	FDCOL_FIELDS, FDCOL_BUILDID, FDCOL_OLDBUILDID, FDCOL_INODE, FDCOL_OLDINODE,
	FDCOL_MAPS, FDCOL_FILE, FDCOL_COUNT
};

static const struct cli_column fdcols[FDCOL_COUNT] = {
	[FDCOL_CHANGE] = { "CHANGE", 7, 0, SCOLS_JSON_STRING, false, "added, removed or changed" },
	[FDCOL_PACKAGE] = CLI_FACT(PACKAGE, 8, 0, "(on the new side; the old one's when removed; empty when unknown)"),
	/* Not the VERSION fact: the version installed when the side was taken (INSTALLED's text). */
	[FDCOL_VERSION] = { "VERSION", 8, 0, SCOLS_JSON_STRING, false, "that package's version on the new side, installed when the side was taken; empty when removed or unknown (a deleted file)" },
	[FDCOL_PKGSRC] = CLI_FACT(PKGSRC, 6, 0, NULL),
	[FDCOL_OLDPACKAGE] = { "OLDPACKAGE", 8, 0, SCOLS_JSON_STRING, false, "the package owning the file on the old side" },
	[FDCOL_OLDVERSION] = { "OLDVERSION", 8, 0, SCOLS_JSON_STRING, false, "its version on the old side" },
	[FDCOL_FIELDS] = { "FIELDS", 10, 0, SCOLS_JSON_STRING, false, "what changed: file (another device or inode), buildid, package, version, deleted" },
	[FDCOL_BUILDID] = CLI_FACT(BUILDID, 0.2, 0, "(on the new side; the old one's when removed)"),
	[FDCOL_OLDBUILDID] = { "OLDBUILDID", 0.2, 0, SCOLS_JSON_STRING, false, "its build ID on the old side" },
	[FDCOL_INODE] = { "INODE", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "the file's inode on the new side (the old one's when removed)" },
	[FDCOL_OLDINODE] = { "OLDINODE", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "its inode on the old side" },
	[FDCOL_MAPS] = { "MAPS", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "how many mappings of it the new side has (the old one when removed)" },
	[FDCOL_FILE] = { "FILE", 0.3, SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false, "the path, without \" (deleted)\", escaped" },
};

static const int fd_defaults[] = {
	FDCOL_CHANGE, FDCOL_PACKAGE, FDCOL_OLDVERSION, FDCOL_VERSION, FDCOL_FIELDS, FDCOL_FILE,
};

static const struct {
	unsigned bit;
	const char *name;
} fd_fields[] = {
	{ MS_FILEDIFF_F_FILE, "file" },
	{ MS_FILEDIFF_F_BUILDID, "buildid" },
	{ MS_FILEDIFF_F_PACKAGE, "package" },
	{ MS_FILEDIFF_F_VERSION, "version" },
	{ MS_FILEDIFF_F_DELETED, "deleted" },
};

size_t diff_file_column_table(struct cli_column *out)
{
	memcpy(out, fdcols, sizeof(fdcols));
	return FDCOL_COUNT;
}

void diff_files_help(void)
{
	printf("\nColumns with --by-file:\n");
	cli_columns_help(fdcols, FDCOL_COUNT);
}

static int select_columns(const struct cli_opts *o, int *selected)
{
	return cli_columns_parse(o->columns, fdcols, FDCOL_COUNT, fd_defaults,
				 sizeof(fd_defaults) / sizeof(fd_defaults[0]), selected, CLI_MAX_COLUMNS);
}

int diff_files_columns(const struct cli_opts *o)
{
	int selected[CLI_MAX_COLUMNS];

	return select_columns(o, selected) < 0 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

_Static_assert(MS_SNAPSHOT_PKG_TEXT_MAX < MS_PKG_NAME_MAX && MS_SNAPSHOT_PKG_TEXT_MAX < MS_PKG_VERSION_MAX,
	       "a snapshot's package fits an ms_pkg");

/* A side's file facts: its package where the snapshot has one, its build ID. */
static char *side_cell(const struct cli_opts *o, const struct ms_filediff_side *s, enum ms_fact f)
{
	struct ms_pkg pkg = { .found = s->pkg && s->pkg->found };
	struct ms_fact_src src = {
		.pkg_known = s->map && s->pkg,
		.pkg = pkg.found ? &pkg : NULL,
		.build_id = s->build_id ? s->build_id->build_id : NULL,
		.build_id_len = s->build_id ? s->build_id->build_id_len : 0,
	};

	if (pkg.found) {
		pkg.source = s->pkg->source;
		memcpy(pkg.name, s->pkg->name, sizeof(s->pkg->name));
		memcpy(pkg.version, s->pkg->version, sizeof(s->pkg->version));
	}
	return cli_fact_cell(o, f, &src);
}

static char *number_cell(const struct ms_filediff_side *s, uint64_t v)
{
	char buf[24] = "";

	if (s->map)
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return strdup(buf);
}

static char *fields_cell(unsigned changed)
{
	char buf[64] = "";

	for (size_t i = 0; i < sizeof(fd_fields) / sizeof(fd_fields[0]); i++)
		if (changed & fd_fields[i].bit)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? "," : "",
				 fd_fields[i].name);
	return strdup(buf);
}

static char *cell(const struct cli_opts *o, int col, const struct ms_filediff_entry *e)
{
	const struct ms_filediff_side *now = e->new_side.map ? &e->new_side : &e->old_side;
	const struct ms_filediff_side *was = &e->old_side;

	switch (col) {
	case FDCOL_CHANGE: return strdup(diff_kind_name(e->kind));
	case FDCOL_PACKAGE: return side_cell(o, now, MS_FACT_PACKAGE);
	case FDCOL_VERSION: return side_cell(o, &e->new_side, MS_FACT_INSTALLED);
	case FDCOL_PKGSRC: return side_cell(o, now, MS_FACT_PKGSRC);
	case FDCOL_OLDPACKAGE: return side_cell(o, was, MS_FACT_PACKAGE);
	case FDCOL_OLDVERSION: return side_cell(o, was, MS_FACT_INSTALLED);
	case FDCOL_FIELDS: return fields_cell(e->changed);
	case FDCOL_BUILDID: return side_cell(o, now, MS_FACT_BUILDID);
	case FDCOL_OLDBUILDID: return side_cell(o, was, MS_FACT_BUILDID);
	case FDCOL_INODE: return number_cell(now, now->map->inode);
	case FDCOL_OLDINODE: return number_cell(was, was->map ? was->map->inode : 0);
	case FDCOL_MAPS: return number_cell(now, now->mappings);
	default: break;
	}
	return ms_escape_dup(e->path, e->path_len, o->escape_flags);
}

struct rows {
	const struct cli_opts *o;
	struct libscols_table *tb;
	const int *selected;
	size_t nselected;
};

static int add_row(void *arg, const struct ms_filediff_entry *e)
{
	struct rows *r = arg;
	struct libscols_line *ln = scols_table_new_line(r->tb, NULL);

	if (!ln)
		return -1;
	for (size_t i = 0; i < r->nselected; i++) {
		char *text = cell(r->o, r->selected[i], e);

		if (!text || scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
	return 0;
}

int diff_files_show(const struct cli_opts *o, const struct ms_snapshot *a, const struct ms_snapshot *b)
{
	int selected[CLI_MAX_COLUMNS];
	int nsel = select_columns(o, selected);
	struct rows r = { o, NULL, selected, nsel > 0 ? (size_t)nsel : 0 };
	struct ms_diff_summary s;
	int status;

	if (nsel < 0)
		return DIFF_EXIT_TROUBLE;
	r.tb = cli_table_new(o, "files", fdcols, selected, r.nselected);
	if (!r.tb)
		return DIFF_EXIT_TROUBLE;
	if (ms_snapshot_diff_files(a, b, add_row, &r, &s) != 0) {
		cli_error("diff: out of memory");
		scols_unref_table(r.tb);
		return DIFF_EXIT_TROUBLE;
	}
	status = diff_print(o, r.tb, &s, false);
	scols_unref_table(r.tb);
	return status;
}
