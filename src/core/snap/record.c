#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "maps/mapdiff.h"
#include "snap/record.h"
#include "snap/snapshot.h"
#include "snap/snapshot_write.h"

/* A recording is read whole to replay it; past this, start a new file. */
#define MS_RECORD_FILE_MAX (1024LL * 1024 * 1024)

static int nomem(struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
}

/* ---- replay ------------------------------------------------------------ */

static int maplist_remove(struct ms_maplist *list, const struct ms_mapping *m)
{
	size_t k = ms_maplist_lower_bound(list, m->start);

	if (k == list->count || list->items[k].start != m->start || list->items[k].end != m->end)
		return -1;
	ms_mapping_reset(&list->items[k]);
	memmove(&list->items[k], &list->items[k + 1], (list->count - k - 1) * sizeof(list->items[0]));
	list->count--;
	return 0;
}

/* Insert in address order; takes *m.  -1 if it overlaps, MS_ERR_NOMEM. */
static int maplist_insert(struct ms_maplist *list, struct ms_mapping *m)
{
	size_t k = ms_maplist_lower_bound(list, m->start);
	struct ms_mapping tmp;

	if ((k < list->count && list->items[k].start < m->end) ||
	    (k > 0 && list->items[k - 1].end > m->start))
		return -1;
	if (ms_maplist_push(list, m) < 0)
		return MS_ERR_NOMEM;
	tmp = list->items[list->count - 1];
	memmove(&list->items[k + 1], &list->items[k], (list->count - 1 - k) * sizeof(tmp));
	list->items[k] = tmp;
	return 0;
}

static int maplist_copy(struct ms_maplist *dst, const struct ms_maplist *src)
{
	ms_maplist_clear(dst);
	for (size_t i = 0; i < src->count; i++) {
		struct ms_mapping m = { 0 };

		if (ms_mapping_copy(&m, &src->items[i]) < 0 || ms_maplist_push(dst, &m) < 0) {
			ms_mapping_reset(&m);
			return MS_ERR_NOMEM;
		}
	}
	return 0;
}

/* Apply one change line: removals (and the old side of changes) first. */
static int apply_change(json_t *line, const char *what, size_t lineno, struct ms_maplist *list,
			struct ms_error *err)
{
	static const char *const keys[] = { "removed", "changed", "added", "changed" };
	char where[512];

	snprintf(where, sizeof(where), "%s:%zu", what, lineno);
	if (!json_is_object(line))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: not a change record", where);
	for (int pass = 0; pass < 4; pass++) {
		json_t *arr = json_object_get(line, keys[pass]), *v;
		bool adding = pass >= 2;
		size_t i;

		if (arr && !json_is_array(arr))
			return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: \"%s\" must be an array",
					    where, keys[pass]);
		json_array_foreach(arr, i, v) {
			struct ms_mapping m;
			json_t *mj = v;
			int rc;

			if (!strcmp(keys[pass], "changed"))
				mj = json_object_get(v, adding ? "new" : "old");
			rc = ms_mapping_from_json(mj, where, i, &m, err);
			if (rc < 0)
				return rc;
			rc = adding ? maplist_insert(list, &m) : maplist_remove(list, &m);
			ms_mapping_reset(&m);
			if (rc == MS_ERR_NOMEM)
				return nomem(err);
			if (rc < 0)
				return ms_error_set(err, MS_ERR_INVAL, EINVAL,
						    "%s: \"%s\" entry %zu does not fit the map recorded before it",
						    where, keys[pass], i + 1);
		}
	}
	return 0;
}

static int not_a_recording(const char *what, struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: not a mapscope recording", what);
}

static int check_header(json_t *root, const char *what, pid_t pid,
			unsigned long long start_time, struct ms_error *err)
{
	struct ms_snapshot_header hdr;
	int rc = ms_snapshot_check_kind(root, "recording", what, err);

	if (rc == 0)
		rc = ms_snapshot_header_from_json(json_object_get(root, "header"), what, &hdr, err);
	if (rc < 0)
		return rc;
	ms_snapshot_header_free(&hdr);
	if (pid && hdr.pid != pid)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: a recording of pid %d, not of pid %d: refusing to mix two processes",
				    what, (int)hdr.pid, (int)pid);
	if (pid && hdr.start_time != start_time)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: a recording of an earlier process with pid %d (start time %llu, now %llu): refusing to mix two processes",
				    what, (int)pid, hdr.start_time, start_time);
	return 0;
}

