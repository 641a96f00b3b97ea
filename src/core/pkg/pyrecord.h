/*
 * pyrecord.h - the paths a Python distribution's RECORD (or an egg-info's
 * installed-files.txt) names, read from its bytes (pydist.h reads the
 * file).
 *
 * RECORD (the wheel and installed-distribution formats) is CSV written by
 * Python's csv module: one record a line, "PATH,HASH,SIZE", the path
 * relative to the site directory (pip writes "../../../bin/tool" for a
 * script installed beside it, and old tools wrote absolute paths).  A
 * field that holds a comma, a quote or a newline is quoted, with a quote
 * inside doubled, and may then span lines.
 *
 * ms_pyrecord_next gives the first field of each record, unquoted, into
 * the caller's buffer: a record whose path does not fit in it (cap bytes),
 * an empty path, and a quoted field that never closes are skipped.  Lines
 * end in "\n" or "\r\n"; a last line without one counts.  It only moves
 * forward through text, so one pass costs one read of the bytes.
 *
 * ms_pyrecord_egg_next reads an egg-info's installed-files.txt instead
 * (setuptools' older format): one path a line, relative to the egg-info
 * directory itself ("../foo/_bar.so", "PKG-INFO"), no quoting.  It gives
 * each as "EGGDIR/LINE" (an absolute line as it is), ready for
 * ms_pyrecord_site_relative; a line ends in "\n" or "\r\n", a last one
 * without counts, and an empty line or one that does not fit is skipped.
 *
 * ms_pyrecord_site_relative turns such a path into the path relative to
 * the site directory, lexically, in place: "." and empty components go,
 * ".." takes the one before it off.  A relative path that climbs out of
 * the site directory, and an absolute path not below site (site_len
 * bytes, as the kernel names it: no "." or ".." or double slash), are
 * none of this distribution's files there: SIZE_MAX.  A RECORD names only
 * files under its own site directory.
 *
 * ms_pyrecord_site_of gives the length of a path's site directory: its
 * prefix up to its last component named site-packages or dist-packages
 * that has more after it; 0 when it has none.
 *
 * Pure: no I/O, no allocation, bounded by the bytes given.  Fuzzed
 * (tests/fuzz/fuzz_pyrecord.c).
 */
#ifndef MAPSCOPE_PKG_PYRECORD_H
#define MAPSCOPE_PKG_PYRECORD_H

#include <stdbool.h>
#include <stddef.h>

struct ms_pyrecord_iter {
	const char *text;
	size_t len;
	size_t pos;
};

/* true with the next record's path in buf (*out_len bytes, NUL-terminated); false at the end. */
bool ms_pyrecord_next(struct ms_pyrecord_iter *it, char *buf, size_t cap, size_t *out_len);

/* The same for installed-files.txt in the egg-info directory eggdir (a name, no slash). */
bool ms_pyrecord_egg_next(struct ms_pyrecord_iter *it, const char *eggdir, char *buf, size_t cap,
			  size_t *out_len);

/* The new length of path (len bytes, rewritten in place), or SIZE_MAX: outside site. */
size_t ms_pyrecord_site_relative(const char *site, size_t site_len, char *path, size_t len);

size_t ms_pyrecord_site_of(const char *path, size_t len);

#endif
