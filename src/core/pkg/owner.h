/*
 * owner.h - the package that owns a mapped file, whichever source knows:
 * the table of sources in owner.c (owner_source.h), asked in rank order
 * (dpkg, rpm, then Python distributions), each for the paths the ones
 * before did not answer.  The answer (struct ms_pkg, pkg.h) says which
 * source gave it; a path none of them owns is found = false, source
 * MS_PKG_SOURCE_NONE: "not packaged".
 *
 * Paths are as the kernel names them in our root (the callers ask only for
 * processes in our root), " (deleted)" already taken off by the caller.
 * Each database keeps its own attacker-model rules (its header says
 * which); none runs a program, and none follows a user's symlinks.
 *
 * An owner is opened once per run and asked once (ms_owner_find), as the
 * dpkg database is; ms_owner_read_ahead starts dpkg's reader thread when
 * a caller knows it will ask.  ms_owner_has_db says whether any system
 * database (dpkg or rpm) exists here; without one, callers say "not a
 * dpkg or rpm system" rather than "not packaged" for every file.
 *
 * Errors: MS_ERR_NOMEM only; a database that cannot be read answers
 * nothing for its paths.  Names and versions are raw bytes: escape before
 * display.
 */
#ifndef MAPSCOPE_OWNER_H
#define MAPSCOPE_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/error.h"
#include "pkg/pkgdb.h"

struct ms_owner_opts {
	const char *dpkg_dir;   /* NULL: MS_PKGDB_DIR */
	const char *index_path; /* dpkg's negative index (pkgindex.h); NULL: none */
	bool read_ahead;        /* start dpkg's reader now */
	const char *rpm_root;   /* whose rpm database answers for the paths below it (rpmdb.h); NULL: "/" */
	const char *dpkg_log_dir; /* dpkg's log (dpkglog.h); NULL: MS_DPKGLOG_DIR */
	const char *rpm_log_dir;  /* dnf's and yum's logs (rpmlog.h); NULL: MS_RPMLOG_DIR */
};

struct ms_owner;

/* 0 or MS_ERR_NOMEM.  opts NULL: the system's databases, with the index. */
int ms_owner_open(const struct ms_owner_opts *opts, struct ms_owner **out, struct ms_error *err);
void ms_owner_read_ahead(struct ms_owner *o);
bool ms_owner_has_db(const struct ms_owner *o);
/* Once per open owner: out[i] for paths[i] (lens[i] bytes).  0 or MS_ERR_NOMEM. */
int ms_owner_find(struct ms_owner *o, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err);
/*
 * The same, told what the caller saw: gone[i] true where there is no
 * package note to read at paths[i]: nothing was there just before (a
 * deleted file's path), or the caller has just read the file there and it
 * has none.  The package note, read from the file at the path, is not
 * looked for there; the databases still answer (owner_source.h).
 */
int ms_owner_find_seen(struct ms_owner *o, const char *const *paths, const size_t *lens, const bool *gone,
		       size_t n, struct ms_pkg *out, struct ms_error *err);
/*
 * Both ask each distinct question once: a path (with its gone hint) for
 * ms_owner_find_seen, a copy (device, inode, start, unlink time, with the
 * same lookup answer) for ms_owner_running, whose history is read through
 * one of its holders that has a mapping.  After an upgrade, every worker
 * of a server asks the same.  How many paths and copies went to the
 * sources so far:
 */
void ms_owner_counts(const struct ms_owner *o, size_t *asked, size_t *dated);
void ms_owner_close(struct ms_owner *o);
/*
 * The version of the copy a process maps, for found files that were
 * replaced or deleted: pkgs[i] (from ms_owner_find), the copy copies[i]
 * (pkg.h: its unlink time, its holders' start, one mapping of it), gets
 * running_state KNOWN or UNKNOWN with its reason, from the history of the
 * source that owns it (owner_source.h; dpkg: dpkglog.h; a source with
 * none: UNKNOWN).  Pass only the copies to date; the others found = false.
 * 0 or MS_ERR_NOMEM.
 */
int ms_owner_running(struct ms_owner *o, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		     struct ms_error *err);

/* open (the system's databases), find, close. */
int ms_owner_lookup(const char *const *paths, const size_t *lens, size_t n, struct ms_pkg *out,
		    struct ms_error *err);

#endif
