/* `mapscope list PID -o ...,PACKAGE`: each mapping with its file's facts; see listcols.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/colindex.h"
#include "cli/filecols.h"
#include "cli/listcols.h"
#include "core/files/fileinfo.h"
#include "core/files/filemap.h"

/* The facts a mapping has through its file. */
static const struct cli_column fact_cols[LISTCOL_COUNT - LISTCOL_FACT0] = {
	CLI_FACT(PACKAGE, 8, 0, "(of the mapping's file)"),
	CLI_FACT(VERSION, 10, 0, NULL),
	CLI_FACT(INSTALLED, 10, 0, NULL),
	CLI_FACT(PKGSRC, 6, 0, NULL),
	CLI_FACT(VENDORED, 8, 0, NULL),
	CLI_FACT(VERWHY, 0.2, SCOLS_FL_WRAP, NULL),
	CLI_FACT(PKGNOTE, 8, 0, NULL),
	CLI_FACT(SONAME, 12, 0, NULL),
	CLI_FACT(LIBVER, 12, 0, NULL),
	CLI_FACT(FILEVER, 7, 0, NULL),
	CLI_FACT(VERDICT, 8, 0, NULL),
};

struct cli_column listcols[LISTCOL_COUNT];

void listcols_init(void)
{
	memcpy(listcols, mapcols, MAPCOL_LIST_COUNT * sizeof(mapcols[0]));
	memcpy(listcols + LISTCOL_FACT0, fact_cols, sizeof(fact_cols));
}

size_t list_column_table(struct cli_column *out)
{
	listcols_init();
	memcpy(out, listcols, sizeof(listcols));
	return LISTCOL_COUNT;
}

bool listcols_want_facts(const int *selected, size_t nselected)
{
	for (size_t i = 0; i < nselected; i++)
		if (selected[i] >= LISTCOL_FACT0)
			return true;
	return false;
}

struct fact_lines {
	const struct cli_opts *o;
	const int *selected;
	size_t n;
	const struct ms_maplist *list;
	const struct ms_filemap *fm;
	const struct ms_resinfo *res;
};

static int add_lines(struct libscols_table *tb, void *ctx)
{
	const struct fact_lines *fl = ctx;

	for (size_t i = 0; i < fl->list->count; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		struct ms_fact_src src;

		if (!ln)
			return -1;
		ms_fact_src_fileinfo(&src, &fl->fm->rows[fl->fm->row_of[i]].info);
		for (size_t c = 0; c < fl->n; c++) {
			int col = fl->selected[c];
			char *text = col >= LISTCOL_FACT0 ? cli_fact_cell(fl->o, listcols[col].fact, &src)
							  : mapcols_render_res(fl->o, col, &fl->list->items[i], 0,
									       fl->res ? &fl->res[i] : NULL);

			if (!text || scols_line_refer_data(ln, c, text) < 0) {
				free(text);
				return -1;
			}
		}
	}
	return 0;
}

int cmd_list_facts(pid_t pid, const struct cli_opts *o, const int *selected, size_t nselected)
{
	struct filecols_run run;
	struct ms_resinfo *res = NULL;
	bool rss;
	unsigned what = filecols_fileinfo(listcols, selected, nselected, &rss);
	int status = filecols_collect(pid, o, mapcols_fields(selected, nselected), what, false, &run);

	if (status == CLI_EXIT_OK && mapcols_want_residency(selected, nselected, 0))
		status = mapcols_residency(run.proc, &run.list, &res);
	if (status == CLI_EXIT_OK) {
		struct fact_lines fl = { o, selected, nselected, &run.list, &run.fm, res };

		status = cli_table_fill_print(o, "mappings", listcols, selected, nselected, add_lines, &fl);
	}
	free(res);
	filecols_run_free(&run);
	return status;
}
