/*
 * pkgindex.h - a negative index of dpkg's lists: the hashes of every line
 * of every list file, so that a path none of them holds is known "not
 * packaged" without reading them all (pkgdb.h uses it).
 *
 * dpkg keeps no index of its own, so root's lookups leave one behind, at
 * MS_PKGDB_INDEX by default.  The file is a header of MS_PKG_INDEX_HEADER
 * bytes (native 64-bit words: the magic, the format version, the number
 * of list files, the number of hashes, then what it was built from) and
 * the sorted, distinct 64-bit hashes (ms_pkg_index_hash: fixed, unkeyed,
 * part of the format) of the lines as listed, then the names of the list
 * files, each ended by a NUL, in strcmp order (their total length is the
 * header's last word; 0 when none were written), then where each stanza
 * of the status file is (struct ms_pkg_index_stanza, 16 bytes each, to
 * the end of the file).  The header pins the
 * database it was built from (ms_pkg_index_pins): the info directory's
 * st_dev, st_ino, st_mtim and st_ctim (dpkg renames every list into place,
 * so a list added, removed or rewritten moves both; root can set the mtime
 * back with utimensat, which itself moves the ctime, and nothing but a
 * clock stepped back sets a ctime), the status file's and the diversions
 * file's st_ino, st_size and st_mtim (dpkg replaces status at every run),
 * and the number of lists.  Any difference and the index is not used.
 *
 * A timestamp is the kernel's coarse clock (a tick), or finer, cut to
 * what the file system stores (whole seconds on some): two changes in one
 * tick or one second may leave one ctime.  So an index is written only
 * from pins taken settled (ms_pkg_index_pins_settled): the coarse clock,
 * read before the pins, already in a later second than the info
 * directory's ctime, so that every later change stamps a later ctime.
 * Then a ctime still equal says that no list was added, removed or
 * renamed since, and the lists need not be counted.
 *
 * The index only ever says "no list holds this": a hash it lacks is a
 * line no list had when it was built.  A hash it holds may be a collision
 * and says nothing; the caller then reads the lists.
 *
 * The names spare a lookup the listing of the info directory, which costs
 * about 1 ms for its 3,400 entries (900 lists and their scripts and sums)
 * on ext4 (a hashed directory is read and sorted in the kernel at each
 * listing), more than everything else a package lookup does.  They hold for the same reason as the count of
 * lists: the pinned ctime says no entry was added, removed or renamed
 * since.  ms_pkg_index_names reads and checks them whole: exactly the
 * header's count of lists, each a NAME.list directory entry (no '/', no
 * leading '.', at most NAME_MAX bytes), each after the one before;
 * anything else and there are no names, and the caller lists the
 * directory.
 *
 * The stanzas spare it reading the status file (800 KB) up to the last
 * package asked about: only the stanzas of the packages found are read
 * (status_index.h).  The status file's st_ino, st_size and st_mtim are
 * pinned, and dpkg replaces the file at every run, so the offsets hold
 * while the pins do; the reader checks the file it opened against them.
 *
 * Reading (ms_pkg_index_open): O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC,
 * then fstat must say a regular file with one link, owned by root,
 * writable by neither group nor others, at most MS_PKG_INDEX_MAX bytes
 * and exactly the header, its count of hashes and its names' length,
 * format 2, or format 1, which had no names (root, having listed the
 * directory, writes it again with them: ms_pkg_index_add_names); then it
 * is kept open and searched by reading one page of hashes at a time into
 * the stack (ms_pkg_index_may_hold), never mapped: a mapping's pages
 * fault when first touched, which costs more than a read on a virtual
 * machine.
 * Anything else, a symlink included, is no index.  The hashes are trusted
 * to be sorted (only root writes the file, and checking would touch every
 * page).
 *
 * Writing (ms_pkg_index_write, the caller being root): the directory is
 * made 0755 if missing and refused unless it and every level above it is
 * root's and writable by no one else (safewrite.h, as the debuginfod
 * cache); the file goes to a temporary name beside it, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW, 0644, then renamed over the old name, which
 * is replaced whatever it is and never followed.  Any failure leaves no
 * temporary behind and is returned, never fatal to a lookup.
 */
#ifndef MAPSCOPE_PKG_PKGINDEX_H
#define MAPSCOPE_PKG_PKGINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define MS_PKGDB_INDEX "/var/cache/mapscope/dpkg-paths"
#define MS_PKG_INDEX_MAX (64u << 20)
#define MS_PKG_INDEX_HEADER 160u

