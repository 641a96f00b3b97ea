/* pkgcells.c - the package cells of a table row: see pkgcells.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/pkgcells.h"
#include "core/base/escape.h"
#include "core/pkg/owner.h"

static char *escaped_field(const struct cli_opts *o, const char *field, size_t size)
{
	return ms_escape_dup(field, strnlen(field, size), o->escape_flags);
}

char *pkgcell_text(const struct cli_opts *o, enum pkgcell which, const struct ms_pkg *pkg)
{
	if (!pkg)
		return strdup("");
	if (which == PKGCELL_SOURCE)
		return strdup(ms_pkg_source_name(pkg->found ? pkg->source : MS_PKG_SOURCE_NONE));
	if (!pkg->found)
		return strdup(which == PKGCELL_PACKAGE ? "not packaged" : "");
	switch (which) {
	case PKGCELL_PACKAGE: return escaped_field(o, pkg->name, sizeof(pkg->name));
	case PKGCELL_INSTALLED: return escaped_field(o, pkg->version, sizeof(pkg->version));
	case PKGCELL_VENDORED: return pkg->vendored ? escaped_field(o, pkg->name, sizeof(pkg->name)) : strdup("");
	default: break;
	}
	if (pkg->running_state == MS_PKG_RUNNING_UNKNOWN)
		return strdup(o->json ? "" : "unknown");
	if (pkg->running_state == MS_PKG_RUNNING_KNOWN)
		return escaped_field(o, pkg->running, sizeof(pkg->running));
	return escaped_field(o, pkg->version, sizeof(pkg->version));
}
