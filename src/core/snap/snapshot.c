#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "elf/buildid.h"
#include "proc/proc.h"
#include "snap/snapshot.h"

/* A name from the kernel is at most PATH_MAX bytes; leave room for " (deleted)". */
#define MS_SNAPSHOT_NAME_MAX (2 * PATH_MAX)

static int nomem(struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
}

/* ---- encoding helpers -------------------------------------------------- */

static json_t *hex_json(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIx64, v);
	return json_string(buf);
}

static json_t *u64_json(uint64_t v)
{
	char buf[24];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return json_string(buf);
}

/* Raw bytes as escaped text, or null. */
static json_t *bytes_json(const char *bytes, size_t len, bool present)
{
	char *esc;
	json_t *j;

	if (!present)
		return json_null();
	esc = ms_escape_dup(bytes ? bytes : "", len, 0);
	if (!esc)
		return NULL;
	j = json_string(esc);
	free(esc);
	return j;
}

int ms_snapshot_put(json_t *obj, const char *key, json_t *v)
{
	return v ? json_object_set_new(obj, key, v) : -1;
}

#define put ms_snapshot_put

/* ---- decoding helpers -------------------------------------------------- */

struct where {
	const char *what;  /* the document, for messages */
	const char *ctx;   /* "header", "mapping 12" */
	struct ms_error *err;
};

static int bad(const struct where *w, const char *key, const char *expect)
{
	return ms_error_set(w->err, MS_ERR_INVAL, EINVAL, "%s: %s: \"%s\" must be %s",
			    w->what, w->ctx, key, expect);
}

static int get_hex(const struct where *w, json_t *obj, const char *key, bool required,
		   uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	const char *s;
	char *end;

	*out = 0;
	if (!v && !required)
		return 0;
	s = json_is_string(v) ? json_string_value(v) : NULL;
	if (!s || !*s || strlen(s) > 16 || strspn(s, "0123456789abcdefABCDEF") != strlen(s))
		return bad(w, key, "a hex string");
	*out = strtoull(s, &end, 16);
	return 0;
}

static int get_u64(const struct where *w, json_t *obj, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	const char *s;

	*out = 0;
	if (!v)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	s = json_is_string(v) ? json_string_value(v) : NULL;
	if (s && *s && strlen(s) <= 20 && strspn(s, "0123456789") == strlen(s)) {
		errno = 0;
		*out = strtoull(s, NULL, 10);
		if (!errno)
			return 0;
	}
	return bad(w, key, "a non-negative integer");
}

static int get_bool(const struct where *w, json_t *obj, const char *key, bool *out)
{
	json_t *v = json_object_get(obj, key);

	*out = false;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return bad(w, key, "true or false");
	*out = json_is_true(v);
	return 0;
}

/* Escaped text back to bytes; null (or absent) gives *out NULL. */
static int get_bytes(const struct where *w, json_t *obj, const char *key, size_t max,
		     char **out, size_t *len)
{
	json_t *v = json_object_get(obj, key);
	size_t n;
	char *buf;

	*out = NULL;
	*len = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad(w, key, "a string or null");
	n = json_string_length(v);
	if (n > 4 * max)
		return bad(w, key, "shorter");
	buf = malloc(n + 1);
	if (!buf)
		return nomem(w->err);
	*len = ms_unescape(json_string_value(v), n, buf);
	if (*len == (size_t)-1 || *len > max) {
		free(buf);
		*len = 0;
		return bad(w, key, "text as mapscope escapes it (\\\\ and \\xNN only)");
	}
	*out = buf;
	return 0;
}

