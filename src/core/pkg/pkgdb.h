/*
 * pkgdb.h - the Debian package that owns a file, from dpkg's own database,
 * read directly (dpkg is never run).
 *
 * ms_pkgdb_lookup answers for a batch of paths in one pass over the list
 * files DIR/info/NAME.list (one installed path a line; NAME is PACKAGE or
 * PACKAGE:ARCH), then DIR/status for the installed version of the
 * packages found.  With merged /usr, dpkg lists a file where its package
 * put it (/lib/...) while the kernel names it by the path it was opened by
 * (/usr/lib/...), so /bin, /sbin and /lib* paths are also looked for under
 * /usr and the reverse.
 *
 * It reads few lists.  For a regular file dpkg lets one package's list
 * hold a path (one that Replaces another takes the path out of the
 * other's list), or the same package's for two architectures (Multi-Arch:
 * same).  So it reads first the lists whose package names the paths
 * suggest (candidates.h: libssl.so.3 -> libssl*, libc.so.6 -> libc6*),
 * and each list read is matched against every wanted path, so the list
 * read for libc.so.6 answers libm.so.6 too; a path one of those holds is
 * answered.  Every list is read only for the paths none of those holds:
 * that full scan is the exact answer, and a path it does not find is "not
 * packaged".  The opts full_scan (every list, no candidates) and
 * no_full_scan (candidates only) are seams for tests and benches.
 *
 * The negative index (pkgindex.h, at opts index_path; NULL: none) spares
 * most full scans.  It is pinned when the database is opened, before any
 * list is read.  When it is sound and pinned to the database as it is,
 * and neither spelling of any path still wanted (for a diverted-to path:
 * the diverted-from path, the one looked for) has its hash in it, those
 * paths are "not packaged" without the full scan; one hash found, and the
 * full scan runs as without an index.  When it rules out every path of
 * a batch (a fleet's deleted copies, say), not even the candidates are
 * read, nor the list files named or counted: the info directory's ctime
 * in the pins says no list was added, removed or renamed since
 * (pkgindex.h).  Otherwise the lists are named by the index, sorted as
 * readdir would give them once sorted, and the info directory is not
 * listed at all: on ext4 that listing costs more than the rest of a
 * lookup.  An index that holds no names (format 1) is written again with
 * the names root has just listed.  The versions come from the stanzas of
 * the status file the index places (status_index.h), or else from the
 * file read up to the last package asked about.  An open database with a
 * sound index reads nothing ahead.  When the index is missing or not
 * sound and a full scan runs as root (euid 0), that scan reads every list (it does
 * not stop once every path is found), hashes every line of every list as
 * it goes, including the candidates read before, and writes the index
 * after; a list it could not read, memory short, the database pinned
 * otherwise after the scan than before (dpkg ran meanwhile), or pinned
 * at open within the second of the info directory's last change (not
 * settled, ms_pkg_index_pins_settled), and nothing is written.  Writing fails silently: the answers are the same without.
 * Others only read it.
 *
 * Diversions (DIR/diversions, diversions.h) are honoured in both ways:
 * the file at a diverted path is the diverting package's (a local
 * diversion: no package's), and the file at the path it was diverted to
 * is the package's whose list holds the diverted path, the diverter
 * excepted.
 *
 * A full scan costs one read of the lists (about 9 MB on a usual server).
 * A caller that will ask opens the database early and calls
 * ms_pkgdb_read_ahead (or opens with read_ahead) once it knows it will:
 * a second thread then reads the list files into memory (at most
 * read_ahead_max bytes, MS_PKGDB_READ_AHEAD_MAX by default) while the
 * caller goes on; ms_pkgdb_find reads and scans what is left itself, and
 * ms_pkgdb_close stops the reader after the file it is reading.  On a
 * machine whose cores are busy the reader only moves the work, so a
 * caller starts it when it is sure to ask, not before.  The reader
 * only reads; it blocks every signal.
 *
 * The owner rule: a path listed by several list files (a Multi-Arch: same
 * package installed for two architectures, or a directory) is the one
 * whose file name sorts first (strcmp) among the lists read, whichever
 * thread read which file and whatever order readdir gave; the full scan
 * reads all, the candidates the lists that share the name (both
 * architectures' included), so both give the same answer for a regular
 * file.  Every file is read through saferead.h (regular files only, never
 * blocking; DIR/info directly when only root can change it, otherwise
 * through O_PATH and a reopen) and bounded: at most MS_PKGDB_LISTS list
 * files of MS_PKGDB_LIST_MAX bytes, the first MS_PKGDB_STATUS_MAX bytes
 * of status (read 64 KiB at a time, pkg_status.h); what is beyond is
 * skipped and the answer is "not found", never a guess.
 *
 * Returns 0 with out[i].found set for each path owned by a package, or
 * MS_ERR_NOTSUP when DIR has no info directory (not a dpkg system), or
 * MS_ERR_NOMEM.  Names and versions are raw bytes: escape before display.
 */
#ifndef MAPSCOPE_PKGDB_H
#define MAPSCOPE_PKGDB_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "pkg/pkg.h"
#include "pkg/pkgindex.h"

#define MS_PKGDB_DIR "/var/lib/dpkg"
#define MS_PKGDB_LISTS 100000
#define MS_PKGDB_LIST_MAX (16u << 20)
#define MS_PKGDB_STATUS_MAX (64u << 20)
#define MS_PKGDB_READ_AHEAD_MAX (64u << 20)

struct ms_pkgdb;

struct ms_pkgdb_opts {
	bool read_ahead;       /* start the reader thread now */
	size_t read_ahead_max; /* bytes it may keep; 0: MS_PKGDB_READ_AHEAD_MAX */
	bool reverse_readdir;  /* for tests: take readdir's order turned round */
	bool full_scan;        /* for tests and benches: no candidates, every list */
	bool no_full_scan;     /* for tests and benches: candidates only, to see what they miss */
	const char *index_path; /* the negative index (pkgindex.h): MS_PKGDB_INDEX, or NULL for none */
};

/* 0, MS_ERR_NOTSUP (no DIR/info: not a dpkg system) or MS_ERR_NOMEM. */
int ms_pkgdb_open(const char *dir, const struct ms_pkgdb_opts *opts, struct ms_pkgdb **out,
		  struct ms_error *err);
/* Start the reader now, unless it runs or the database was searched. */
void ms_pkgdb_read_ahead(struct ms_pkgdb *db);
/* Once per open database.  0 or MS_ERR_NOMEM. */
int ms_pkgdb_find(struct ms_pkgdb *db, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err);
void ms_pkgdb_close(struct ms_pkgdb *db);
/* For tests and benches: the list files read so far, by either thread. */
size_t ms_pkgdb_lists_read(const struct ms_pkgdb *db);
/* For tests: was the info directory listed (readdir), rather than named by the index? */
bool ms_pkgdb_dir_listed(const struct ms_pkgdb *db);

/* open (no read-ahead, no index), find, close. */
int ms_pkgdb_lookup(const char *dir, const char *const *paths, const size_t *lens, size_t n,
		    struct ms_pkg *out, struct ms_error *err);
/* The same with opts (NULL: none). */
int ms_pkgdb_lookup_with(const char *dir, const struct ms_pkgdb_opts *opts, const char *const *paths,
			 const size_t *lens, size_t n, struct ms_pkg *out, struct ms_error *err);


#endif
