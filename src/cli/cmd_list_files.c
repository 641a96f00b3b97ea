/* `mapscope list PID --by-file`: one line per file or kind of anonymous memory. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/filecols.h"
#include "cli/pkgcells.h"
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
	[FILECOL_RSS] = { "RSS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "resident memory of its mappings, as smaps Rss" },
	[FILECOL_PERMS] = { "PERMS", 11, 0, SCOLS_JSON_STRING, false, "its mappings' distinct permission sets (r--,r-x,rw-; 's' shared, '!' writable and executable)" },
	[FILECOL_DEV] = { "DEV", 5, 0, SCOLS_JSON_STRING, false, "device of the file, MAJ:MIN in decimal" },
	[FILECOL_INODE] = { "INODE", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "inode of the file, 0 if anonymous" },
	[FILECOL_START] = { "START", 12, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "start of its first mapping (hex)" },
	[FILECOL_BUILDID] = { "BUILDID", 40, 0, SCOLS_JSON_STRING, false, "GNU build ID of the mapped file (hex; ioctl backend)" },
	[FILECOL_VERDICT] = { "VERDICT", 8, 0, SCOLS_JSON_STRING, false, "stale verdict: ok, same-build, replaced, deleted, ignored, unknown" },
	[FILECOL_SONAME] = { "SONAME", 12, 0, SCOLS_JSON_STRING, false, "SONAME from the ELF dynamic section, escaped; ? when unknown" },
	[FILECOL_LIBVER] = { "LIBVER", 12, 0, SCOLS_JSON_STRING, false, "the library's own version: its highest ELF version definition (GLIBC_2.36); ? when unknown" },
	[FILECOL_FILEVER] = { "FILEVER", 7, 0, SCOLS_JSON_STRING, false, "the version the file name carries (libz.so.1.2.13: 1.2.13; libc.so.6: 6), not the library's own" },
	[FILECOL_PACKAGE] = { "PACKAGE", 8, 0, SCOLS_JSON_STRING, false, "package that owns the file (dpkg, rpm, the file's ELF package note, a Python distribution or an npm package), escaped; \"not packaged\" for none" },
	[FILECOL_PKGVERSION] = { "VERSION", 10, 0, SCOLS_JSON_STRING, false, "package version of the copy mapped: the installed one, or for a replaced or deleted file the one that ran (\"unknown\" when that cannot be known)" },
	[FILECOL_INSTALLED] = { "INSTALLED", 10, 0, SCOLS_JSON_STRING, false, "package version installed now" },
	[FILECOL_PKGSOURCE] = { "PKGSRC", 6, 0, SCOLS_JSON_STRING, false, "which source answered PACKAGE: " MS_PKGSRC_NAMES },
	[FILECOL_VENDORED] = { "VENDORED", 8, 0, SCOLS_JSON_STRING, false, "the Python distribution that vendors the file in its NAME.libs folder" },
	[FILECOL_VERWHY] = { "VERWHY", 0.2, SCOLS_FL_WRAP, SCOLS_JSON_STRING, false, MS_VERWHY_HELP },
	[FILECOL_PKGNOTE] = { "PKGNOTE", 8, 0, SCOLS_JSON_STRING, false, MS_PKGNOTE_HELP },
};

static const int file_defaults[] = {
	FILECOL_MAPS, FILECOL_SIZE, FILECOL_PERMS, FILECOL_PACKAGE, FILECOL_PKGVERSION, FILECOL_SONAME, FILECOL_NAME,
};

void filecols_help(void)
{
	printf("\nColumns with --by-file:\n");
	cli_columns_help(filecols, FILECOL_COUNT);
}

/*
 * The package cells: "" (null in JSON) where nothing was asked (anonymous
 * memory, another root).
 */
_Static_assert(FILECOL_VERWHY - FILECOL_PACKAGE == PKGCELL_VERWHY && FILECOL_PKGNOTE - FILECOL_PACKAGE == PKGCELL_NOTE &&
	       FILECOL_VENDORED - FILECOL_PACKAGE == PKGCELL_VENDORED &&
	       FILECOL_INSTALLED - FILECOL_PACKAGE == PKGCELL_INSTALLED, "package columns in pkgcells.h's order");

static char *package_cell(const struct cli_opts *o, int col, const struct ms_filerow *r)
{
	bool asked = r->info.pkg_known && !r->info.pkg_why;

	return pkgcell_text(o, (enum pkgcell)(col - FILECOL_PACKAGE), asked ? &r->info.pkg : NULL);
}

