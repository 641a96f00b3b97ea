/* pydist.c - the Python distribution that owns a file: see pydist.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "pkg/pydist.h"
#include "pkg/pymeta.h"
#include "pkg/pyrecord.h"
#include "untrusted/untrusted_walk.h"
#include "untrusted/walk_read.h"

#define KEY_MAX 128

struct ms_pydist {
	struct ms_walk_reader rd; /* our root, once a site directory is asked about; the file read last */
	struct ms_pydist_stats st;
	size_t entries;           /* directory entries read, all site directories */
};

/* A path asked about: path[0, site) is its site directory, the rest after the slash its place there. */
struct want {
	size_t idx;
	const char *path;
	size_t site;
	size_t len;
	size_t owner; /* into the site's dists; SIZE_MAX: none yet */
};

struct dist {
	char *dir;       /* NAME-VERSION.dist-info, or NAME-VERSION[-pyX.Y].egg-info */
	bool egg;        /* its files are in installed-files.txt, its metadata in PKG-INFO */
	bool candidate;  /* named like a wanted file's top folder or module */
	bool described;
	unsigned found;  /* MS_PYMETA_* of name and version */
	char name[sizeof(((struct ms_pkg *)0)->name)];
	char version[sizeof(((struct ms_pkg *)0)->version)];
};

int ms_pydist_open(struct ms_pydist **out, struct ms_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "python distributions: out of memory");
	(*out)->rd = (struct ms_walk_reader)MS_WALK_READER_INIT;
	return 0;
}

void ms_pydist_close(struct ms_pydist *pd)
{
	if (!pd)
		return;
	ms_walk_reader_free(&pd->rd);
	free(pd);
}

void ms_pydist_stats(const struct ms_pydist *pd, struct ms_pydist_stats *st)
{
	*st = pd->st;
}

static int cmp_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

static int cmp_want(const void *x, const void *y)
{
	const struct want *a = x, *b = y;
	int c = cmp_bytes(a->path, a->site, b->path, b->site);

	if (c)
		return c;
	c = cmp_bytes(a->path + a->site, a->len - a->site, b->path + b->site, b->len - b->site);
	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static int cmp_dist(const void *x, const void *y)
{
	return strcmp(((const struct dist *)x)->dir, ((const struct dist *)y)->dir);
}

static int cmp_key(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* PEP 503's name: lower case, each run of '-', '_' and '.' one '-'.  false: longer than KEY_MAX - 1. */
static bool norm_key(const char *s, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '-' || c == '_' || c == '.') {
			if (n > 0 && out[n - 1] == '-')
				continue;
			c = '-';
		} else if (c >= 'A' && c <= 'Z') {
			c = (char)(c - 'A' + 'a');
		}
		if (n + 1 >= KEY_MAX)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return n > 0;
}

/* The name a wanted file suggests: its top folder without ".libs", or its module before the first dot. */
static bool want_key(const struct want *w, char *out)
{
	const char *rel = w->path + w->site + 1;
	size_t rlen = w->len - w->site - 1;
	const char *slash = memchr(rel, '/', rlen);
	size_t klen;

	if (slash) {
		klen = (size_t)(slash - rel);
		if (klen > 5 && !memcmp(rel + klen - 5, ".libs", 5))
			klen -= 5;
	} else {
		const char *dot = memchr(rel, '.', rlen);

		klen = dot ? (size_t)(dot - rel) : rlen;
	}
	return norm_key(rel, klen, out);
}

/* A directory on the path below the site directory ends in ".libs" (auditwheel's folders). */
static bool vendored(const struct want *w)
{
	const char *rel = w->path + w->site + 1, *end = w->path + w->len;

	for (const char *p = rel; p < end;) {
		const char *slash = memchr(p, '/', (size_t)(end - p));

		if (!slash)
			break;
		if (slash - p >= 5 && !memcmp(slash - 5, ".libs", 5))
			return true;
		p = slash + 1;
	}
	return false;
}

/* The length of the suffix of a distribution's directory (".dist-info", ".egg-info") name ends in, or 0. */
static size_t dist_suffix(const char *name, size_t len, bool *egg)
{
	*egg = len > 9 && !strcmp(name + len - 9, ".egg-info");
	if (*egg)
		return 9;
	return len > 10 && !strcmp(name + len - 10, ".dist-info") ? 10 : 0;
}

/*
 * The entries of site named *.dist-info or *.egg-info that may be
 * directories (a symlink is skipped here and refused by the walk anyway;
 * a single-file egg-info lists no files, so it owns none), sorted.
 */
static int list_dists(struct ms_pydist *pd, const char *site, struct dist **out, size_t *count)
{
	const char *why;
	struct dist *d = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dir;
	int fd = ms_walk_open_dir(&pd->rd.root, site, MS_WALK_NO_SYMLINKS, &why), rc = 0;

	*out = NULL;
	*count = 0;
	if (fd < 0)
		return 0;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return errno == ENOMEM ? MS_ERR_NOMEM : 0;
	}
	pd->st.sites++;
	for (size_t seen = 0; seen < MS_PYDIST_ENTRIES && pd->entries < MS_PYDIST_ENTRIES_TOTAL &&
			      n < MS_PYDIST_DISTS && (de = readdir(dir)); seen++) {
		bool egg;

		pd->entries++;
		if (!dist_suffix(de->d_name, strlen(de->d_name), &egg) ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if ((rc = ms_grow((void **)&d, &cap, n, sizeof(*d), 16)) < 0)
			break;
		d[n] = (struct dist){ .dir = strdup(de->d_name), .egg = egg };
		if (!d[n].dir) {
			rc = MS_ERR_NOMEM;
			break;
		}
		n++;
	}
	closedir(dir);
	if (n > 0)
		qsort(d, n, sizeof(*d), cmp_dist);
	*out = d;
	*count = n;
	return rc;
}

static void free_dists(struct dist *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].dir);
	free(d);
}

