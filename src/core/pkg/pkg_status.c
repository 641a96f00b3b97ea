#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/saferead.h"
#include "pkg/pkg_status.h"

void ms_pkg_copy_field(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* A field of one stanza: its value, without the name and leading blanks, up to a NUL. */
static bool field(const char *line, size_t n, const char *name, const char **val, size_t *vlen)
{
	size_t k = strlen(name);

	if (n <= k || memcmp(line, name, k))
		return false;
	*val = line + k;
	*vlen = n - k;
	while (*vlen && (**val == ' ' || **val == '\t'))
		(*val)++, (*vlen)--;
	*vlen = strnlen(*val, *vlen);
	return true;
}

struct stanza {
	const char *pkg, *arch, *version, *source;
	size_t pkg_len, arch_len, version_len, source_len;
	bool installed;
};

/*
 * "Source: NAME" or "Source: NAME (VERSION)": NAME, and VERSION when it
 * is there and not the binary's; no Source line: the package's own name.
 */
static void take_source(const struct stanza *s, struct ms_pkg *p)
{
	const char *src = s->source ? s->source : s->pkg, *lp, *rp;
	size_t len = s->source ? s->source_len : s->pkg_len, name_len = 0, vlen;

	while (name_len < len && src[name_len] != ' ' && src[name_len] != '\t' && src[name_len] != '(')
		name_len++;
	ms_pkg_copy_field(p->src_name, sizeof(p->src_name), src, name_len);
	p->src_version[0] = '\0';
	lp = memchr(src + name_len, '(', len - name_len);
	rp = lp ? memchr(lp, ')', len - (size_t)(lp - src)) : NULL;
	if (!rp)
		return;
	vlen = (size_t)(rp - lp - 1);
	if (vlen && !(vlen == s->version_len && !memcmp(lp + 1, s->version, vlen)))
		ms_pkg_copy_field(p->src_version, sizeof(p->src_version), lp + 1, vlen);
}

static void apply(const struct stanza *s, struct ms_pkg *out, size_t n)
{
	if (!s->installed || !s->pkg || !s->version || !s->version_len)
		return;
	for (size_t i = 0; i < n; i++) {
		struct ms_pkg *p = &out[i];

		if (!p->found || p->version[0] || strlen(p->name) != s->pkg_len ||
		    memcmp(p->name, s->pkg, s->pkg_len))
			continue;
		if (p->arch[0] && s->arch && (strlen(p->arch) != s->arch_len || memcmp(p->arch, s->arch, s->arch_len)))
			continue;
		ms_pkg_copy_field(p->version, sizeof(p->version), s->version, s->version_len);
		/* A list file without ":ARCH" (a package not Multi-Arch: same) still has one: the stanza's. */
		if (!p->arch[0] && s->arch)
			ms_pkg_copy_field(p->arch, sizeof(p->arch), s->arch, s->arch_len);
		take_source(s, p);
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
		} else if (field(line, k, "Source:", &v, &vl)) {
			s.source = v, s.source_len = vl;
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
		    strnlen(out[i].name, sizeof(out[i].name)) == len && !memcmp(out[i].name, name, len))
			return true;
	return false;
}

/*
 * The distinct names wanted() would say yes to, taken once per text: many
 * paths share a package, and every stanza's name is checked.  More than
 * WANTED_MAX names and wanted() itself answers.
 */
#define WANTED_MAX 64

struct wanted_set {
	const char *name[WANTED_MAX];
	size_t len[WANTED_MAX];
	size_t count;
	bool overflow;
};

static void wanted_set_take(struct wanted_set *w, const struct ms_pkg *out, size_t n)
{
	w->count = 0;
	w->overflow = false;
	for (size_t i = 0; i < n && !w->overflow; i++) {
		size_t len = strnlen(out[i].name, sizeof(out[i].name)), k = 0;

		if (!out[i].found || out[i].version[0])
			continue;
		while (k < w->count && !(w->len[k] == len && !memcmp(w->name[k], out[i].name, len)))
			k++;
		if (k < w->count)
			continue;
		if (w->count == WANTED_MAX) {
			w->overflow = true;
			break;
		}
		w->name[w->count] = out[i].name;
		w->len[w->count++] = len;
	}
}

static bool wanted_in(const struct wanted_set *w, const struct ms_pkg *out, size_t n, const char *name,
		      size_t len)
{
	if (w->overflow)
		return wanted(out, n, name, len);
	for (size_t k = 0; k < w->count; k++)
		if (w->len[k] == len && w->name[k][0] == name[0] && !memcmp(w->name[k], name, len))
			return true;
	return false;
}

/* Does any path found still want a version? */
static bool any_wanted(const struct ms_pkg *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].found && !out[i].version[0])
			return true;
	return false;
}

/*
 * The next "Package:" at the start of a line of text, from p on, or NULL.
 * A capital P is rare in the text (a few a stanza), so memchr finds the
 * candidates far faster than memmem would the whole word.
 */
static const char *next_package_line(const char *text, const char *p, const char *end)
{
	while (p < end && (p = memchr(p, 'P', (size_t)(end - p)))) {
		if ((size_t)(end - p) >= 8 && !memcmp(p, "Package:", 8) && (p == text || p[-1] == '\n'))
			return p;
		p++;
	}
	return NULL;
}

