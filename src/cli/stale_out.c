#include "config.h"

#include <inttypes.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/colindex.h"
#include "cli/colwriter.h"
#include "cli/stale_out.h"
#include "core/elf/buildid.h"
#include "core/base/escape.h"
#include "core/base/grow.h"

const struct cli_column stalecols[STALECOL_COUNT] = {
	[STALECOL_NAME] = { "NAME", 0.3, SCOLS_FL_TREE | SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false,
			    "command name of a process, or path of a file (escaped)" },
	[STALECOL_PID] = { "PID", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "process ID (process lines)" },
	[STALECOL_UNIT] = { "UNIT", 0.1, 0, SCOLS_JSON_STRING, false, "systemd unit of the process (process lines)" },
	[STALECOL_CONTAINER] = { "CONTAINER", 0.1, 0, SCOLS_JSON_STRING, false,
				 "where a process under another root lives: ENGINE:ID, machine:NAME or \"other root\"" },
	[STALECOL_VERDICT] = CLI_FACT(VERDICT, 8, 0, "(file lines)"),
	/*
	 * Not the PACKAGE fact: in a table one line for people, "libssl3
	 * 3.0.19-1 (now 3.0.22-1)" (ms_pkg_describe), the fact's bare name in
	 * JSON only.
	 */
	[STALECOL_PACKAGE] = { "PACKAGE", 0.1, 0, SCOLS_JSON_STRING, false,
			       "package (dpkg or rpm) owning a deleted or replaced file, the version of the copy "
			       "mapped and the version now (file lines; empty on systems without either, and for "
			       "processes under another root; in JSON the name alone)" },
	[STALECOL_VERSION] = CLI_FACT(VERSION, 0.1, 0, "(file lines)"),
	[STALECOL_INSTALLED] = CLI_FACT(INSTALLED, 0.1, 0, "(file lines)"),
	[STALECOL_PKGSRC] = CLI_FACT(PKGSRC, 6, 0, "(file lines)"),
	[STALECOL_VERWHY] = CLI_FACT(VERWHY, 0.2, SCOLS_FL_WRAP, "(file lines)"),
	[STALECOL_PKGNOTE] = CLI_FACT(PKGNOTE, 8, 0, "(file lines)"),
	[STALECOL_WHY] = { "WHY", 0.3, SCOLS_FL_WRAP, SCOLS_JSON_STRING, false, "why that verdict (file lines)" },
	[STALECOL_MAPS] = { "MAPS", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "mappings of the file in the process" },
	[STALECOL_EXE] = { "EXE", 3, 0, SCOLS_JSON_BOOLEAN, false, "the file is the process's executable" },
	[STALECOL_DEV] = { "DEV", 5, 0, SCOLS_JSON_STRING, false, "device of the mapped file, MAJ:MIN (file lines)" },
	[STALECOL_INODE] = { "INODE", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "inode of the mapped file (file lines)" },
	[STALECOL_BUILDID] = CLI_FACT(BUILDID, 40, 0, "(file lines)"),
};

size_t stale_column_table(struct cli_column *out)
{
	memcpy(out, stalecols, sizeof(stalecols));
	return STALECOL_COUNT;
}

static char *unit_text(const struct ms_stale_proc *p, unsigned esc)
{
	char text[4 * MS_UNIT_MAX + 32];

	if (!p->has_unit)
		return NULL;
	ms_unit_describe(&p->unit, esc, text, sizeof(text));
	return strdup(text);
}

static char *container_text(const struct ms_stale_proc *p, unsigned esc)
{
	char text[4 * MS_CONTAINER_NAME_MAX + 32];

	if (!p->other_root)
		return NULL;
	if (!p->has_container)
		return strdup("other root");
	ms_container_describe(&p->container, esc, text, sizeof(text));
	return strdup(text);
}

/* Cell text of a process line; NULL for an empty cell. */
static char *proc_cell(int col, const struct ms_stale_proc *p, unsigned esc)
{
	char *s = NULL;

	switch (col) {
	case STALECOL_NAME: return ms_escape_dup(p->comm, strnlen(p->comm, sizeof(p->comm)), esc);
	case STALECOL_PID: return asprintf(&s, "%d", (int)p->pid) < 0 ? NULL : s;
	case STALECOL_UNIT: return unit_text(p, esc);
	case STALECOL_CONTAINER: return container_text(p, esc);
	default: return NULL;
	}
}

/* The package of file j of p, when it was looked up and found. */
static const struct ms_pkg *package_of(const struct ms_stale_proc *p, const struct ms_stale_file *f)
{
	size_t j = (size_t)(f - p->files.items);

	return p->pkgs && j < p->files.count && p->pkgs[j].found ? &p->pkgs[j] : NULL;
}

/*
 * The facts of file f of p: a package was asked where p's were looked up
 * (not under another root) and f is stale; PKGSRC says "none" where no
 * source owns it.
 */
