/* libs_out.c - the table of `mapscope libs`: see libs_out.h. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/colindex.h"
#include "cli/colwriter.h"
#include "cli/libs_out.h"
#include "core/base/escape.h"
#include "core/elf/buildid.h"

/* What the memory columns count, said in their help. */
#define LIBS_MEMORY_COUNTS "(every mapping of the file, code and data, unless --code-only; summed over its processes)"

const struct cli_column libcols[LIBCOL_COUNT] = {
	[LIBCOL_NAME] = { "NAME", 0.4, SCOLS_FL_TREE | SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false,
			  "path of the file as the kernel names it (escaped); with --pids, a process's command name" },
	[LIBCOL_SONAME] = CLI_FACT(SONAME, 12, 0, NULL),
	[LIBCOL_LIBVER] = CLI_FACT(LIBVER, 12, 0, NULL),
	[LIBCOL_PACKAGE] = CLI_FACT(PACKAGE, 0.1, 0, "(empty for files only processes under another root map)"),
	[LIBCOL_VERSION] = CLI_FACT(VERSION, 0.1, 0, NULL),
	[LIBCOL_INSTALLED] = CLI_FACT(INSTALLED, 10, 0, NULL),
	[LIBCOL_PKGSOURCE] = CLI_FACT(PKGSRC, 6, 0, NULL),
	[LIBCOL_VENDORED] = CLI_FACT(VENDORED, 8, 0, NULL),
	[LIBCOL_VERWHY] = CLI_FACT(VERWHY, 0.2, SCOLS_FL_WRAP, NULL),
	[LIBCOL_PKGNOTE] = CLI_FACT(PKGNOTE, 8, 0, NULL),
	[LIBCOL_BUILDID] = CLI_FACT(BUILDID, 40, 0, NULL),
	[LIBCOL_PROCS] = { "PROCS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "how many processes map the file" },
	[LIBCOL_PID] = { "PID", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "process ID (--pids lines)" },
	[LIBCOL_MAPS] = { "MAPS", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "mappings of the file, summed over its processes" },
	[LIBCOL_RSS] = CLI_FACT(RSS, 5, SCOLS_FL_RIGHT, LIBS_MEMORY_COUNTS),
	[LIBCOL_PSS] = CLI_FACT(PSS, 5, SCOLS_FL_RIGHT, "(--pss) " LIBS_MEMORY_COUNTS),
	[LIBCOL_USS] = CLI_FACT(USS, 5, SCOLS_FL_RIGHT, LIBS_MEMORY_COUNTS),
	[LIBCOL_DIRTY] = CLI_FACT(DIRTY, 5, SCOLS_FL_RIGHT, LIBS_MEMORY_COUNTS),
	[LIBCOL_VERDICT] = CLI_FACT(VERDICT, 8, 0, NULL),
	[LIBCOL_WHY] = { "WHY", 0.2, SCOLS_FL_WRAP, SCOLS_JSON_STRING, false, "why that verdict" },
	[LIBCOL_WHERE] = { "WHERE", 6, 0, SCOLS_JSON_STRING, false,
			   "host, or where processes under another root live: ENGINE:ID, machine:NAME or \"other root\"" },
	[LIBCOL_DEV] = { "DEV", 5, 0, SCOLS_JSON_STRING, false, "device of the file, MAJ:MIN" },
	[LIBCOL_INODE] = { "INODE", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "inode of the file" },
};

size_t libs_column_table(struct cli_column *out)
{
	memcpy(out, libcols, sizeof(libcols));
	return LIBCOL_COUNT;
}

char *libs_where_raw(const struct ms_libtable_proc *p)
{
	char text[MS_CONTAINER_NAME_MAX + 32];

	if (!p->other_root)
		return strdup("host");
	if (!p->has_container)
		return strdup("other root");
	ms_container_describe_raw(&p->container, text, sizeof(text));
	return strdup(text);
}

char *libs_where_text(const struct ms_libtable_proc *p, unsigned esc)
{
	char *raw = libs_where_raw(p), *text = raw ? ms_escape_dup(raw, strlen(raw), esc) : NULL;

	free(raw);
	return text;
}

static char *number(uint64_t v)
{
	char *s = NULL;

	return asprintf(&s, "%" PRIu64, v) < 0 ? NULL : s;
}


static size_t row_maps(const struct ms_libtable_row *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nuses; i++)
		n += r->uses[i].mappings;
	return n;
}

/* Cell text of a file line; NULL for an empty cell (null in JSON). */
static char *row_cell(const struct ms_libtable *t, int col, const struct ms_libtable_row *r,
		      const struct cli_opts *o)
{
	char *s = NULL;

	if (libcols[col].is_fact) {
		struct ms_fact_src src;

		ms_libtable_row_facts(t, r, &src);
		return cli_cell_or_null(cli_fact_cell(o, libcols[col].fact, &src));
	}
	switch (col) {
	case LIBCOL_NAME: return ms_escape_dup(r->name, r->name_len, o->escape_flags);
	case LIBCOL_PROCS: return number(r->nuses);
	case LIBCOL_MAPS: return number(row_maps(r));
	case LIBCOL_WHY: return ms_escape_dup(r->why, strlen(r->why), o->escape_flags);
	case LIBCOL_WHERE: return r->host ? strdup("host") : libs_where_text(&t->procs[r->where_proc], o->escape_flags);
	case LIBCOL_DEV: return asprintf(&s, "%" PRIu32 ":%" PRIu32, r->dev_major, r->dev_minor) < 0 ? NULL : s;
	case LIBCOL_INODE: return number(r->inode);
	default: return NULL;
	}
}

