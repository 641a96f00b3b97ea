#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/escape.h"
#include "proc/proc.h"
#include "snap/snapshot.h"
#include "snap/snapshot_write.h"

static int nomem(struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
}

/* ---- bounds ------------------------------------------------------------ */

/* Bytes m's name takes in a document: escaped, then quoted for JSON. */
static size_t ms_snapshot_name_cost(const struct ms_mapping *m)
{
	char *esc;
	size_t cost;

	if (!m->name_len)
		return 0;
	esc = ms_escape_dup(m->name, m->name_len, 0);
	if (!esc)
		return SIZE_MAX;
	cost = strlen(esc);
	/* jansson adds a backslash before each '"' and '\\'; ms_escape left no control byte. */
	for (const char *p = esc; *p; p++)
		cost += *p == '"' || *p == '\\';
	free(esc);
	return cost;
}

int ms_snapshot_bound(pid_t pid, const char *what, size_t count, const struct ms_mapping *m,
		      size_t *names, struct ms_error *err)
{
	size_t cost;

	if (count > MS_SNAPSHOT_MAPPINGS_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, EFBIG,
				    "pid %d: more than %u mappings, more than a %s may hold (no reader would accept it)",
				    (int)pid, MS_SNAPSHOT_MAPPINGS_MAX, what);
	/* The raw bytes bound the cost from below: no need to escape past the bound. */
	cost = m->name_len > MS_SNAPSHOT_NAMES_MAX ? SIZE_MAX : ms_snapshot_name_cost(m);
	if (cost > MS_SNAPSHOT_NAMES_MAX - *names)
		return ms_error_set(err, MS_ERR_LIMIT, EFBIG,
				    "pid %d: the mapping names take more than %u MiB once escaped, more than a %s may hold (no reader would accept it)",
				    (int)pid, MS_SNAPSHOT_NAMES_MAX >> 20, what);
	*names += cost;
	return 0;
}

/* ---- taking ------------------------------------------------------------ */

int ms_snapshot_collect(struct ms_maps *maps, const char *what, struct ms_maplist *list,
			struct ms_error *err)
{
	pid_t pid = ms_proc_pid(ms_maps_proc(maps));
	struct ms_mapping m = { 0 };
	uint64_t addr = 0;
	size_t names = 0;
	int rc;

	while ((rc = ms_maps_next(maps, addr, 0, &m, err)) == 0) {
		addr = m.end;
		rc = ms_snapshot_bound(pid, what, list->count + 1, &m, &names, err);
		if (rc == 0 && ms_maplist_push(list, &m) < 0)
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
		if (rc < 0)
			break;
	}
	ms_mapping_reset(&m);
	return rc == MS_END ? 0 : rc;
}

int ms_snapshot_take(struct ms_maps *maps, struct ms_snapshot *snap, struct ms_error *err)
{
	int rc;

	unsigned fields;

	memset(snap, 0, sizeof(*snap));
	rc = ms_snapshot_header_fill(maps, &snap->hdr, err);
	/* A snapshot records build IDs, so that diff can tell a rebuild. */
	fields = ms_maps_set_fields(maps, MS_FIELDS_ALL);
	if (rc == 0)
		rc = ms_snapshot_collect(maps, "snapshot", &snap->maps, err);
	ms_maps_set_fields(maps, fields);
	/* The backend may have been settled by the first query. */
	snap->hdr.backend = ms_maps_backend(maps);
	if (rc < 0)
		ms_snapshot_free(snap);
	return rc;
}

/* ---- streaming --------------------------------------------------------- */

/*
 * The document without its mappings, split where they go: the text of
 * json_dumps(JSON_INDENT(1)) holds "\"mappings\": []" once, after the
 * header (whose strings cannot hold an unescaped quote), so the last match
 * is the member.
 */
static char *shell_dump(const struct ms_snapshot *snap, size_t *split)
{
	static const char member[] = "\"mappings\": []";
	json_t *root = json_object();
	json_t *meta = NULL;
	char *text = NULL;
	const char *at = NULL;
	int rc;

	if (!root)
		return NULL;
	rc = json_object_set_new(root, "mapscope", json_string("snapshot"));
	rc |= json_object_set_new(root, "version", json_integer(ms_snapshot_version_of(snap)));
	rc |= ms_snapshot_put(root, "header", ms_snapshot_header_to_json(&snap->hdr));
	rc |= ms_snapshot_put(root, "mappings", json_array());
	if (snap->res) {
		meta = ms_snapshot_res_meta(snap);
		rc |= ms_snapshot_put(root, "residency", meta);
	}
	if (snap->pkgs)
		rc |= ms_snapshot_put(root, "packages", ms_snapshot_pkg_meta(snap));
	if (!rc)
		text = json_dumps(root, JSON_INDENT(1));
	json_decref(root);
	for (const char *p = text; p && (p = strstr(p, member)); p++)
		at = p;
	if (!at) {
		free(text);
		return NULL;
	}
	/* Just past the '[': the mappings and the "\n ]" that closes them go there. */
	*split = (size_t)(at - text) + sizeof(member) - 2;
	return text;
}

