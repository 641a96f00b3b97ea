#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "pkgdb.h"
#include "saferead.h"

/* The directories merged /usr made aliases, each both ways. */
static const char *const merged[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/" };

struct want {
	const char *path; /* NULL: an empty slot */
	size_t len;
	size_t idx;       /* into the caller's arrays */
	char *own;        /* an alias we made, freed with the table */
};

#define LEN_BUCKETS 4096u

struct table {
	struct want *slots;
	size_t mask;
	size_t left;      /* caller's paths not found yet */
	/*
	 * The lengths wanted (modulo LEN_BUCKETS): a list line of another
	 * length is skipped unhashed, and most of the database's lines are.
	 */
	unsigned char len_wanted[LEN_BUCKETS];
};

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static struct want *slot_for(struct table *t, const char *s, size_t len)
{
	size_t i = (size_t)hash(s, len) & t->mask;

	while (t->slots[i].path && (t->slots[i].len != len || memcmp(t->slots[i].path, s, len)))
		i = (i + 1) & t->mask;
	return &t->slots[i];
}

static int add(struct table *t, const char *s, size_t len, size_t idx, char *own)
{
	struct want *w = slot_for(t, s, len);

	if (w->path) {
		free(own);
		return 0;
	}
	*w = (struct want){ .path = s, .len = len, .idx = idx, .own = own };
	t->len_wanted[len % LEN_BUCKETS] = 1;
	return 0;
}

/* The other spelling of a path under merged /usr, malloc'd; NULL if none. */
static char *alias_of(const char *p, size_t len, size_t *alias_len)
{
	for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
		size_t m = strlen(merged[i]);
		char *a;

		if (len > 4 + m && !memcmp(p, "/usr", 4) && !memcmp(p + 4, merged[i], m)) {
			*alias_len = len - 4;
			return strndup(p + 4, len - 4);
		}
		if (len > m && !memcmp(p, merged[i], m)) {
			a = malloc(len + 5);
			if (!a)
				return NULL;
			memcpy(a, "/usr", 4);
			memcpy(a + 4, p, len);
			a[len + 4] = '\0';
			*alias_len = len + 4;
			return a;
		}
	}
	return NULL;
}

static int table_init(struct table *t, const char *const *paths, const size_t *lens, size_t n)
{
	size_t size = 16;

	while (size < 4 * n)
		size *= 2;
	t->slots = calloc(size, sizeof(*t->slots));
	if (!t->slots)
		return MS_ERR_NOMEM;
	t->mask = size - 1;
	t->left = n;
	for (size_t i = 0; i < n; i++) {
		size_t alen;
		char *alias;

		add(t, paths[i], lens[i], i, NULL);
		alias = alias_of(paths[i], lens[i], &alen);
		if (alias)
			add(t, alias, alen, i, alias);
	}
	return 0;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i <= t->mask; i++)
		free(t->slots[i].own);
	free(t->slots);
}

static void copy_field(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Every line of one list file that names a wanted path: that path is the package's. */
static void scan_list(struct table *t, const char *text, size_t len, const char *file,
		      struct ms_pkg *out)
{
	const char *colon = strchr(file, ':');
	size_t base = strlen(file) - strlen(".list");
	size_t pos = 0;

	while (pos < len && t->left) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		struct want *w = n && t->len_wanted[n % LEN_BUCKETS] ? slot_for(t, text + pos, n) : NULL;

		if (w && w->path && !out[w->idx].found) {
			struct ms_pkg *p = &out[w->idx];

			p->found = true;
			copy_field(p->name, sizeof(p->name), file, colon ? (size_t)(colon - file) : base);
			if (colon)
				copy_field(p->arch, sizeof(p->arch), colon + 1, base - (size_t)(colon + 1 - file));
			t->left--;
		}
		pos += n + 1;
	}
}

static bool is_list(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".list") && name[0] != '.';
}

/*
 * dpkg's info directory is root's: its entries are read directly
 * (saferead.h).  Should it be writable by others, every file goes the
 * careful way, through O_PATH and a reopen.
 */
static int scan_lists(const char *dir, struct table *t, struct ms_pkg *out)
{
	char path[4096];
	struct dirent *de;
	size_t seen = 0, cap = 0;
	char *buf = NULL;
	bool direct;
	DIR *d;

	snprintf(path, sizeof(path), "%s/info", dir);
	d = opendir(path);
	if (!d)
		return MS_ERR_NOTSUP;
	direct = ms_dir_only_root_changes(dirfd(d));
	while (t->left && seen < MS_PKGDB_LISTS && (de = readdir(d))) {
		struct ms_error ignored;
		char *text;
		size_t len;

		if (!is_list(de->d_name) ||
		    snprintf(path, sizeof(path), "%s/info/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		seen++;
		if (direct) {
			if (ms_read_regular_entry(dirfd(d), de->d_name, MS_PKGDB_LIST_MAX, &buf, &cap, &len,
						  &ignored) == 0)
				scan_list(t, buf, len, de->d_name, out);
		} else if (ms_read_regular(path, MS_PKGDB_LIST_MAX, &text, &len, &ignored) == 0) {
			scan_list(t, text, len, de->d_name, out);
			free(text);
		}
	}
	free(buf);
	closedir(d);
	return 0;
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
		copy_field(p->version, sizeof(p->version), s->version, s->version_len);
	}
}

static void scan_status(const char *dir, struct ms_pkg *out, size_t n)
{
	struct stanza s = { 0 };
	struct ms_error ignored;
	char path[4096], *text;
	size_t len, pos = 0;

	snprintf(path, sizeof(path), "%s/status", dir);
	if (ms_read_regular(path, MS_PKGDB_STATUS_MAX, &text, &len, &ignored) < 0)
		return;
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
	free(text);
}

int ms_pkgdb_lookup(const char *dir, const char *const *paths, const size_t *lens, size_t n,
		    struct ms_pkg *out, struct ms_error *err)
{
	struct table t = { 0 };
	int rc;

	memset(out, 0, n * sizeof(*out));
	if (table_init(&t, paths, lens, n) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = scan_lists(dir, &t, out);
	table_free(&t);
	if (rc == MS_ERR_NOTSUP)
		return ms_error_set(err, MS_ERR_NOTSUP, ENOENT, "%s/info: not a dpkg system", dir);
	scan_status(dir, out, n);
	return 0;
}

size_t ms_pkg_describe(const struct ms_pkg *p, unsigned esc_flags, char *buf, size_t size)
{
	size_t at;
	int more;

	if (size == 0)
		return 0;
	at = ms_escape(p->name, strnlen(p->name, sizeof(p->name)), buf, size, esc_flags);
	if (!p->version[0] || at + 8 >= size)
		return at;
	more = snprintf(buf + at, size - at, " (now ");
	if (more < 0 || (size_t)more >= size - at)
		return at;
	at += (size_t)more;
	at += ms_escape(p->version, strnlen(p->version, sizeof(p->version)), buf + at, size - at - 1, esc_flags);
	buf[at++] = ')';
	buf[at] = '\0';
	return at;
}