static int get_text(const struct where *w, json_t *obj, const char *key, char *out, size_t size)
{
	json_t *v = json_object_get(obj, key);

	out[0] = '\0';
	if (!v)
		return 0;
	if (!json_is_string(v) || json_string_length(v) >= size ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return bad(w, key, "a short string");
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* ---- perms ------------------------------------------------------------- */

static int perms_parse(const char *s, unsigned *perms)
{
	static const char set[] = "rwx";

	*perms = 0;
	if (strlen(s) != 4)
		return -1;
	for (int i = 0; i < 3; i++) {
		if (s[i] == set[i])
			*perms |= 1u << i;
		else if (s[i] != '-')
			return -1;
	}
	if (s[3] == 's')
		*perms |= MS_PERM_SHARED;
	else if (s[3] != 'p')
		return -1;
	return 0;
}

/* ---- mappings ---------------------------------------------------------- */

json_t *ms_mapping_to_json(const struct ms_mapping *m)
{
	json_t *o = json_object();
	char perms[5], bid[2 * MS_BUILD_ID_MAX + 1] = "";
	int rc;

	if (!o)
		return NULL;
	ms_perms_format(m->perms, perms);
	ms_buildid_hex(m->build_id, m->build_id_len < MS_BUILD_ID_MAX ? m->build_id_len : MS_BUILD_ID_MAX, bid);
	rc = put(o, "start", hex_json(m->start));
	rc |= put(o, "end", hex_json(m->end));
	rc |= put(o, "perms", json_string(perms));
	rc |= put(o, "offset", hex_json(m->offset));
	rc |= put(o, "dev_major", json_integer(m->dev_major));
	rc |= put(o, "dev_minor", json_integer(m->dev_minor));
	rc |= put(o, "inode", u64_json(m->inode));
	rc |= put(o, "page_size", u64_json(m->page_size));
	rc |= put(o, "name", bytes_json(m->name, m->name_len, m->name_len > 0));
	rc |= put(o, "name_truncated", json_boolean(m->name_truncated));
	rc |= put(o, "build_id", json_string(bid));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int build_id_parse(const struct where *w, json_t *obj, struct ms_mapping *m)
{
	json_t *v = json_object_get(obj, "build_id");
	const char *s;
	size_t n;

	if (!v)
		return 0;
	s = json_is_string(v) ? json_string_value(v) : NULL;
	n = s ? strlen(s) : 0;
	if (!s || n % 2 || n > 2 * MS_BUILD_ID_MAX || strspn(s, "0123456789abcdefABCDEF") != n)
		return bad(w, "build_id", "hex of at most 20 bytes");
	for (size_t i = 0; i < n / 2; i++) {
		char byte[3] = { s[2 * i], s[2 * i + 1], '\0' };

		m->build_id[i] = (unsigned char)strtoul(byte, NULL, 16);
	}
	m->build_id_len = (uint32_t)(n / 2);
	return 0;
}

int ms_mapping_from_json(json_t *obj, const char *what, size_t index,
			 struct ms_mapping *m, struct ms_error *err)
{
	char ctx[48];
	struct where w = { what, ctx, err };
	uint64_t major, minor;
	json_t *perms;
	int rc;

	snprintf(ctx, sizeof(ctx), "mapping %zu", index + 1);
	memset(m, 0, sizeof(*m));
	if (!json_is_object(obj))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: %s is not an object", what, ctx);
	perms = json_object_get(obj, "perms");
	if (!json_is_string(perms) || perms_parse(json_string_value(perms), &m->perms) < 0)
		return bad(&w, "perms", "four letters such as \"r-xp\"");
	rc = get_hex(&w, obj, "start", true, &m->start);
	if (!rc)
		rc = get_hex(&w, obj, "end", true, &m->end);
	if (!rc)
		rc = get_hex(&w, obj, "offset", false, &m->offset);
	if (!rc)
		rc = get_u64(&w, obj, "dev_major", &major);
	if (!rc)
		rc = get_u64(&w, obj, "dev_minor", &minor);
	if (!rc && (major > UINT32_MAX || minor > UINT32_MAX))
		rc = bad(&w, "dev_major", "a 32-bit device number");
	if (!rc)
		rc = get_u64(&w, obj, "inode", &m->inode);
	if (!rc)
		rc = get_u64(&w, obj, "page_size", &m->page_size);
	if (!rc)
		rc = get_bool(&w, obj, "name_truncated", &m->name_truncated);
	if (!rc)
		rc = build_id_parse(&w, obj, m);
	if (!rc)
		rc = get_bytes(&w, obj, "name", MS_SNAPSHOT_NAME_MAX, &m->name, &m->name_len);
	if (rc)
		return rc;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	if (m->name && !m->name_len) {
		free(m->name);
		m->name = NULL;
	}
	if (m->end <= m->start) {
		ms_mapping_reset(m);
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: %s: \"end\" must be above \"start\"",
				    what, ctx);
	}
	return 0;
}

/* ---- header ------------------------------------------------------------ */

void ms_snapshot_time_now(char out[40])
{
	struct timespec now;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 40 - n, ".%09ldZ", now.tv_nsec);
}

int ms_snapshot_header_fill(struct ms_maps *maps, struct ms_snapshot_header *hdr,
			    struct ms_error *err)
{
	struct ms_proc *proc = ms_maps_proc(maps);
	char exe[PATH_MAX];
	struct utsname un;
	ssize_t n;

	memset(hdr, 0, sizeof(*hdr));
	hdr->version = MS_SNAPSHOT_VERSION;
	ms_snapshot_time_now(hdr->time);
	if (uname(&un) == 0)
		snprintf(hdr->kernel, sizeof(hdr->kernel), "%s", un.release);
	hdr->backend = ms_maps_backend(maps);
	hdr->pid = ms_proc_pid(proc);
	hdr->start_time = ms_proc_stat_at_open(proc)->start_time;
	/* Both are best effort: a kernel thread has no exe, a zombie no cmdline. */
	if (ms_proc_read_file(proc, "cmdline", MS_SNAPSHOT_CMDLINE_MAX, &hdr->cmdline,
			      &hdr->cmdline_len, &hdr->cmdline_truncated, NULL) < 0)
		hdr->cmdline = NULL;
	ms_snapshot_boot_id(hdr->boot_id);
	n = readlinkat(ms_proc_dirfd(proc), "exe", exe, sizeof(exe));
	if (n > 0 && n < (ssize_t)sizeof(exe)) {
		hdr->exe = malloc((size_t)n + 1);
		if (!hdr->exe) {
			ms_snapshot_header_free(hdr);
			return nomem(err);
		}
		memcpy(hdr->exe, exe, (size_t)n);
		hdr->exe[n] = '\0';
		hdr->exe_len = (size_t)n;
	}
	return 0;
}

void ms_snapshot_boot_id(char out[40])
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, 39) : -1;

	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = '\0';
	out[strspn(out, "0123456789abcdef-")] = '\0';
}

