/*
 * npmpkg.h - the npm package that owns a file under a node_modules
 * directory, from the package.json at its folder's root (what npm, yarn
 * and pnpm install: sharp's libvips in
 * node_modules/@img/sharp-libvips-linux-x64/lib/, a .node addon).
 *
 * The folder of a path: the components after its last component named
 * node_modules, "NAME" or "@SCOPE/NAME", when the path goes on below it
 * (ms_npmpkg_folder_of).  The innermost node_modules wins:
 * node_modules/a/node_modules/b/x.so is b's, and so is pnpm's
 * node_modules/.pnpm/b@1.0.0/node_modules/b/x.so.  A NAME or SCOPE that
 * is empty or starts with a dot (.bin, .pnpm, .cache) names no package.
 * The owner is the package whose FOLDER/package.json says so: its
 * top-level "name" must be the folder's NAME or "@SCOPE/NAME", byte for
 * byte, or the answer is refused (anyone who can write the tree can write
 * any name there, but not move the file out of the folder that names
 * it).  Its "version" is the version (a string; absent: none said).  The
 * answer is source MS_PKG_SOURCE_NPM with an empty arch; the name is the
 * whole "@SCOPE/NAME".
 *
 * Refused, with a reason (why, for tests and callers that show it):
 * package.json that is not JSON or not an object (json_scan.h), over
 * MS_NPMPKG_JSON_MAX bytes (not opened at all), not a regular file (a
 * FIFO is refused before any open), reached through a symlink, on a
 * daemon-served mount; a name that differs from the folder, is absent, or
 * is given twice; a version that is not a string, is given twice, or does
 * not fit.  No package.json: no owner.
 *
 * Cost: each package folder is looked at once per state (its answer kept,
 * whatever the number of files under it and of lookups), at most
 * MS_NPMPKG_FOLDERS folders and MS_NPMPKG_READ_MAX bytes of package.json
 * per state; what is beyond is "not found", never a guess.
 *
 * Safety: node_modules is a user's tree, so every directory and file is
 * reached through the untrusted walk from our own root with
 * MS_WALK_NO_SYMLINKS (walk_read.h): the kernel names a mapped file by its
 * canonical path, so a symlink on the way now was planted and is refused;
 * no step enters a daemon-served mount; only a regular file is opened,
 * non-blocking, into one bounded buffer.  The JSON reader is ours
 * (json_scan.h), small, fuzzed and allocation-free, so it runs in-process.
 * Names and versions are raw bytes (an escape sequence may be in both,
 * in the folder's name too): escape before display.
 *
 * The paths are in our root (owner.h); a path whose out[i].found is set
 * already is skipped.  0 or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_PKG_NPMPKG_H
#define MAPSCOPE_PKG_NPMPKG_H

#include <stddef.h>

#include "base/error.h"
#include "pkg/pkg.h"

#define MS_NPMPKG_JSON_MAX (1u << 20)
#define MS_NPMPKG_FOLDERS 4096u
#define MS_NPMPKG_READ_MAX (64u << 20)

/* What a state did, for tests and benches. */
struct ms_npmpkg_stats {
	size_t folders; /* package folders looked at */
	size_t files;   /* package.json files read */
	size_t bytes;   /* bytes of them */
	size_t refused; /* folders whose package.json was refused */
};

struct ms_npmpkg;

/*
 * The package folder of path (len bytes): the length of its prefix that
 * ends with the folder ("/a/node_modules/@s/n" of "/a/node_modules/@s/n/x.so"),
 * and in *name_at where NAME or @SCOPE starts in it; 0 when it has none.
 * Pure.
 */
size_t ms_npmpkg_folder_of(const char *path, size_t len, size_t *name_at);

/* Nothing is opened until a path under node_modules is asked about. */
int ms_npmpkg_open(struct ms_npmpkg **out, struct ms_error *err);
/*
 * why (may be NULL): for each path under a package folder that no owner
 * was found for, a reason ("package.json names another package") or
 * NULL; valid until close.
 */
int ms_npmpkg_find(struct ms_npmpkg *np, const char *const *paths, const size_t *lens, size_t n,
		   struct ms_pkg *out, const char **why, struct ms_error *err);
void ms_npmpkg_stats(const struct ms_npmpkg *np, struct ms_npmpkg_stats *st);
void ms_npmpkg_close(struct ms_npmpkg *np);

#endif
