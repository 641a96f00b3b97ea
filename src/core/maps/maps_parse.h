/*
 * maps_parse.h - the parser for the text of /proc/PID/maps.
 *
 * A line is "START-END PERMS OFFSET MAJ:MIN INODE [NAME]" (show_map_vma in
 * fs/proc/task_mmu.c): addresses, offset and device numbers in hex, the inode
 * in decimal, the name after padding spaces.  The kernel escapes only '\n' in
 * names, as "\012"; the parser decodes that and nothing else, since a
 * backslash itself is not escaped.  Every other byte of a name passes through
 * raw.
 *
 * The streaming parser takes the file in chunks of any size, copes with lines
 * of any length up to MS_TEXT_LINE_MAX (longer ones are skipped as malformed,
 * without buffering them), and hands each record to an emit callback.  Lines
 * that do not parse are skipped and counted, never fatal.
 */
#ifndef MAPSCOPE_MAPS_PARSE_H
#define MAPSCOPE_MAPS_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "maps/mapping.h"

/* A path of PATH_MAX bytes, every byte a newline escaped to 4, plus fields. */
#define MS_TEXT_LINE_MAX (4 * 4096 + 256)

/*
 * Parse one line (without its '\n') into *out, whose name is replaced.
 * page_size is left as is.  Returns 0, -1 if malformed, or MS_ERR_NOMEM.
 */
int ms_maps_parse_line(const char *line, size_t len, struct ms_mapping *out);

/* Returns 0 to go on, or a negative error that stops the parse. */
typedef int (*ms_text_emit_fn)(void *ctx, struct ms_mapping *m);

struct ms_text_parser {
	ms_text_emit_fn emit;
	void *ctx;
	char *line;
	size_t len;
	size_t cap;
	bool overlong;   /* inside a line already known to be too long */
	size_t lines;
	size_t malformed;
};

void ms_text_parser_init(struct ms_text_parser *p, ms_text_emit_fn emit, void *ctx);
int ms_text_parser_feed(struct ms_text_parser *p, const char *data, size_t n);
/* Parse a last line that had no newline. */
int ms_text_parser_finish(struct ms_text_parser *p);
void ms_text_parser_free(struct ms_text_parser *p);

#endif
