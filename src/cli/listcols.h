/*
 * listcols.h - the columns of `mapscope list PID`: the mapping columns
 * (mapcols.h), then the facts of the file each mapping maps (facts.h:
 * PACKAGE, VERSION, SONAME...), as `list --by-file` shows them per file.
 *
 * A listing that selects no fact streams the mappings as they come
 * (cmd_list.c).  One that selects a fact collects them, groups them by
 * file (filemap.h), describes each file once for the facts selected, and
 * only for what they cost (fileinfo.h), then gives every mapping its
 * file's facts: a library mapped five times is looked up once.
 */
#ifndef MAPSCOPE_CLI_LISTCOLS_H
#define MAPSCOPE_CLI_LISTCOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/cli.h"
#include "cli/mapcols.h"

enum {
	LISTCOL_FACT0 = MAPCOL_LIST_COUNT,
	LISTCOL_COUNT = LISTCOL_FACT0 + 11,
};

/* The table (listcols_init fills it once). */
extern struct cli_column listcols[LISTCOL_COUNT];
void listcols_init(void);

/* Does the selection hold a fact column? */
bool listcols_want_facts(const int *selected, size_t nselected);

/* The listing with facts, once `list` has parsed its options and columns. */
int cmd_list_facts(pid_t pid, const struct cli_opts *o, const int *selected, size_t nselected);

#endif
