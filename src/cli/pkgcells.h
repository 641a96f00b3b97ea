/*
 * pkgcells.h - the package cells of a table row, one way for every
 * command that shows them (list --by-file, libs): the package, the version
 * of the copy mapped (the running one, "unknown" where it cannot be known,
 * empty in JSON then), the version installed now, which database answered,
 * and the Python distribution that vendors the file.  A file no database
 * owns is "not packaged" in the PACKAGE cell and empty elsewhere but the
 * source ("none").  pkgcell_text escapes for a terminal (escape.h);
 * pkgcell_raw gives the bytes themselves, for a format that escapes by its
 * own rules (OpenMetrics labels).
 */
#ifndef MAPSCOPE_CLI_PKGCELLS_H
#define MAPSCOPE_CLI_PKGCELLS_H

#include "cli/cli.h"
#include "core/pkg/pkgdb.h"

enum pkgcell {
	PKGCELL_PACKAGE,
	PKGCELL_VERSION,
	PKGCELL_INSTALLED,
	PKGCELL_SOURCE,
	PKGCELL_VENDORED,
};

/* The cell's text (malloc'd, NULL when out of memory); pkg NULL: not asked, "". */
char *pkgcell_text(const struct cli_opts *o, enum pkgcell which, const struct ms_pkg *pkg);
/* The same cell unescaped: *len bytes in pkg (or static text), not always NUL-terminated. */
const char *pkgcell_raw(const struct cli_opts *o, enum pkgcell which, const struct ms_pkg *pkg, size_t *len);

#endif
