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

void ms_pkg_status_versions(const char *text, size_t len, struct ms_pkg *out, size_t n)
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