/* Cell text of a process line under a file. */
static char *use_cell(const struct ms_libtable *t, int col, const struct ms_libtable_use *u,
		      const struct cli_opts *o)
{
	const struct ms_libtable_proc *p = ms_libtable_proc_of(t, u);
	struct ms_fact_src src;

	/* Of the facts, a process line has its sizes. */
	if (libcols[col].is_fact && (ms_fact_desc(libcols[col].fact)->needs & MS_NEED_SMAPS)) {
		ms_libtable_use_facts(t, u, &src);
		return cli_cell_or_null(cli_fact_cell(o, libcols[col].fact, &src));
	}
	switch (col) {
	case LIBCOL_NAME: return ms_escape_dup(p->comm, strnlen(p->comm, sizeof(p->comm)), o->escape_flags);
	case LIBCOL_PID: return number((uint64_t)p->pid);
	case LIBCOL_MAPS: return number(u->mappings);
	case LIBCOL_WHERE: return libs_where_text(p, o->escape_flags);
	default: return NULL;
	}
}

static struct libscols_line *add_line(struct libscols_table *tb, struct libscols_line *parent,
				      const struct ms_libtable *t, const struct cli_opts *o,
				      const int *selected, size_t nselected,
				      const struct ms_libtable_row *r, const struct ms_libtable_use *u)
{
	struct libscols_line *ln = scols_table_new_line(tb, parent);

	if (!ln)
		return NULL;
	for (size_t i = 0; i < nselected; i++) {
		char *text = u ? use_cell(t, selected[i], u, o) : row_cell(t, selected[i], r, o);

		/* refer: the line owns the text from here. */
		if (text && scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return NULL;
		}
	}
	return ln;
}

static int row_cmp(const void *a, const void *b)
{
	return ms_libtable_row_cmp(*(const struct ms_libtable_row *const *)a, *(const struct ms_libtable_row *const *)b);
}

/* The kept rows in print order (by name), or NULL when out of memory; *n of them. */
static const struct ms_libtable_row **sorted_rows(const struct ms_libtable *t, size_t *n)
{
	const struct ms_libtable_row **order = calloc(t->kept ? t->kept : 1, sizeof(*order));

	*n = 0;
	if (!order)
		return NULL;
	for (size_t i = 0; i < t->count; i++)
		if (t->rows[i].kept && t->rows[i].nuses)
			order[(*n)++] = &t->rows[i];
	qsort(order, *n, sizeof(*order), row_cmp);
	return order;
}

static int fill(struct libscols_table *tb, const struct ms_libtable *t, const struct cli_opts *o,
		const int *selected, size_t nselected, bool pids)
{
	size_t n;
	const struct ms_libtable_row **order = sorted_rows(t, &n);
	int rc = order ? 0 : -1;

	for (size_t i = 0; i < n && rc == 0; i++) {
		struct libscols_line *ln = add_line(tb, NULL, t, o, selected, nselected, order[i], NULL);

		if (!ln)
			rc = -1;
		for (size_t j = 0; pids && rc == 0 && j < order[i]->nuses; j++)
			if (!add_line(tb, ln, t, o, selected, nselected, order[i], &order[i]->uses[j]))
				rc = -1;
	}
	free(order);
	return rc;
}

/* The same lines through the streaming writer (no tree): a table of 65,000 files stays cheap. */
static int stream(struct colw *w, const struct ms_libtable *t, const struct cli_opts *o,
		  const int *selected, size_t nselected)
{
	size_t n;
	const struct ms_libtable_row **order = sorted_rows(t, &n);
	int rc = order ? 0 : -1;

	for (size_t i = 0; i < n && rc == 0; i++) {
		for (size_t c = 0; c < nselected && rc == 0; c++) {
			char *text = row_cell(t, selected[c], order[i], o);

			rc = colw_cell(w, text ? text : "", text ? strlen(text) : 0);
			free(text);
		}
		if (rc == 0)
			rc = colw_row_end(w);
	}
	free(order);
	return rc < 0 ? -1 : colw_finish(w);
}

int libs_print(const struct ms_libtable *t, const struct cli_opts *o, const int *selected,
	       size_t nselected, bool pids)
{
	struct cli_column cols[LIBCOL_COUNT];
	struct libscols_table *tb;
	struct colw *w = NULL;
	int status;

	/* A tree only where there are child lines. */
	memcpy(cols, libcols, sizeof(cols));
	if (!pids)
		cols[LIBCOL_NAME].flags &= ~SCOLS_FL_TREE;
	status = pids ? CLI_EXIT_OK : cli_writer_new(o, "libraries", cols, selected, nselected, 1024, &w);
	if (status != CLI_EXIT_OK)
		return CLI_EXIT_USAGE;
	if (w) {
		status = stream(w, t, o, selected, nselected);
		colw_free(w);
		if (status < 0)
			cli_error("libs: out of memory");
		return cli_stdout_done(status < 0) == CLI_EXIT_OK ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	tb = cli_table_new(o, "libraries", cols, selected, nselected);
	if (!tb)
		return CLI_EXIT_USAGE;
	if (fill(tb, t, o, selected, nselected, pids) < 0) {
		scols_unref_table(tb);
		cli_error("libs: out of memory");
		return CLI_EXIT_USAGE;
	}
	status = cli_table_print(tb);
	scols_unref_table(tb);
	return status == CLI_EXIT_OK ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}
