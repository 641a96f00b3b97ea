/*
 * filematch.h - which file mappings a name that a person typed stands for,
 * and which copy of the file each one holds.  For `who` (and `libs`, which
 * matches the same way).
 *
 * A pattern is taken as typed:
 *   - with a '/', a path.  It matches the mappings of the file now at the
 *     path (device and inode, symlinks followed, so hard links and renamed
 *     names match too: MS_FILEMATCH_FILE), and the mappings the kernel
 *     names with that path, with or without its " (deleted)" suffix: the
 *     copies that were deleted or replaced since (MS_FILEMATCH_PATH).  The
 *     path is made absolute (against the working directory) and '.', '..'
 *     and repeated slashes are taken out by their text; then its directory
 *     is looked up, and so is the path itself, so a name through a
 *     symlinked directory (/lib on a merged /usr) and a symlink's target
 *     (libz.so.1 -> libz.so.1.2.13) are compared in the kernel's spelling
 *     too.  Nothing need be at the path any more; a path that cannot be
 *     looked up for another reason (it crosses a daemon-served mount, or
 *     one the mount table does not know) is refused by ms_filematch_add,
 *     with the walk's reason;
 *   - without one, a base name or SONAME, in any directory: a mapping
 *     matches when the last component of its name (less " (deleted)") is
 *     the pattern, or matches it as an fnmatch(3) glob ("libssl*")
 *     (MS_FILEMATCH_NAME); failing that, when the SONAME of its file is
 *     the pattern or matches it (MS_FILEMATCH_SONAME).
 * A mapping matches the first pattern, in the order added, that matches it
 * by device and inode, path or base name; failing all those, the first
 * whose SONAME matches.  Add every pattern before the first test.
 *
 * Search as people type (`libs` and its view; `who` keeps the exact
 * meaning above): after ms_filematch_substrings, a plain pattern (no '/',
 * no glob character * ? [ or backslash) also matches a part of a base name
 * or SONAME ("ssl" matches libssl.so.3), and a part of a package's name or
 * of its source package's (ms_filematch_test_package: the caller has the
 * package, this module never looks one up).  A hit says whether it was
 * exact: the whole base name, SONAME or package name (globs and paths are
 * always exact), so that a caller can list exact matches first.  A mapping
 * whose base name only contains a pattern still has its SONAME read, for a
 * pattern it is the whole of.
 *
 * SONAMEs are read only for name patterns, and only for mappings their base
 * name did not match: once per distinct file (device and inode) per
 * matcher, whichever process maps it, and remembered as which patterns
 * matched (not the name).  The file is the very one mapped, opened the way
 * the files view opens it (mapfiles.h: the file at the mapping's path under
 * the process's root when it is the mapped inode, never on a daemon-served
 * file system; else the running copy through map_files, root only), then
 * read by soname.h's bounded reader.  The kernel's names for memory on no
 * file system (memfd, SysV shm...: "/memfd:x (deleted)" on a device of
 * major 0) are not files with a SONAME, and are not read.  At most
 * MS_FILEMATCH_SONAME_FILES files are read in one matcher's life, whatever
 * processes map; past that,
 * and where a file cannot be opened, its SONAME is unknown and it matches
 * by name only.  ms_filematch_soname_unknown counts those files (the
 * files past the bound count as one) and keeps the first reason, for the
 * caller to say once.
 *
 * Which copy (ms_filematch_copy), asked only by callers who show it:
 *   - current: a match by device and inode is the file now at the path
 *     given; any other match is judged at its own name by the stale
 *     verdict (stale.h: under the process's root, with no ignore rules),
 *     and current is its "ok";
 *   - replaced: another file is at that path now (the verdict's replaced
 *     or same build);
 *   - deleted: nothing is at that path now;
 *   - unknown: the verdict could not tell (the process's root cannot be
 *     opened, the path crosses a daemon-served or unknown mount, the name
 *     is not a path).
 * maps, the mapping's process, serves only to read SONAMEs and to judge
 * copies: a caller with neither (path patterns, a match by device and
 * inode) may pass NULL.
 *
 * Errors: ms_filematch_add returns MS_ERR_INVAL (an empty pattern, or more
 * than MS_FILEMATCH_MAX), MS_ERR_IO for a path that cannot be looked up
 * (err's message is the walk's reason alone, such as "the path crosses a
 * daemon-served mount", so the caller can name the pattern escaped), or
 * MS_ERR_NOMEM.
 * ms_filematch_test returns 1 (a match), 0 or MS_ERR_NOMEM;
 * ms_filematch_copy 0 or MS_ERR_NOMEM.
 */