void ms_snapshot_header_free(struct ms_snapshot_header *hdr)
{
	free(hdr->cmdline);
	free(hdr->exe);
	hdr->cmdline = NULL;
	hdr->exe = NULL;
}

json_t *ms_snapshot_header_to_json(const struct ms_snapshot_header *hdr)
{
	json_t *o = json_object();
	int rc;

	if (!o)
		return NULL;
	rc = put(o, "time", json_string(hdr->time));
	rc |= put(o, "kernel", json_string(hdr->kernel));
	rc |= put(o, "backend", json_string(ms_backend_name(hdr->backend)));
	rc |= put(o, "pid", json_integer(hdr->pid));
	rc |= put(o, "start_time", u64_json(hdr->start_time));
	rc |= put(o, "cmdline", bytes_json(hdr->cmdline, hdr->cmdline_len, hdr->cmdline != NULL));
	rc |= put(o, "cmdline_truncated", json_boolean(hdr->cmdline_truncated));
	rc |= put(o, "exe", bytes_json(hdr->exe, hdr->exe_len, hdr->exe != NULL));
	if (hdr->boot_id[0])
		rc |= put(o, "boot_id", json_string(hdr->boot_id));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int ms_snapshot_header_from_json(json_t *obj, const char *what,
				 struct ms_snapshot_header *hdr, struct ms_error *err)
{
	struct where w = { what, "header", err };
	char backend[16];
	uint64_t pid, start;
	int rc;

	memset(hdr, 0, sizeof(*hdr));
	hdr->version = MS_SNAPSHOT_VERSION;
	if (!json_is_object(obj))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: \"header\" must be an object", what);
	if (!json_is_integer(json_object_get(obj, "pid")))
		return bad(&w, "pid", "an integer");
	rc = get_u64(&w, obj, "pid", &pid);
	if (!rc && (pid == 0 || pid > INT32_MAX))
		rc = bad(&w, "pid", "a process ID");
	if (!rc)
		rc = get_u64(&w, obj, "start_time", &start);
	if (!rc)
		rc = get_text(&w, obj, "time", hdr->time, sizeof(hdr->time));
	if (!rc)
		rc = get_text(&w, obj, "kernel", hdr->kernel, sizeof(hdr->kernel));
	if (!rc)
		rc = get_text(&w, obj, "backend", backend, sizeof(backend));
	if (!rc && ms_backend_parse(backend[0] ? backend : "auto", &hdr->backend) < 0)
		rc = bad(&w, "backend", "ioctl or text");
	if (!rc)
		rc = get_text(&w, obj, "boot_id", hdr->boot_id, sizeof(hdr->boot_id));
	if (!rc && hdr->boot_id[strspn(hdr->boot_id, "0123456789abcdef-")])
		rc = bad(&w, "boot_id", "a boot ID as the kernel gives it");
	if (!rc)
		rc = get_bool(&w, obj, "cmdline_truncated", &hdr->cmdline_truncated);
	if (!rc)
		rc = get_bytes(&w, obj, "cmdline", MS_SNAPSHOT_CMDLINE_MAX, &hdr->cmdline, &hdr->cmdline_len);
	if (!rc)
		rc = get_bytes(&w, obj, "exe", PATH_MAX, &hdr->exe, &hdr->exe_len);
	if (rc) {
		ms_snapshot_header_free(hdr);
		return rc;
	}
	hdr->pid = (pid_t)pid;
	hdr->start_time = start;
	return 0;
}

