/* npmpkg.c - the npm package that owns a file: see npmpkg.h. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/json_scan.h"
#include "pkg/npmpkg.h"
#include "pkg/owner.h"
#include "pkg/owner_source.h"
#include "untrusted/walk_read.h"

/* Open addressing, at most half full: every folder looked at has its slot. */
#define SLOTS (2 * MS_NPMPKG_FOLDERS)
#define WHY_MAX 96

/* One package folder's answer. */
struct folder {
	char *path;
	size_t len;
	bool found;
	char name[MS_PKG_NAME_MAX];
	char version[MS_PKG_VERSION_MAX];
	char why[WHY_MAX]; /* not found: why, or "" */
};

struct ms_npmpkg {
	struct ms_walk_reader rd;
	struct folder **slots; /* SLOTS of them, at the first folder */
	uint64_t seed;
	struct ms_npmpkg_stats st;
};

static bool is_node_modules(const char *c, size_t len)
{
	return len == 12 && !memcmp(c, "node_modules", 12);
}

/* A NAME or @SCOPE component: not empty, not hidden (".bin", ".pnpm"). */
static bool package_component(const char *c, size_t len)
{
	return len > 0 && c[0] != '.';
}

size_t ms_npmpkg_folder_of(const char *path, size_t len, size_t *name_at)
{
	size_t last = SIZE_MAX, end, name_end;
	const char *slash;

	/* The last node_modules with something after it. */
	for (size_t i = 0; i < len;) {
		const char *s = memchr(path + i, '/', len - i);
		size_t clen = s ? (size_t)(s - path) - i : len - i;

		if (s && is_node_modules(path + i, clen))
			last = i + clen + 1;
		i += clen + 1;
	}
	if (last == SIZE_MAX || last >= len)
		return 0;
	*name_at = last;
	slash = memchr(path + last, '/', len - last);
	if (!slash || !package_component(path + last, (size_t)(slash - path) - last))
		return 0;
	end = (size_t)(slash - path);
	if (path[last] == '@') {
		if (end - last < 2)
			return 0;
		slash = memchr(path + end + 1, '/', len - end - 1);
		if (!slash || !package_component(path + end + 1, (size_t)(slash - path) - end - 1))
			return 0;
		end = (size_t)(slash - path);
	}
	/* Something must follow the folder: the file is in it. */
	name_end = end + 1;
	return name_end < len ? end : 0;
}

int ms_npmpkg_open(struct ms_npmpkg **out, struct ms_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "npm packages: out of memory");
	(*out)->rd = (struct ms_walk_reader)MS_WALK_READER_INIT;
	(*out)->seed = ms_hash_seed();
	return 0;
}

void ms_npmpkg_close(struct ms_npmpkg *np)
{
	if (!np)
		return;
	for (size_t i = 0; np->slots && i < SLOTS; i++) {
		if (np->slots[i])
			free(np->slots[i]->path);
		free(np->slots[i]);
	}
	free(np->slots);
	ms_walk_reader_free(&np->rd);
	free(np);
}

void ms_npmpkg_stats(const struct ms_npmpkg *np, struct ms_npmpkg_stats *st)
{
	*st = np->st;
}

/* The slot of path (len bytes): its folder's, or the empty one where it goes. */
static struct folder **slot_of(struct ms_npmpkg *np, const char *path, size_t len)
{
	size_t i = (size_t)ms_hash_bytes(np->seed, path, len) & (SLOTS - 1);

	while (np->slots[i] && (np->slots[i]->len != len || memcmp(np->slots[i]->path, path, len)))
		i = (i + 1) & (SLOTS - 1);
	return &np->slots[i];
}

/* Not found, because of what (a sentence, or two pieces of one). */
static void refuse(struct folder *f, const char *what, const char *more)
{
	f->found = false;
	snprintf(f->why, sizeof(f->why), "%s%s", what, more ? more : "");
}