static void file_facts(const struct ms_stale_proc *p, const struct ms_stale_file *f, struct ms_fact_src *s)
{
	memset(s, 0, sizeof(*s));
	s->pkg = package_of(p, f);
	s->pkg_known = s->pkg || (p->pkgs && !p->other_root && ms_stale_verdict_is_stale(f->result.verdict));
	s->build_id = f->build_id;
	s->build_id_len = f->build_id_len;
	s->verdict_known = true;
	s->verdict = f->result.verdict;
}

/* PACKAGE: described in a table, the name alone in JSON. */
static char *package_cell(const struct ms_pkg *pkg, unsigned esc, bool json)
{
	char text[4 * 3 * 128 + 64];

	if (!pkg)
		return NULL;
	if (json)
		return ms_escape_dup(pkg->name, strnlen(pkg->name, sizeof(pkg->name)), esc);
	ms_pkg_describe(pkg, esc, text, sizeof(text));
	return strdup(text);
}

/* Cell text of a file line (of process p); NULL for an empty cell. */
static char *file_cell(int col, const struct ms_stale_proc *p, const struct ms_stale_file *f,
		       unsigned esc, bool json)
{
	char *s = NULL;

	if (stalecols[col].is_fact) {
		struct ms_fact_src src;

		file_facts(p, f, &src);
		return cli_cell_or_null(cli_fact_cell(&(struct cli_opts){ .json = json, .escape_flags = esc },
						  stalecols[col].fact, &src));
	}
	switch (col) {
	case STALECOL_PACKAGE: return package_cell(package_of(p, f), esc, json);
	case STALECOL_NAME: return ms_escape_dup(f->name, f->name_len, esc);
	case STALECOL_WHY: return ms_escape_dup(f->result.why, strlen(f->result.why), esc);
	case STALECOL_MAPS: return asprintf(&s, "%zu", f->mappings) < 0 ? NULL : s;
	case STALECOL_EXE: return strdup(f->is_exe ? "1" : "0");
	case STALECOL_DEV: return asprintf(&s, "%" PRIu32 ":%" PRIu32, f->dev_major, f->dev_minor) < 0 ? NULL : s;
	case STALECOL_INODE: return asprintf(&s, "%" PRIu64, f->inode) < 0 ? NULL : s;
	default: return NULL;
	}
}

/*
 * Where the lines go: libsmartcols' table (JSON, and tables on a
 * terminal) or the column writer (colwriter.h).  A line is a process's
 * (f NULL) or a file's (of process p); a child comes under the last root
 * line, and last says it is its parent's last child.
 */
struct sink {
	const int *selected;
	size_t nselected;
	unsigned esc;
	bool json;
	struct libscols_table *tb;
	struct libscols_line *parent;
	struct colw *w;
	int tree_col;        /* the writer: the NAME column's index, or -1 (raw, or not shown) */
	const char *branch;  /* the writer: a child's mark, and the last child's */
	const char *right;
};

static char *cell_text(const struct sink *k, size_t i, const struct ms_stale_proc *p,
		       const struct ms_stale_file *f)
{
	return f ? file_cell(k->selected[i], p, f, k->esc, k->json) : proc_cell(k->selected[i], p, k->esc);
}

