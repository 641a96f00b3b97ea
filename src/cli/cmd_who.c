/*
 * `mapscope who FILE`: the processes that map FILE, one line per mapping.
 * FILE is matched by core/files/filematch.h: a path by the device and inode
 * of the file now there (so hard links and renamed paths match too) and by
 * the kernel's name (the deleted and replaced copies that were there); a
 * name without '/' by base name or SONAME, or as a glob of either.  COPY
 * says which copy each mapping holds, MATCH how it matched.  VERDICT is the
 * stale verdict of each mapping, ms_stale_judge's as everywhere else, with
 * the user's ignore list as `stale` loads it.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/colindex.h"
#include "cli/mapcols.h"
#include "cli/procscan.h"
#include "cli/who_pkg.h"
#include "core/base/escape.h"
#include "core/files/filematch.h"
#include "core/stale/ignore.h"
#include "core/stale/stale.h"

enum {
	WHOCOL_PID, WHOCOL_COMM, WHOCOL_VERDICT, WHOCOL_COPY, WHOCOL_MATCH,
	/* In facts.h's order, MS_FACT_PACKAGE to MS_FACT_PKGNOTE. */
	WHOCOL_PACKAGE, WHOCOL_VERSION, WHOCOL_INSTALLED, WHOCOL_PKGSRC, WHOCOL_VENDORED, WHOCOL_VERWHY, WHOCOL_PKGNOTE,
	WHOCOL_MAP0,
	WHOCOL_COUNT = WHOCOL_MAP0 + MAPCOL_LIST_COUNT
};

static const int who_defaults[] = {
	WHOCOL_PID, WHOCOL_COMM, WHOCOL_MAP0 + MAPCOL_START, WHOCOL_MAP0 + MAPCOL_END,
	WHOCOL_MAP0 + MAPCOL_PERMS, WHOCOL_MAP0 + MAPCOL_OFFSET, WHOCOL_COPY, WHOCOL_MAP0 + MAPCOL_NAME,
};

static const struct cli_column who_own_cols[WHOCOL_MAP0] = {
	[WHOCOL_PID] = { "PID", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "process ID" },
	[WHOCOL_COMM] = { "COMM", 0.1, 0, SCOLS_JSON_STRING, false, "command name (escaped)" },
	[WHOCOL_VERDICT] = CLI_FACT(VERDICT, 8, 0, NULL),
	[WHOCOL_COPY] = { "COPY", 8, 0, SCOLS_JSON_STRING, false,
			  "which copy: current, replaced or deleted since, unknown" },
	[WHOCOL_MATCH] = { "MATCH", 6, 0, SCOLS_JSON_STRING, false,
			   "how FILE matched: file (device and inode), path, name, soname" },
	[WHOCOL_PACKAGE] = CLI_FACT(PACKAGE, 8, 0, "(of the file at the path)"),
	[WHOCOL_VERSION] = CLI_FACT(VERSION, 10, 0, NULL),
	[WHOCOL_INSTALLED] = CLI_FACT(INSTALLED, 10, 0, NULL),
	[WHOCOL_PKGSRC] = CLI_FACT(PKGSRC, 6, 0, NULL),
	[WHOCOL_VENDORED] = CLI_FACT(VENDORED, 8, 0, NULL),
	[WHOCOL_VERWHY] = CLI_FACT(VERWHY, 0.2, SCOLS_FL_WRAP, NULL),
	[WHOCOL_PKGNOTE] = CLI_FACT(PKGNOTE, 8, 0, NULL),
};

_Static_assert(WHOCOL_PKGNOTE - WHOCOL_PACKAGE == MS_FACT_PKGNOTE - MS_FACT_PACKAGE && WHOCOL_PKGNOTE + 1 == WHOCOL_MAP0 &&
	       WHO_PKG_FACTS == MS_FACT_PKGNOTE + 1, "package columns in facts.h's order");

/* PID and COMM, then the mapping columns of `list`. */
static void who_columns(struct cli_column *cols)
{
	memcpy(cols, who_own_cols, sizeof(who_own_cols));
	memcpy(cols + WHOCOL_MAP0, mapcols, MAPCOL_LIST_COUNT * sizeof(*cols));
}

size_t who_column_table(struct cli_column *out)
{
	who_columns(out);
	return WHOCOL_COUNT;
}

