/*
 * rpmdb.h - the rpm package that owns a file, from rpm's database through
 * librpm (rpmlib.h), on rpm systems; elsewhere nothing, cheaply.
 *
 * ms_rpmdb_open looks for the database under ROOT (opts root, resolved
 * once with realpath; NULL: "/") without librpm: in ROOT/usr/lib/sysimage/rpm (Fedora 36 on, openSUSE),
 * then ROOT/var/lib/rpm, the first that is a directory holding a database
 * file (rpmdb.sqlite, Packages.db or Packages).  Debian's rpm package
 * ships an empty /var/lib/rpm: no database file, no rpm.  A symlink on
 * the way is not followed (Fedora's /var/lib/rpm is one, to the first
 * place), and rpm's configured _dbpath is not read: that would need
 * librpm and its macro files (rpmlib.h).  Without a database: MS_ERR_NOTSUP,
 * and librpm is never loaded.
 *
 * Why librpm may run in this process: the database is root's, and what
 * it says was written by rpm as root from packages root installed.  So
 * the open refuses (MS_ERR_NOACCESS, the message naming what and whose)
 * unless ROOT, every directory from it down to the database and the
 * database directory itself are owned by root and writable by no group or
 * other, and every entry of the database directory (at most
 * MS_RPMDB_ENTRIES) is a regular file with the same owner and modes; no
 * user can then change what librpm reads, nor swap a path it opens, and
 * librpm opens nothing a user chose.  ROOT's own parents are the caller's
 * (a test's private root under /tmp), not checked.
 *
 * ms_rpmdb_find answers the paths not found yet (out[i].found false) and
 * leaves the others; librpm is loaded and the database opened at the
 * first find that has a path to ask, once per open database.  Each path
 * is one lookup in rpm's index of installed file names (rpmlib.h), and
 * under merged /usr its other spelling (/lib/... for /usr/lib/...) when
 * the first is not found.  Paths are as the kernel names them in our
 * root: under another ROOT only those below it are asked, ROOT taken
 * off (ROOT/usr/lib/x.so is rpm's /usr/lib/x.so), the others not at all.
 * Bounded: at most MS_RPMDB_PATHS paths per find and
 * MS_RPMDB_DEADLINE_MS of lookups; the paths beyond, a path longer than
 * PATH_MAX or holding a NUL, are not found (never a guess).  A library or
 * database that fails answers nothing, with no error.
 *
 * rpm's database keeps no history of the versions it replaced: the
 * version of a deleted or replaced copy comes from dnf's and yum's logs
 * (rpmlog.h, the rpm source's running hook), else it is unknown.  The
 * header's INSTALLTIME against the process's start would only say that
 * the installed version came after the process, not which version ran;
 * it is not used.
 *
 * find returns 0: what fails answers nothing.  Names and versions are
 * raw bytes: escape before display.
 */
#ifndef MAPSCOPE_RPMDB_H
#define MAPSCOPE_RPMDB_H

#include <stddef.h>

#include "base/error.h"
#include "pkg/pkgdb.h"

#define MS_RPMDB_ENTRIES 1024
#define MS_RPMDB_PATHS 8192
#define MS_RPMDB_DEADLINE_MS 3000

struct ms_rpmdb_opts {
	const char *root;   /* absolute; NULL: "/" */
	const char *soname; /* for tests: the library to load; NULL: RPM_SONAME */
};

struct ms_rpmdb;

/* 0, MS_ERR_NOTSUP (no database), MS_ERR_NOACCESS (refused), MS_ERR_LIMIT (too many
 * entries), MS_ERR_IO (the directory changed while read), MS_ERR_INVAL or MS_ERR_NOMEM. */
int ms_rpmdb_open(const struct ms_rpmdb_opts *opts, struct ms_rpmdb **out, struct ms_error *err);
/* 0. */
int ms_rpmdb_find(struct ms_rpmdb *db, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err);
void ms_rpmdb_close(struct ms_rpmdb *db);

#endif
