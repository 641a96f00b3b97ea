/* `mapscope list PID --by-file`: one line per file or kind of anonymous memory. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/colindex.h"
#include "cli/filecols.h"
#include "core/elf/buildid.h"
#include "core/base/escape.h"
#include "core/files/fileinfo.h"
#include "core/files/filemap.h"
#include "core/pkg/owner.h"
#include "core/stale/ignore.h"
#include "core/resid/residency.h"

const struct cli_column filecols[FILECOL_COUNT] = {
	[FILECOL_NAME] = { "NAME", 0.3, SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false, "file path, or the kind: [heap], [stack], [anonymous], [anon:NAME], [vdso]..." },
	[FILECOL_KIND] = { "KIND", 5, 0, SCOLS_JSON_STRING, false, "file, heap, stack, anon, anon-named or special" },
	[FILECOL_MAPS] = { "MAPS", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "number of mappings of it" },
	[FILECOL_SIZE] = { "SIZE", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "total size of its mappings" },
	[FILECOL_RSS] = CLI_FACT(RSS, 5, SCOLS_FL_RIGHT, NULL),
	[FILECOL_PERMS] = { "PERMS", 11, 0, SCOLS_JSON_STRING, false, "its mappings' distinct permission sets (r--,r-x,rw-; 's' shared, '!' writable and executable)" },
	[FILECOL_DEV] = { "DEV", 5, 0, SCOLS_JSON_STRING, false, "device of the file, MAJ:MIN in decimal" },
	[FILECOL_INODE] = { "INODE", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "inode of the file, 0 if anonymous" },
	[FILECOL_START] = { "START", 12, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "start of its first mapping (hex)" },
	[FILECOL_BUILDID] = CLI_FACT(BUILDID, 40, 0, "(ioctl backend)"),
	[FILECOL_VERDICT] = CLI_FACT(VERDICT, 8, 0, NULL),
	[FILECOL_SONAME] = CLI_FACT(SONAME, 12, 0, NULL),
	[FILECOL_LIBVER] = CLI_FACT(LIBVER, 12, 0, NULL),
	[FILECOL_FILEVER] = CLI_FACT(FILEVER, 7, 0, NULL),
	[FILECOL_PACKAGE] = CLI_FACT(PACKAGE, 8, 0, NULL),
	[FILECOL_PKGVERSION] = CLI_FACT(VERSION, 10, 0, NULL),
	[FILECOL_INSTALLED] = CLI_FACT(INSTALLED, 10, 0, NULL),
	[FILECOL_PKGSOURCE] = CLI_FACT(PKGSRC, 6, 0, NULL),
	[FILECOL_VENDORED] = CLI_FACT(VENDORED, 8, 0, NULL),
	[FILECOL_VERWHY] = CLI_FACT(VERWHY, 0.2, SCOLS_FL_WRAP, NULL),
	[FILECOL_PKGNOTE] = CLI_FACT(PKGNOTE, 8, 0, NULL),
};

static const int file_defaults[] = {
	FILECOL_MAPS, FILECOL_SIZE, FILECOL_PERMS, FILECOL_PACKAGE, FILECOL_PKGVERSION, FILECOL_SONAME, FILECOL_NAME,
};

size_t list_file_column_table(struct cli_column *out)
{
	memcpy(out, filecols, sizeof(filecols));
	return FILECOL_COUNT;
}

void filecols_help(void)
{
	printf("\nColumns with --by-file:\n");
	cli_columns_help(filecols, FILECOL_COUNT);
}

static char *render(const struct cli_opts *o, int col, const struct ms_filerow *r)
{
	char buf[64];
	const char *text = buf;
	size_t len;

	if (filecols[col].is_fact) {
		struct ms_fact_src src;

		ms_fact_src_fileinfo(&src, &r->info);
		return cli_fact_cell(o, filecols[col].fact, &src);
	}
	buf[0] = '\0';
	switch (col) {
	case FILECOL_NAME:
		text = ms_filerow_name(r, &len);
		return ms_escape_dup(text, len, o->escape_flags);
	case FILECOL_KIND: text = ms_filekind_name(r->kind); break;
	case FILECOL_MAPS: snprintf(buf, sizeof(buf), "%zu", r->mappings); break;
	case FILECOL_SIZE: ms_format_size(r->size, o->bytes, buf, sizeof(buf)); break;
	case FILECOL_PERMS: ms_permsets_format(r->perm_sets, buf, sizeof(buf)); break;
	case FILECOL_DEV: snprintf(buf, sizeof(buf), "%" PRIu32 ":%" PRIu32, r->dev_major, r->dev_minor); break;
	case FILECOL_INODE: snprintf(buf, sizeof(buf), "%" PRIu64, r->inode); break;
	case FILECOL_START: snprintf(buf, sizeof(buf), "%" PRIx64, r->first_addr); break;
	default: break;
	}
	return strdup(text);
}

unsigned filecols_fileinfo(const struct cli_column *cols, const int *selected, size_t n, bool *rss)
{
	unsigned what = 0;

	*rss = false;
	for (size_t i = 0; i < n; i++) {
		const struct cli_column *c = &cols[selected[i]];

		if (!c->is_fact)
			continue;
		if (c->fact == MS_FACT_BUILDID)
			what |= MS_FILEINFO_BUILD_ID;
		else if (c->fact == MS_FACT_SONAME)
			what |= MS_FILEINFO_SONAME;
		else if (c->fact == MS_FACT_LIBVER)
			what |= MS_FILEINFO_LIBVER;
		else if (ms_fact_desc(c->fact)->needs & MS_NEED_VERDICT)
			what |= MS_FILEINFO_VERDICT;
		else if (ms_fact_desc(c->fact)->needs & MS_NEED_PKG)
			what |= MS_FILEINFO_PACKAGE;
		else if (ms_fact_desc(c->fact)->needs & MS_NEED_SMAPS)
			*rss = true;
	}
	return what;
}

struct file_lines {
	const struct cli_opts *o;
	const int *selected;
	size_t n;
	const struct ms_filemap *fm;
};

static int add_lines(struct libscols_table *tb, void *ctx)
{
	const struct file_lines *fl = ctx;

	for (size_t i = 0; i < fl->fm->count; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			return -1;
		for (size_t c = 0; c < fl->n; c++) {
			char *text = render(fl->o, fl->selected[c], &fl->fm->rows[i]);

			if (!text || scols_line_refer_data(ln, c, text) < 0) {
				free(text);
				return -1;
			}
		}
	}
	return 0;
}

/* RSS of every row: one residency walk over the whole list. */
static int add_residency(struct ms_proc *proc, struct ms_filemap *fm, const struct ms_maplist *list)
{
	struct ms_residency *res = NULL;
	struct ms_error err;
	int rc = ms_residency_open(proc, NULL, &res, &err);

	if (rc == 0) {
		rc = ms_fileinfo_residency(res, fm, list, 0, fm->count, &err);
		if (rc == 0 && ms_residency_backend(res) == MS_RES_SMAPS)
			cli_error("pid %d: no PAGEMAP_SCAN (Linux 6.7): RSS read from smaps",
				  (int)ms_proc_pid(proc));
	}
	ms_residency_close(res);
	if (rc < 0)
		cli_error_pid(ms_proc_pid(proc), &err);
	return rc < 0 ? ms_error_exit_status(err.code) : CLI_EXIT_OK;
}