static void who_usage(void)
{
	struct cli_column cols[WHOCOL_COUNT];

	who_columns(cols);
	printf("Usage: mapscope who FILE [options]\n\n"
	       "List the processes that map FILE, one line per mapping.\n\n"
	       "A FILE with a '/' is a path: the file now there, matched by device and\n"
	       "inode (so hard links and renamed paths match too), and the deleted or\n"
	       "replaced copies the kernel still names with that path.  FILE need not\n"
	       "exist any more.  A FILE without '/' is a whole base name or SONAME, in\n"
	       "any directory (libz.so.1), or a glob of either ('libssl*'): never a\n"
	       "part of one ('who ssl' finds no libssl.so.3; 'libs ssl' searches parts\n"
	       "of names and packages).  ./NAME is the file in the working directory.\n"
	       "COPY says whether a mapping holds the current file, or one replaced or\n"
	       "deleted since.\n\n"
	       "Options:\n"
	       "      --perms=rwxs       only mappings with all these permissions\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Exit status: 0 some process maps FILE, 1 none does, 2 error.\n\n"
	       "Columns:\n");
	cli_columns_help(cols, WHOCOL_COUNT);
}

static const struct option who_options[] = {
	{ "perms", required_argument, NULL, CLI_OPT_PERMS },
	CLI_OUTPUT_LONG_OPTIONS,
};

/* What one line shows besides the mapping: its residency, verdict and copy, when asked for. */
struct who_extra {
	const struct ms_resinfo *res;
	const char *verdict;
	const char *copy;
	const char *match;
};

static char *who_cell(const struct cli_opts *o, int col, const struct ms_proc *proc,
		      const struct ms_mapping *m, const struct who_extra *x)
{
	const struct ms_proc_stat *st = ms_proc_stat_at_open(proc);
	char *s = NULL;

	switch (col) {
	case WHOCOL_PID: return asprintf(&s, "%d", (int)ms_proc_pid(proc)) < 0 ? NULL : s;
	case WHOCOL_COMM: return ms_escape_dup(st->comm, strnlen(st->comm, sizeof(st->comm)), o->escape_flags);
	case WHOCOL_VERDICT: return x->verdict ? strdup(x->verdict) : NULL;
	case WHOCOL_COPY: return strdup(x->copy);
	case WHOCOL_MATCH: return strdup(x->match);
	default: return mapcols_render_res(o, col - WHOCOL_MAP0, m, 0, x->res);
	}
}

/* The line, its package cells left for who_pkg_fill; NULL when out of memory. */
static struct libscols_line *who_add_line(struct libscols_table *tb, const struct cli_opts *o,
					  const int *selected, size_t nselected, const struct ms_proc *proc,
					  const struct ms_mapping *m, const struct who_extra *x)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);

	if (!ln)
		return NULL;
	for (size_t i = 0; i < nselected; i++) {
		char *text;

		if ((selected[i] == WHOCOL_VERDICT && !x->verdict) ||
		    (selected[i] >= WHOCOL_PACKAGE && selected[i] <= WHOCOL_PKGNOTE))
			continue; /* not judged, or filled later: empty, null with -J */
		text = who_cell(o, selected[i], proc, m, x);
		if (!text || scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return NULL;
		}
	}
	return ln;
}

/*
 * Residency of one matching mapping, when RSS or SWAP is selected.  The
 * pagemap handle is opened at the process's first match only, so processes
 * that do not map the file cost nothing.  A failure leaves the cells empty
 * (null in JSON) and says why once per process.
 */
struct who_res {
	bool wanted;
	bool failed;
	bool smaps_noted;
	struct ms_residency *handle;
};

static const struct ms_resinfo *who_residency(struct who_res *wr, struct ms_proc *proc,
					      const struct ms_mapping *m, struct ms_resinfo *out)
{
	struct ms_error err;
	int rc = 0;

	if (!wr->wanted || wr->failed)
		return NULL;
	if (!wr->handle)
		rc = ms_residency_open(proc, NULL, &wr->handle, &err);
	if (rc == 0)
		rc = ms_residency_query(wr->handle, m, 1, out, &err);
	if (rc < 0) {
		cli_error_pid(ms_proc_pid(proc), &err);
		wr->failed = true;
		return NULL;
	}
	if (ms_residency_backend(wr->handle) == MS_RES_SMAPS && !wr->smaps_noted) {
		mapcols_note_smaps(ms_proc_pid(proc));
		wr->smaps_noted = true;
	}
	return out;
}

