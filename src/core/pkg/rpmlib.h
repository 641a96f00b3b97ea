/*
 * rpmlib.h - librpm, loaded with dlopen when rpm's database is first
 * asked (rpmdb.h decides whether there is one to ask, and checks it first).
 *
 * Linked, librpm and what it needs (librpmio, libsqlite3, liblua, libpopt,
 * a crypto library...) would load at every start of mapscope, on every
 * system, though only rpm systems have a database for it to read.  So it
 * is loaded by soname (RPM_SONAME, found by configure; a test may name
 * another) through dlload.h, once per program; a missing library, or one
 * that lacks a function used here, is "no rpm": nothing is answered, and
 * no error is shown, as on a system without rpm.  Built without librpm's
 * headers (configure --with-librpm=no, or librpm-dev absent), the session
 * never opens.
 *
 * A session reads rpm's configuration from no file: rpm's macro files may
 * run commands when expanded (%(...), %{lua:...}), and mapscope runs
 * nothing.  It sets the one macro it needs, _dbpath, to the directory
 * rpmdb.h checked, sets the root, and opens the database read-only;
 * librpm finds the backend (sqlite, ndb, bdb_ro) from the files there.
 * Headers are not verified against their digests or signatures (that
 * would read keys and crypto configuration): the database is root's, and
 * its headers are what root installed.  librpm's log messages are kept
 * from the terminal (the explorer owns it) while a session is open.
 *
 * ms_rpmlib_owner asks for one path (exact, as rpm recorded it) through
 * the installed-file-names index: a lookup, never a scan.  Of the
 * packages that own it (a file shared by several), the answer is the one
 * whose name, then architecture, sorts first (strcmp), looking at no more
 * than MS_RPMLIB_OWNERS_MAX of them; a name, version or architecture that
 * does not fit struct ms_pkg is skipped, never cut.  The version is
 * VERSION-RELEASE, EPOCH:VERSION-RELEASE when the header has an epoch,
 * as rpm prints %{EVR}.  The source package comes from the header's
 * source rpm (SOURCERPM, "openssl-3.0.7-27.el9.src.rpm"), through
 * ms_rpmlib_source.  Not thread-safe: one session at a time.
 */
#ifndef MAPSCOPE_RPMLIB_H
#define MAPSCOPE_RPMLIB_H

#include <stdbool.h>

#include "pkg/pkgdb.h"

#define MS_RPMLIB_OWNERS_MAX 16

struct ms_rpmlib;

/*
 * Load soname (NULL: RPM_SONAME) if not loaded, and open the database at
 * root (absolute) + dbpath read-only.  The session, or NULL when librpm
 * is absent or the database does not open.
 */
struct ms_rpmlib *ms_rpmlib_open(const char *root, const char *dbpath, const char *soname);
/* Fill *out (source rpm) for path, NUL-terminated: true, or false when no package owns it. */
bool ms_rpmlib_owner(struct ms_rpmlib *s, const char *path, struct ms_pkg *out);
void ms_rpmlib_close(struct ms_rpmlib *s);

/*
 * The source package of p (pkg.h) from its source rpm's file name srpm
 * (NAME-VERSION-RELEASE.src.rpm; NULL: none): src_name NAME, and
 * src_version VERSION-RELEASE when it is not p->version's (its epoch
 * aside).  A name of another form, or one that does not fit, leaves both
 * empty: the file name is rebuilt from them (purl.h), so nothing is cut.
 * Pure, with or without librpm.
 */
void ms_rpmlib_source(const char *srpm, struct ms_pkg *p);

#endif
