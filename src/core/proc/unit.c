#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "base/escape.h"
#include "proc/unit.h"

/* The unit types of systemd.unit(5) that own processes, slices excepted. */
static const char *const unit_suffixes[] = {
	".service", ".scope", ".socket", ".mount", ".swap", ".timer", ".path",
	".automount", ".device", ".target",
};

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

static bool is_unit(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(unit_suffixes) / sizeof(unit_suffixes[0]); i++)
		if (has_suffix(s, len, unit_suffixes[i]))
			return true;
	return false;
}

long ms_unit_user_manager_uid(const char *s, size_t len)
{
	char digits[16];
	size_t n;
	char *end;
	long v;

	if (len < 6 || memcmp(s, "user@", 5) || !has_suffix(s, len, ".service"))
		return -1;
	n = len - 5 - strlen(".service");
	if (n == 0 || n >= sizeof(digits))
		return -1;
	memcpy(digits, s + 5, n);
	digits[n] = '\0';
	v = strtol(digits, &end, 10);
	return *end || v < 0 ? -1 : v;
}

/*
 * The unit of one cgroup path: the outermost unit, or, when that is a user
 * manager, the outermost unit below it.  Anything deeper is a delegated
 * subtree that the unit's own processes named, so it proves nothing.
 */
static int unit_of_path(const char *path, size_t len, struct ms_unit *out)
{
	size_t pos = 0;
	bool found = false;

	while (pos < len) {
		const char *slash = memchr(path + pos, '/', len - pos);
		size_t n = slash ? (size_t)(slash - (path + pos)) : len - pos;
		const char *comp = path + pos;

		pos += n + 1;
		if (n == 0 || !is_unit(comp, n))
			continue;
		if (n >= MS_UNIT_MAX)
			break;
		if (found) {
			/* The first unit inside user@UID.service: a user unit. */
			out->user_uid = ms_unit_user_manager_uid(out->name, strlen(out->name));
			memcpy(out->name, comp, n);
			out->name[n] = '\0';
			return 0;
		}
		memcpy(out->name, comp, n);
		out->name[n] = '\0';
		found = true;
		if (ms_unit_user_manager_uid(comp, n) < 0)
			return 0;
	}
	return found ? 0 : MS_END;
}

/* The name escaped (raw: as it is, cut to fit), then a user unit's manager. */
static size_t describe(const struct ms_unit *u, bool raw, unsigned esc_flags, char *out, size_t size)
{
	size_t n = strnlen(u->name, sizeof(u->name));
	int more;

	if (size == 0)
		return 0;
	if (raw) {
		n = n < size ? n : size - 1;
		memcpy(out, u->name, n);
		out[n] = '\0';
	} else {
		n = ms_escape(u->name, n, out, size, esc_flags);
	}
	if (u->user_uid < 0)
		return n;
	more = snprintf(out + n, size - n, " (user@%ld.service)", u->user_uid);
	return more < 0 || (size_t)more >= size - n ? size - 1 : n + (size_t)more;
}

size_t ms_unit_describe(const struct ms_unit *u, unsigned esc_flags, char *out, size_t size)
{
	return describe(u, false, esc_flags, out, size);
}

size_t ms_unit_describe_raw(const struct ms_unit *u, char *out, size_t size)
{
	return describe(u, true, 0, out, size);
}

int ms_cgroup_paths(const char *text, size_t len, struct ms_cgroup_paths *out)
{
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	if (memchr(text, '\0', len))
		return MS_ERR_INVAL;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		const char *line = text + pos;
		const char *c1 = memchr(line, ':', n);
		const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;

		if (n > 0 && !c2)
			return MS_ERR_INVAL;
		if (c2) {
			size_t ctl_len = (size_t)(c2 - c1 - 1);
			const char *path = c2 + 1;
			size_t path_len = n - (size_t)(path - line);

			if (c1 - line == 1 && line[0] == '0' && ctl_len == 0) {
				out->v2 = path;
				out->v2_len = path_len;
			} else if (ctl_len == 12 && !memcmp(c1 + 1, "name=systemd", 12)) {
				out->v1 = path;
				out->v1_len = path_len;
			}
		}
		pos += n + 1;
	}
	return 0;
}

int ms_unit_parse(const char *text, size_t len, struct ms_unit *out)
{
	struct ms_cgroup_paths cg;

	out->name[0] = '\0';
	out->user_uid = -1;
	if (ms_cgroup_paths(text, len, &cg) < 0)
		return MS_ERR_INVAL;
	if (cg.v2 && unit_of_path(cg.v2, cg.v2_len, out) == 0)
		return 0;
	if (cg.v1)
		return unit_of_path(cg.v1, cg.v1_len, out);
	return MS_END;
}
