/*
 * diff_files.h - `mapscope diff --by-file`: one row per file path added,
 * removed or changed between two sides (core/snap/filediff.h), with the
 * owning package and its version on each side.
 */
#ifndef MAPSCOPE_CLI_DIFF_FILES_H
#define MAPSCOPE_CLI_DIFF_FILES_H

#include "cli/cli.h"
#include "core/snap/snapshot.h"

/* The --by-file columns, for diff --help. */
void diff_files_help(void);

/* Check -o against the --by-file columns: CLI_EXIT_OK or CLI_EXIT_USAGE (message printed). */
int diff_files_columns(const struct cli_opts *o);

/* Compare and print; the exit status of diff(1). */
int diff_files_show(const struct cli_opts *o, const struct ms_snapshot *a, const struct ms_snapshot *b);

#endif
