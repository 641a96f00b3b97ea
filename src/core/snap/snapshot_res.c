#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snap/snapshot.h"

int ms_snapshot_add_residency(struct ms_snapshot *snap, struct ms_proc *proc,
			      struct ms_error *err)
{
	struct ms_residency *res = NULL;
	struct ms_resinfo *info;
	int rc;

	/* calloc(0) may give NULL: keep one element so "has residency" stays true. */
	info = calloc(snap->maps.count ? snap->maps.count : 1, sizeof(*info));
	if (!info)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = ms_residency_open(proc, NULL, &res, err);
	if (rc == 0)
		rc = ms_residency_query(res, snap->maps.items, snap->maps.count, info, err);
	if (rc == 0)
		snap->res_backend = ms_residency_backend(res);
	ms_residency_close(res);
	if (rc < 0) {
		free(info);
		return rc;
	}
	free(snap->res);
	snap->res = info;
	return 0;
}

/* Bytes are far below 2^63 (they are in memory), so plain integers do. */
static int put_bytes(json_t *obj, const char *key, uint64_t v)
{
	json_t *j = v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : NULL;

	return j ? json_object_set_new(obj, key, j) : -1;
}

json_t *ms_snapshot_res_meta(const struct ms_snapshot *snap)
{
	return json_pack("{s:s}", "backend", ms_res_backend_name(snap->res_backend));
}

int ms_snapshot_res_encode_one(const struct ms_resinfo *res, json_t *m)
{
	int rc = put_bytes(m, "rss", res->rss);

	rc |= put_bytes(m, "swap", res->swap);
	rc |= put_bytes(m, "huge", res->huge);
	return rc ? -1 : 0;
}

static int get_bytes_field(json_t *m, const char *key, bool required, const char *what,
			   size_t index, uint64_t *out, struct ms_error *err)
{
	json_t *v = json_object_get(m, key);

	*out = 0;
	if (!v && !required)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: mapping %zu: \"%s\" must be a non-negative integer",
				    what, index + 1, key);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int backend_decode(json_t *meta, const char *what, enum ms_res_backend *out,
			  struct ms_error *err)
{
	json_t *b = json_object_get(meta, "backend");
	const char *name = json_is_string(b) ? json_string_value(b) : "";

	if (!json_is_object(meta) || !json_is_string(b))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: \"residency\" must be an object with a \"backend\"", what);
	if (!strcmp(name, "pagemap"))
		*out = MS_RES_PAGEMAP;
	else if (!strcmp(name, "smaps"))
		*out = MS_RES_SMAPS;
	else
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: residency: \"backend\" must be pagemap or smaps", what);
	return 0;
}

int ms_snapshot_res_decode_meta(json_t *meta, int version, const char *what,
				struct ms_snapshot *snap, struct ms_error *err)
{
	if (version < MS_SNAPSHOT_VERSION_RESIDENCY)
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: \"residency\" needs version %d", what,
				    MS_SNAPSHOT_VERSION_RESIDENCY);
	return backend_decode(meta, what, &snap->res_backend, err);
}

int ms_snapshot_res_decode_one(json_t *m, const char *what, size_t index,
			       struct ms_resinfo *out, struct ms_error *err)
{
	int rc = get_bytes_field(m, "rss", true, what, index, &out->rss, err);

	if (!rc)
		rc = get_bytes_field(m, "swap", true, what, index, &out->swap, err);
	if (!rc)
		rc = get_bytes_field(m, "huge", false, what, index, &out->huge, err);
	return rc;
}
