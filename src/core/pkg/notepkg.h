/*
 * notepkg.h - the ELF package note (elf/pkgnote.h) as an owner source
 * (owner_source.h: ms_owner_source_note, ranked after dpkg and rpm and
 * before Python).
 *
 * What it answers:
 *   - a path no database owns, whose file carries a package note: found,
 *     source MS_PKG_SOURCE_NOTE, with the note's name, version and
 *     architecture, and its packaging type in note_type (the purl type);
 *   - a path dpkg or rpm owns: a cross-check.  When the note names
 *     another version than the database (an epoch the note leaves out
 *     does not count), note_differs is set with the note's name and
 *     version, and every front end shows both (pkg.h).  Names are not
 *     compared: the spec's "name" is the source package (Debian's
 *     libssl3 says "openssl"), where dpkg and rpm name the binary one.
 *     So a binNMU (1.2-3+b1 built from 1.2-3) shows as a difference: the
 *     note is the source's version, and that is what it says.
 *   - the running copy of a replaced or deleted file the note owns: its
 *     own note, read through /proc/PID/map_files (mapfiles.h: root only,
 *     the mapped inode, a regular file, on a kernel-served mount), gives
 *     KNOWN with its version; otherwise UNKNOWN with the reason
 *     ("reading the running copy needs root").
 *
 * Safety: the note is the file's own word, written by whoever wrote the
 * file (a user, for a file in their home), so it answers only where no
 * database does, and never replaces a database's answer.  Each path is
 * reached through the untrusted walk from our own root
 * (untrusted_walk.h, MS_WALK_NO_SYMLINKS: the kernel names a mapped file
 * by its canonical path, so a symlink on the way now was planted): never
 * into a daemon-served mount, a regular file only (a FIFO or a device is
 * refused before any open), opened non-blocking through the checked
 * descriptor.  The reader is pkgnote.h's: at most MS_PKGNOTE_READ_MAX
 * bytes, one MS_PKGNOTE_FIRST_READ read for almost every file, our own
 * allocation-free parser, so it runs in-process.
 *
 * Cost: one walk and one small read per path asked (the walk's directory
 * cache shares the directories).  Errors: MS_ERR_NOMEM only; a file that
 * cannot be read or holds no note answers nothing.  Names and versions
 * are raw bytes: escape before display.
 */
#ifndef MAPSCOPE_PKG_NOTEPKG_H
#define MAPSCOPE_PKG_NOTEPKG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "pkg/pkg.h"

struct ms_notepkg;

int ms_notepkg_open(struct ms_notepkg **out, struct ms_error *err);
void ms_notepkg_close(struct ms_notepkg *np);
/* owner_source.h's find and running hooks. */
int ms_notepkg_find(struct ms_notepkg *np, const char *const *paths, const size_t *lens, const bool *gone,
		    size_t n, struct ms_pkg *out, struct ms_error *err);
int ms_notepkg_running(struct ms_notepkg *np, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		       struct ms_error *err);

#endif
