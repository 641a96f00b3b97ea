/*
 * units.h - the words both front ends read and write: process IDs,
 * addresses and sizes.
 *
 * ms_parse_pid takes a decimal PID from 1 to INT32_MAX, nothing around it.
 * ms_parse_addr takes a hexadecimal address, with or without 0x, and no
 * sign.  Both return 0 with the value, or -1 and say nothing: the front end
 * words the message.
 *
 * ms_format_size writes a size as lsblk does: "512B", "4K", "1.5M" (binary
 * units, one decimal dropped when it is zero), or the plain number of bytes
 * when in_bytes (the -b option); it returns the length written, without
 * the NUL.
 *
 * ms_format_hex and ms_format_dec write a number without a NUL into buf
 * (MS_NUM_MAX bytes are always enough) and return its length: lower-case
 * hex without 0x, and decimal.  They are printf's %x and %u without the
 * cost of a format string, for listings of tens of thousands of rows.
 *
 * ms_plural picks the word for a count in a message: one for exactly 1,
 * many otherwise ("1 process", "0 processes", "2 processes").
 */
#ifndef MAPSCOPE_UNITS_H
#define MAPSCOPE_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int ms_parse_pid(const char *s, pid_t *pid);
int ms_parse_addr(const char *s, uint64_t *addr);
size_t ms_format_size(uint64_t bytes, bool in_bytes, char *buf, size_t size);

#define MS_NUM_MAX 20
size_t ms_format_hex(uint64_t v, char *buf);
size_t ms_format_dec(uint64_t v, char *buf);

const char *ms_plural(uint64_t n, const char *one, const char *many);

#endif