static char *render(const struct cli_opts *o, int col, const struct ms_filerow *r)
{
	char buf[2 * MS_BUILD_ID_MAX + 64];
	const char *text = buf;
	size_t len;

	buf[0] = '\0';
	switch (col) {
	case FILECOL_NAME:
		text = ms_filerow_name(r, &len);
		return ms_escape_dup(text, len, o->escape_flags);
	case FILECOL_KIND: text = ms_filekind_name(r->kind); break;
	case FILECOL_MAPS: snprintf(buf, sizeof(buf), "%zu", r->mappings); break;
	case FILECOL_SIZE: ms_format_size(r->size, o->bytes, buf, sizeof(buf)); break;
	case FILECOL_RSS:
		if (r->info.rss_known)
			ms_format_size(r->info.rss, o->bytes, buf, sizeof(buf));
		break;
	case FILECOL_PERMS: ms_permsets_format(r->perm_sets, buf, sizeof(buf)); break;
	case FILECOL_DEV: snprintf(buf, sizeof(buf), "%" PRIu32 ":%" PRIu32, r->dev_major, r->dev_minor); break;
	case FILECOL_INODE: snprintf(buf, sizeof(buf), "%" PRIu64, r->inode); break;
	case FILECOL_START: snprintf(buf, sizeof(buf), "%" PRIx64, r->first_addr); break;
	case FILECOL_BUILDID: ms_buildid_hex(r->info.build_id, r->info.build_id_len, buf); break;
	case FILECOL_VERDICT:
		if (r->info.verdict_known)
			text = ms_stale_verdict_name(r->info.verdict.verdict);
		break;
	case FILECOL_SONAME:
		text = ms_fileinfo_soname_text(&r->info);
		return ms_escape_dup(text, strlen(text), o->escape_flags);
	case FILECOL_LIBVER:
		text = ms_fileinfo_libver_text(&r->info);
		return ms_escape_dup(text, strlen(text), o->escape_flags);
	case FILECOL_FILEVER: text = r->info.filever; break;
	case FILECOL_PACKAGE:
	case FILECOL_PKGVERSION:
	case FILECOL_INSTALLED:
	case FILECOL_PKGSOURCE:
	case FILECOL_VENDORED:
	case FILECOL_VERWHY:
	case FILECOL_PKGNOTE:
		return package_cell(o, col, r);
	default: break;
	}
	return strdup(text);
}

static unsigned wanted_info(const int *selected, size_t n, bool *rss)
{
	unsigned what = 0;

	*rss = false;
	for (size_t i = 0; i < n; i++) {
		if (selected[i] == FILECOL_BUILDID)
			what |= MS_FILEINFO_BUILD_ID;
		else if (selected[i] == FILECOL_VERDICT)
			what |= MS_FILEINFO_VERDICT;
		else if (selected[i] == FILECOL_SONAME)
			what |= MS_FILEINFO_SONAME;
		else if (selected[i] == FILECOL_LIBVER)
			what |= MS_FILEINFO_LIBVER;
		else if (selected[i] >= FILECOL_PACKAGE && selected[i] <= FILECOL_PKGNOTE)
			what |= MS_FILEINFO_PACKAGE;
		else if (selected[i] == FILECOL_RSS)
			*rss = true;
	}
	return what;
}

static int add_lines(struct libscols_table *tb, const struct cli_opts *o, const int *selected,
		     size_t n, const struct ms_filemap *fm)
{
	for (size_t i = 0; i < fm->count; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			return -1;
		for (size_t c = 0; c < n; c++) {
			char *text = render(o, selected[c], &fm->rows[i]);

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

static int describe(struct ms_proc *proc, struct ms_maps *maps, struct ms_filemap *fm,
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

int cmd_list_by_file(pid_t pid, const struct cli_opts *o)
{
	struct ms_maplist list = { 0 };
	struct ms_filemap fm = { 0 };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct libscols_table *tb = NULL;
	struct ms_error err;
	int selected[CLI_MAX_COLUMNS];
	unsigned what;
	bool rss;
	int nsel, status;

	nsel = cli_columns_parse(o->columns, filecols, FILECOL_COUNT, file_defaults,
				 sizeof(file_defaults) / sizeof(file_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	what = wanted_info(selected, (size_t)nsel, &rss);
	status = cli_open_maps(pid, o, &proc, &maps);
	if (status != CLI_EXIT_OK)
		return status;
	/* Grouping needs names; build IDs are asked for the files' first mappings only. */
	ms_maps_set_fields(maps, MS_FIELD_NAME);
	if (ms_maps_collect(maps, o->filter, &list, &err) < 0 ||
	    ms_filemap_build(&fm, &list, NULL, &err) < 0) {
		cli_error_pid(pid, &err);
		status = ms_error_exit_status(err.code);
		goto out;
	}
	if (rss && (status = add_residency(proc, &fm, &list)) != CLI_EXIT_OK)
		goto out;
	if (what && (status = describe(proc, maps, &fm, &list, what)) != CLI_EXIT_OK)
		goto out;
	tb = cli_table_new(o, "files", filecols, selected, (size_t)nsel);
	if (!tb) {
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (add_lines(tb, o, selected, (size_t)nsel, &fm) < 0) {
		cli_error("pid %d: out of memory", (int)pid);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	status = cli_table_print(tb);
out:
	if (tb)
		scols_unref_table(tb);
	ms_filemap_free(&fm);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
