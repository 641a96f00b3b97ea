/*
 * `mapscope diff A B`: what changed between two maps, each a snapshot file
 * or a live PID.  The walk is ms_maplist_diff, the one the explorer's live
 * highlighting and `record` use.  Exit status follows diff(1): 0 the same,
 * 1 different, 2 trouble.
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
#include "cli/mapcols.h"
#include "core/base/escape.h"
#include "core/maps/mapdiff.h"
#include "core/snap/snapshot.h"

#define DIFF_EXIT_SAME 0
#define DIFF_EXIT_DIFFERENT 1
#define DIFF_EXIT_TROUBLE 2

enum {
	DIFFCOL_CHANGE, DIFFCOL_FIELDS, DIFFCOL_WAS, DIFFCOL_OLDRSS, DIFFCOL_RSSDIFF, DIFFCOL_SWAPDIFF,
	DIFFCOL_MAP0, DIFFCOL_COUNT = DIFFCOL_MAP0 + MAPCOL_LIST_COUNT
};

/* Residency differences, past the core's MS_DIFF_F_* bits. */
#define DIFF_F_RSS 0x100u
#define DIFF_F_SWAP 0x200u

enum { DIFF_OPT_RESIDENCY = 300 };

static const struct cli_column diff_own_cols[DIFFCOL_MAP0] = {
	[DIFFCOL_CHANGE] = { "CHANGE", 7, 0, SCOLS_JSON_STRING, false, "added, removed or changed" },
	[DIFFCOL_FIELDS] = { "FIELDS", 10, 0, SCOLS_JSON_STRING, false, "what changed: perms, offset, dev, inode, name, buildid (rss, swap with --residency)" },
	[DIFFCOL_WAS] = { "WAS", 0.2, SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false, "the old values of the changed fields" },
	[DIFFCOL_OLDRSS] = { "OLDRSS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "resident memory on the old side (RSS is the new side's)" },
	[DIFFCOL_RSSDIFF] = { "RSSDIFF", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "growth of resident memory, new minus old" },
	[DIFFCOL_SWAPDIFF] = { "SWAPDIFF", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "growth of swapped memory, new minus old" },
};

static const int diff_defaults[] = {
	DIFFCOL_CHANGE, DIFFCOL_MAP0 + MAPCOL_START, DIFFCOL_MAP0 + MAPCOL_END,
	DIFFCOL_MAP0 + MAPCOL_SIZE, DIFFCOL_MAP0 + MAPCOL_PERMS, DIFFCOL_MAP0 + MAPCOL_OFFSET,
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

static void diff_usage(void)
{
	printf("Usage: mapscope diff A B [options]\n\n"
	       "Compare two memory maps.  A and B are each a snapshot file (from\n"
	       "'mapscope snapshot') or the PID of a live process; an argument made only\n"
	       "of digits is a PID, so write ./1234 for a file named 1234.\n"
	       "Mappings are matched by exact range: added, removed, or changed in\n"
	       "permissions, offset, device, inode, name or build ID.  A summary line\n"
	       "goes to stderr (with -J, a \"summary\" object in the document).\n"
	       "Residency columns (RSS, SWAP, OLDRSS, RSSDIFF, SWAPDIFF) come from live\n"
	       "PIDs or 'snapshot --residency' files, and are empty otherwise; they\n"
	       "change no row and no exit status unless --residency is given.\n\n"
	       "Options:\n"
	       "      --residency        compare RSS and swap too: a mapping whose\n"
	       "                         residency changed is a change (both sides\n"
	       "                         need residency)\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Exit status: 0 no differences, 1 differences, 2 trouble (usage, a missing\n"
	       "process, an unreadable or malformed file, no residency with --residency).\n\n"
	       "Columns:\n");
	cli_columns_help(diff_own_cols, DIFFCOL_MAP0);
	cli_columns_help(mapcols, MAPCOL_LIST_COUNT);
}

static const struct option diff_options[] = {
	{ "residency", no_argument, NULL, DIFF_OPT_RESIDENCY },
	CLI_OUTPUT_LONG_OPTIONS,
};

/*
 * One side: a live PID (digits only) or a snapshot file.  A live side is
 * measured when residency is wanted; a file has what it was taken with.
 */
static int load_side(const char *arg, const struct cli_opts *o, bool want_res,
		     bool need_res, struct ms_snapshot *snap)
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
		ms_maps_close(maps);
		ms_proc_close(proc);
	} else {
		rc = ms_snapshot_load(arg, snap, &err);
	}
	if (rc < 0) {
		cli_error("%s", err.msg);
		ms_snapshot_free(snap);
		return -1;
	}
	if (want_res && !snap->res) {
		char *shown = ms_escape_dup(arg, strlen(arg), MS_ESC_ASCII);

		cli_error("%s: a snapshot without residency (take it with 'snapshot --residency')%s",
			  shown ? shown : "file", need_res ? "" : ": its residency columns are empty");
		free(shown);
		if (need_res) {
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
	size_t next_old, next_new; /* where the walk is: pairs before are unchanged */
	size_t res_changed;        /* unchanged in layout, changed in residency */
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

/* new - old, a missing mapping counting as 0; "+4K", or a plain number with -b. */
static char *growth(const struct cli_opts *o, const struct ms_diff_entry *e, const struct ms_snapshot *a,
		    const struct ms_snapshot *b, bool swap)
{
	const struct ms_resinfo *ro = res_of(a, e->old_map), *rn = res_of(b, e->new_map);
	uint64_t old = ro ? (swap ? ro->swap : ro->rss) : 0;
	uint64_t new = rn ? (swap ? rn->swap : rn->rss) : 0;
	char buf[48];

	if ((e->old_map && !ro) || (e->new_map && !rn))
		return strdup("");
	ms_format_size(new >= old ? new - old : old - new, o->bytes, buf + 1, sizeof(buf) - 1);
	/* JSON numbers take no plus sign. */
	buf[0] = new >= old ? '+' : '-';
	return strdup(new == old || (o->bytes && new > old) ? buf + 1 : buf);
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

static const char *kind_name(enum ms_diff_kind kind)
{
	switch (kind) {
	case MS_DIFF_ADDED: return "added";
	case MS_DIFF_REMOVED: return "removed";
	case MS_DIFF_CHANGED: break;
	}
	return "changed";
}

static char *diff_cell(const struct diff_ctx *c, int col, const struct ms_diff_entry *e)
{
	const struct ms_mapping *m = e->new_map ? e->new_map : e->old_map;
	const struct ms_resinfo *ro = res_of(c->a, e->old_map);

	switch (col) {
	case DIFFCOL_CHANGE: return strdup(kind_name(e->kind));
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

static int add_row(struct diff_ctx *c, const struct ms_diff_entry *e)
{
	struct libscols_line *ln = scols_table_new_line(c->tb, NULL);

	if (!ln)
		return -1;
	for (size_t i = 0; i < c->nselected; i++) {
		char *text = diff_cell(c, c->selected[i], e);

		if (!text || scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
	return 0;
}

/*
 * The walk reports differences only.  The ranges it matched as unchanged
 * are the ones between two reports, in step on both sides; with
 * --residency each of them is a change when its RSS or swap moved.
 */
static int catch_up(struct diff_ctx *c, size_t upto_old)
{
	for (; c->next_old < upto_old; c->next_old++, c->next_new++) {
		struct ms_diff_entry e = { MS_DIFF_CHANGED, &c->a->maps.items[c->next_old],
					   &c->b->maps.items[c->next_new], 0 };

		e.changed = res_differences(res_of(c->a, e.old_map), res_of(c->b, e.new_map));
		if (!e.changed)
			continue;
		c->res_changed++;
		if (add_row(c, &e) < 0)
			return -1;
	}
	return 0;
}

static int add_entry(void *arg, const struct ms_diff_entry *e)
{
	struct diff_ctx *c = arg;
	struct ms_diff_entry shown = *e;
	size_t old_idx = e->old_map ? (size_t)(e->old_map - c->a->maps.items) : 0;
	size_t new_idx = e->new_map ? (size_t)(e->new_map - c->b->maps.items) : 0;

	if (c->compare_res) {
		size_t skipped = e->old_map ? old_idx - c->next_old : new_idx - c->next_new;

		if (catch_up(c, c->next_old + skipped) < 0)
			return -1;
		if (e->kind == MS_DIFF_CHANGED)
			shown.changed |= res_differences(res_of(c->a, e->old_map), res_of(c->b, e->new_map));
	}
	if (e->old_map)
		c->next_old = old_idx + 1;
	if (e->new_map)
		c->next_new = new_idx + 1;
	return add_row(c, &shown);
}

/* -J: the table and a "summary" object in one document. */
static int print_json(struct libscols_table *tb, const struct ms_diff_summary *s)
{
	json_t *root, *sum;
	char *text = NULL;
	int rc;

	if (scols_print_table_to_string(tb, &text) != 0 || !text) {
		cli_error("diff: cannot format the output");
		return DIFF_EXIT_TROUBLE;
	}
	root = json_loads(text, 0, NULL);
	free(text);
	sum = json_pack("{s:I, s:I, s:I, s:I}", "added", (json_int_t)s->added,
			"removed", (json_int_t)s->removed, "changed", (json_int_t)s->changed,
			"unchanged", (json_int_t)s->unchanged);
	if (!root || !sum || json_object_set_new(root, "summary", sum) < 0) {
		json_decref(root);
		cli_error("diff: out of memory");
		return DIFF_EXIT_TROUBLE;
	}
	rc = json_dumpf(root, stdout, JSON_INDENT(3));
	json_decref(root);
	if (rc == 0)
		fputc('\n', stdout);
	if (fflush(stdout) != 0 || ferror(stdout) || rc != 0) {
		if (errno == EPIPE)
			return CLI_EXIT_OK;
		cli_error("write error: %s", strerror(errno ? errno : EIO));
		return DIFF_EXIT_TROUBLE;
	}
	return CLI_EXIT_OK;
}

static int diff_show(const struct cli_opts *o, const struct cli_column *cols,
		     const struct ms_snapshot *a, const struct ms_snapshot *b,
		     const int *selected, size_t nsel, bool compare_res)
{
	struct ms_diff_summary s;
	struct diff_ctx c = { o, NULL, selected, nsel, a, b, compare_res, 0, 0, 0 };
	int status;

	c.tb = cli_table_new(o, "changes", cols, selected, nsel);
	if (!c.tb)
		return DIFF_EXIT_TROUBLE;
	if (ms_maplist_diff(&a->maps, &b->maps, add_entry, &c, &s) != 0 ||
	    (compare_res && catch_up(&c, a->maps.count) < 0)) {
		cli_error("diff: out of memory");
		scols_unref_table(c.tb);
		return DIFF_EXIT_TROUBLE;
	}
	s.changed += c.res_changed;
	s.unchanged -= c.res_changed;
	if (o->json) {
		status = print_json(c.tb, &s);
	} else {
		status = cli_table_print(c.tb);
		fprintf(stderr, "%zu added, %zu removed, %zu changed, %zu unchanged\n",
			s.added, s.removed, s.changed, s.unchanged);
	}
	scols_unref_table(c.tb);
	if (status != CLI_EXIT_OK)
		return DIFF_EXIT_TROUBLE;
	return s.added || s.removed || s.changed ? DIFF_EXIT_DIFFERENT : DIFF_EXIT_SAME;
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
	(void)arg;
	if (opt != DIFF_OPT_RESIDENCY)
		return 0;
	*(bool *)ctx = true;
	return 1;
}

int cmd_diff(int argc, char **argv)
{
	struct ms_snapshot a = { 0 }, b = { 0 };
	struct cli_column cols[DIFFCOL_COUNT];
	int selected[CLI_MAX_COLUMNS];
	bool compare_res = false, want_res;
	struct cli_opts o;
	int nsel, status;

	status = cli_getopt_own(argc, argv, "diff", diff_options, diff_usage, &o, diff_option, &compare_res);
	if (status >= 0)
		return status;
	if (optind + 2 != argc)
		return cli_usage_error("diff", "diff: expected two arguments, each a snapshot file or a PID");
	diff_columns(cols);
	nsel = compare_res
		? cli_columns_parse(o.columns, cols, DIFFCOL_COUNT, diff_res_defaults,
				    sizeof(diff_res_defaults) / sizeof(diff_res_defaults[0]), selected,
				    CLI_MAX_COLUMNS)
		: cli_columns_parse(o.columns, cols, DIFFCOL_COUNT, diff_defaults,
				    sizeof(diff_defaults) / sizeof(diff_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	want_res = compare_res || diff_wants_residency(selected, (size_t)nsel);
	if (load_side(argv[optind], &o, want_res, compare_res, &a) < 0)
		return DIFF_EXIT_TROUBLE;
	if (load_side(argv[optind + 1], &o, want_res, compare_res, &b) < 0) {
		ms_snapshot_free(&a);
		return DIFF_EXIT_TROUBLE;
	}
	status = diff_show(&o, cols, &a, &b, selected, (size_t)nsel, compare_res);
	ms_snapshot_free(&a);
	ms_snapshot_free(&b);
	return status;
}