static int scols_line(struct sink *k, bool child, const struct ms_stale_proc *p, const struct ms_stale_file *f)
{
	struct libscols_line *ln = scols_table_new_line(k->tb, child ? k->parent : NULL);

	if (!ln)
		return -1;
	for (size_t i = 0; i < k->nselected; i++) {
		char *text = cell_text(k, i, p, f);

		/* refer: the line owns the text from here. */
		if (text && scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
	if (!child)
		k->parent = ln;
	return 0;
}

/* A child's NAME as libsmartcols draws it in a one-level tree: the mark, then the name. */
static int colw_line(struct sink *k, bool child, bool last, const struct ms_stale_proc *p,
		     const struct ms_stale_file *f)
{
	for (size_t i = 0; i < k->nselected; i++) {
		char *text = cell_text(k, i, p, f);
		const char *mark = child && (int)i == k->tree_col ? (last ? k->right : k->branch) : "";
		size_t tlen = text ? strlen(text) : 0, mlen = strlen(mark);
		char *cell = colw_cell_buf(k->w, mlen + tlen + 1);

		if (!cell) {
			free(text);
			return -1;
		}
		memcpy(cell, mark, mlen);
		if (tlen)
			memcpy(cell + mlen, text, tlen);
		cell[mlen + tlen] = '\0';
		/* The mark is two columns wide: only the name is measured. */
		if (mlen)
			colw_cell_end_width(k->w, mlen + tlen, 2 + colw_width(text, tlen));
		else
			colw_cell_end(k->w, tlen);
		free(text);
	}
	return colw_row_end(k->w);
}

static int emit(struct sink *k, bool child, bool last, const struct ms_stale_proc *p,
		const struct ms_stale_file *f)
{
	return k->w ? colw_line(k, child, last, p, f) : scols_line(k, child, p, f);
}
struct file_ref {
	const struct ms_stale_proc *proc;
	const struct ms_stale_file *file;
};

static int file_ref_cmp(const void *a, const void *b)
{
	const struct ms_stale_file *x = ((const struct file_ref *)a)->file;
	const struct ms_stale_file *y = ((const struct file_ref *)b)->file;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	if (x->dev_major != y->dev_major)
		return x->dev_major < y->dev_major ? -1 : 1;
	if (x->dev_minor != y->dev_minor)
		return x->dev_minor < y->dev_minor ? -1 : 1;
	return (int)x->result.verdict - (int)y->result.verdict;
}

static int fill_by_file(struct sink *k, const struct ms_stale_report *r)
{
	struct file_ref *refs;
	size_t n = 0, total = 0;
	int rc = 0;

	for (size_t i = 0; i < r->count; i++)
		total += r->procs[i].files.count;
	refs = calloc(total ? total : 1, sizeof(*refs));
	if (!refs)
		return -1;
	for (size_t i = 0; i < r->count; i++)
		for (size_t j = 0; j < r->procs[i].files.count; j++)
			refs[n++] = (struct file_ref){ &r->procs[i], &r->procs[i].files.items[j] };
	/* The sort is stable enough: processes were added in PID order, compare ties by PID. */
	qsort(refs, n, sizeof(*refs), file_ref_cmp);
	for (size_t i = 0; i < n && rc == 0; i++) {
		bool last = i + 1 == n || file_ref_cmp(&refs[i], &refs[i + 1]) != 0;

		if (i == 0 || file_ref_cmp(&refs[i - 1], &refs[i]) != 0)
			rc = emit(k, false, false, refs[i].proc, refs[i].file);
		if (rc == 0)
			rc = emit(k, true, last, refs[i].proc, NULL);
	}
	free(refs);
	return rc;
}

static int fill_by_process(struct sink *k, const struct ms_stale_report *r)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct ms_stale_proc *p = &r->procs[i];

		if (!p->files.count)
			continue;
		if (emit(k, false, false, p, NULL) < 0)
			return -1;
		for (size_t j = 0; j < p->files.count; j++)
			if (emit(k, true, j + 1 == p->files.count, p, &p->files.items[j]) < 0)
				return -1;
	}
	return 0;
}

/*
 * The column writer, for tables that do not go to a terminal and for raw
 * output: libsmartcols measures every cell of a tree character by
 * character, most of stale's own time over a fleet.  NULL: libsmartcols.
 */
static int open_writer(struct sink *k, const struct cli_opts *o, bool *failed)
{
	bool utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");

	*failed = false;
	k->tree_col = -1;
	if (o->json)
		return 0;
	if (cli_writer_new(o, NULL, stalecols, k->selected, k->nselected, SIZE_MAX, &k->w) != CLI_EXIT_OK) {
		*failed = true;
		return -1;
	}
	if (!k->w)
		return 0;
	/* libsmartcols' tree marks: its Unicode ones in a UTF-8 locale, else ASCII. */
	k->branch = utf8 ? "\u251c\u2500" : "|-";
	k->right = utf8 ? "\u2514\u2500" : "`-";
	for (size_t i = 0; !o->raw && i < k->nselected; i++)
		if (stalecols[k->selected[i]].flags & SCOLS_FL_TREE)
			k->tree_col = (int)i;
	return 0;
}

int stale_print_tree(const struct ms_stale_report *r, const struct cli_opts *o,
		     const int *selected, size_t nselected, bool by_file)
{
	struct sink k = { .selected = selected, .nselected = nselected, .esc = o->escape_flags, .json = o->json };
	bool failed;
	int rc, status;

	if (open_writer(&k, o, &failed) < 0)
		return failed ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	if (!k.w) {
		k.tb = cli_table_new(o, by_file ? "files" : "processes", stalecols, selected, nselected);
		if (!k.tb)
			return CLI_EXIT_USAGE;
	}
	rc = by_file ? fill_by_file(&k, r) : fill_by_process(&k, r);
	if (rc == 0 && k.w)
		rc = colw_finish(k.w);
	if (rc < 0) {
		scols_unref_table(k.tb);
		colw_free(k.w);
		cli_error("stale: out of memory");
		return CLI_EXIT_USAGE;
	}
	if (k.w) {
		colw_free(k.w);
		return cli_stdout_done(0) == CLI_EXIT_OK ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	status = cli_table_print(k.tb);
	scols_unref_table(k.tb);
	return status == CLI_EXIT_OK ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}
