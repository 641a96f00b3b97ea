/*
 * pydist.h - the Python distribution that owns a file under a
 * site-packages or dist-packages directory, from the *.dist-info
 * directories there (what pip and every installer of wheels write) and
 * the *.egg-info directories (setuptools' older format).
 *
 * The site directory of a path is its prefix up to its last component
 * named site-packages or dist-packages.  The owner of a file there is the
 * distribution whose NAME-VERSION.dist-info/RECORD names it (pyrecord.h:
 * relative to the site directory, normalised lexically; a path that
 * leaves the site directory is ignored, so a RECORD claims nothing
 * outside it).  Its name and version come from the dist-info's METADATA
 * (pymeta.h: the Name and Version headers in its first
 * MS_PYDIST_META_MAX bytes), or, where METADATA does not say, from the
 * directory's name.  The answer is source MS_PKG_SOURCE_PYTHON with an
 * empty arch.
 *
 * Egg-info: a directory NAME-VERSION[-pyX.Y].egg-info lists its files in
 * installed-files.txt, one a line, relative to the egg-info directory
 * itself ("../foo/_bar.so"; pyrecord.h), under the same rule as a RECORD
 * (normalised, nothing outside the site directory), and gives its name
 * and version in PKG-INFO (the METADATA format, pymeta.h), else in its
 * directory's name.  Without installed-files.txt (an egg-info a
 * distribution's package manager wrote, or `setup.py develop`) it owns
 * nothing, and neither does an egg-info that is a single file (PKG-INFO
 * alone).  Dist-info and egg-info directories are one list: the bounds,
 * the byte order of the owner rule and the walk rules below are the same
 * for both, and "RECORD" below stands for either file list, "METADATA"
 * for either metadata file.
 *
 * Vendored: a wheel repaired by auditwheel carries the libraries it links
 * in NAME.libs/ (older auditwheel: NAME/.libs/), under hashed names
 * (numpy.libs/libopenblas64_p-r0-15028c96.3.21.so), and lists them in its
 * RECORD.  A file that a RECORD names, with a directory ending in ".libs"
 * on its path below the site directory, is that distribution's and
 * vendored.  A file in such a folder that no RECORD names is "not
 * packaged": a folder's name alone is not an owner, and anyone who can
 * write to a user's site directory can put a file there.
 *
 * Cost: one lookup (ms_pydist_find, for many paths) reads each site
 * directory asked about once: its entries (at most MS_PYDIST_ENTRIES of
 * them, MS_PYDIST_DISTS dist-info and egg-info directories), then RECORDs, each at
 * most once and matched against every path wanted there (sorted, searched
 * by halves).  It reads first the RECORDs of the distributions named like
 * a wanted file's top folder or module (numpy/..., numpy.libs/... ->
 * numpy-*.dist-info; names compared as PEP 503 normalises them), and the
 * others only for the paths those do not name.  The owner rule: the first
 * dist-info in byte order among those read whose RECORD names the file.
 * METADATA is read only for the distributions that own a wanted file.
 * Bounds a hostile site directory cannot raise: a RECORD over
 * MS_PYDIST_RECORD_MAX bytes is not read at all; per lookup, at most
 * MS_PYDIST_ENTRIES_TOTAL directory entries, MS_PYDIST_RECORDS RECORDs and
 * MS_PYDIST_READ_MAX bytes of them.  What is beyond is not read and its
 * files are "not found", never a guess.
 *
 * Safety: a site directory may be a user's (a venv, ~/.local), so every
 * directory and file is reached through the untrusted walk
 * (untrusted_walk.h) from our own root, with MS_WALK_NO_SYMLINKS: the
 * kernel names a mapped file by its canonical path, so a symlink on the
 * way now (a symlinked RECORD or dist-info) is refused, not followed; no
 * step enters a daemon-served mount (FUSE, NFS...); only a regular file
 * is opened (a FIFO RECORD is refused before any open, so nothing
 * blocks), non-blocking, and read into one bounded buffer.  The parsers
 * are ours, small and fuzzed, and allocate nothing by what a file says,
 * so nothing runs in the isolated child (untrusted_child.h): that is for
 * libraries that open and allocate by what they read.  Names and
 * versions are raw bytes: escape before display.
 *
 * The paths are in our root (owner.h); a path whose out[i].found is set
 * already is skipped.  0 or MS_ERR_NOMEM; a site directory that cannot be
 * read answers nothing for its paths.
 */
#ifndef MAPSCOPE_PKG_PYDIST_H
#define MAPSCOPE_PKG_PYDIST_H

#include <stddef.h>

#include "base/error.h"
#include "pkg/pkgdb.h"

#define MS_PYDIST_ENTRIES 100000u
#define MS_PYDIST_DISTS 4096u
#define MS_PYDIST_RECORD_MAX (16u << 20)
#define MS_PYDIST_META_MAX (16u << 10)
#define MS_PYDIST_ENTRIES_TOTAL 1000000u
#define MS_PYDIST_RECORDS 16384u
#define MS_PYDIST_READ_MAX (256u << 20)

/* What one lookup did, for tests and benches. */
struct ms_pydist_stats {
	size_t sites;        /* site directories listed */
	size_t records;      /* RECORDs read */
	size_t record_bytes; /* bytes of them */
	size_t metas;        /* METADATA files read */
	size_t meta_bytes;
};

struct ms_pydist;

/* Nothing is opened until a path under a site directory is asked about. */
int ms_pydist_open(struct ms_pydist **out, struct ms_error *err);
int ms_pydist_find(struct ms_pydist *pd, const char *const *paths, const size_t *lens, size_t n,
		   struct ms_pkg *out, struct ms_error *err);
void ms_pydist_stats(const struct ms_pydist *pd, struct ms_pydist_stats *st);
void ms_pydist_close(struct ms_pydist *pd);

#endif