/*
 * The stanza ms_pkg_status_versions reads for the "Package:" line at hit:
 * from the blank line before to just after the one after.
 */
static void stanza_around(const char *text, const char *hit, const char *end, const char **start, const char **stop)
{
	const char *s = hit, *e = memmem(hit, (size_t)(end - hit), "\n\n", 2);

	while (s > text && !(s[-1] == '\n' && (s - 1 == text || s[-2] == '\n')))
		s--;
	*start = s;
	*stop = e ? e + 1 : end;
}

/* The package's name on the "Package:" line at hit, or false when it has none. */
static bool package_name(const char *hit, const char *end, const char **name, size_t *len)
{
	const char *v = hit + 8, *eol;

	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	eol = memchr(v, '\n', (size_t)(end - v));
	eol = eol ? eol : end;
	*name = v;
	*len = (size_t)(eol - v);
	return eol != v;
}

/*
 * Most of the file is packages nobody asked about: find each "Package:"
 * line (not a look at every line) and read only the stanzas of the
 * packages wanted, whole, from the blank line before to the one after.
 */
void ms_pkg_status_versions(const char *text, size_t len, struct ms_pkg *out, size_t n)
{
	const char *p = text, *end = text + len, *hit;
	struct wanted_set w;

	wanted_set_take(&w, out, n);
	while (p < end && (hit = next_package_line(text, p, end))) {
		const char *v, *start, *stop;
		size_t vl;

		p = hit + 8;
		if (!package_name(hit, end, &v, &vl) || !wanted_in(&w, out, n, v, vl))
			continue;
		stanza_around(text, hit, end, &start, &stop);
		scan_stanzas(start, (size_t)(stop - start), out, n);
		/* Versions taken: names answered leave the set. */
		wanted_set_take(&w, out, n);
		p = stop;
	}
}

int ms_pkg_status_stanzas(const char *text, size_t len, struct ms_pkg_stanza **out, size_t *count)
{
	const char *p = text, *end = text + len, *hit;
	size_t cap = 0;

	*out = NULL;
	*count = 0;
	while (p < end && (hit = next_package_line(text, p, end))) {
		const char *v, *start, *stop;
		size_t vl;

		p = hit + 8;
		if (!package_name(hit, end, &v, &vl))
			continue;
		stanza_around(text, hit, end, &start, &stop);
		if (*count == cap) {
			size_t want = cap ? 2 * cap : 1024;
			struct ms_pkg_stanza *grown = realloc(*out, want * sizeof(**out));

			if (!grown) {
				free(*out);
				*out = NULL;
				*count = 0;
				return MS_ERR_NOMEM;
			}
			*out = grown;
			cap = want;
		}
		(*out)[(*count)++] = (struct ms_pkg_stanza){ .name = v, .name_len = vl,
							     .off = (size_t)(start - text),
							     .len = (size_t)(stop - start) };
	}
	return 0;
}

#define CHUNK (64u << 10)
#define STANZA_MAX (1u << 20)

/* The end of the last stanza of text (just after its blank line), or 0. */
static size_t whole_stanzas(const char *text, size_t len)
{
	for (size_t i = len; i >= 2; i--)
		if (text[i - 1] == '\n' && text[i - 2] == '\n')
			return i;
	return 0;
}

int ms_pkg_status_versions_fd(int fd, size_t max, struct ms_pkg *out, size_t n)
{
	size_t cap = CHUNK, have = 0, total = 0;
	char *buf = malloc(cap), *grown;

	if (!buf)
		return MS_ERR_NOMEM;
	while (total < max) {
		size_t room, done;
		ssize_t got;

		/* A stanza longer than the buffer: a bigger one, up to STANZA_MAX, then it is cut. */
		if (have == cap) {
			if (cap < STANZA_MAX && (grown = realloc(buf, 2 * cap))) {
				buf = grown;
				cap *= 2;
			} else {
				ms_pkg_status_versions(buf, have, out, n);
				have = 0;
			}
		}
		room = cap - have < max - total ? cap - have : max - total;
		got = read(fd, buf + have, room);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		have += (size_t)got;
		total += (size_t)got;
		done = whole_stanzas(buf, have);
		if (done) {
			ms_pkg_status_versions(buf, done, out, n);
			memmove(buf, buf + done, have - done);
			have -= done;
		}
		/* Every version found: no later stanza changes an answer (apply). */
		if (!any_wanted(out, n)) {
			have = 0;
			break;
		}
	}
	ms_pkg_status_versions(buf, have, out, n);
	free(buf);
	return 0;
}

int ms_pkg_status_read_versions(const char *dir, size_t max, struct ms_pkg *out, size_t n)
{
	struct ms_error ignored;
	char path[4096];
	int fd, rc;

	if (snprintf(path, sizeof(path), "%s/status", dir) >= (int)sizeof(path))
		return 0;
	fd = ms_open_regular(path, &ignored);
	if (fd < 0)
		return 0;
	rc = ms_pkg_status_versions_fd(fd, max, out, n);
	close(fd);
	return rc;
}
