/*
 * pymeta.h - a Python distribution's name and version, from the headers of
 * its METADATA (or PKG-INFO), or from the name of its *.dist-info (or
 * *.egg-info) directory.
 *
 * METADATA (the core metadata format) is email headers, "Name: value" a
 * line, then a blank line and the description; a line ends in "\r\n",
 * "\n" or a lone "\r", as Python's email parser ends it.  ms_pymeta_parse reads the
 * first "Name:" and "Version:" headers (their names in any case) of the
 * lines before the first blank one, the value without the spaces and tabs
 * around it.  The caller reads only the first bytes of the file
 * (pydist.h: MS_PYDIST_META_MAX), so text may end inside a line: unless
 * complete is set, a last line without its newline is not taken, and a
 * value is never one cut short.  A value that is empty, holds a NUL, CR
 * or LF, goes on in folded continuation lines, or does not fit in cap
 * bytes (its NUL included) is not taken either.  The answer: which of the two it
 * found (MS_PYMETA_NAME, MS_PYMETA_VERSION).
 *
 * ms_pymeta_from_dirname reads "NAME-VERSION.dist-info" (the binary
 * distribution format's name for the directory, NAME with its dashes
 * written as underscores): NAME is up to the first dash, VERSION the rest;
 * or setuptools' "NAME-VERSION[-pyX.Y[-PLATFORM]].egg-info", whose VERSION
 * ends at the next dash (an egg writes the dashes of both as underscores).
 * PKG-INFO, an egg-info's metadata, is read with ms_pymeta_parse: it is
 * the same format as METADATA.
 * The same answer, for the same rules on the values.
 *
 * Values are raw bytes: escape before display.  Pure: no I/O, bounded by
 * the bytes given.  Fuzzed (tests/fuzz/fuzz_pymeta.c).
 */
#ifndef MAPSCOPE_PKG_PYMETA_H
#define MAPSCOPE_PKG_PYMETA_H

#include <stdbool.h>
#include <stddef.h>

#define MS_PYMETA_NAME 1u
#define MS_PYMETA_VERSION 2u

unsigned ms_pymeta_parse(const char *text, size_t len, bool complete, char *name, size_t name_cap,
			 char *version, size_t version_cap);

unsigned ms_pymeta_from_dirname(const char *dir, size_t len, char *name, size_t name_cap,
				char *version, size_t version_cap);

#endif