/* name (the folder's NAME or @SCOPE/NAME, nlen bytes) and FOLDER/package.json: f's answer. */
static void describe(struct ms_npmpkg *np, struct folder *f, const char *name, size_t nlen)
{
	char path[PATH_MAX];
	const char *why;
	bool complete;
	ssize_t len;
	struct ms_json_field fields[2] = {
		{ .key = "name", .out = f->name, .cap = sizeof(f->name) },
		{ .key = "version", .out = f->version, .cap = sizeof(f->version) },
	};

	if ((size_t)snprintf(path, sizeof(path), "%.*s/package.json", (int)f->len, f->path) >= sizeof(path)) {
		refuse(f, "its path is too long", NULL);
		return;
	}
	if (np->st.bytes >= MS_NPMPKG_READ_MAX) {
		refuse(f, "the package.json files read in this run reached their bound", NULL);
		return;
	}
	len = ms_walk_read(&np->rd, path, MS_WALK_NO_SYMLINKS,
			   MS_NPMPKG_JSON_MAX < MS_NPMPKG_READ_MAX - np->st.bytes ? MS_NPMPKG_JSON_MAX
										 : MS_NPMPKG_READ_MAX - np->st.bytes,
			   true, &complete, &why);
	if (len == -ENOENT) {
		refuse(f, "no package.json in its folder", NULL);
		return;
	}
	np->st.refused++;
	if (len < 0) {
		refuse(f, "package.json refused: ", len == -EFBIG ? "larger than 1 MiB" : why);
		return;
	}
	np->st.files++;
	np->st.bytes += (size_t)len;
	if (ms_json_scan(np->rd.buf, (size_t)len, fields, 2) < 0) {
		refuse(f, "package.json is not a JSON object", NULL);
		return;
	}
	if (fields[0].state == MS_JSON_TWICE || fields[1].state == MS_JSON_TWICE) {
		refuse(f, fields[0].state == MS_JSON_TWICE ? "package.json gives its name twice"
							   : "package.json gives its version twice", NULL);
		return;
	}
	if (fields[0].state != MS_JSON_STRING) {
		refuse(f, "package.json names no package", NULL);
		return;
	}
	if (fields[0].len != nlen || memcmp(f->name, name, nlen)) {
		refuse(f, "package.json names another package than its folder", NULL);
		return;
	}
	if (fields[1].state != MS_JSON_STRING && fields[1].state != MS_JSON_ABSENT) {
		refuse(f, "package.json's version is not a string that fits", NULL);
		return;
	}
	np->st.refused--;
	f->found = true;
}

/* The answer for the folder path[0, len), NAME at name_at: looked at once, kept. */
static int folder_answer(struct ms_npmpkg *np, const char *path, size_t len, size_t name_at,
			 const struct folder **out)
{
	struct folder **s, *f;

	*out = NULL;
	if (!np->slots && !(np->slots = calloc(SLOTS, sizeof(*np->slots))))
		return MS_ERR_NOMEM;
	s = slot_of(np, path, len);
	if (*s) {
		*out = *s;
		return 0;
	}
	if (np->st.folders >= MS_NPMPKG_FOLDERS)
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = malloc(len + 1))) {
		free(f);
		return MS_ERR_NOMEM;
	}
	memcpy(f->path, path, len);
	f->path[len] = '\0';
	f->len = len;
	np->st.folders++;
	describe(np, f, path + name_at, len - name_at);
	*s = f;
	*out = f;
	return 0;
}

int ms_npmpkg_find(struct ms_npmpkg *np, const char *const *paths, const size_t *lens, size_t n,
		   struct ms_pkg *out, const char **why, struct ms_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct folder *f;
		size_t name_at, flen;

		if (why)
			why[i] = NULL;
		if (out[i].found || !paths[i] || !(flen = ms_npmpkg_folder_of(paths[i], lens[i], &name_at)))
			continue;
		rc = folder_answer(np, paths[i], flen, name_at, &f);
		if (!f)
			continue;
		if (!f->found) {
			if (why)
				why[i] = f->why;
			continue;
		}
		out[i] = (struct ms_pkg){ .found = true, .source = MS_PKG_SOURCE_NPM };
		memcpy(out[i].name, f->name, strlen(f->name) + 1);
		memcpy(out[i].version, f->version, strlen(f->version) + 1);
	}
	ms_walk_reader_clear(&np->rd);
	if (rc == MS_ERR_NOMEM)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "npm packages: out of memory");
	return 0;
}

static int npm_open(const struct ms_owner_opts *opts, void **state, struct ms_error *err)
{
	(void)opts;
	return ms_npmpkg_open((struct ms_npmpkg **)state, err);
}

static int npm_find(void *state, const char *const *paths, const size_t *lens, const bool *gone, size_t n,
		    struct ms_pkg *out, struct ms_error *err)
{
	(void)gone;
	return ms_npmpkg_find(state, paths, lens, n, out, NULL, err);
}

static void npm_close(void *state)
{
	ms_npmpkg_close(state);
}

const struct ms_owner_source ms_owner_source_npm = {
	.name = "npm",
	.source = MS_PKG_SOURCE_NPM,
	.open = npm_open,
	.find = npm_find,
	.close = npm_close,
};
