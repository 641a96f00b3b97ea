#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "pkg/candidates.h"

/* The directories every package shares, which name none. */
static const char *const usual[] = { "usr", "lib", "lib32", "lib64", "libx32", "bin", "sbin", "share",
				     "local", "libexec", "include", "etc", "var", "opt", "" };

/* Directories of one package's files whose names suggest nothing. */
static const struct {
	const char *dir, *package;
} known[] = {
	{ "/usr/lib/locale/", "libc-bin" },
	{ "/usr/lib/locale/", "locales" },
	{ "/usr/lib/x86_64-linux-gnu/gconv/", "libc6" },
	/* The programs processes most often are: cat, sleep, sort, tail, ps... */
	{ "/usr/bin/", "coreutils" },
	{ "/bin/", "coreutils" },
	{ "/usr/bin/", "procps" },
	{ "/bin/", "procps" },
};

struct prefixes {
	char (*out)[MS_PKG_PREFIX_MAX];
	size_t n;
};

/* Add "lead" then s (len bytes), normalised, unless too short, too long, or there already. */
static void put(struct prefixes *p, const char *lead, const char *s, size_t len)
{
	size_t at = strlen(lead);
	char buf[MS_PKG_PREFIX_MAX];

	if (p->n == MS_PKG_PREFIXES || at + len >= sizeof(buf))
		return;
	memcpy(buf, lead, at);
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (c == '_')
			c = '-';
		/* Anything else no package name holds: this is no name. */
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))
			return;
		buf[at++] = c;
	}
	buf[at] = '\0';
	/* Package names begin with a letter or digit and have two characters or more. */
	if (at < 3 || !((buf[0] >= 'a' && buf[0] <= 'z') || (buf[0] >= '0' && buf[0] <= '9')))
		return;
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->out[i], buf))
			return;
	memcpy(p->out[p->n++], buf, at + 1);
}

/* The stem of a base name: before ".so" followed by '.' or the end. */
static size_t stem_len(const char *b, size_t len)
{
	for (size_t i = 1; i + 3 <= len; i++)
		if (!memcmp(b + i, ".so", 3) && (i + 3 == len || b[i + 3] == '.'))
			return i;
	return len;
}

static bool is_version_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == '+';
}

static bool is_usual(const char *s, size_t len)
{
	if (len >= 9 && memmem(s, len, "-linux-", 7))
		return true;
	for (size_t i = 0; usual[i][0]; i++)
		if (strlen(usual[i]) == len && !memcmp(usual[i], s, len))
			return true;
	return false;
}

size_t ms_pkg_prefixes(const char *path, size_t len, char out[][MS_PKG_PREFIX_MAX])
{
	struct prefixes p = { out, 0 };
	size_t b = len, stem, bare, end;

	while (b && path[b - 1] != '/')
		b--;
	stem = stem_len(path + b, len - b);
	put(&p, "", path + b, stem);
	for (bare = stem; bare && is_version_char(path[b + bare - 1]);)
		bare--;
	if (bare >= 3 && bare < stem)
		put(&p, "", path + b, bare);
	/* Debian names a library's package by its soname: libc.so.6 -> libc6, libgtk-3.so.0 -> libgtk-3-0. */
	if (stem + 4 < len - b && path[b + stem + 3] == '.') {
		const char *major = path + b + stem + 4;
		size_t mlen = 0;
		char name[MS_PKG_PREFIX_MAX];
		size_t at = stem;

		while (mlen < len - b - stem - 4 && major[mlen] >= '0' && major[mlen] <= '9')
			mlen++;
		if (mlen && stem + 1 + mlen < sizeof(name)) {
			memcpy(name, path + b, stem);
			if (path[b + stem - 1] >= '0' && path[b + stem - 1] <= '9')
				name[at++] = '-';
			memcpy(name + at, major, mlen);
			put(&p, "", name, at + mlen);
		}
	}
	/* libz.so.1 is zlib1g's. */
	if (stem > 3 && !memcmp(path + b, "lib", 3)) {
		char name[MS_PKG_PREFIX_MAX];

		if (stem + 3 < sizeof(name)) {
			memcpy(name, path + b + 3, stem - 3);
			memcpy(name + stem - 3, "lib", 3);
			put(&p, "", name, stem);
		}
	}
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (len > strlen(known[k].dir) && !memcmp(path, known[k].dir, strlen(known[k].dir)))
			put(&p, "", known[k].package, strlen(known[k].package));
	/* The directories, deepest first. */
	for (end = b ? b - 1 : 0; end;) {
		size_t start = end;

		while (start && path[start - 1] != '/')
			start--;
		if (!is_usual(path + start, end - start)) {
			put(&p, "", path + start, end - start);
			if (end - start < 3 || memcmp(path + start, "lib", 3))
				put(&p, "lib", path + start, end - start);
		}
		end = start ? start - 1 : 0;
	}
	return p.n;
}
