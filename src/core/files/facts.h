/*
 * facts.h - the one registry of the facts mapscope shows about a mapped
 * file, whatever the command or view: its package, the version of the
 * copy that runs, the version installed, where the answer came from, its
 * build ID, SONAME, highest symbol version, the version its name carries,
 * its verdict and its memory.  Without curses; prints nothing.
 *
 * Each fact is defined here once: its column name (upper case, as -o and
 * the config file take it), its one-line help, what reading it costs
 * (MS_NEED_*: a command asks only for what its columns need), its JSON
 * type, and its text (ms_fact_text).  Front ends own only the layout: a
 * CLI table entry names the fact (cli.h, CLI_FACT) and its width hint; an
 * explorer view names it with its width policy (tui/columns.h).  So the
 * wording of "not packaged", "unknown" and a build ID's hex lives only
 * in ms_fact_text, and a new fact is one entry in facts.c plus the code
 * that fills its field of struct ms_fact_src.
 *
 * The text is raw bytes (not escaped): the caller escapes it for its
 * output (ms_escape for a terminal, its own rules for OpenMetrics).  A fact
 * that was not asked, or could not be (pkg_why, an error), is "".
 *   PACKAGE    the owner's name; "not packaged" when no source owns it
 *   VERSION    the version of the copy mapped: the installed one for the
 *              current copy, the dated one for an old copy, "unknown"
 *              (JSON: empty) when it cannot be known
 *   INSTALLED  the version installed now
 *   PKGSRC     dpkg, rpm, elf-note, python, npm or none
 *   VENDORED   the Python distribution that vendors the file
 *   VERWHY     how VERSION was found for an old copy, or why it is unknown
 *   PKGNOTE    "NAME VERSION" of the file's ELF package note where it
 *              names another version than dpkg or rpm
 *   BUILDID    lower-case hex (ms_buildid_hex)
 *   SONAME, LIBVER  the name, "" when the file has none, "?" when unknown
 *   FILEVER    the version the file's name carries ("3.0.19" of
 *              libfoo.so.3.0.19), "" when none
 *   VERDICT    current, replaced, deleted or unknown
 *   RSS, PSS, USS, DIRTY  sizes (human-readable unless MS_FACT_BYTES)
 */
#ifndef MAPSCOPE_FACTS_H
#define MAPSCOPE_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/pkg.h"
#include "stale/stale.h"

enum ms_fact {
	MS_FACT_PACKAGE,
	MS_FACT_VERSION,
	MS_FACT_INSTALLED,
	MS_FACT_PKGSRC,
	MS_FACT_VENDORED,
	MS_FACT_VERWHY,
	MS_FACT_PKGNOTE,
	MS_FACT_BUILDID,
	MS_FACT_SONAME,
	MS_FACT_LIBVER,
	MS_FACT_FILEVER,
	MS_FACT_VERDICT,
	MS_FACT_RSS,
	MS_FACT_PSS,
	MS_FACT_USS,
	MS_FACT_DIRTY,
	MS_FACT_COUNT,
};

/* What reading a fact costs, per file. */
#define MS_NEED_STAT 0x1u     /* a stat of the file (its device and inode) */
#define MS_NEED_PKG 0x2u      /* a lookup in the package sources (core/pkg/owner.h) */
#define MS_NEED_MAPFILES 0x4u /* the running copy through /proc/PID/map_files */
#define MS_NEED_SMAPS 0x8u    /* a walk of the page tables (PAGEMAP_SCAN or smaps) */
#define MS_NEED_ELF 0x10u     /* a bounded read of the file's ELF headers */
#define MS_NEED_VERDICT 0x20u /* the stale verdict (a stat and the name's proof) */
#define MS_NEED_SMAPS_TEXT 0x40u /* only smaps' text has it (PSS, private, dirty), no PAGEMAP_SCAN */

enum ms_fact_json {
	MS_FACT_JSON_STRING,
	MS_FACT_JSON_NUMBER, /* a size: a number of bytes in JSON */
};

struct ms_fact_desc {
	const char *name; /* the column name: "PACKAGE" */
	const char *help; /* one line, for --help, --list-columns and the man page */
	unsigned needs;   /* MS_NEED_* */
	enum ms_fact_json json;
};

/* The fact's entry (f < MS_FACT_COUNT). */
const struct ms_fact_desc *ms_fact_desc(enum ms_fact f);
/* The fact named name (len bytes, case-insensitive), or -1. */
int ms_fact_by_name(const char *name, size_t len);

/*
 * What is known about one file, filled by each model from its own record
 * (ms_fact_src_fileinfo for the per-file grouping).  A pointer left NULL
 * or a *_known left false is a fact not asked: its text is "".
 */
struct ms_fileinfo;
struct ms_fact_src {
	bool pkg_known;
	const struct ms_pkg *pkg;  /* NULL with pkg_known: no source owns the file */
	const char *pkg_why;       /* the lookup could not be made: every package fact is "" */
	const unsigned char *build_id;
	uint32_t build_id_len;
	const char *soname;        /* "", "?" or the name (as ms_fileinfo_soname_text) */
	const char *libver;
	const char *filever;
	bool verdict_known;
	enum ms_stale_verdict verdict;
	bool size_known[4];        /* RSS, PSS, USS, DIRTY, in that order */
	uint64_t size[4];
};

/* The sources of a fact_src from the per-file grouping's record. */
void ms_fact_src_fileinfo(struct ms_fact_src *s, const struct ms_fileinfo *info);

/* ms_fact_text flags. */
#define MS_FACT_JSON 0x1u  /* for JSON: an unknown VERSION is empty (null) */
#define MS_FACT_BYTES 0x2u /* sizes as a number of bytes */

/* Room that every fact's text fits in, NUL included. */
#define MS_FACT_TEXT_MAX (2 * MS_PKG_NAME_MAX + 2 * MS_PKG_WHY_MAX + 2 * MS_PKG_VERSION_MAX)

/*
 * The text of fact f for s: raw bytes, *len of them, pointing into s, into
 * static text, or into buf (size bytes, at least MS_FACT_TEXT_MAX) where
 * the text is composed.  Not always NUL-terminated: use *len.
 */
const char *ms_fact_text(enum ms_fact f, const struct ms_fact_src *s, unsigned flags, char *buf,
			 size_t size, size_t *len);

#endif
