/* facts.c - the registry of file facts and their text: see facts.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"
#include "elf/buildid.h"
#include "files/facts.h"
#include "files/fileinfo.h"
#include "files/filemap.h"

#define PKG_SOURCES "dpkg, rpm, elf-note, python, npm or none"

static const struct ms_fact_desc facts[MS_FACT_COUNT] = {
	[MS_FACT_PACKAGE] = { "PACKAGE",
			      "package that owns the file (dpkg, rpm, the file's ELF package note, a Python "
			      "distribution or an npm package), escaped; \"not packaged\" for none",
			      MS_NEED_PKG, MS_FACT_JSON_STRING },
	[MS_FACT_VERSION] = { "VERSION",
			      "package version of the copy mapped: the installed one, or for a replaced or "
			      "deleted file the one that ran (\"unknown\", null in JSON, when that cannot be known: "
			      "VERWHY says why)",
			      MS_NEED_PKG | MS_NEED_MAPFILES, MS_FACT_JSON_STRING },
	[MS_FACT_INSTALLED] = { "INSTALLED", "package version installed now (compare with VERSION)", MS_NEED_PKG,
				MS_FACT_JSON_STRING },
	[MS_FACT_PKGSRC] = { "PKGSRC", "which source answered PACKAGE: " PKG_SOURCES, MS_NEED_PKG,
			     MS_FACT_JSON_STRING },
	[MS_FACT_VENDORED] = { "VENDORED", "the Python distribution that vendors the file in its NAME.libs folder",
			       MS_NEED_PKG, MS_FACT_JSON_STRING },
	[MS_FACT_VERWHY] = { "VERWHY",
			     "how VERSION was found for a replaced or deleted copy, or why it is unknown (with the "
			     "candidates when two or fewer)",
			     MS_NEED_PKG | MS_NEED_MAPFILES, MS_FACT_JSON_STRING },
	[MS_FACT_PKGNOTE] = { "PKGNOTE",
			      "what the file's ELF package note says (NAME VERSION) where it names another version "
			      "than dpkg or rpm, escaped",
			      MS_NEED_PKG | MS_NEED_ELF, MS_FACT_JSON_STRING },
	[MS_FACT_BUILDID] = { "BUILDID", "GNU build ID of the mapped file (hex)", MS_NEED_ELF, MS_FACT_JSON_STRING },
	[MS_FACT_SONAME] = { "SONAME", "SONAME from the ELF dynamic section, escaped; ? when unknown", MS_NEED_ELF,
			     MS_FACT_JSON_STRING },
	[MS_FACT_LIBVER] = { "LIBVER",
			     "the library's own version: its highest ELF version definition (GLIBC_2.36); ? when "
			     "unknown",
			     MS_NEED_ELF, MS_FACT_JSON_STRING },
	[MS_FACT_FILEVER] = { "FILEVER",
			      "the version the file name carries (libz.so.1.2.13: 1.2.13; libc.so.6: 6), not the "
			      "library's own",
			      0, MS_FACT_JSON_STRING },
	[MS_FACT_VERDICT] = { "VERDICT", "stale verdict: ok, same-build, replaced, deleted, ignored, unknown",
			      MS_NEED_VERDICT | MS_NEED_STAT, MS_FACT_JSON_STRING },
	[MS_FACT_RSS] = { "RSS", "resident memory of the file's mappings, as smaps Rss", MS_NEED_SMAPS,
			  MS_FACT_JSON_NUMBER },
	[MS_FACT_PSS] = { "PSS", "proportional set size of the file's mappings, from smaps",
			  MS_NEED_SMAPS | MS_NEED_SMAPS_TEXT,
			  MS_FACT_JSON_NUMBER },
	[MS_FACT_USS] = { "USS", "unique set size: resident memory no other process shares, from smaps",
			  MS_NEED_SMAPS | MS_NEED_SMAPS_TEXT, MS_FACT_JSON_NUMBER },
	[MS_FACT_DIRTY] = { "DIRTY", "memory written since it was mapped (private and shared dirty), from smaps",
			    MS_NEED_SMAPS | MS_NEED_SMAPS_TEXT, MS_FACT_JSON_NUMBER },
};

const struct ms_fact_desc *ms_fact_desc(enum ms_fact f)
{
	return &facts[(unsigned)f < MS_FACT_COUNT ? f : MS_FACT_PACKAGE];
}

int ms_fact_by_name(const char *name, size_t len)
{
	for (int f = 0; f < MS_FACT_COUNT; f++)
		if (strlen(facts[f].name) == len && !strncasecmp(facts[f].name, name, len))
			return f;
	return -1;
}

void ms_fact_src_fileinfo(struct ms_fact_src *s, const struct ms_fileinfo *info)
{
	memset(s, 0, sizeof(*s));
	s->pkg_known = info->pkg_known;
	s->pkg = info->pkg.found ? &info->pkg : NULL;
	s->pkg_why = info->pkg_why;
	if (info->asked & MS_FILEINFO_BUILD_ID) {
		s->build_id = info->build_id;
		s->build_id_len = info->build_id_len;
	}
	if (info->asked & MS_FILEINFO_SONAME)
		s->soname = ms_fileinfo_soname_text(info);
	if (info->asked & MS_FILEINFO_LIBVER)
		s->libver = ms_fileinfo_libver_text(info);
	s->filever = info->filever;
	s->verdict_known = info->verdict_known;
	s->verdict = info->verdict.verdict;
	s->size_known[0] = info->rss_known;
	s->size[0] = info->rss;
}

/* A field of ms_pkg: NUL-terminated, or filling its array. */
static const char *field(const char *f, size_t size, size_t *len)
{
	*len = strnlen(f, size);
	return f;
}

