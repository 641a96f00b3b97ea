/*
 * purl.h - the package URL (purl-spec) of a package a database answered
 * for (pkg.h's struct ms_pkg), at a given version, as the scanners that
 * read an SBOM (grype, trivy, Dependency-Track) match it:
 *   dpkg    pkg:deb/ID/NAME@VERSION?arch=ARCH&distro=ID-VERSION_ID&upstream=SOURCE
 *   rpm     pkg:rpm/ID/NAME@VERSION-RELEASE?arch=ARCH&distro=ID-VERSION_ID&epoch=EPOCH
 *           &upstream=SOURCE-VERSION-RELEASE.src.rpm
 *   python  pkg:pypi/NAME@VERSION
 *   npm     pkg:npm/NAME@VERSION, or pkg:npm/%40SCOPE/NAME@VERSION for "@SCOPE/NAME"
 *   note    its type's form for "deb" and "rpm" (with the distribution, as
 *           dpkg's and rpm's; the note's own osCpe is not read for it),
 *           else pkg:generic/NAME@VERSION?arch=ARCH (name kept as it is)
 *
 * The distribution is os-release's (osrelease.h; os NULL: unknown): ID,
 * lower-case, is the namespace of deb and rpm purls (Debian, Ubuntu and
 * every other dpkg or rpm distribution under its own ID), so without one
 * there is no deb or rpm purl.  distro is ID-VERSION_ID ("debian-12",
 * "fedora-40"); a release without VERSION_ID (Debian testing and sid)
 * names its VERSION_CODENAME ("debian-trixie": the deb type allows a
 * codename, and Debian's security tracker keys releases by it); with
 * neither, no distro qualifier.
 *
 * Names: deb lower-cased, rpm kept (case-sensitive), pypi lower-cased
 * with each run of '-', '_' and '.' as one '-' (the pypi type's
 * normalisation), npm scope and name lower-cased, the scope the
 * namespace.  arch: the package's (dpkg's stanza or list name, rpm's
 * header, the note's); none when the source names none.  rpm's "E:V-R"
 * versions carry their epoch as the epoch qualifier; a deb version keeps
 * its epoch, as dpkg writes it.  upstream (the qualifier syft writes and
 * grype matches by, pkg.h's src_name and src_version): deb SOURCE when
 * it is not the package's own name, SOURCE@SRCVERSION ('@' written %40)
 * when the source's version is not the binary's; rpm the source rpm's
 * file name.  A source version belongs to the installed version: for
 * another (a replaced copy that runs), deb says SOURCE alone and rpm,
 * whose file name needs it, says nothing.  Qualifiers come sorted by key
 * (arch, distro, epoch, upstream), the spec's canonical order; an empty
 * value is left out.  version NULL or "": a purl without a version (what
 * runs cannot be known).
 *
 * Encoding: every part is percent-encoded once, from its raw bytes, in
 * the canonical form packageurl-js writes (the package-url project's
 * reference library, whose parser a test round-trips every purl through;
 * the spec's "Character encoding" clause allows it): %XX, upper-case hex,
 * for every octet but
 *   name                 the letters, digits and "-._~!*'()"
 *   namespace            the same and ':'
 *   version              the same, ':' and '+' ("2.36-9+deb12u4",
 *                        "1:3.0.19-1", as scanners' own purls write them)
 *   qualifier values     only the letters, digits and "-._*" (form
 *                        encoding: '~' %7E, '@' %40, ':' %3A, '+' %2B)
 * so '/' is %2F, '"' %22, '\' %5C, ' ' %20, '?' %3F, '#' %23 and '&' %26
 * everywhere.  A byte that is not UTF-8 is written as U+FFFD
 * (%EF%BF%BD): a part must decode to UTF-8.  So a hostile name can
 * neither add a component nor a qualifier, nor break the URL, and a
 * parser gives back the name itself.
 *
 * ms_purl_of returns the length written, or 0 when there is none (an
 * unknown source, no distribution for deb or rpm, or an empty name) or
 * size is too small (MS_PURL_MAX always fits).  No I/O, no allocation.
 */
#ifndef MAPSCOPE_PURL_H
#define MAPSCOPE_PURL_H

#include <stdbool.h>
#include <stddef.h>

#include "pkg/osrelease.h"
#include "pkg/pkg.h"

/*
 * Every field used percent-encoded at worst (9 bytes for a byte written
 * as U+FFFD): name, version, arch, distro (two os-release fields) and
 * upstream (source name and version), plus the fixed text.
 */
#define MS_PURL_MAX 8192

size_t ms_purl_of(const struct ms_pkg *p, const char *version, const struct ms_osrelease *os, char *out,
		  size_t size);

/* The parts of a purl, each encoded its own way (above). */
enum ms_purl_part {
	MS_PURL_NAME,
	MS_PURL_NAMESPACE,
	MS_PURL_VERSION,
	MS_PURL_QUALIFIER,
};

/* Percent-encode len bytes as part (above), appended at out[*at]; false when size is short. */
bool ms_purl_encode(const char *s, size_t len, enum ms_purl_part part, char *out, size_t size, size_t *at);

#endif
