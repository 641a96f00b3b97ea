/* pkgcells.c - the package cells of a table row: see pkgcells.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/pkgcells.h"
#include "core/base/escape.h"
#include "core/pkg/owner.h"

/* A field of ms_pkg: NUL-terminated, or filling its array. */
static const char *field(const char *f, size_t size, size_t *len)
{
	*len = strnlen(f, size);
	return f;
}

static const char *text(const char *t, size_t *len)
{
	*len = strlen(t);
	return t;
}

const char *pkgcell_raw(const struct cli_opts *o, enum pkgcell which, const struct ms_pkg *pkg, size_t *len)
{
	if (!pkg)
		return text("", len);
	if (which == PKGCELL_SOURCE)
		return text(ms_pkg_source_name(pkg->found ? pkg->source : MS_PKG_SOURCE_NONE), len);
	if (!pkg->found)
		return text(which == PKGCELL_PACKAGE ? "not packaged" : "", len);
	switch (which) {
	case PKGCELL_PACKAGE: return field(pkg->name, sizeof(pkg->name), len);
	case PKGCELL_INSTALLED: return field(pkg->version, sizeof(pkg->version), len);
	case PKGCELL_VENDORED: return pkg->vendored ? field(pkg->name, sizeof(pkg->name), len) : text("", len);
	case PKGCELL_VERWHY:
		return pkg->running_state == MS_PKG_RUNNING_INSTALLED ? text("", len)
								       : field(pkg->running_why, sizeof(pkg->running_why), len);
	case PKGCELL_NOTE: return text("", len);
	default: break;
	}
	if (pkg->running_state == MS_PKG_RUNNING_UNKNOWN)
		return text(o->json ? "" : "unknown", len);
	if (pkg->running_state == MS_PKG_RUNNING_KNOWN)
		return field(pkg->running, sizeof(pkg->running), len);
	return field(pkg->version, sizeof(pkg->version), len);
}

char *pkgcell_text(const struct cli_opts *o, enum pkgcell which, const struct ms_pkg *pkg)
{
	char why[2 * MS_PKG_WHY_MAX];
	size_t len;
	const char *raw = pkgcell_raw(o, which, pkg, &len);

	if (which == PKGCELL_VERWHY && pkg && pkg->found) {
		raw = ms_pkg_running_why(pkg, why, sizeof(why));
		len = strlen(raw);
	}
	if (which == PKGCELL_NOTE && pkg && pkg->found && pkg->note_differs) {
		char note[2 * MS_PKG_NAME_MAX + 2 * MS_PKG_VERSION_MAX];
		int n = snprintf(note, sizeof(note), "%.*s%s%.*s", (int)strnlen(pkg->note_name, sizeof(pkg->note_name)),
				 pkg->note_name, pkg->note_version[0] ? " " : "",
				 (int)strnlen(pkg->note_version, sizeof(pkg->note_version)), pkg->note_version);

		return ms_escape_dup(note, n < 0 ? 0 : (size_t)n, o->escape_flags);
	}

	return ms_escape_dup(raw, len, o->escape_flags);
}