/* Where col is among the selected columns, or -1. */
static int who_column_at(const int *selected, size_t nselected, int col)
{
	for (size_t i = 0; i < nselected; i++)
		if (selected[i] == col)
			return (int)i;
	return -1;
}

static bool who_selected(const int *selected, size_t nselected, int col)
{
	return who_column_at(selected, nselected, col) >= 0;
}

/*
 * Package cells, when PACKAGE or VERSION is selected: the lines to fill
 * after the walk, and a stale context that says which processes live under
 * another root (NULL when neither is selected).
 */
struct who_pkg_ctx {
	struct who_pkgs lines;
	struct ms_stale_ctx *roots;
};

/* Add the mappings of one process that match; count them.  stale: judge them (VERDICT). */
static int who_scan(struct libscols_table *tb, const struct cli_opts *o, const int *selected,
		    size_t nselected, struct ms_maps *maps, struct ms_stale_ctx *stale,
		    struct ms_filematch *match, struct who_pkg_ctx *pc, size_t *found, struct ms_error *err)
{
	bool want_copy = who_selected(selected, nselected, WHOCOL_COPY) || pc->roots;
	int other_root = -1; /* asked at the process's first match */
	struct ms_proc *proc = ms_maps_proc(maps);
	struct who_res wr = { mapcols_want_residency(selected, nselected, WHOCOL_MAP0), false, false, NULL };
	struct ms_mapping m = { 0 };
	uint64_t addr = 0;
	unsigned fields = MS_FIELD_NAME;
	int rc;

	/* A build ID costs the kernel a read of each file: only for the BUILDID column. */
	if (who_selected(selected, nselected, WHOCOL_MAP0 + MAPCOL_BUILDID))
		fields |= MS_FIELD_BUILD_ID;
	ms_maps_set_fields(maps, fields);

	while ((rc = ms_maps_next(maps, addr, o->filter | MS_FILTER_FILE_BACKED, &m, err)) == 0) {
		struct ms_stale_result verdict;
		struct who_extra x = { NULL, NULL, "", "" };
		struct ms_filematch_hit hit;
		enum ms_filecopy copy = MS_FILECOPY_UNKNOWN;
		struct timespec unlinked = { 0, 0 };
		bool name_ours = false;
		struct ms_resinfo ri;
		struct libscols_line *ln;

		addr = m.end;
		rc = ms_filematch_test(match, maps, &m, &hit);
		if (rc == 0)
			continue;
		if (rc > 0 && want_copy)
			rc = ms_filematch_copy(match, maps, &m, &hit, &copy, pc->roots ? &name_ours : NULL, &unlinked);
		if (rc < 0) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
			break;
		}
		x.copy = ms_filecopy_name(copy);
		x.match = ms_filematch_how_name(hit.how);
		x.res = who_residency(&wr, proc, &m, &ri);
		if (stale && ms_stale_judge(stale, maps, &m, &verdict) == 0)
			x.verdict = ms_stale_verdict_name(verdict.verdict);
		ln = who_add_line(tb, o, selected, nselected, proc, &m, &x);
		if (ln && pc->roots && other_root < 0)
			other_root = ms_stale_ctx_other_root(pc->roots, proc);
		if (!ln || (pc->roots && who_pkg_note(&pc->lines, ln, proc, &m, other_root == 1 || !name_ours, copy, &unlinked) < 0)) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
			break;
		}
		(*found)++;
	}
	ms_residency_close(wr.handle);
	ms_mapping_reset(&m);
	return rc == MS_END ? 0 : rc;
}

/* A stale context when VERDICT is selected, else NULL; -1 after saying why. */
static int who_stale(const int *selected, int nsel, struct ms_ignore **ignore,
		     struct ms_stale_ctx **out)
{
	struct ms_error err;

	*out = NULL;
	if (!who_selected(selected, (size_t)nsel, WHOCOL_VERDICT))
		return 0;
	if (ms_ignore_load_user(ignore, &err) == 0 && ms_stale_ctx_new(*ignore, out, &err) == 0)
		return 0;
	cli_error("%s", err.msg);
	return -1;
}

/*
 * The matcher for FILE, or NULL after saying why: a path that cannot be
 * looked up (it crosses a user's FUSE mount, whose daemon can stall a stat
 * for ever) is named, escaped.
 */
static struct ms_filematch *who_matcher(const char *file, const struct cli_opts *o)
{
	struct ms_filematch *match = NULL;
	struct ms_error err;

