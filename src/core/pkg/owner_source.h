/*
 * owner_source.h - one source of package ownership behind the owner
 * lookup (owner.h): dpkg, rpm, the ELF package note, Python, npm.  Each is
 * a module that fills one struct ms_owner_source; the table in owner.c
 * lists them in rank order, and the next ecosystem is a new file and one
 * line there.
 *
 * The contract of each hook:
 *   - open: ready the source for this run (cheaply: a source that is
 *     absent here, no dpkg database say, returns MS_ERR_NOTSUP and is left
 *     out).  Any error but MS_ERR_NOMEM leaves the source out too.
 *     *state is the source's own.
 *   - read_ahead (may be NULL): start reading early; the caller will ask.
 *   - find: called once per run with every path (in our root, " (deleted)"
 *     taken off).  It answers paths whose out[i].found is still false
 *     (found, source, name, arch, version), leaves the others' owner as it
 *     is, and may add its cross-check to them (the note's note_* fields).
 *     gone (may be NULL): gone[i] true where the file at paths[i] has
 *     nothing to read: the caller found nothing there just before, or read
 *     the file there itself and found no package note in it (fileinfo.h);
 *     a source that reads the file at the path skips those, a database
 *     still answers them (a list may name a file that was removed).  0 or MS_ERR_NOMEM; what cannot be read answers
 *     nothing.
 *   - running (may be NULL: then the copies it owns are UNKNOWN, "no
 *     history of its versions"): for each pkgs[i] with this source whose
 *     file was replaced or deleted (running_state is not INSTALLED on
 *     entry: the caller sets UNKNOWN before asking), set KNOWN with
 *     running, or UNKNOWN with running_why and the candidates (pkg.h),
 *     from copies[i].  0 or MS_ERR_NOMEM.
 *   - close.
 * system_db: the source is a system package database (dpkg, rpm): without
 * one open, callers say "not a dpkg or rpm system" rather than "not
 * packaged" for every file.
 *
 * Every source keeps the attacker model (DESIGN.md): bounded reads,
 * regular files only, no user's symlink followed, nothing run.
 */
#ifndef MAPSCOPE_OWNER_SOURCE_H
#define MAPSCOPE_OWNER_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "pkg/pkg.h"

struct ms_owner_opts;

struct ms_owner_source {
	const char *name; /* as ms_pkg_source_name says it */
	enum ms_pkg_source source;
	bool system_db;
	int (*open)(const struct ms_owner_opts *opts, void **state, struct ms_error *err);
	void (*read_ahead)(void *state);
	int (*find)(void *state, const char *const *paths, const size_t *lens, const bool *gone, size_t n,
		    struct ms_pkg *out, struct ms_error *err);
	int (*running)(void *state, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		       struct ms_error *err);
	void (*close)(void *state);
};

/* The sources, each defined in its own module. */
extern const struct ms_owner_source ms_owner_source_dpkg;   /* pkgdb.h, dpkglog.h */
extern const struct ms_owner_source ms_owner_source_rpm;    /* rpmdb.h */
extern const struct ms_owner_source ms_owner_source_python; /* pydist.h */
extern const struct ms_owner_source ms_owner_source_npm;    /* npmpkg.h */
extern const struct ms_owner_source ms_owner_source_note;   /* notepkg.h */

#endif
