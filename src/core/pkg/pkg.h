/*
 * pkg.h - what every package source (owner_source.h) answers about a
 * file, and what every front end says of it.
 *
 * struct ms_pkg is one file's owner: the package, the version installed
 * now, and, for a copy that was replaced or deleted under the process
 * that maps it, the version of that copy (running_state, running).  The
 * sources fill found, source, name, arch and version (owner_source.h);
 * the history step (ms_owner_running) fills the running fields.
 *
 * The source package.  dpkg and rpm name the source a binary package was
 * built from, which security advisories are keyed by: src_name is dpkg's
 * "Source:" (the package's own name when the stanza has none) or the
 * name in rpm's source rpm file name (NAME-VERSION-RELEASE.src.rpm).
 * src_version is set only when the source's version is not the binary's:
 * dpkg's "Source: gcc-12 (12.2.0-14)" (a binNMU, or a source building
 * binaries of their own version), rpm's VERSION-RELEASE of the source rpm
 * when it is not the binary's (the epoch aside).  Other sources leave both
 * empty.
 *
 * The running version.  A copy still at its path is the installed one
 * (INSTALLED).  A replaced or deleted copy is KNOWN when a source's
 * history names its version (running), else UNKNOWN, and then
 * running_why says why in one line ("replaced at 2026-12-05 23:21:54,
 * when dpkg's log has no upgrade or removal of libfoo") and, when the
 * history leaves two or fewer versions possible, running and running_alt
 * hold them ("3.0.19-1~deb12u2 or 3.0.20-1~deb12u2").  For KNOWN,
 * running_why says how it was found ("the copy's unlink time matches
 * dpkg's upgrade at 2026-12-05 23:21:54").
 *
 * A second opinion.  The ELF package note (pkgnote.h) of a file a
 * database owns is read as a cross-check: when it names another package
 * or version, note_name and note_version hold what it says and
 * note_differs is set, and every front end shows both.
 *
 * Names and versions are raw bytes from files: escape before display.
 */
#ifndef MAPSCOPE_PKG_H
#define MAPSCOPE_PKG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Which source answered (owner.h asks them in rank order). */
enum ms_pkg_source {
	MS_PKG_SOURCE_NONE = 0, /* no package owns the file ("not packaged"), or not asked */
	MS_PKG_SOURCE_DPKG,
	MS_PKG_SOURCE_RPM,
	MS_PKG_SOURCE_PYTHON, /* a *.dist-info RECORD or *.egg-info installed-files.txt lists the file */
	MS_PKG_SOURCE_NOTE,   /* the ELF file's own .note.package (pkgnote.h) */
	MS_PKG_SOURCE_NPM,    /* node_modules/[@SCOPE/]NAME/package.json */
};

/* What is known of the version of the copy a process maps. */
enum ms_pkg_running {
	MS_PKG_RUNNING_INSTALLED = 0, /* the file mapped is the one installed (or not asked) */
	MS_PKG_RUNNING_KNOWN,         /* replaced or deleted; running holds its version */
	MS_PKG_RUNNING_UNKNOWN,       /* replaced or deleted; its version cannot be known */
};

#define MS_PKG_NAME_MAX 128
#define MS_PKG_VERSION_MAX 128
#define MS_PKG_WHY_MAX 160

struct ms_pkg {
	bool found;
	enum ms_pkg_source source;
	bool vendored;     /* python: the file is in the distribution's NAME.libs folder */
	enum ms_pkg_running running_state;
	char name[MS_PKG_NAME_MAX];       /* the package, without its architecture */
	char arch[32];                    /* empty when the source names none */
	char version[MS_PKG_VERSION_MAX]; /* installed now; empty when the source does not say */
	char src_name[MS_PKG_NAME_MAX];   /* the source package it was built from; "" when unknown */
	char src_version[MS_PKG_VERSION_MAX]; /* the source's version when not the installed one's, else "" */
	char running[MS_PKG_VERSION_MAX]; /* KNOWN: the copy's version; UNKNOWN: a candidate or "" */
	char running_alt[MS_PKG_VERSION_MAX]; /* UNKNOWN: a second candidate or "" */
	char running_why[MS_PKG_WHY_MAX]; /* how KNOWN was found, why UNKNOWN; may be "" */
	bool note_differs;                /* the file's package note names another package or version */
	char note_name[MS_PKG_NAME_MAX];
	char note_version[MS_PKG_VERSION_MAX];
	char note_type[16];               /* source NOTE: the note's packaging type ("deb", "rpm"...), the purl type */
};

/*
 * One copy whose running version is asked (ms_owner_running), as its
 * callers know it.  The history sources date the copy by unlinked (the
 * copy's own inode change time: a replaced or deleted file's st_ctime is
 * the moment it was unlinked) when it was read, and fall back on start
 * when it was not (not root: map_files is refused).  pid, addr, end, dev
 * and ino name one mapping of it, for a source that reads the running
 * copy itself (the package note, through map_files); pid 0: none.
 */
struct ms_copy {
	time_t start;             /* the earliest start of its holders (seconds since the epoch); 0: unknown */
	struct timespec unlinked; /* st_ctime of the running copy; tv_sec 0: not read */
	pid_t pid;
	uint64_t addr, end;
	uint64_t ino;
	uint32_t dev_major, dev_minor;
};

/* How every front end says running_state UNKNOWN. */
#define MS_PKG_RUNNING_UNKNOWN_TEXT "running: unknown"

/*
 * One line for a package, escaped; returns the length.  By running_state:
 *   INSTALLED  "libssl3 (now 3.0.22-1~deb12u2)"
 *   KNOWN      "libssl3 3.0.19-1~deb12u1 (now 3.0.22-1~deb12u2)"
 *   UNKNOWN    "libssl3 (running: unknown; now 3.0.22-1~deb12u2)"
 *              "libssl3 (running: 3.0.19-1 or 3.0.20-1; now 3.0.22-1)"
 * (without the version installed: "libssl3", "libssl3 3.0.19-1~deb12u1",
 * "libssl3 (running: unknown)").  A note that differs adds
 * "; its ELF note says NAME VERSION".  Cut short to size, never mid-escape.
 */
size_t ms_pkg_describe(const struct ms_pkg *p, unsigned esc_flags, char *buf, size_t size);

/*
 * The running version as one cell, raw (not escaped): the version for
 * INSTALLED and KNOWN, "A or B" / "A" for UNKNOWN with candidates, NULL
 * for UNKNOWN without.  buf holds the joined form.
 */
const char *ms_pkg_running_text(const struct ms_pkg *p, char *buf, size_t size);

/*
 * How the running version was found, or why it cannot be known, as one
 * raw line: running_why, then for UNKNOWN with candidates "; it is A or B"
 * ("; it may be A" for one).  "" for INSTALLED and for a file not found.
 * Returns buf.
 */
const char *ms_pkg_running_why(const struct ms_pkg *p, char *buf, size_t size);

/* version after its "EPOCH:" (digits, then ':'), or version itself. */
const char *ms_pkg_without_epoch(const char *version);

/* "dpkg", "rpm", "python", "elf-note", "npm" or "none". */
const char *ms_pkg_source_name(enum ms_pkg_source source);

/* Set running_state UNKNOWN with a reason (printf-style) and no candidates. */
void ms_pkg_running_unknown(struct ms_pkg *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
