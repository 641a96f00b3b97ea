/*
 * symbol_text.h - a looked-up symbol (symbols.h) as text for a screen or a
 * table cell, the same in `at` and the explorer.
 *
 * ms_symbol_text_name writes "name+0xOFF" and ms_symbol_text_source
 * "[comp_dir/]file:LINE" into buf (size bytes, always NUL-terminated), the
 * names escaped with escape.h's flags: they are bytes from a file anyone
 * may have written.  A buffer of ms_symbol_text_bound bytes never cuts;
 * a smaller one cuts the names at a whole escape.  Each returns the length
 * written, 0 when the part is unknown (no name, no file).
 */
#ifndef MAPSCOPE_SYMBOL_TEXT_H
#define MAPSCOPE_SYMBOL_TEXT_H

#include <stddef.h>

#include "elf/symbols.h"

size_t ms_symbol_text_name(const struct ms_symbol *s, unsigned flags, char *buf, size_t size);
size_t ms_symbol_text_source(const struct ms_symbol *s, unsigned flags, char *buf, size_t size);
/* Bytes that hold either text of s whole. */
size_t ms_symbol_text_bound(const struct ms_symbol *s);

#endif