int ms_recording_replay(const char *text, size_t len, const char *what, pid_t pid,
			unsigned long long start_time, struct ms_maplist *list,
			size_t *records, struct ms_error *err)
{
	size_t lineno = 0, off = 0;

	*records = 0;
	if (len == 0)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: empty, not a mapscope recording", what);
	if (!memchr(text, '\n', len))
		return not_a_recording(what, err);
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		json_error_t jerr;
		char why[MS_JSON_WHY_MAX];
		json_t *root;
		int rc;

		lineno++;
		if (!nl)
			return ms_error_set(err, MS_ERR_INVAL, EINVAL,
					    "%s:%zu: the last line is incomplete (no newline)", what, lineno);
		if (n > MS_RECORD_LINE_MAX)
			return ms_error_set(err, MS_ERR_LIMIT, EFBIG, "%s:%zu: line too long", what, lineno);
		root = json_loadb(text + off, n, JSON_REJECT_DUPLICATES, &jerr);
		/* Not even JSON: any file at all, so not a word about what it holds. */
		if (!root && lineno == 1)
			return not_a_recording(what, err);
		if (!root)
			return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s:%zu:%d: not valid JSON: %s",
					    what, lineno, jerr.column, ms_json_why(&jerr, why));
		if (lineno == 1)
			rc = check_header(root, what, pid, start_time, err);
		else
			rc = apply_change(root, what, lineno, list, err);
		json_decref(root);
		if (rc < 0)
			return rc;
		if (lineno > 1)
			(*records)++;
		off += n + 1;
	}
	return 0;
}

/* ---- writing ----------------------------------------------------------- */

/* One whole line at r->end; on failure cut the file back to r->end. */
static int append_line(struct ms_recorder *r, json_t *obj, struct ms_error *err)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	size_t len;
	int rc;

	if (!text)
		return nomem(err);
	len = strlen(text);
	/* Never a line the replay would refuse. */
	if (len + 1 > MS_RECORD_LINE_MAX) {
		free(text);
		return ms_error_set(err, MS_ERR_LIMIT, EFBIG,
				    "pid %d: a change of more than %u MiB, more than a recording line may hold (no replay would accept it)",
				    (int)r->pid, MS_RECORD_LINE_MAX >> 20);
	}
	text[len] = '\n'; /* replaces the NUL; the length is known */
	if (lseek(r->w.fd, r->end, SEEK_SET) < 0)
		rc = ms_error_set(err, MS_ERR_IO, errno, "%s: seek failed: %s", r->w.path, strerror(errno));
	else
		rc = ms_safewrite_write(&r->w, text, len + 1, err);
	free(text);
	if (rc < 0) {
		/* Partial bytes of a line would break every later reader. */
		if (ftruncate(r->w.fd, r->end) < 0) {
			/* Nothing more to do: the write error is the one to report. */
		}
		return rc;
	}
	r->end += (off_t)(len + 1);
	return 0;
}

static int read_existing(struct ms_recorder *r, struct ms_maps *maps, struct ms_error *err)
{
	struct ms_proc *proc = ms_maps_proc(maps);
	struct stat st;
	char *text;
	size_t got = 0;
	int rc;

	if (fstat(r->w.fd, &st) < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "%s: cannot stat: %s", r->w.path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: not a regular file", r->w.path);
	if (st.st_size > MS_RECORD_FILE_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, EFBIG, "%s: over 1 GiB; record to a new file", r->w.path);
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return nomem(err);
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(r->w.fd, text + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(text);
			return ms_error_set(err, MS_ERR_IO, n < 0 ? errno : EIO, "%s: cannot read: %s",
					    r->w.path, strerror(n < 0 ? errno : EIO));
		}
		got += (size_t)n;
	}
	rc = ms_recording_replay(text, got, r->w.path, ms_proc_pid(proc),
				 ms_proc_stat_at_open(proc)->start_time, &r->last, &r->records, err);
	free(text);
	r->end = (off_t)got;
	return rc;
}

static int write_header(struct ms_recorder *r, struct ms_maps *maps, struct ms_error *err)
{
	struct ms_snapshot_header hdr;
	json_t *root;
	int rc = ms_snapshot_header_fill(maps, &hdr, err);

	if (rc < 0)
		return rc;
	root = json_pack("{s:s, s:i, s:o}", "mapscope", "recording", "version", MS_SNAPSHOT_VERSION,
			 "header", ms_snapshot_header_to_json(&hdr));
	ms_snapshot_header_free(&hdr);
	if (!root)
		return nomem(err);
	rc = append_line(r, root, err);
	json_decref(root);
	return rc;
}

int ms_recorder_open(const char *path, struct ms_maps *maps,
		     const struct ms_safewrite_opts *opts, struct ms_recorder *r,
		     struct ms_error *err)
{
	struct ms_safewrite_opts o = { 0 };
	int rc;

