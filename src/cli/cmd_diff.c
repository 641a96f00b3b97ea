/*
 * `mapscope diff A B`: what changed between two maps, each a snapshot file
 * or a live PID.  Mappings are matched by what they are (ms_maplist_match:
 * file, offset and kind), or by exact range with --addresses, the walk of
 * the explorer's live highlighting and `record`; --by-file compares the
 * files and their packages (diff_files.h).  Exit status follows diff(1):
 * 0 the same, 1 different, 2 trouble.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/colindex.h"
#include "cli/diff_files.h"
#include "cli/diff_out.h"
#include "cli/mapcols.h"
#include "core/base/escape.h"
#include "core/maps/mapmatch.h"
#include "core/snap/filediff.h"
#include "core/snap/snapshot.h"

enum {
	DIFFCOL_CHANGE, DIFFCOL_DELTA, DIFFCOL_FIELDS, DIFFCOL_WAS, DIFFCOL_OLDRSS, DIFFCOL_RSSDIFF, DIFFCOL_SWAPDIFF,
	DIFFCOL_MAP0, DIFFCOL_COUNT = DIFFCOL_MAP0 + MAPCOL_LIST_COUNT
};

/* Residency differences, past the core's MS_DIFF_F_* bits. */
#define DIFF_F_RSS 0x100u
#define DIFF_F_SWAP 0x200u

enum { DIFF_OPT_RESIDENCY = 300, DIFF_OPT_ADDRESSES, DIFF_OPT_BY_FILE };

struct diff_mode {
	bool residency;
	bool addresses;
	bool by_file;
};

