/*
 * pkgcells.h - the package cells of a table row, one way for every
 * command that shows them (list --by-file, libs): the package, the version
 * of the copy mapped (the running one, "unknown" where it cannot be known,
 * empty in JSON then), the version installed now, which database answered,
 * the Python distribution that vendors the file, how the running
 * version was found or why it is unknown (VERWHY, pkg.h's
 * ms_pkg_running_why), and what the file's ELF package note says where
 * it names another version than the database.  A file no database
 * owns is "not packaged" in the PACKAGE cell and empty elsewhere but the
 * source ("none").  pkgcell_text escapes for a terminal (escape.h);
 * pkgcell_raw gives the bytes themselves, for a format that escapes by its
 * own rules (OpenMetrics labels).
 */
#ifndef MAPSCOPE_CLI_PKGCELLS_H
#define MAPSCOPE_CLI_PKGCELLS_H

#include "cli/cli.h"
#include "core/pkg/pkg.h"

/* The PKGSRC column's values, for its help line. */
#define MS_PKGSRC_NAMES "dpkg, rpm, elf-note, python, npm or none"
/* The VERWHY column's help line, the same in every command. */
#define MS_VERWHY_HELP "how VERSION was found for a replaced or deleted copy, or why it is unknown (with the candidates when two or fewer)"
#define MS_PKGNOTE_HELP "what the file's ELF package note says (NAME VERSION) where it names another version than dpkg or rpm, escaped"

enum pkgcell {
	PKGCELL_PACKAGE,
	PKGCELL_VERSION,
	PKGCELL_INSTALLED,
	PKGCELL_SOURCE,
	PKGCELL_VENDORED,
	PKGCELL_VERWHY,
	PKGCELL_NOTE, /* pkgcell_text only: the note's "NAME VERSION" where it differs */
	PKGCELL_COUNT,
};

/* The cell's text (malloc'd, NULL when out of memory); pkg NULL: not asked, "". */
char *pkgcell_text(const struct cli_opts *o, enum pkgcell which, const struct ms_pkg *pkg);
/* The same cell unescaped: *len bytes in pkg (or static text), not always NUL-terminated. */
const char *pkgcell_raw(const struct cli_opts *o, enum pkgcell which, const struct ms_pkg *pkg, size_t *len);

#endif