	memset(r, 0, sizeof(*r));
	r->pid = ms_proc_pid(ms_maps_proc(maps));
	if (opts)
		o = *opts;
	o.keep = true;
	o.readable = true;
	rc = ms_safewrite_open(path, &o, &r->w, err);
	if (rc < 0)
		return rc;
	if (flock(r->w.fd, LOCK_EX | LOCK_NB) < 0) {
		rc = ms_error_set(err, MS_ERR_IO, errno, "%s: %s", r->w.path,
				  errno == EWOULDBLOCK ? "another mapscope is recording to it"
						       : strerror(errno));
	} else if (r->w.created) {
		rc = write_header(r, maps, err);
	} else {
		r->appended = true;
		rc = read_existing(r, maps, err);
	}
	if (rc < 0) {
		/* Removes the file only if this open created it. */
		ms_safewrite_abort(&r->w);
		ms_maplist_free(&r->last);
	}
	return rc;
}

struct change_ctx {
	json_t *added;
	json_t *removed;
	json_t *changed;
	pid_t pid;
	size_t names;          /* name bytes in the line so far */
	struct ms_error *err;  /* set with MS_ERR_LIMIT when they pass the bound */
};

/* The names of one line within MS_SNAPSHOT_NAMES_MAX, as in a snapshot. */
static int line_bound(struct change_ctx *c, const struct ms_mapping *m)
{
	return ms_snapshot_bound(c->pid, "recording line", 0, m, &c->names, c->err);
}

static const struct {
	unsigned bit;
	const char *name;
} field_names[] = {
	{ MS_DIFF_F_PERMS, "perms" }, { MS_DIFF_F_OFFSET, "offset" }, { MS_DIFF_F_DEV, "dev" },
	{ MS_DIFF_F_INODE, "inode" }, { MS_DIFF_F_NAME, "name" }, { MS_DIFF_F_BUILDID, "buildid" },
};

static int add_change(void *arg, const struct ms_diff_entry *e)
{
	struct change_ctx *c = arg;
	json_t *fields, *obj;

	if ((e->old_map && line_bound(c, e->old_map) < 0) || (e->new_map && line_bound(c, e->new_map) < 0))
		return MS_ERR_LIMIT;
	switch (e->kind) {
	case MS_DIFF_ADDED:
		return json_array_append_new(c->added, ms_mapping_to_json(e->new_map)) ? MS_ERR_NOMEM : 0;
	case MS_DIFF_REMOVED:
		return json_array_append_new(c->removed, ms_mapping_to_json(e->old_map)) ? MS_ERR_NOMEM : 0;
	case MS_DIFF_CHANGED:
		break;
	}
	fields = json_array();
	for (size_t i = 0; fields && i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if ((e->changed & field_names[i].bit) &&
		    json_array_append_new(fields, json_string(field_names[i].name)) < 0)
			return MS_ERR_NOMEM;
	obj = json_pack("{s:o, s:o, s:o}", "fields", fields, "old", ms_mapping_to_json(e->old_map),
			"new", ms_mapping_to_json(e->new_map));
	return json_array_append_new(c->changed, obj) ? MS_ERR_NOMEM : 0;
}

int ms_recorder_step(struct ms_recorder *r, const struct ms_maplist *now, bool *wrote,
		     struct ms_error *err)
{
	struct change_ctx c = { json_array(), json_array(), json_array(), r->pid, 0, err };
	struct ms_diff_summary sum;
	char time[40];
	json_t *line;
	int rc;

	if (wrote)
		*wrote = false;
	if (!c.added || !c.removed || !c.changed) {
		json_decref(c.added);
		json_decref(c.removed);
		json_decref(c.changed);
		return nomem(err);
	}
	ms_snapshot_time_now(time);
	/* json_pack steals the arrays even when it fails. */
	line = json_pack("{s:s, s:o, s:o, s:o}", "time", time, "added", c.added,
			 "removed", c.removed, "changed", c.changed);
	if (!line)
		return nomem(err);
	rc = ms_maplist_diff(&r->last, now, add_change, &c, &sum);
	if (rc != 0) {
		json_decref(line);
		return rc == MS_ERR_LIMIT ? rc : nomem(err);
	}
	if (sum.added + sum.removed + sum.changed == 0) {
		json_decref(line);
		return 0;
	}
	rc = append_line(r, line, err);
	json_decref(line);
	if (rc < 0)
		return rc;
	r->records++;
	if (wrote)
		*wrote = true;
	return maplist_copy(&r->last, now) < 0 ? nomem(err) : 0;
}

int ms_recorder_close(struct ms_recorder *r, struct ms_error *err)
{
	int rc = 0;

	/* Never an abort here: the lines written so far are the user's data now. */
	r->w.created = false;
	if (r->w.fd >= 0)
		rc = ms_safewrite_close(&r->w, err);
	ms_maplist_free(&r->last);
	return rc;
}
