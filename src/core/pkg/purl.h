/*
 * purl.h - the package URL (purl-spec, docs/specification) of a package
 * a database answered for (pkgdb.h's struct ms_pkg), at a given version:
 *   dpkg    pkg:deb/VENDOR/NAME@VERSION?arch=ARCH
 *   rpm     pkg:rpm/VENDOR/NAME@VERSION-RELEASE?arch=ARCH&epoch=EPOCH
 *   python  pkg:pypi/NAME@VERSION
 *   npm     pkg:npm/NAME@VERSION, or pkg:npm/%40SCOPE/NAME@VERSION for "@SCOPE/NAME"
 *   note    its type's form for "deb" and "rpm" (the distribution given as
 *           VENDOR: the note's own osCpe is not read for it), else
 *           pkg:generic/NAME@VERSION?arch=ARCH (name kept as it is)
 * VENDOR is the distribution (os-release's ID, osrelease.h), lower-case;
 * a deb or rpm purl needs one, so without it there is none.  deb names are
 * lower-cased, rpm names kept as they are (case-sensitive), pypi names
 * lower-cased with '_' as '-' (the pypi type's normalisation), npm scopes
 * and names lower-cased (the npm type's), the scope a namespace.  rpm's
 * "E:V-R" versions carry their epoch as a qualifier.  arch comes only where the database named it (dpkg: the list
 * file's ":ARCH"; rpm: the header): a package dpkg lists without one gets
 * no arch qualifier rather than a guess.  version NULL or "": a purl
 * without a version (what runs cannot be known).
 *
 * Encoding: every component is percent-encoded once, from its raw bytes,
 * as the spec says: every octet but the letters, digits, ".-_~" and ':'
 * becomes %XX (upper-case hex), so '+' is %2B, '@' %40, '/' %2F, '"' %22,
 * '\' %5C.  A byte that is not UTF-8 is written as U+FFFD (%EF%BF%BD): a
 * component must decode to UTF-8.  So a hostile name can neither add a
 * component nor break the URL, and a parser gives back the name itself.
 *
 * ms_purl_of returns the length written, or 0 when there is none (an
 * unknown source, no vendor for deb or rpm, or an empty name) or size is
 * too small (MS_PURL_MAX always fits).  No I/O.
 */
#ifndef MAPSCOPE_PURL_H
#define MAPSCOPE_PURL_H

#include <stddef.h>

#include "pkg/pkgdb.h"

/* Every field of ms_pkg percent-encoded at worst (9 bytes for a byte as U+FFFD), plus the fixed text. */
#define MS_PURL_MAX 4096

size_t ms_purl_of(const struct ms_pkg *p, const char *version, const char *vendor, char *out, size_t size);

/* Percent-encode len bytes as the purl spec says (above), appended at out[*at]; false when size is short. */
bool ms_purl_encode(const char *s, size_t len, char *out, size_t size, size_t *at);

#endif
