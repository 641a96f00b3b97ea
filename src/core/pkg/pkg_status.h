/*
 * pkg_status.h - the installed versions of packages, from dpkg's status
 * file (DIR/status, one stanza per package, stanzas apart by an empty
 * line).
 *
 * ms_pkg_status_versions fills version for each out[i] that is found and
 * has none yet, from the stanza of an installed package of its name (and
 * of its architecture, when both say one).  From the same stanza it fills
 * arch when out[i] has none ("Architecture:": a package that is not
 * Multi-Arch: same has a list file without ":ARCH", yet one architecture,
 * "all" included), and the source package (pkg.h): src_name from
 * "Source:" (the package's own name without one), src_version from
 * "Source: NAME (VERSION)" when VERSION is not the stanza's Version.
 * Each is cut to its field's size.  A stanza of a package not
 * installed (config-files, half-installed...) never answers.  Only the
 * stanzas of the packages asked about are read line by line, found by
 * their "Package:" lines.  The text is
 * read as bytes and bounded by len; it needs no terminating NUL.  It
 * prints nothing and allocates nothing.  ms_pkg_copy_field fills the
 * fixed fields of struct ms_pkg.
 */
#ifndef MAPSCOPE_PKG_STATUS_H
#define MAPSCOPE_PKG_STATUS_H

#include <stddef.h>

#include "base/error.h"
#include "pkg/pkgdb.h"

void ms_pkg_status_versions(const char *text, size_t len, struct ms_pkg *out, size_t n);

/*
 * Where the stanzas are, for an index of them (pkgindex.h): one entry for
 * each "Package:" line of text, in order, with the package's name (in
 * text) and the stanza ms_pkg_status_versions would read for that line
 * (off and len bytes in text).  So ms_pkg_status_versions over the
 * stanzas of the packages asked about, in the order of their offsets,
 * each followed by a newline, answers as over all of text.  0, or
 * MS_ERR_NOMEM with *out NULL.
 */
struct ms_pkg_stanza {
	const char *name;
	size_t name_len;
	size_t off, len;
};

int ms_pkg_status_stanzas(const char *text, size_t len, struct ms_pkg_stanza **out, size_t *count);

/*
 * The same from the open file fd (regular, opened by saferead.h), read a
 * piece at a time into one buffer of 64 KiB (grown to 1 MiB for a longer
 * stanza), at most max bytes: reading 800 KB whole into fresh memory
 * costs a page fault per 4 KiB, several milliseconds on a VM.  It stops
 * once every path found has its version: no later stanza could change an
 * answer.  0 or MS_ERR_NOMEM.
 */
int ms_pkg_status_versions_fd(int fd, size_t max, struct ms_pkg *out, size_t n);

/*
 * The same from DIR/status, opened through saferead.h (a regular file,
 * never blocking); a missing or unreadable file says no version.  0 or
 * MS_ERR_NOMEM.
 */
int ms_pkg_status_read_versions(const char *dir, size_t max, struct ms_pkg *out, size_t n);

/* len bytes of src into dst (size bytes), cut to fit, NUL-terminated. */
void ms_pkg_copy_field(char *dst, size_t size, const char *src, size_t len);

#endif
