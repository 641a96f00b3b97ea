/*
 * fileinfo.h - what a files view shows beyond the grouping (filemap.h):
 * RSS, build ID, stale verdict, SONAME, the library's own version (LIBVER)
 * and the version the name carries (FILEVER), for the rows asked about
 * only.  You pay for what you ask for:
 *   - RSS: one residency query (PAGEMAP_SCAN, or smaps) over the mappings
 *     of the rows asked about, in address order, summed per row;
 *   - build ID: one PROCMAP_QUERY per row, at its first mapping, with the
 *     build ID asked for.  The engine itself never asks for files on a
 *     file system served by someone else (fstype.h) and says why;
 *   - verdict: ms_stale_judge on the row's first mapping (stale.h), with
 *     the context's cached lookups; it asks for the mapping's build ID
 *     itself where the verdict needs one, as for every other caller;
 *   - SONAME: the file at the row's path, looked up under the process's
 *     root (lookup.h), read only when it is the very file mapped
 *     (same inode; same device too, except where device numbers do not
 *     identify files), opened the checked way (O_PATH, then a reopen
 *     through /proc/self/fd) and never on a file system served by someone
 *     else; for a file replaced or deleted since, its running copy
 *     through map_files (mapfiles.h, root only; soname_why says why not);
 *     then soname.h's bounded reader;
 *   - LIBVER: the highest version definition (verdef.h), from the same
 *     file as the SONAME; asked together, the file is opened and its
 *     headers read once (elfdyn.h), and a file that cannot be read gives
 *     both the same reason (libver_why);
 *   - FILEVER comes from the name alone, for every file row;
 *   - package: filepkg.h, for the rows of the call whose package is not
 *     known yet (info.pkg_known), in one lookup of every database, and
 *     only for a process under our own root.  Asked with the SONAME, the
 *     file opened for it, when it is the one at the path under our root,
 *     is also read for its package note (pkgnote.h: one read, as the page
 *     is cached), and a file without one is not walked to again by the
 *     note source (info.no_pkgnote).
 * A described row keeps its answers (info.described); ms_filemap_build
 * carries them to the next map, so a refresh does not read files again.
 * ms_fileinfo_forget drops the context's lookups and verdicts, so the next
 * rows described see the disk as it is now (callers also rebuild without
 * a previous map then).
 *
 * The context borrows proc, maps and ignore; they must outlive it.  Errors
 * from describe: MS_ERR_NOMEM, and the engine's MS_ERR_EXITED /
 * MS_ERR_EXECED when the process went away (what was found stays).
 */
#ifndef MAPSCOPE_FILEINFO_H
#define MAPSCOPE_FILEINFO_H

#include <stddef.h>

#include "base/error.h"
#include "files/filemap.h"
#include "stale/ignore.h"
#include "maps/maps.h"
#include "proc/proc.h"
#include "resid/residency.h"

#define MS_FILEINFO_BUILD_ID 0x1u
#define MS_FILEINFO_VERDICT 0x2u
#define MS_FILEINFO_SONAME 0x4u
#define MS_FILEINFO_PACKAGE 0x8u
#define MS_FILEINFO_LIBVER 0x10u
#define MS_FILEINFO_ALL (MS_FILEINFO_BUILD_ID | MS_FILEINFO_VERDICT | MS_FILEINFO_SONAME | \
			 MS_FILEINFO_PACKAGE | MS_FILEINFO_LIBVER)

struct ms_fileinfo_ctx;

int ms_fileinfo_ctx_new(const struct ms_ignore *ignore, struct ms_proc *proc, struct ms_maps *maps,
			struct ms_fileinfo_ctx **out, struct ms_error *err);
void ms_fileinfo_ctx_free(struct ms_fileinfo_ctx *ctx);
void ms_fileinfo_forget(struct ms_fileinfo_ctx *ctx);

/* Describe rows [from, from + n) of fm, grouped from list, that are not described yet. */
int ms_fileinfo_describe(struct ms_fileinfo_ctx *ctx, struct ms_filemap *fm,
			 const struct ms_maplist *list, size_t from, size_t n, unsigned what,
			 struct ms_error *err);

/* RSS of rows [from, from + n): one residency query over their mappings. */
int ms_fileinfo_residency(struct ms_residency *res, struct ms_filemap *fm,
			  const struct ms_maplist *list, size_t from, size_t n,
			  struct ms_error *err);

#endif