/* What the index was built from: the database now, as stat says. */
struct ms_pkg_index_pins {
	uint64_t info[4];       /* st_dev, st_ino, st_mtim seconds and nanoseconds */
	uint64_t status[4];     /* st_ino, st_size, st_mtim; all 0 when missing */
	uint64_t diversions[4]; /* likewise */
	uint64_t nlists;        /* the list files read */
	/*
	 * The info directory's st_ctim, seconds and nanoseconds.  Last, in
	 * what were the header's spare words: an index written before they
	 * held it has zeros there, never a real ctime, so it is not used, and
	 * a program that knows no ctime reads an index that has one as before.
	 */
	uint64_t info_ctime[2];
};

/* The pins of dpkg's database in dir, infofd its info directory.  0, or -1 if it cannot be told. */
int ms_pkg_index_pins_take(int infofd, const char *dir, struct ms_pkg_index_pins *p);
/*
 * Were p taken settled?  before: CLOCK_REALTIME_COARSE, read before the
 * pins were taken.  True when it is in a later whole second than the info
 * directory's ctime (see above).
 */
bool ms_pkg_index_pins_settled(const struct ms_pkg_index_pins *p, const struct timespec *before);
/* The same database, the number of lists aside. */
bool ms_pkg_index_pins_equal(const struct ms_pkg_index_pins *a, const struct ms_pkg_index_pins *b);

struct ms_pkg_index {
	bool open;       /* false: no index */
	int fd;          /* the index file, read by pread when open */
	size_t count;
	uint64_t nlists; /* from the header: the caller compares it once it has listed */
	size_t names_len; /* bytes of list names after the hashes */
	size_t nstanzas;  /* status stanzas after the names */
	uint64_t status_size; /* the status file's, pinned */
};

/* One stanza of dpkg's status file: its package's name hashed (ms_pkg_index_hash), where it is. */
struct ms_pkg_index_stanza {
	uint64_t key;
	uint32_t off, len;
};

/* What an index holds beside the hashes; either part may be empty. */
struct ms_pkg_index_extra {
	const char *const *names; /* the lists', sorted */
	size_t nnames;
	struct ms_pkg_index_stanza *stanzas; /* sorted by key, then offset, when written */
	size_t nstanzas;
};

/* Open the index at path if it is sound and pinned to pins (nlists aside).  true if so. */
bool ms_pkg_index_open(const char *path, const struct ms_pkg_index_pins *pins, struct ms_pkg_index *ix);
void ms_pkg_index_close(struct ms_pkg_index *ix);
/*
 * The names of the nlists list files, sorted, into *blob (malloc'd, each
 * ended by a NUL, one after the other).  0, or -1 with *blob NULL when
 * the index has none, they are not sound, or memory is short.
 */
int ms_pkg_index_names(const struct ms_pkg_index *ix, char **blob, size_t *nnames);
/*
 * The status file's stanzas (sorted by key, then offset) into *tab
 * (malloc'd).  0, or -1 with *tab NULL when the index has none, they are
 * not sound (out of order, empty, over 1 MiB or past the pinned size of
 * the status file), or memory is short.
 */
int ms_pkg_index_stanzas(const struct ms_pkg_index *ix, struct ms_pkg_index_stanza **tab, size_t *n);
/* Could a list hold the len bytes at p?  false: no list does. */
bool ms_pkg_index_may_hold(const struct ms_pkg_index *ix, const char *p, size_t len);

uint64_t ms_pkg_index_hash(const char *p, size_t len);

/* The hashes gathered while every list is read. */
struct ms_pkg_index_build {
	uint64_t *hashes;
	size_t count, cap;
	size_t lists;    /* hashed so far */
	bool failed;     /* a list could not be read, or memory ran out: write nothing */
};

/* The nlines lines of a list (lengths from listlines.h), hashed. */
void ms_pkg_index_add(struct ms_pkg_index_build *b, const char *text, const uint32_t *lengths, size_t nlines);
/*
 * Sort and write the index of b to path, with x's names of the lists
 * (sorted; written only when they are pins->nlists sound names in strcmp
 * order, else none, and then no stanzas either) and its stanzas (sorted
 * here).  0, or -1 with nothing left behind.
 */
int ms_pkg_index_write(const char *path, const struct ms_pkg_index_pins *pins, struct ms_pkg_index_build *b,
		       const struct ms_pkg_index_extra *x);
void ms_pkg_index_build_free(struct ms_pkg_index_build *b);

/*
 * The open index ix, which has no names (format 1), written again to path
 * with the same hashes and x, pins being the database as it still is
 * (nlists the names' count).  0, or -1 with nothing left behind.
 */
int ms_pkg_index_add_names(const struct ms_pkg_index *ix, const char *path, const struct ms_pkg_index_pins *pins,
			   const struct ms_pkg_index_extra *x);

#endif