/* ---- documents --------------------------------------------------------- */

int ms_snapshot_check_kind_upto(json_t *root, const char *kind, const char *what, int max,
				int *version, struct ms_error *err)
{
	json_t *tag = json_object_get(root, "mapscope");
	json_t *ver = json_object_get(root, "version");

	if (!json_is_object(root) || !json_is_string(tag) || strcmp(json_string_value(tag), kind))
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: not a mapscope %s", what, kind);
	if (!json_is_integer(ver) || json_integer_value(ver) < MS_SNAPSHOT_VERSION ||
	    json_integer_value(ver) > max) {
		if (max == MS_SNAPSHOT_VERSION)
			return ms_error_set(err, MS_ERR_INVAL, EINVAL,
					    "%s: a mapscope %s of an unknown version (this mapscope reads version %d)",
					    what, kind, max);
		return ms_error_set(err, MS_ERR_INVAL, EINVAL,
				    "%s: a mapscope %s of an unknown version (this mapscope reads versions %d to %d)",
				    what, kind, MS_SNAPSHOT_VERSION, max);
	}
	*version = (int)json_integer_value(ver);
	return 0;
}

int ms_snapshot_check_kind(json_t *root, const char *kind, const char *what,
			   struct ms_error *err)
{
	int version;

	return ms_snapshot_check_kind_upto(root, kind, what, MS_SNAPSHOT_VERSION, &version, err);
}

const char *ms_json_why(const json_error_t *jerr, char out[MS_JSON_WHY_MAX])
{
	size_t len = strnlen(jerr->text, sizeof(jerr->text));
	const char *quote = memmem(jerr->text, len, " near '", 7);

	/*
	 * jansson quotes the offending bytes ("invalid token near '...'"): from
	 * a file that is not ours (record -o onto root's file) that would put
	 * its contents on the terminal, so the quote is dropped.
	 */
	if (quote)
		len = (size_t)(quote - jerr->text);
	ms_escape(jerr->text, len, out, MS_JSON_WHY_MAX, MS_ESC_ASCII);
	return out;
}

void ms_snapshot_free(struct ms_snapshot *snap)
{
	ms_snapshot_header_free(&snap->hdr);
	ms_maplist_free(&snap->maps);
	free(snap->res);
	snap->res = NULL;
	free(snap->pkgs);
	snap->pkgs = NULL;
}