static const struct cli_column diff_own_cols[DIFFCOL_MAP0] = {
	[DIFFCOL_CHANGE] = { "CHANGE", 7, 0, SCOLS_JSON_STRING, false, "added, removed or changed" },
	[DIFFCOL_DELTA] = { "DELTA", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "growth of the mapping, new size minus old (an added one counts from 0, a removed one to 0)" },
	[DIFFCOL_FIELDS] = { "FIELDS", 10, 0, SCOLS_JSON_STRING, false, "what changed: size, perms, offset, dev, inode, name, buildid (rss, swap with --residency)" },
	[DIFFCOL_WAS] = { "WAS", 0.2, SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false, "the old values of the changed fields" },
	[DIFFCOL_OLDRSS] = { "OLDRSS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "resident memory on the old side (RSS is the new side's)" },
	[DIFFCOL_RSSDIFF] = { "RSSDIFF", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "growth of resident memory, new minus old" },
	[DIFFCOL_SWAPDIFF] = { "SWAPDIFF", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "growth of swapped memory, new minus old" },
};

static const int diff_defaults[] = {
	DIFFCOL_CHANGE, DIFFCOL_MAP0 + MAPCOL_START, DIFFCOL_MAP0 + MAPCOL_END,
	DIFFCOL_MAP0 + MAPCOL_SIZE, DIFFCOL_DELTA, DIFFCOL_MAP0 + MAPCOL_PERMS, DIFFCOL_MAP0 + MAPCOL_OFFSET,
	DIFFCOL_MAP0 + MAPCOL_NAME, DIFFCOL_FIELDS, DIFFCOL_WAS,
};

/* With --residency: the resident sizes before the name. */
static const int diff_res_defaults[] = {
	DIFFCOL_CHANGE, DIFFCOL_MAP0 + MAPCOL_START, DIFFCOL_MAP0 + MAPCOL_END,
	DIFFCOL_MAP0 + MAPCOL_SIZE, DIFFCOL_MAP0 + MAPCOL_PERMS, DIFFCOL_OLDRSS,
	DIFFCOL_MAP0 + MAPCOL_RSS, DIFFCOL_RSSDIFF, DIFFCOL_MAP0 + MAPCOL_NAME, DIFFCOL_FIELDS,
	DIFFCOL_WAS,
};

static const struct {
	unsigned bit;
	const char *name;
	int col;
} diff_fields[] = {
	{ MS_DIFF_F_SIZE, "size", MAPCOL_SIZE },
	{ MS_DIFF_F_PERMS, "perms", MAPCOL_PERMS },
	{ MS_DIFF_F_OFFSET, "offset", MAPCOL_OFFSET },
	{ MS_DIFF_F_DEV, "dev", MAPCOL_DEV },
	{ MS_DIFF_F_INODE, "inode", MAPCOL_INODE },
	{ MS_DIFF_F_NAME, "name", MAPCOL_NAME },
	{ MS_DIFF_F_BUILDID, "buildid", MAPCOL_BUILDID },
	{ DIFF_F_RSS, "rss", MAPCOL_RSS },
	{ DIFF_F_SWAP, "swap", MAPCOL_SWAP },
};

/* Our columns, then the mapping columns of `list`. */
static void diff_columns(struct cli_column cols[DIFFCOL_COUNT])
{
	memcpy(cols, diff_own_cols, sizeof(diff_own_cols));
	memcpy(cols + DIFFCOL_MAP0, mapcols, MAPCOL_LIST_COUNT * sizeof(mapcols[0]));
}

size_t diff_column_table(struct cli_column *out)
{
	diff_columns(out);
	return DIFFCOL_COUNT;
}

static void diff_usage(void)
{
	printf("Usage: mapscope diff A B [options]\n\n"
	       "Compare two memory maps.  A and B are each a snapshot file (from\n"
	       "'mapscope snapshot') or the PID of a live process; an argument made only\n"
	       "of digits is a PID, so write ./1234 for a file named 1234.\n"
	       "Mappings are matched by what they are, not where: a file mapping by its\n"
	       "path (without \" (deleted)\"), offset and private or shared; any other by\n"
	       "its name ([heap], [stack], none...) and permissions; several of one kind\n"
	       "pair in address order.  The rest is added or removed.  A pair is changed\n"
	       "in size (DELTA), permissions, name, build ID, or device and inode (another\n"
	       "file; compared only when both sides come from one boot).  An address alone\n"
	       "is no change: two runs of one program under ASLR are the same.  A summary\n"
	       "line goes to stderr (with -J, a \"summary\" object in the document).\n"
	       "Residency columns (RSS, SWAP, OLDRSS, RSSDIFF, SWAPDIFF) come from live\n"
	       "PIDs or 'snapshot --residency' files, and are empty otherwise; they\n"
	       "change no row and no exit status unless --residency is given.\n\n"
	       "Options:\n"
	       "      --addresses        match mappings by exact range instead, as the\n"
	       "                         explorer's + and - do: one that grew or moved\n"
	       "                         is removed and added\n"
	       "      --by-file          compare the files mapped, their packages and\n"
	       "                         versions: one row per path added, removed or\n"
	       "                         changed (another file, build ID, package,\n"
	       "                         version, deleted)\n"
	       "      --residency        compare RSS and swap too: a mapping whose\n"
	       "                         residency changed is a change (both sides\n"
	       "                         need residency)\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Packages come from the snapshot (written since version 3) or, for a PID,\n"
	       "from the package databases now (dpkg, rpm, Python distributions).\n\n"
	       "Exit status: 0 no differences, 1 differences, 2 trouble (usage, a missing\n"
	       "process, an unreadable or malformed file, no residency with --residency).\n\n"
	       "Columns:\n");
	cli_columns_help(diff_own_cols, DIFFCOL_MAP0);
	cli_columns_help(mapcols, MAPCOL_LIST_COUNT);
	diff_files_help();
}

static const struct option diff_options[] = {
	{ "residency", no_argument, NULL, DIFF_OPT_RESIDENCY },
	{ "addresses", no_argument, NULL, DIFF_OPT_ADDRESSES },
	{ "by-file", no_argument, NULL, DIFF_OPT_BY_FILE },
	CLI_OUTPUT_LONG_OPTIONS,
};

/*
 * One side: a live PID (digits only) or a snapshot file.  A live side is
 * measured when residency is wanted; a file has what it was taken with.
 */
static int load_side(const char *arg, const struct cli_opts *o, bool want_res,
		     const struct diff_mode *mode, struct ms_snapshot *snap)
{
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_error err;
	int rc;

	if (*arg && strspn(arg, "0123456789") == strlen(arg)) {
		pid_t pid;

		if (cli_parse_pid(arg, &pid) < 0 || cli_open_maps(pid, o, &proc, &maps) != CLI_EXIT_OK)
			return -1;
		rc = ms_snapshot_take(maps, snap, &err);
		if (rc == 0 && want_res) {
			rc = ms_snapshot_add_residency(snap, proc, &err);
			if (rc == 0 && snap->res_backend == MS_RES_SMAPS)
				mapcols_note_smaps(pid);
		}
		if (rc == 0 && mode->by_file)
			rc = ms_snapshot_add_packages(snap, maps, &err);
		ms_maps_close(maps);
		ms_proc_close(proc);
	} else {
		rc = ms_snapshot_load(arg, snap, &err);
		if (rc == 0 && mode->by_file && !snap->pkgs) {
			char *shown = ms_escape_dup(arg, strlen(arg), MS_ESC_ASCII);

			cli_error("%s: a snapshot without packages (written before version 3, or with 'snapshot --no-packages'): its package columns are empty",
				  shown ? shown : "file");
			free(shown);
		}
	}
	if (rc < 0) {
		cli_error("%s", err.msg);
		ms_snapshot_free(snap);
		return -1;
	}
	if (want_res && !snap->res) {
		char *shown = ms_escape_dup(arg, strlen(arg), MS_ESC_ASCII);

		cli_error("%s: a snapshot without residency (take it with 'snapshot --residency')%s",
			  shown ? shown : "file", mode->residency ? "" : ": its residency columns are empty");
		free(shown);
		if (mode->residency) {
			ms_snapshot_free(snap);
			return -1;
		}
	}
	return 0;
}

struct diff_ctx {
	const struct cli_opts *o;
	struct libscols_table *tb;
	const int *selected;
	size_t nselected;
	const struct ms_snapshot *a, *b;
	bool compare_res;
	size_t res_changed; /* unchanged in layout, changed in residency */
};

/* The residency of a mapping of one side, or NULL when that side has none. */
static const struct ms_resinfo *res_of(const struct ms_snapshot *snap, const struct ms_mapping *m)
{
	return snap->res && m ? &snap->res[m - snap->maps.items] : NULL;
}

static unsigned res_differences(const struct ms_resinfo *o, const struct ms_resinfo *n)
{
	unsigned d = 0;

	if (o && n && o->rss != n->rss)
		d |= DIFF_F_RSS;
	if (o && n && o->swap != n->swap)
		d |= DIFF_F_SWAP;
	return d;
}

/* new - old, a missing mapping counting as 0. */
static char *growth(const struct cli_opts *o, const struct ms_diff_entry *e, const struct ms_snapshot *a,
		    const struct ms_snapshot *b, bool swap)
{
	const struct ms_resinfo *ro = res_of(a, e->old_map), *rn = res_of(b, e->new_map);

	if ((e->old_map && !ro) || (e->new_map && !rn))
		return strdup("");
	return diff_size_delta(o, ro ? (swap ? ro->swap : ro->rss) : 0, rn ? (swap ? rn->swap : rn->rss) : 0);
}

static char *changed_fields(unsigned changed)
{
	char buf[128] = "";

	for (size_t i = 0; i < sizeof(diff_fields) / sizeof(diff_fields[0]); i++)
		if (changed & diff_fields[i].bit)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? "," : "", diff_fields[i].name);
	return strdup(buf);
}

/* "perms=r--p name=/old" for the changed fields of the old mapping. */
static char *old_values(const struct cli_opts *o, const struct ms_diff_entry *e,
			const struct ms_resinfo *old_res)
{
	char *out = strdup("");

	for (size_t i = 0; out && i < sizeof(diff_fields) / sizeof(diff_fields[0]); i++) {
		char *v, *grown;

		if (!(e->changed & diff_fields[i].bit))
			continue;
		v = mapcols_render_res(o, diff_fields[i].col, e->old_map, 0, old_res);
		grown = v && asprintf(&grown, "%s%s%s=%s", out, *out ? " " : "", diff_fields[i].name, v) >= 0
			? grown : NULL;
		free(v);
		free(out);
		out = grown;
	}
	return out;
}

static char *diff_cell(const struct diff_ctx *c, int col, const struct ms_diff_entry *e)
{
	const struct ms_mapping *m = e->new_map ? e->new_map : e->old_map;
	const struct ms_resinfo *ro = res_of(c->a, e->old_map);

	switch (col) {
	case DIFFCOL_CHANGE: return strdup(diff_kind_name(e->kind));
	case DIFFCOL_DELTA:
		return diff_size_delta(c->o, e->old_map ? ms_mapping_size(e->old_map) : 0,
				       e->new_map ? ms_mapping_size(e->new_map) : 0);
	case DIFFCOL_FIELDS: return changed_fields(e->changed);
	case DIFFCOL_WAS: return e->kind == MS_DIFF_CHANGED ? old_values(c->o, e, ro) : strdup("");
	case DIFFCOL_OLDRSS: return ro ? mapcols_render_res(c->o, MAPCOL_RSS, m, 0, ro) : strdup("");
	case DIFFCOL_RSSDIFF: return growth(c->o, e, c->a, c->b, false);
	case DIFFCOL_SWAPDIFF: return growth(c->o, e, c->a, c->b, true);
	default: break;
	}
	return mapcols_render_res(c->o, col - DIFFCOL_MAP0, m, 0,
				  e->new_map ? res_of(c->b, e->new_map) : ro);
}

/*
 * One entry of the walk.  With --residency the walk delivers the unchanged
 * pairs too: each is a change when its RSS or swap moved.
 */
static int add_entry(void *arg, const struct ms_diff_entry *e)
{
	struct diff_ctx *c = arg;
	struct ms_diff_entry shown = *e;
	struct libscols_line *ln;

	if (c->compare_res && e->kind == MS_DIFF_CHANGED) {
		shown.changed |= res_differences(res_of(c->a, e->old_map), res_of(c->b, e->new_map));
		if (!shown.changed)
			return 0;
		c->res_changed += !e->changed;
	}
	ln = scols_table_new_line(c->tb, NULL);
	if (!ln)
		return -1;
	for (size_t i = 0; i < c->nselected; i++) {
		char *text = diff_cell(c, c->selected[i], &shown);

		if (!text || scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
	return 0;
}

static int diff_show(const struct cli_opts *o, const struct cli_column *cols,
		     const struct ms_snapshot *a, const struct ms_snapshot *b,
		     const int *selected, size_t nsel, const struct diff_mode *mode)
{
	struct ms_match_opts mo = { .by_address = mode->addresses, .same_boot = ms_snapshot_same_boot(a, b),
				    .report_unchanged = mode->residency };
	struct diff_ctx c = { o, NULL, selected, nsel, a, b, mode->residency, 0 };
	struct ms_diff_summary s;
	int status;

	c.tb = cli_table_new(o, "changes", cols, selected, nsel);
	if (!c.tb)
		return DIFF_EXIT_TROUBLE;
	if (ms_maplist_match(&a->maps, &b->maps, &mo, add_entry, &c, &s) != 0) {
		cli_error("diff: out of memory");
		scols_unref_table(c.tb);
		return DIFF_EXIT_TROUBLE;
	}
	s.changed += c.res_changed;
	s.unchanged -= c.res_changed;
	status = diff_print(o, c.tb, &s, !mode->addresses);
	scols_unref_table(c.tb);
	return status;
}

/* Does any selected column show residency? */
static bool diff_wants_residency(const int *selected, size_t nsel)
{
	for (size_t i = 0; i < nsel; i++)
		if (selected[i] == DIFFCOL_OLDRSS || selected[i] == DIFFCOL_RSSDIFF ||
		    selected[i] == DIFFCOL_SWAPDIFF)
			return true;
	return mapcols_want_residency(selected, nsel, DIFFCOL_MAP0);
}

static int diff_option(void *ctx, int opt, const char *arg)
{
	struct diff_mode *mode = ctx;

	(void)arg;
	switch (opt) {
	case DIFF_OPT_RESIDENCY: mode->residency = true; return 1;
	case DIFF_OPT_ADDRESSES: mode->addresses = true; return 1;
	case DIFF_OPT_BY_FILE: mode->by_file = true; return 1;
	default: return 0;
	}
}

int cmd_diff(int argc, char **argv)
{
	struct ms_snapshot a = { 0 }, b = { 0 };
	struct cli_column cols[DIFFCOL_COUNT];
	int selected[CLI_MAX_COLUMNS];
	struct diff_mode mode = { 0 };
	bool want_res = false;
	struct cli_opts o;
	int nsel = 0, status;

	status = cli_getopt_own(argc, argv, "diff", diff_options, diff_usage, &o, diff_option, &mode);
	if (status >= 0)
		return status;
	diff_columns(cols);
	if (o.list_columns && mode.by_file)
		return cli_columns_list(&o, cols, diff_file_column_table(cols));
	if (o.list_columns)
		return cli_columns_list(&o, cols, DIFFCOL_COUNT);
	if (optind + 2 != argc)
		return cli_usage_error("diff", "diff: expected two arguments, each a snapshot file or a PID");
	if (mode.by_file && (mode.residency || mode.addresses))
		return cli_usage_error("diff", "diff: --by-file compares files: not with --residency or --addresses");
	diff_columns(cols);
	status = CLI_EXIT_OK;
	if (mode.by_file)
		status = diff_files_columns(&o);
	else
		nsel = mode.residency
			? cli_columns_parse(o.columns, cols, DIFFCOL_COUNT, diff_res_defaults,
					    sizeof(diff_res_defaults) / sizeof(diff_res_defaults[0]), selected,
					    CLI_MAX_COLUMNS)
			: cli_columns_parse(o.columns, cols, DIFFCOL_COUNT, diff_defaults,
					    sizeof(diff_defaults) / sizeof(diff_defaults[0]), selected,
					    CLI_MAX_COLUMNS);
	if (nsel < 0 || status != CLI_EXIT_OK)
		return CLI_EXIT_USAGE;
	want_res = mode.residency || diff_wants_residency(selected, (size_t)nsel);
	if (load_side(argv[optind], &o, want_res, &mode, &a) < 0)
		return DIFF_EXIT_TROUBLE;
	if (load_side(argv[optind + 1], &o, want_res, &mode, &b) < 0) {
		ms_snapshot_free(&a);
		return DIFF_EXIT_TROUBLE;
	}
	if (mode.by_file)
		status = diff_files_show(&o, &a, &b);
	else
		status = diff_show(&o, cols, &a, &b, selected, (size_t)nsel, &mode);
	ms_snapshot_free(&a);
	ms_snapshot_free(&b);
	return status;
}
