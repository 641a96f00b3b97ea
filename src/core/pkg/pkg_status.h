/*
 * pkg_status.h - the installed versions of packages, from dpkg's status
 * file (DIR/status, one stanza per package, stanzas apart by an empty
 * line).
 *
 * ms_pkg_status_versions fills version for each out[i] that is found and
 * has none yet, from the stanza of an installed package of its name (and
 * of its architecture, when both say one).  A stanza of a package not
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

#include "pkg/pkgdb.h"

void ms_pkg_status_versions(const char *text, size_t len, struct ms_pkg *out, size_t n);

/* len bytes of src into dst (size bytes), cut to fit, NUL-terminated. */
void ms_pkg_copy_field(char *dst, size_t size, const char *src, size_t len);

#endif
