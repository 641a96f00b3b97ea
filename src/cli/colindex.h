/*
 * colindex.h - every batch command's column table in one index, for what
 * needs to look past its own command: --list-columns prints a command's
 * table, and an -o column a command lacks is answered with the commands
 * that have it ("list: column WHY is not available here; stale -o has
 * it"), found by searching the tables, never written per column.  The
 * completions and the man page are tested against the same tables
 * (tests/test_columns_registry.sh).
 *
 * A table here is the whole set -o accepts for that command and option:
 * the command's own columns and those it borrows (who and diff take the
 * mapping columns of list).  Nothing here reads a process.
 */
#ifndef MAPSCOPE_CLI_COLINDEX_H
#define MAPSCOPE_CLI_COLINDEX_H

#include <stddef.h>

#include "cli/cli.h"

/* Room for the biggest table. */
#define CLI_COLINDEX_MAX 64

/* Each command's table, filled into out (CLI_COLINDEX_MAX entries); its count. */
size_t list_column_table(struct cli_column *out);
size_t list_file_column_table(struct cli_column *out);
size_t at_column_table(struct cli_column *out);
size_t stale_column_table(struct cli_column *out);
size_t who_column_table(struct cli_column *out);
size_t libs_column_table(struct cli_column *out);
size_t diff_column_table(struct cli_column *out);
size_t diff_file_column_table(struct cli_column *out);

/*
 * Where the column named name (len bytes, any case) is: "stale -o has it",
 * or "stale -o, libs -o have it", into buf (size bytes).  Returns how many
 * tables have it (0: buf is "").
 */
int cli_colindex_where(const char *name, size_t len, char *buf, size_t size);

#endif