#ifndef MAPSCOPE_FILEMATCH_H
#define MAPSCOPE_FILEMATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "maps/maps.h"

#define MS_FILEMATCH_MAX 64
#define MS_FILEMATCH_SONAME_FILES (1u << 16)

enum ms_filematch_how {
	MS_FILEMATCH_FILE,   /* the file now at a path: device and inode */
	MS_FILEMATCH_PATH,   /* the kernel's name is the path */
	MS_FILEMATCH_NAME,   /* the base name */
	MS_FILEMATCH_SONAME, /* the file's SONAME */
	MS_FILEMATCH_PACKAGE, /* its package or source package (ms_filematch_test_package) */
};

enum ms_filecopy {
	MS_FILECOPY_CURRENT,
	MS_FILECOPY_REPLACED,
	MS_FILECOPY_DELETED,
	MS_FILECOPY_UNKNOWN,
};

struct ms_filematch_hit {
	size_t pattern; /* its index, in the order added */
	enum ms_filematch_how how;
	bool exact;     /* not a part of the name (ms_filematch_substrings) */
};

/* "file", "path", "name", "soname", "package". */
const char *ms_filematch_how_name(enum ms_filematch_how how);
/* "current", "replaced", "deleted", "unknown". */
const char *ms_filecopy_name(enum ms_filecopy copy);

struct ms_filematch;

int ms_filematch_new(struct ms_filematch **out, struct ms_error *err);
void ms_filematch_free(struct ms_filematch *fm);
/* Plain patterns added from now on match parts of names, and packages (above). */
void ms_filematch_substrings(struct ms_filematch *fm);
int ms_filematch_add(struct ms_filematch *fm, const char *pattern, struct ms_error *err);
/*
 * What the patterns are compared with, for a message that says what was
 * searched: "base names, SONAMEs and package names", "paths"...  Static.
 */
const char *ms_filematch_scope(const struct ms_filematch *fm);
/* Some pattern can match a package (fm may be NULL: no). */
bool ms_filematch_wants_packages(const struct ms_filematch *fm);
/*
 * 1 with *hit filled when a plain pattern is a part of the package name
 * or of the source package name (NUL-terminated, "" for none), else 0.
 */
int ms_filematch_test_package(const struct ms_filematch *fm, const char *name, const char *src_name,
			      struct ms_filematch_hit *hit);

/* 1 with *hit filled when m (a mapping of maps's process) matches, 0 when not, or MS_ERR_NOMEM. */
int ms_filematch_test(struct ms_filematch *fm, struct ms_maps *maps, const struct ms_mapping *m,
		      struct ms_filematch_hit *hit);

/*
 * Which copy of its file m holds, for a hit of ms_filematch_test.
 * name_ours (may be NULL): whether m's name is proven a path in its
 * process's root (stale.h, path_ours), so that a package may be asked for
 * it; a match by device and inode says nothing of the name, so it is
 * judged too (needs maps).  unlinked (may be NULL): an old copy's unlink
 * time where the verdict read it (stale.h), else {0, 0}.  0 or MS_ERR_NOMEM.
 */
int ms_filematch_copy(struct ms_filematch *fm, struct ms_maps *maps, const struct ms_mapping *m,
		      const struct ms_filematch_hit *hit, enum ms_filecopy *out, bool *name_ours,
		      struct timespec *unlinked);

/* Files whose SONAME was wanted but not known; *why (may be NULL) the first reason, or NULL. */
size_t ms_filematch_soname_unknown(const struct ms_filematch *fm, const char **why);
/* Files whose SONAME was looked for so far: once each.  For the tests and `make bench`. */
size_t ms_filematch_soname_reads(const struct ms_filematch *fm);

#endif
