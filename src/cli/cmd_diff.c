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
#include "core/escape.h"
#include "core/mapdiff.h"
#include "core/snapshot.h"

#define DIFF_EXIT_SAME 0
#define DIFF_EXIT_DIFFERENT 1
#define DIFF_EXIT_TROUBLE 2

enum { DIFFCOL_CHANGE, DIFFCOL_FIELDS, DIFFCOL_WAS, DIFFCOL_MAP0, DIFFCOL_COUNT = DIFFCOL_MAP0 + MAPCOL_LIST_COUNT };

static const struct cli_column diff_own_cols[DIFFCOL_MAP0] = {
	[DIFFCOL_CHANGE] = { "CHANGE", 7, 0, SCOLS_JSON_STRING, false, "added, removed or changed" },
	[DIFFCOL_FIELDS] = { "FIELDS", 10, 0, SCOLS_JSON_STRING, false, "what changed: perms, offset, dev, inode, name, buildid" },
	[DIFFCOL_WAS] = { "WAS", 0.2, SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false, "the old values of the changed fields" },
};

static const int diff_defaults[] = {
	DIFFCOL_CHANGE, DIFFCOL_MAP0 + MAPCOL_START, DIFFCOL_MAP0 + MAPCOL_END,
	DIFFCOL_MAP0 + MAPCOL_SIZE, DIFFCOL_MAP0 + MAPCOL_PERMS, DIFFCOL_MAP0 + MAPCOL_OFFSET,
	DIFFCOL_MAP0 + MAPCOL_NAME, DIFFCOL_FIELDS, DIFFCOL_WAS,
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
	       "goes to stderr (with -J, a \"summary\" object in the document).\n\n"
	       "Options:\n"
	       CLI_OUTPUT_OPTIONS_HELP
	       "\n"
	       "Exit status: 0 no differences, 1 differences, 2 trouble (usage, a missing\n"
	       "process, an unreadable or malformed file).\n\n"
	       "Columns:\n");
	cli_columns_help(diff_own_cols, DIFFCOL_MAP0);
	cli_columns_help(mapcols, MAPCOL_LIST_COUNT);
}

static const struct option diff_options[] = {
	CLI_OUTPUT_LONG_OPTIONS,
};

/* One side: a live PID (digits only) or a snapshot file. */
static int load_side(const char *arg, const struct cli_opts *o, struct ms_snapshot *snap)
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
		ms_maps_close(maps);
		ms_proc_close(proc);
	} else {
		rc = ms_snapshot_load(arg, snap, &err);
	}
	if (rc < 0) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 0;
}

struct diff_ctx {
	const struct cli_opts *o;
	struct libscols_table *tb;
	const int *selected;
	size_t nselected;
};

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
static char *old_values(const struct cli_opts *o, const struct ms_diff_entry *e)
{
	char *out = strdup("");

	for (size_t i = 0; out && i < sizeof(diff_fields) / sizeof(diff_fields[0]); i++) {
		char *v, *grown;

		if (!(e->changed & diff_fields[i].bit))
			continue;
		v = mapcols_render(o, diff_fields[i].col, e->old_map, 0);
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

static int add_entry(void *arg, const struct ms_diff_entry *e)
{
	struct diff_ctx *c = arg;
	const struct ms_mapping *m = e->new_map ? e->new_map : e->old_map;
	struct libscols_line *ln = scols_table_new_line(c->tb, NULL);

	if (!ln)
		return -1;
	for (size_t i = 0; i < c->nselected; i++) {
		int col = c->selected[i];
		char *text;

		if (col == DIFFCOL_CHANGE)
			text = strdup(kind_name(e->kind));
		else if (col == DIFFCOL_FIELDS)
			text = changed_fields(e->changed);
		else if (col == DIFFCOL_WAS)
			text = e->kind == MS_DIFF_CHANGED ? old_values(c->o, e) : strdup("");
		else
			text = mapcols_render(c->o, col - DIFFCOL_MAP0, m, 0);
		if (!text || scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
	return 0;
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
		     const int *selected, size_t nsel)
{
	struct ms_diff_summary s;
	struct diff_ctx c = { o, NULL, selected, nsel };
	int status;

	c.tb = cli_table_new(o, "changes", cols, selected, nsel);
	if (!c.tb)
		return DIFF_EXIT_TROUBLE;
	if (ms_maplist_diff(&a->maps, &b->maps, add_entry, &c, &s) != 0) {
		cli_error("diff: out of memory");
		scols_unref_table(c.tb);
		return DIFF_EXIT_TROUBLE;
	}
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

int cmd_diff(int argc, char **argv)
{
	struct ms_snapshot a = { 0 }, b = { 0 };
	struct cli_column cols[DIFFCOL_COUNT];
	int selected[CLI_MAX_COLUMNS];
	struct cli_opts o;
	int nsel, status;

	status = cli_getopt(argc, argv, "diff", diff_options, diff_usage, &o);
	if (status >= 0)
		return status;
	if (optind + 2 != argc)
		return cli_usage_error("diff", "diff: expected two arguments, each a snapshot file or a PID");
	diff_columns(cols);
	nsel = cli_columns_parse(o.columns, cols, DIFFCOL_COUNT, diff_defaults,
				 sizeof(diff_defaults) / sizeof(diff_defaults[0]), selected, CLI_MAX_COLUMNS);
	if (nsel < 0)
		return CLI_EXIT_USAGE;
	if (load_side(argv[optind], &o, &a) < 0)
		return DIFF_EXIT_TROUBLE;
	if (load_side(argv[optind + 1], &o, &b) < 0) {
		ms_snapshot_free(&a);
		return DIFF_EXIT_TROUBLE;
	}
	status = diff_show(&o, cols, &a, &b, selected, (size_t)nsel);
	ms_snapshot_free(&a);
	ms_snapshot_free(&b);
	return status;
}
