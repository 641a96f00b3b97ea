#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/container.h"
#include "base/error.h"
#include "base/escape.h"
#include "proc/proc.h"
#include "proc/unit.h"

#define ID_LEN 64
#define SHORT_ID 12

static bool is_id(const char *s, size_t len)
{
	if (len != ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool take(struct ms_container *out, const char *engine, const char *name, size_t len)
{
	if (len == 0 || len >= sizeof(out->name))
		return false;
	out->engine = engine;
	memcpy(out->name, name, len);
	out->name[len] = '\0';
	return true;
}

/* PREFIX + ID + SUFFIX, as a whole component. */
static bool scope_id(const char *c, size_t n, const char *prefix, const char *suffix,
		     const char *engine, struct ms_container *out)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (n != p + ID_LEN + s || memcmp(c, prefix, p) || memcmp(c + p + ID_LEN, suffix, s) ||
	    !is_id(c + p, ID_LEN))
		return false;
	return take(out, engine, c + p, SHORT_ID);
}

/* PREFIX + NAME + SUFFIX, NAME not empty. */
static bool named(const char *c, size_t n, const char *prefix, const char *suffix,
		  struct ms_container *out)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (n <= p + s || memcmp(c, prefix, p) || memcmp(c + n - s, suffix, s))
		return false;
	return take(out, "machine", c + p, n - p - s);
}

static bool component(const char *c, size_t n, const char *parent, size_t parent_len,
		      struct ms_container *out)
{
	if (scope_id(c, n, "docker-", ".scope", "docker", out) ||
	    scope_id(c, n, "cri-containerd-", ".scope", "containerd", out) ||
	    scope_id(c, n, "crio-", ".scope", "cri-o", out) ||
	    scope_id(c, n, "libpod-", ".scope", "podman", out) ||
	    named(c, n, "systemd-nspawn@", ".service", out) ||
	    named(c, n, "machine-", ".scope", out))
		return true;
	/* cgroupfs drivers: /docker/ID, and bare IDs below a kubepods tree. */
	if (is_id(c, n) && parent_len == 6 && !memcmp(parent, "docker", 6))
		return take(out, "docker", c, SHORT_ID);
	return false;
}

int ms_container_parse(const char *path, size_t len, struct ms_container *out)
{
	const char *parent = "";
	size_t pos = 0, parent_len = 0;
	bool kube = false;

	memset(out, 0, sizeof(*out));
	out->user_uid = -1;
	while (pos < len) {
		const char *slash = memchr(path + pos, '/', len - pos);
		size_t n = slash ? (size_t)(slash - (path + pos)) : len - pos;
		const char *c = path + pos;

		pos += n + 1;
		if (n == 0)
			continue;
		/* The user's delegated tree: any engine's name below it is the user's choice. */
		out->user_uid = ms_unit_user_manager_uid(c, n);
		if (out->user_uid >= 0)
			return 0;
		if (component(c, n, parent, parent_len, out))
			return 0;
		if (n >= 8 && !memcmp(c, "kubepods", 8))
			kube = true;
		else if (kube && is_id(c, n))
			return take(out, "containerd", c, SHORT_ID) ? 0 : MS_END;
		parent = c;
		parent_len = n;
	}
	return MS_END;
}

/* The engine and the name escaped (raw: as it is, cut to fit), or a user's tree. */
static size_t describe(const struct ms_container *c, bool raw, unsigned esc_flags, char *out, size_t size)
{
	size_t len = strnlen(c->name, sizeof(c->name));
	int n;

	if (size == 0)
		return 0;
	if (!c->engine) {
		n = snprintf(out, size, "other root (user@%ld.service)", c->user_uid);
		return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
	}
	n = snprintf(out, size, "%s:", c->engine);
	if (n < 0 || (size_t)n >= size)
		return size - 1;
	if (!raw)
		return (size_t)n + ms_escape(c->name, len, out + n, size - (size_t)n, esc_flags);
	len = len < size - (size_t)n ? len : size - (size_t)n - 1;
	memcpy(out + n, c->name, len);
	out[(size_t)n + len] = '\0';
	return (size_t)n + len;
}

size_t ms_container_describe(const struct ms_container *c, unsigned esc_flags, char *out, size_t size)
{
	return describe(c, false, esc_flags, out, size);
}

size_t ms_container_describe_raw(const struct ms_container *c, char *out, size_t size)
{
	return describe(c, true, 0, out, size);
}

int ms_container_of(const struct ms_proc *proc, struct ms_container *out)
{
	struct ms_cgroup_paths cg;
	bool truncated;
	size_t len;
	char *buf;
	int rc;

	memset(out, 0, sizeof(*out));
	out->user_uid = -1;
	rc = ms_proc_read_file(proc, "cgroup", MS_UNIT_CGROUP_READ_MAX, &buf, &len, &truncated, NULL);
	if (rc < 0)
		return rc;
	rc = ms_cgroup_paths(buf, len, &cg);
	if (rc == 0 && (cg.v2 || cg.v1))
		rc = cg.v2 ? ms_container_parse(cg.v2, cg.v2_len, out) : ms_container_parse(cg.v1, cg.v1_len, out);
	else if (rc == 0)
		rc = MS_END;
	free(buf);
	return rc;
}