/* One mapping object as it sits in the array: each line two more spaces in. */
static char *mapping_text(const struct ms_snapshot *snap, size_t i, size_t *len)
{
	json_t *obj = ms_mapping_to_json(&snap->maps.items[i]);
	char *flat, *out = NULL;
	size_t n, lines = 0, k = 0;

	if (!obj || (snap->res && ms_snapshot_res_encode_one(&snap->res[i], obj) < 0) ||
	    (snap->pkgs && ms_snapshot_pkg_encode_one(&snap->pkgs[i], obj) < 0)) {
		json_decref(obj);
		return NULL;
	}
	flat = json_dumps(obj, JSON_INDENT(1));
	json_decref(obj);
	if (!flat)
		return NULL;
	n = strlen(flat);
	for (size_t j = 0; j < n; j++)
		lines += flat[j] == '\n';
	out = malloc(n + 2 * lines + 1);
	for (size_t j = 0; out && j < n; j++) {
		out[k++] = flat[j];
		if (flat[j] == '\n') {
			out[k++] = ' ';
			out[k++] = ' ';
		}
	}
	free(flat);
	*len = k;
	return out;
}

static int check_bounds(const struct ms_snapshot *snap, struct ms_error *err)
{
	size_t names = 0;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < snap->maps.count; i++)
		rc = ms_snapshot_bound(snap->hdr.pid, "snapshot", i + 1, &snap->maps.items[i], &names, err);
	return rc;
}

int ms_snapshot_stream(const struct ms_snapshot *snap, ms_snapshot_sink sink, void *arg,
		       struct ms_error *err)
{
	size_t split = 0;
	char *shell;
	int rc = check_bounds(snap, err);

	if (rc < 0)
		return rc;
	shell = shell_dump(snap, &split);
	if (!shell)
		return nomem(err);
	rc = sink(arg, shell, split, err);
	for (size_t i = 0; rc == 0 && i < snap->maps.count; i++) {
		size_t len;
		char *text = mapping_text(snap, i, &len);

		if (!text)
			rc = nomem(err);
		if (rc == 0)
			rc = sink(arg, i ? ",\n  " : "\n  ", i ? 4 : 3, err);
		if (rc == 0)
			rc = sink(arg, text, len, err);
		free(text);
	}
	if (rc == 0 && snap->maps.count)
		rc = sink(arg, "\n ", 2, err);
	/* The rest, from the ']', and the newline jansson leaves out. */
	if (rc == 0)
		rc = sink(arg, shell + split, strlen(shell + split), err);
	if (rc == 0)
		rc = sink(arg, "\n", 1, err);
	free(shell);
	return rc;
}

int ms_snapshot_sink_fd(void *arg, const char *text, size_t len, struct ms_error *err)
{
	int rc = ms_write_all(*(int *)arg, text, len);

	return rc < 0 ? ms_error_set(err, MS_ERR_IO, -rc, "write failed: %s", strerror(-rc)) : 0;
}

struct buffer {
	char *text;
	size_t len;
	size_t cap;
};

static int sink_buffer(void *arg, const char *text, size_t len, struct ms_error *err)
{
	struct buffer *b = arg;

	while (b->len + len + 1 > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		char *grown = cap > b->cap ? realloc(b->text, cap) : NULL;

		if (!grown)
			return nomem(err);
		b->text = grown;
		b->cap = cap;
	}
	memcpy(b->text + b->len, text, len);
	b->len += len;
	b->text[b->len] = '\0';
	return 0;
}

int ms_snapshot_dump(const struct ms_snapshot *snap, char **text, size_t *len,
		     struct ms_error *err)
{
	struct buffer b = { 0 };
	int rc = ms_snapshot_stream(snap, sink_buffer, &b, err);

	if (rc < 0) {
		free(b.text);
		return rc;
	}
	*text = b.text;
	*len = b.len;
	return 0;
}

static int sink_safewrite(void *arg, const char *text, size_t len, struct ms_error *err)
{
	return ms_safewrite_write(arg, text, len, err);
}

int ms_snapshot_write(const struct ms_snapshot *snap, const char *path,
		      const struct ms_safewrite_opts *opts, bool *created,
		      struct ms_error *err)
{
	struct ms_safewrite w;
	int rc = check_bounds(snap, err);

	/* Refused before the file is touched: a bound never leaves a partial file. */
	if (rc < 0)
		return rc;
	rc = ms_safewrite_open(path, opts, &w, err);
	if (rc < 0)
		return rc;
	if (created)
		*created = w.created;
	rc = ms_snapshot_stream(snap, sink_safewrite, &w, err);
	if (rc < 0) {
		ms_safewrite_abort(&w);
		return rc;
	}
	return ms_safewrite_close(&w, err);
}

int ms_snapshot_save(struct ms_maps *maps, const char *path,
		     const struct ms_safewrite_opts *opts, bool *created,
		     struct ms_error *err)
{
	struct ms_snapshot snap;
	int rc;

	rc = ms_snapshot_take(maps, &snap, err);
	if (rc < 0)
		return rc;
	rc = ms_snapshot_add_packages(&snap, maps, err);
	if (rc == 0)
		rc = ms_snapshot_write(&snap, path, opts, created, err);
	ms_snapshot_free(&snap);
	return rc;
}