int filecols_describe(struct ms_proc *proc, struct ms_maps *maps, struct ms_filemap *fm,
		      const struct ms_maplist *list, unsigned what)
{
	struct ms_ignore *ignore = NULL;
	struct ms_fileinfo_ctx *ctx = NULL;
	struct ms_error err;
	int rc;

	if ((what & MS_FILEINFO_VERDICT) && ms_ignore_load_user(&ignore, &err) < 0) {
		cli_error("%s", err.msg);
		return CLI_EXIT_FAIL;
	}
	rc = ms_fileinfo_ctx_new(ignore, proc, maps, &ctx, &err);
	if (rc == 0)
		rc = ms_fileinfo_describe(ctx, fm, list, 0, fm->count, what, &err);
	ms_fileinfo_ctx_free(ctx);
	ms_ignore_free(ignore);
	if (rc < 0)
		cli_error_pid(ms_proc_pid(proc), &err);
	return rc < 0 ? ms_error_exit_status(err.code) : CLI_EXIT_OK;
}

int filecols_collect(pid_t pid, const struct cli_opts *o, unsigned fields, unsigned what, bool rss,
		     struct filecols_run *r)
{
	struct ms_error err;
	int status;

	memset(r, 0, sizeof(*r));
	status = cli_open_maps(pid, o, &r->proc, &r->maps);
	if (status != CLI_EXIT_OK)
		return status;
	/* Grouping needs names; build IDs are asked for the files' first mappings only. */
	ms_maps_set_fields(r->maps, MS_FIELD_NAME | fields);
	if (ms_maps_collect(r->maps, o->filter, &r->list, &err) < 0 || ms_filemap_build(&r->fm, &r->list, NULL, &err) < 0) {
		cli_error_pid(pid, &err);
		return ms_error_exit_status(err.code);
	}
	if (rss && (status = add_residency(r->proc, &r->fm, &r->list)) != CLI_EXIT_OK)
		return status;
	if (what)
		return filecols_describe(r->proc, r->maps, &r->fm, &r->list, what);
	return CLI_EXIT_OK;
}

void filecols_run_free(struct filecols_run *r)
{
	ms_filemap_free(&r->fm);
	ms_maplist_free(&r->list);
	ms_maps_close(r->maps);
	ms_proc_close(r->proc);
	memset(r, 0, sizeof(*r));
}

int cmd_list_by_file(pid_t pid, const struct cli_opts *o)
{
	struct filecols_run run;
	int selected[CLI_MAX_COLUMNS];
	bool rss;
	unsigned what;
	int nsel, status;

	nsel = cli_columns_parse(o->columns, filecols, FILECOL_COUNT, file_defaults,
				 sizeof(file_defaults) / sizeof(file_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	what = filecols_fileinfo(filecols, selected, (size_t)nsel, &rss);
	status = filecols_collect(pid, o, 0, what, rss, &run);
	if (status == CLI_EXIT_OK) {
		struct file_lines fl = { o, selected, (size_t)nsel, &run.fm };

		status = cli_table_fill_print(o, "files", filecols, selected, (size_t)nsel, add_lines, &fl);
	}
	filecols_run_free(&run);
	return status;
}