static const char *text(const char *t, size_t *len)
{
	*len = t ? strlen(t) : 0;
	return t ? t : "";
}

static const char *composed(char *buf, size_t size, int n, size_t *len)
{
	*len = n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
	return buf;
}

static const char *package_fact(enum ms_fact f, const struct ms_pkg *p, unsigned flags, char *buf, size_t size,
				size_t *len)
{
	if (f == MS_FACT_PKGSRC)
		return text(ms_pkg_source_name(p ? p->source : MS_PKG_SOURCE_NONE), len);
	if (!p)
		return text(f == MS_FACT_PACKAGE ? "not packaged" : "", len);
	switch (f) {
	case MS_FACT_PACKAGE: return field(p->name, sizeof(p->name), len);
	case MS_FACT_INSTALLED: return field(p->version, sizeof(p->version), len);
	case MS_FACT_VENDORED: return p->vendored ? field(p->name, sizeof(p->name), len) : text("", len);
	case MS_FACT_VERWHY: return text(ms_pkg_running_why(p, buf, size), len);
	case MS_FACT_PKGNOTE:
		if (!p->note_differs)
			return text("", len);
		return composed(buf, size,
				snprintf(buf, size, "%.*s%s%.*s", (int)strnlen(p->note_name, sizeof(p->note_name)),
					 p->note_name, p->note_version[0] ? " " : "",
					 (int)strnlen(p->note_version, sizeof(p->note_version)), p->note_version),
				len);
	default: break;
	}
	/* VERSION: the copy mapped. */
	if (p->running_state == MS_PKG_RUNNING_UNKNOWN)
		return text(flags & MS_FACT_JSON ? "" : "unknown", len);
	if (p->running_state == MS_PKG_RUNNING_KNOWN)
		return field(p->running, sizeof(p->running), len);
	return field(p->version, sizeof(p->version), len);
}

const char *ms_fact_text(enum ms_fact f, const struct ms_fact_src *s, unsigned flags, char *buf,
			 size_t size, size_t *len)
{
	switch (f) {
	case MS_FACT_PACKAGE: case MS_FACT_VERSION: case MS_FACT_INSTALLED: case MS_FACT_PKGSRC:
	case MS_FACT_VENDORED: case MS_FACT_VERWHY: case MS_FACT_PKGNOTE:
		if (!s->pkg_known || s->pkg_why)
			return text("", len);
		return package_fact(f, s->pkg, flags, buf, size, len);
	case MS_FACT_BUILDID:
		if (!s->build_id_len || size < 2 * (size_t)s->build_id_len + 1)
			return text("", len);
		ms_buildid_hex(s->build_id, s->build_id_len, buf);
		return text(buf, len);
	case MS_FACT_SONAME: return text(s->soname, len);
	case MS_FACT_LIBVER: return text(s->libver, len);
	case MS_FACT_FILEVER: return text(s->filever, len);
	case MS_FACT_VERDICT: return text(s->verdict_known ? ms_stale_verdict_name(s->verdict) : "", len);
	case MS_FACT_RSS: case MS_FACT_PSS: case MS_FACT_USS: case MS_FACT_DIRTY:
		if (!s->size_known[f - MS_FACT_RSS])
			return text("", len);
		ms_format_size(s->size[f - MS_FACT_RSS], flags & MS_FACT_BYTES, buf, size);
		return text(buf, len);
	default: break;
	}
	return text("", len);
}
