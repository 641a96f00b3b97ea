/*
 * filepkg.h - the package of each file row of a process's file map
 * (filemap.h), asked of every package database at once (owner.h: dpkg,
 * rpm, Python distributions), for the rows asked about only.
 *
 * ms_filepkg_describe looks up, in one owner lookup, the file rows of
 * [from, from + n) whose package is not known yet (info.pkg_known), and
 * marks them known: found, or not found ("not packaged").  Rows of
 * anonymous memory, and rows whose name is not an exact path (the text
 * backend's ambiguous names), are marked known with nothing found and
 * pkg_why saying why.  A process under another root than ours (a
 * container, a chroot) is not asked about at all: our databases do not
 * describe its files, so every row says so in pkg_why rather than a wrong
 * "not packaged".
 *
 * A row whose verdict is known to be replaced or deleted (fileinfo.h
 * judges it whenever packages are asked) holds a copy older than the
 * package installed now: its running_state is then not INSTALLED, but the
 * version that ran where it can be known (owner.h, ms_owner_running: for
 * dpkg, its log read for the copy's start), else UNKNOWN.
 *
 * Answers are kept with the row: ms_filemap_build carries a described
 * row's info, pkg included, to the next map, so a view that refreshes does
 * not ask again; a caller that wants today's answers rebuilds without a
 * previous map.  Each call opens the databases afresh (they are read once
 * per lookup, owner.h), so a view asks for the rows on screen in one call.
 *
 * 0 or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_FILEPKG_H
#define MAPSCOPE_FILEPKG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "files/filemap.h"
#include "pkg/owner.h"
#include "proc/proc.h"

/*
 * opts: NULL for the system's databases (owner.h).  proc: the process the
 * map is of, whose start (or its ancestors' that map the same copy,
 * ancestry.h) dates the copies it holds; NULL leaves an old copy's version
 * unknown.
 */
int ms_filepkg_describe(const struct ms_owner_opts *opts, struct ms_filemap *fm, size_t from, size_t n,
			const struct ms_proc *proc, bool other_root, struct ms_error *err);

#endif
