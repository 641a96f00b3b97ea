/* purl.c - package URLs: see purl.h. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "pkg/purl.h"

/*
 * Which bytes a part keeps as they are (purl.h, Encoding): a qualifier
 * value only the letters, digits and "*-._" (form encoding); the other
 * parts also "!'()~", the namespace and the version ':' too, the version
 * '+' too.
 */
static bool literal(unsigned char c, enum ms_purl_part part)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("*-._", c))
		return c != '\0';
	if (part == MS_PURL_QUALIFIER)
		return false;
	if (c == '!' || c == '\'' || c == '(' || c == ')' || c == '~')
		return true;
	return (c == ':' && part != MS_PURL_NAME) || (c == '+' && part == MS_PURL_VERSION);
}

static bool put(char *out, size_t size, size_t *at, const char *s, size_t len)
{
	if (*at + len >= size)
		return false;
	memcpy(out + *at, s, len);
	*at += len;
	out[*at] = '\0';
	return true;
}

/* One byte of part: itself when that part keeps it, else %XX. */
static bool put_octet(char *out, size_t size, size_t *at, unsigned char c, enum ms_purl_part part)
{
	static const char hex[] = "0123456789ABCDEF";
	char triplet[3] = { '%', hex[c >> 4], hex[c & 0xf] };

	return literal(c, part) ? put(out, size, at, (const char *)&c, 1) : put(out, size, at, triplet, 3);
}

/*
 * The raw bytes, encoded once.  A byte that is not UTF-8 is encoded as
 * U+FFFD: a purl's components are UTF-8 once decoded (parsers such as
 * packageurl-js's decodeURIComponent refuse anything else).
 */
bool ms_purl_encode(const char *s, size_t len, enum ms_purl_part part, char *out, size_t size, size_t *at)
{
	static const char repl[] = MS_TEXT_REPLACEMENT;
	size_t n = strnlen(s, len);

	for (size_t i = 0; i < n;) {
		enum ms_text_kind kind;
		size_t run = ms_text_unit(s + i, n - i, &kind);
		const char *bytes = kind == MS_TEXT_INVALID ? repl : s + i;
		size_t nbytes = kind == MS_TEXT_INVALID ? sizeof(repl) - 1 : run;

		for (size_t k = 0; k < nbytes; k++)
			if (!put_octet(out, size, at, (unsigned char)bytes[k], part))
				return false;
		i += run;
	}
	return true;
}

/* The purl type a package is written as. */
enum kind { KIND_NONE, KIND_DEB, KIND_RPM, KIND_PYPI, KIND_NPM, KIND_GENERIC };

/*
 * A note-owned file takes its note's packaging type when it is one we
 * write (deb, rpm: with the distribution as namespace, so only when one is
 * known), else pkg:generic.
 */
static enum kind kind_of(const struct ms_pkg *p, const char *vendor)
{
	bool vendor_known = vendor && vendor[0];

