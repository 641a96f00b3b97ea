/*
 * diversions.h - dpkg's diversions (DIR/diversions), read directly.
 *
 * The file is triples of lines: the diverted path (from), where the
 * packaged file was moved (to), and the package that diverts it, or ":"
 * for a local diversion made by the administrator.  A last triple cut
 * short is ignored.  What the lookup makes of them (pkgdb.h): the file now
 * at `from` is the diverter's (a local diversion: no package's), and the
 * file at `to` is the package's whose list names `from`, the diverter
 * excepted.
 *
 * ms_pkg_diversions_read reads the file through saferead.h (a regular
 * file, never blocking, at most MS_PKG_DIVERSIONS_MAX bytes and
 * MS_PKG_DIVERSIONS triples); a missing, unreadable or oversized file is
 * no diversion (the answers are then those of the lists alone).  Returns 0
 * or MS_ERR_NOMEM.  The entries point into the text read, raw bytes.
 */
#ifndef MAPSCOPE_PKG_DIVERSIONS_H
#define MAPSCOPE_PKG_DIVERSIONS_H

#include <stdbool.h>
#include <stddef.h>

#define MS_PKG_DIVERSIONS_MAX (4u << 20)
#define MS_PKG_DIVERSIONS 100000

struct ms_pkg_diversion {
	const char *from, *to, *by; /* by: NULL for a local diversion */
	size_t from_len, to_len, by_len;
};

struct ms_pkg_diversions {
	char *text;
	struct ms_pkg_diversion *items;
	size_t count;
};

int ms_pkg_diversions_read(const char *dir, struct ms_pkg_diversions *d);
/* Parse text (len bytes; kept, not copied) into d.  0 or MS_ERR_NOMEM. */
int ms_pkg_diversions_parse(const char *text, size_t len, struct ms_pkg_diversions *d);
void ms_pkg_diversions_free(struct ms_pkg_diversions *d);

/*
 * The diversion whose from (*is_from true) or to (false) is path, or, when
 * alias is not NULL, alias (the path's other spelling under merged /usr);
 * NULL when none.  A from is looked for before a to.
 */
const struct ms_pkg_diversion *ms_pkg_diversion_of(const struct ms_pkg_diversions *d, const char *path,
						   size_t len, const char *alias, size_t alias_len, bool *is_from);

#endif
