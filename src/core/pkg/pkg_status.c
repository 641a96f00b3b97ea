#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "pkg/pkg_status.h"

void ms_pkg_copy_field(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* A field of one stanza: its value, without the name and leading blanks. */
static bool field(const char *line, size_t n, const char *name, const char **val, size_t *vlen)
{
	size_t k = strlen(name);

	if (n <= k || memcmp(line, name, k))
		return false;
	*val = line + k;
	*vlen = n - k;
	while (*vlen && (**val == ' ' || **val == '\t'))
		(*val)++, (*vlen)--;
	return true;
}

struct stanza {
	const char *pkg, *arch, *version;
	size_t pkg_len, arch_len, version_len;
	bool installed;
};

static void apply(const struct stanza *s, struct ms_pkg *out, size_t n)
{
	if (!s->installed || !s->pkg || !s->version)
		return;
	for (size_t i = 0; i < n; i++) {
		struct ms_pkg *p = &out[i];

		if (!p->found || p->version[0] || strlen(p->name) != s->pkg_len ||
		    memcmp(p->name, s->pkg, s->pkg_len))
			continue;
		if (p->arch[0] && s->arch && (strlen(p->arch) != s->arch_len || memcmp(p->arch, s->arch, s->arch_len)))
			continue;
		ms_pkg_copy_field(p->version, sizeof(p->version), s->version, s->version_len);
	}
}

/* Every stanza of text, line by line. */
static void scan_stanzas(const char *text, size_t len, struct ms_pkg *out, size_t n)
{
	struct stanza s = { 0 };
	size_t pos = 0;

	while (pos <= len) {
		const char *nl = pos < len ? memchr(text + pos, '\n', len - pos) : NULL;
		size_t k = nl ? (size_t)(nl - (text + pos)) : len - pos;
		const char *line = text + pos, *v;
		size_t vl;

		if (k == 0) {
			apply(&s, out, n);
			memset(&s, 0, sizeof(s));
		} else if (field(line, k, "Package:", &v, &vl)) {
			s.pkg = v, s.pkg_len = vl;
		} else if (field(line, k, "Architecture:", &v, &vl)) {
			s.arch = v, s.arch_len = vl;
		} else if (field(line, k, "Version:", &v, &vl)) {
			s.version = v, s.version_len = vl;
		} else if (field(line, k, "Status:", &v, &vl)) {
			s.installed = vl >= 9 && !memcmp(v + vl - 9, "installed", 9) &&
				      (vl < 16 || memcmp(v + vl - 16, "not-installed", 13));
		}
		pos += k + 1;
	}
	apply(&s, out, n);
}

/* Some path found in the package named so (len bytes) still wants a version. */
static bool wanted(const struct ms_pkg *out, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].found && !out[i].version[0] && out[i].name[0] == name[0] &&
		    !strncmp(out[i].name, name, len) && out[i].name[len] == '\0')
			return true;
	return false;
}

/*
 * Most of the file is packages nobody asked about: find each "Package:"
 * line (memmem, not a look at every line) and read only the stanzas of
 * the packages wanted, whole, from the blank line before to the one after.
 */
void ms_pkg_status_versions(const char *text, size_t len, struct ms_pkg *out, size_t n)
{
	const char *p = text, *end = text + len, *hit;

	while (p < end && (hit = memmem(p, (size_t)(end - p), "Package:", 8))) {
		const char *v = hit + 8, *eol, *start = hit, *stop;

		p = v;
		if (hit != text && hit[-1] != '\n')
			continue;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		eol = memchr(v, '\n', (size_t)(end - v));
		eol = eol ? eol : end;
		if (eol == v || !wanted(out, n, v, (size_t)(eol - v)))
			continue;
		while (start > text && !(start[-1] == '\n' && (start - 1 == text || start[-2] == '\n')))
			start--;
		stop = memmem(hit, (size_t)(end - hit), "\n\n", 2);
		stop = stop ? stop + 1 : end;
		scan_stanzas(start, (size_t)(stop - start), out, n);
		p = stop;
	}
}
