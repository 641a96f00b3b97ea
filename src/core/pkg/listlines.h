/*
 * listlines.h - the lines of one of dpkg's list files, measured fast.
 *
 * ms_pkg_split_lines writes the length of each line of t (len bytes) into
 * out, at most cap of them, and returns their number, or SIZE_MAX when
 * there are more.  A last line without a newline counts; an empty text
 * has none.  Newlines are found a block of 8 or 16 bytes at a time (SSE2
 * where the compiler has it): a memchr per line of 60 bytes is mostly
 * call, and finding newlines is most of a list's scan.  Pure: no I/O.
 */
#ifndef MAPSCOPE_PKG_LISTLINES_H
#define MAPSCOPE_PKG_LISTLINES_H

#include <stddef.h>
#include <stdint.h>

size_t ms_pkg_split_lines(const char *t, size_t len, uint32_t *out, size_t cap);

#endif