	if (ms_filematch_new(&match, &err) == 0 && ms_filematch_add(match, file, &err) == 0)
		return match;
	if (err.code == MS_ERR_NOMEM) {
		cli_error("who: %s", err.msg);
	} else {
		char *safe = ms_escape_dup(file, strlen(file), o->escape_flags);

		cli_error("%s: %s", safe ? safe : "?", err.msg);
		free(safe);
	}
	ms_filematch_free(match);
	return NULL;
}

/* Once, on stderr: files that might have matched by SONAME but whose SONAME is unknown. */
static void who_soname_note(const struct ms_filematch *match)
{
	const char *why;
	size_t n = ms_filematch_soname_unknown(match, &why);

	if (n)
		cli_error("who: the SONAME of %zu mapped file%s is unknown (%s); %s by name only",
			  n, n == 1 ? "" : "s", why, n == 1 ? "it matched" : "they matched");
}

int cmd_who(int argc, char **argv)
{
	struct ms_stale_ctx *stale = NULL;
	struct ms_ignore *ignore = NULL;
	struct ms_filematch *match;
	struct cli_column cols[WHOCOL_COUNT];
	int selected[CLI_MAX_COLUMNS];
	struct libscols_table *tb;
	struct procscan ps;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	struct cli_opts o;
	struct who_pkg_ctx pc = { .roots = NULL };
	size_t found = 0;
	int nsel, status, pkgcols[WHO_PKG_FACTS];
	bool any_pkg = false;

	status = cli_getopt(argc, argv, "who", who_options, who_usage, &o);
	if (status >= 0)
		return status;
	who_columns(cols);
	if (o.list_columns)
		return cli_columns_list(&o, cols, WHOCOL_COUNT);
	if (optind + 1 != argc)
		return cli_usage_error("who", "who: expected one FILE");
	nsel = cli_columns_parse(o.columns, cols, WHOCOL_COUNT, who_defaults,
				 sizeof(who_defaults) / sizeof(who_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	if (!(match = who_matcher(argv[optind], &o)))
		return CLI_EXIT_USAGE;
	for (int c = 0; c < WHO_PKG_FACTS; c++) {
		pkgcols[c] = who_column_at(selected, (size_t)nsel, WHOCOL_PACKAGE + c);
		any_pkg = any_pkg || pkgcols[c] >= 0;
	}
	if (who_stale(selected, nsel, &ignore, &stale) < 0 ||
	    (any_pkg && ms_stale_ctx_new(NULL, &pc.roots, &err) < 0)) {
		ms_stale_ctx_free(stale);
		ms_ignore_free(ignore);
		ms_filematch_free(match);
		return CLI_EXIT_USAGE;
	}
	tb = cli_table_new(&o, "mappings", cols, selected, (size_t)nsel);
	if (!tb || procscan_init(&ps, 0, NULL, &o, &status) < 0) {
		if (tb)
			scols_unref_table(tb);
		ms_stale_ctx_free(stale);
		ms_stale_ctx_free(pc.roots);
		ms_ignore_free(ignore);
		ms_filematch_free(match);
		return tb ? status : CLI_EXIT_USAGE;
	}
	status = CLI_EXIT_OK;
	while (status == CLI_EXIT_OK && procscan_next(&ps, &proc, &maps)) {
		int rc = who_scan(tb, &o, selected, (size_t)nsel, maps, stale, match, &pc, &found, &err);

		if (rc == MS_ERR_NOMEM) {
			cli_error("who: out of memory");
			status = CLI_EXIT_USAGE;
		} else if (rc < 0) {
			procscan_note_error(&ps, &err);
		}
		ms_maps_close(maps);
		ms_proc_close(proc);
	}
	if (status == CLI_EXIT_OK && who_pkg_fill(&pc.lines, &o, pkgcols, &err) < 0) {
		cli_error("%s", err.msg);
		status = CLI_EXIT_USAGE;
	}
	if (status == CLI_EXIT_OK)
		status = cli_table_print(tb);
	scols_unref_table(tb);
	who_pkg_free(&pc.lines);
	ms_stale_ctx_free(pc.roots);
	ms_stale_ctx_free(stale);
	ms_ignore_free(ignore);
	who_soname_note(match);
	ms_filematch_free(match);
	procscan_summary(&ps, "who");
	procscan_free(&ps);
	if (status == CLI_EXIT_OK && !found)
		status = CLI_EXIT_FAIL;
	return status;
}
