/* purl.c - package URLs: see purl.h. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "base/escape.h"
#include "pkg/purl.h"

static bool unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_' || c == '~' || c == ':';
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

/* One byte as the spec writes it: itself when unreserved, else %XX. */
static bool put_octet(char *out, size_t size, size_t *at, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	char triplet[3] = { '%', hex[c >> 4], hex[c & 0xf] };

	return unreserved(c) ? put(out, size, at, (const char *)&c, 1) : put(out, size, at, triplet, 3);
}

/*
 * The raw bytes, encoded once.  A byte that is not UTF-8 is encoded as
 * U+FFFD: a purl's components are UTF-8 once decoded (parsers such as
 * packageurl-js's decodeURIComponent refuse anything else).
 */
bool ms_purl_encode(const char *s, size_t len, char *out, size_t size, size_t *at)
{
	static const char repl[] = MS_TEXT_REPLACEMENT;
	size_t n = strnlen(s, len);

	for (size_t i = 0; i < n;) {
		enum ms_text_kind kind;
		size_t run = ms_text_unit(s + i, n - i, &kind);
		const char *bytes = kind == MS_TEXT_INVALID ? repl : s + i;
		size_t nbytes = kind == MS_TEXT_INVALID ? sizeof(repl) - 1 : run;

		for (size_t k = 0; k < nbytes; k++)
			if (!put_octet(out, size, at, (unsigned char)bytes[k]))
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

/*
 * name lower-cased for deb, pypi and npm (rpm and generic names are kept),
 * for pypi '_' as '-', then encoded.  An npm "@SCOPE/NAME" is the
 * namespace "@SCOPE" and the name NAME, each encoded ('@' as %40).
 */
static bool put_name(const struct ms_pkg *p, enum kind kind, char *out, size_t size, size_t *at)
{
	char name[sizeof(p->name)];
	size_t n = strnlen(p->name, sizeof(p->name) - 1);
	const char *slash = kind == KIND_NPM && p->name[0] == '@' ? memchr(p->name, '/', n) : NULL;
	bool lower = kind == KIND_DEB || kind == KIND_PYPI || kind == KIND_NPM;

	for (size_t i = 0; i < n; i++) {
		char c = p->name[i];

		name[i] = c >= 'A' && c <= 'Z' && lower ? (char)(c - 'A' + 'a') : c;
		if (kind == KIND_PYPI && c == '_')
			name[i] = '-';
	}
	name[n] = '\0';
	if (slash) {
		size_t ns = (size_t)(slash - p->name);

		return ms_purl_encode(name, ns, out, size, at) && put(out, size, at, "/", 1) &&
		       ms_purl_encode(name + ns + 1, n - ns - 1, out, size, at);
	}
	return ms_purl_encode(name, n, out, size, at);
}

size_t ms_purl_of(const struct ms_pkg *p, const char *version, const char *vendor, char *out, size_t size)
{
	static const char *const types[] = { [KIND_DEB] = "deb", [KIND_RPM] = "rpm", [KIND_PYPI] = "pypi",
					     [KIND_NPM] = "npm", [KIND_GENERIC] = "generic" };
	enum kind kind = kind_of(p, vendor);
	bool distro = kind == KIND_DEB || kind == KIND_RPM;
	const char *epoch = NULL, *colon;
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
		char v[64];
		size_t n = strnlen(vendor, sizeof(v) - 1);

		for (size_t i = 0; i < n; i++)
			v[i] = vendor[i] >= 'A' && vendor[i] <= 'Z' ? (char)(vendor[i] - 'A' + 'a') : vendor[i];
		v[n] = '\0';
		ok = ms_purl_encode(v, n, out, size, &at) && put(out, size, &at, "/", 1);
	}
	ok = ok && put_name(p, kind, out, size, &at);
	if (ok && version && version[0]) {
		/* rpm's epoch is a qualifier; dpkg's stays in the version, as Debian writes it. */
		if (kind == KIND_RPM && (colon = strchr(version, ':')) &&
		    strspn(version, "0123456789") == (size_t)(colon - version)) {
			epoch = version;
			epoch_len = (size_t)(colon - version);
			version = colon + 1;
		}
		ok = put(out, size, &at, "@", 1) && ms_purl_encode(version, strlen(version), out, size, &at);
	}
	/* Qualifiers sorted by key: arch, then epoch. */
	if (ok && p->arch[0] && (distro || kind == KIND_GENERIC))
		ok = put(out, size, &at, "?arch=", 6) && ms_purl_encode(p->arch, sizeof(p->arch), out, size, &at);
	if (ok && epoch_len)
		ok = put(out, size, &at, p->arch[0] ? "&epoch=" : "?epoch=", 7) &&
		     ms_purl_encode(epoch, epoch_len, out, size, &at);
	if (!ok) {
		out[0] = '\0';
		return 0;
	}
	return at;
}