	switch (p->source) {
	case MS_PKG_SOURCE_DPKG: return vendor_known ? KIND_DEB : KIND_NONE;
	case MS_PKG_SOURCE_RPM: return vendor_known ? KIND_RPM : KIND_NONE;
	case MS_PKG_SOURCE_PYTHON: return KIND_PYPI;
	case MS_PKG_SOURCE_NPM: return KIND_NPM;
	case MS_PKG_SOURCE_NOTE:
		if (vendor_known && !strcmp(p->note_type, "deb"))
			return KIND_DEB;
		if (vendor_known && !strcmp(p->note_type, "rpm"))
			return KIND_RPM;
		return KIND_GENERIC;
	case MS_PKG_SOURCE_NONE: break;
	}
	return KIND_NONE;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/*
 * name lower-cased for deb, pypi and npm (rpm and generic names are kept),
 * for pypi each run of '-', '_' and '.' as one '-', then encoded.  An npm
 * "@SCOPE/NAME" is the namespace "@SCOPE" and the name NAME, each encoded
 * ('@' as %40).
 */
static bool put_name(const struct ms_pkg *p, enum kind kind, char *out, size_t size, size_t *at)
{
	char name[sizeof(p->name)];
	size_t n = strnlen(p->name, sizeof(p->name) - 1), k = 0;
	const char *slash = kind == KIND_NPM && p->name[0] == '@' ? memchr(p->name, '/', n) : NULL;
	bool fold = kind == KIND_DEB || kind == KIND_PYPI || kind == KIND_NPM, in_run = false;

	for (size_t i = 0; i < n; i++) {
		char c = fold ? lower(p->name[i]) : p->name[i];
		bool sep = kind == KIND_PYPI && (c == '-' || c == '_' || c == '.');

		if (!(sep && in_run))
			name[k++] = sep ? '-' : c;
		in_run = sep;
	}
	name[k] = '\0';
	if (slash) {
		size_t ns = (size_t)(slash - p->name);

		return ms_purl_encode(name, ns, MS_PURL_NAMESPACE, out, size, at) && put(out, size, at, "/", 1) &&
		       ms_purl_encode(name + ns + 1, k - ns - 1, MS_PURL_NAME, out, size, at);
	}
	return ms_purl_encode(name, k, MS_PURL_NAME, out, size, at);
}

/* One qualifier, when its raw value is not empty: "?key=" first, "&key=" after. */
static bool put_qualifier(char *out, size_t size, size_t *at, bool *first, const char *key, const char *value,
			  size_t len)
{
	if (!len)
		return true;
	if (!put(out, size, at, *first ? "?" : "&", 1) || !put(out, size, at, key, strlen(key)) ||
	    !put(out, size, at, "=", 1))
		return false;
	*first = false;
	return ms_purl_encode(value, len, MS_PURL_QUALIFIER, out, size, at);
}

/* distro: ID-VERSION_ID, else ID-VERSION_CODENAME (a release without a number: Debian testing), else none. */
static size_t distro_of(const struct ms_osrelease *os, char *buf, size_t size)
{
	const char *release = os->version_id[0] ? os->version_id : os->version_codename;
	int n;

	if (!os->id[0] || !release[0])
		return 0;
	n = snprintf(buf, size, "%s-%s", os->id, release);
	if (n <= 0 || (size_t)n >= size)
		return 0;
	for (size_t i = 0; os->id[i]; i++)
		buf[i] = lower(buf[i]);
	return (size_t)n;
}

/*
 * upstream: the source package, when it says more than the name.  deb:
 * SOURCE, or SOURCE@SRCVERSION when the source's version is not the
 * binary's; rpm: the source rpm's file name, SOURCE-VERSION-RELEASE.src.rpm.
 * The source's version is the installed one's: for another version (a
 * replaced copy that runs) only what does not depend on it is said.
 */
static size_t upstream_of(const struct ms_pkg *p, enum kind kind, const char *version, char *buf, size_t size)
{
	bool installed = version && version[0] && !strcmp(version, p->version);
	bool src_version = p->src_version[0] && installed;
	int n = 0;

	if (!p->src_name[0] || (kind != KIND_DEB && kind != KIND_RPM))
		return 0;
	if (kind == KIND_DEB) {
		if (!src_version && !strcmp(p->src_name, p->name))
			return 0;
		n = snprintf(buf, size, "%s%s%s", p->src_name, src_version ? "@" : "", src_version ? p->src_version : "");
	} else {
		if (!version || !version[0] || (p->src_version[0] && !installed))
			return 0;
		n = snprintf(buf, size, "%s-%s.src.rpm", p->src_name,
			     src_version ? p->src_version : ms_pkg_without_epoch(version));
	}
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

size_t ms_purl_of(const struct ms_pkg *p, const char *version, const struct ms_osrelease *os, char *out,
		  size_t size)
{
	static const char *const types[] = { [KIND_DEB] = "deb", [KIND_RPM] = "rpm", [KIND_PYPI] = "pypi",
					     [KIND_NPM] = "npm", [KIND_GENERIC] = "generic" };
	enum kind kind = kind_of(p, os ? os->id : NULL);
	bool distro = kind == KIND_DEB || kind == KIND_RPM, first = true;
	char raw[2 * MS_PKG_NAME_MAX + 2 * MS_PKG_VERSION_MAX];
	const char *epoch = NULL;
	size_t at = 0, epoch_len = 0;
	bool ok;

	if (!size)
		return 0;
	out[0] = '\0';
	if (kind == KIND_NONE || !p->name[0])
		return 0;
	ok = put(out, size, &at, "pkg:", 4) && put(out, size, &at, types[kind], strlen(types[kind])) &&
	     put(out, size, &at, "/", 1);
	if (ok && distro) {
		size_t n = strnlen(os->id, sizeof(os->id) - 1);

		for (size_t i = 0; i < n; i++)
			raw[i] = lower(os->id[i]);
		ok = ms_purl_encode(raw, n, MS_PURL_NAMESPACE, out, size, &at) && put(out, size, &at, "/", 1);
	}
	ok = ok && put_name(p, kind, out, size, &at);
	if (ok && version && version[0]) {
		const char *shown = version;

		/* rpm's epoch is a qualifier; dpkg's stays in the version, as Debian writes it. */
		if (kind == KIND_RPM && (shown = ms_pkg_without_epoch(version)) != version) {
			epoch = version;
			epoch_len = (size_t)(shown - 1 - version);
		}
		ok = put(out, size, &at, "@", 1) && ms_purl_encode(shown, strlen(shown), MS_PURL_VERSION, out, size, &at);
	}
	/* Qualifiers sorted by key: arch, distro, epoch, upstream. */
	if (ok && (distro || kind == KIND_GENERIC))
		ok = put_qualifier(out, size, &at, &first, "arch", p->arch, strnlen(p->arch, sizeof(p->arch)));
	if (ok && distro)
		ok = put_qualifier(out, size, &at, &first, "distro", raw, distro_of(os, raw, sizeof(raw)));
	if (ok && epoch_len)
		ok = put_qualifier(out, size, &at, &first, "epoch", epoch, epoch_len);
	if (ok)
		ok = put_qualifier(out, size, &at, &first, "upstream", raw, upstream_of(p, kind, version, raw, sizeof(raw)));
	if (!ok) {
		out[0] = '\0';
		return 0;
	}
	return at;
}
