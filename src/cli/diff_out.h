/*
 * diff_out.h - what `mapscope diff` prints after its walk, whichever walk
 * it was (mappings, or files with --by-file): the table, or with -J one
 * document holding the table and a "summary" object; without -J the
 * summary line goes to stderr.  The exit status follows diff(1).
 */
#ifndef MAPSCOPE_CLI_DIFF_OUT_H
#define MAPSCOPE_CLI_DIFF_OUT_H

#include <stdint.h>

#include "cli/cli.h"
#include "core/maps/mapdiff.h"

#define DIFF_EXIT_SAME 0
#define DIFF_EXIT_DIFFERENT 1
#define DIFF_EXIT_TROUBLE 2

/*
 * Print tb and the summary (with_moved: with its "moved" count); returns
 * DIFF_EXIT_SAME, DIFF_EXIT_DIFFERENT, or DIFF_EXIT_TROUBLE when writing
 * failed (a closed pipe is quiet and keeps the status).
 */
int diff_print(const struct cli_opts *o, struct libscols_table *tb, const struct ms_diff_summary *s,
	       bool with_moved);

/* new - old as "+4K" or "-4K" ("0" when equal), or a plain number with -b; malloc'd. */
char *diff_size_delta(const struct cli_opts *o, uint64_t old, uint64_t new);

/* "added", "removed" or "changed". */
const char *diff_kind_name(enum ms_diff_kind kind);

#endif