/*
 * site/dir/file into pd->rd.buf (walk_read.h): whole (refused over max
 * bytes or budget, or when it grows meanwhile), or its first max bytes.
 * Its length, or -1 when refused or unreadable.
 */
static ssize_t read_in(struct ms_pydist *pd, const char *site, const char *dir, const char *file,
		       size_t max, bool whole, size_t budget, bool *complete)
{
	char path[PATH_MAX];
	const char *why;
	ssize_t len;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", site, dir, file) >= sizeof(path))
		return -1;
	len = ms_walk_read(&pd->rd, path, MS_WALK_NO_SYMLINKS, max < budget ? max : budget, whole, complete, &why);
	return len < 0 ? -1 : len;
}

/* The first want of w[0, n) with rel (len bytes) as its place, or n. */
static size_t lower_bound(const struct want *w, size_t n, const char *rel, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_bytes(w[mid].path + w[mid].site + 1, w[mid].len - w[mid].site - 1, rel, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The next path d's file list names, relative to the site directory before normalising. */
static bool next_listed(struct ms_pyrecord_iter *it, const struct dist *d, char *path, size_t cap, size_t *plen)
{
	return d->egg ? ms_pyrecord_egg_next(it, d->dir, path, cap, plen) : ms_pyrecord_next(it, path, cap, plen);
}

/* Mark the wants d's file list names as d's (index di); the number it answered. */
static size_t match_record(struct ms_pydist *pd, const char *site, size_t site_len, struct want *w,
			   size_t n, size_t di, const struct dist *d)
{
	struct ms_pyrecord_iter it;
	char path[PATH_MAX];
	size_t plen, answered = 0;
	bool complete;
	ssize_t len;

	if (pd->st.records >= MS_PYDIST_RECORDS)
		return 0;
	len = read_in(pd, site, d->dir, d->egg ? "installed-files.txt" : "RECORD", MS_PYDIST_RECORD_MAX, true,
		      MS_PYDIST_READ_MAX - pd->st.record_bytes, &complete);
	if (len < 0)
		return 0;
	pd->st.records++;
	pd->st.record_bytes += (size_t)len;
	it = (struct ms_pyrecord_iter){ .text = pd->rd.buf, .len = (size_t)len };
	while (next_listed(&it, d, path, sizeof(path), &plen)) {
		size_t rlen = ms_pyrecord_site_relative(site, site_len, path, plen);

		if (rlen == SIZE_MAX)
			continue;
		for (size_t i = lower_bound(w, n, path, rlen);
		     i < n && !cmp_bytes(w[i].path + w[i].site + 1, w[i].len - w[i].site - 1, path, rlen); i++)
			if (w[i].owner == SIZE_MAX) {
				w[i].owner = di;
				answered++;
			}
	}
	return answered;
}

/* Name and version of d: METADATA's headers, else the directory's name. */
static void describe(struct ms_pydist *pd, const char *site, struct dist *d)
{
	unsigned from_dir;
	bool complete = false;
	ssize_t len;
	char name[sizeof(d->name)], version[sizeof(d->version)];

	d->described = true;
	len = read_in(pd, site, d->dir, d->egg ? "PKG-INFO" : "METADATA", MS_PYDIST_META_MAX, false, SIZE_MAX,
		      &complete);
	if (len >= 0) {
		pd->st.metas++;
		pd->st.meta_bytes += (size_t)len;
		d->found = ms_pymeta_parse(pd->rd.buf, (size_t)len, complete, d->name, sizeof(d->name),
					   d->version, sizeof(d->version));
	}
	if (d->found == (MS_PYMETA_NAME | MS_PYMETA_VERSION))
		return;
	from_dir = ms_pymeta_from_dirname(d->dir, strlen(d->dir), name, sizeof(name), version, sizeof(version));
	if (!(d->found & MS_PYMETA_NAME) && (from_dir & MS_PYMETA_NAME))
		memcpy(d->name, name, strlen(name) + 1);
	if (!(d->found & MS_PYMETA_VERSION) && (from_dir & MS_PYMETA_VERSION))
		memcpy(d->version, version, strlen(version) + 1);
	d->found |= from_dir;
}

/* The wants of one site directory, w[0, n), sorted by their place there. */
static int find_in_site(struct ms_pydist *pd, struct want *w, size_t n, struct ms_pkg *out)
{
	char site[PATH_MAX], key[KEY_MAX];
	char (*keys)[KEY_MAX] = NULL;
	char **sorted = NULL;
	size_t site_len = w[0].site, ndists, nkeys = 0, left = n;
	struct dist *d;
	int rc;

	if (site_len >= sizeof(site))
		return 0;
	memcpy(site, w[0].path, site_len);
	site[site_len] = '\0';
	rc = list_dists(pd, site, &d, &ndists);
	if (rc < 0 || ndists == 0) {
		free_dists(d, ndists);
		return rc;
	}
	/* The names the wanted files suggest, sorted, to mark the candidates. */
	keys = calloc(n, sizeof(*keys));
	sorted = calloc(n, sizeof(*sorted));
	if (!keys || !sorted) {
		rc = MS_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (want_key(&w[i], keys[nkeys])) {
			sorted[nkeys] = keys[nkeys];
			nkeys++;
		}
	qsort(sorted, nkeys, sizeof(*sorted), cmp_key);
	for (size_t i = 0; i < ndists; i++) {
		const char *dash = strchr(d[i].dir, '-');
		size_t klen = dash ? (size_t)(dash - d[i].dir) : strlen(d[i].dir) - (d[i].egg ? 9 : 10);
		char *kp = key;

		d[i].candidate = norm_key(d[i].dir, klen, key) &&
				 bsearch(&kp, sorted, nkeys, sizeof(*sorted), cmp_key);
	}
	for (int pass = 0; pass < 2 && left > 0; pass++)
		for (size_t i = 0; i < ndists && left > 0; i++)
			if (d[i].candidate == (pass == 0))
				left -= match_record(pd, site, site_len, w, n, i, &d[i]);
	for (size_t i = 0; i < n; i++) {
		struct dist *o;
		struct ms_pkg *p = &out[w[i].idx];

		if (w[i].owner == SIZE_MAX)
			continue;
		o = &d[w[i].owner];
		if (!o->described)
			describe(pd, site, o);
		if (!(o->found & MS_PYMETA_NAME))
			continue;
		*p = (struct ms_pkg){ .found = true, .source = MS_PKG_SOURCE_PYTHON, .vendored = vendored(&w[i]) };
		memcpy(p->name, o->name, strlen(o->name) + 1);
		if (o->found & MS_PYMETA_VERSION)
			memcpy(p->version, o->version, strlen(o->version) + 1);
	}
out:
	free(keys);
	free(sorted);
	free_dists(d, ndists);
	return rc;
}

int ms_pydist_find(struct ms_pydist *pd, const char *const *paths, const size_t *lens, size_t n,
		   struct ms_pkg *out, struct ms_error *err)
{
	struct want *w = NULL;
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		size_t site;

		if (out[i].found || !paths[i] || !(site = ms_pyrecord_site_of(paths[i], lens[i])))
			continue;
		if (!w && !(w = calloc(n - i, sizeof(*w))))
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "python distributions: out of memory");
		w[k++] = (struct want){ .idx = i, .path = paths[i], .site = site, .len = lens[i], .owner = SIZE_MAX };
	}
	if (k == 0)
		return 0;
	if (!ms_walk_reader_ready(&pd->rd)) {
		free(w);
		return 0;
	}
	qsort(w, k, sizeof(*w), cmp_want);
	for (size_t a = 0, b; rc == 0 && a < k; a = b) {
		for (b = a + 1; b < k && !cmp_bytes(w[a].path, w[a].site, w[b].path, w[b].site); b++)
			;
		rc = find_in_site(pd, w + a, b - a, out);
	}
	ms_walk_reader_clear(&pd->rd);
	free(w);
	if (rc == MS_ERR_NOMEM)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "python distributions: out of memory");
	return 0;
}
