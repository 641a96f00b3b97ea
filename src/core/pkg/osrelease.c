/* osrelease.c - the distribution, from os-release: see osrelease.h. */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/saferead.h"
#include "pkg/osrelease.h"

/* The value of one line's assignment into out (size bytes), unquoted. */
static void value(const char *v, size_t len, char *out, size_t size)
{
	size_t n = 0;
	char quote = len && (v[0] == '"' || v[0] == '\'') ? v[0] : 0;

	if (quote)
		v++, len--;
	for (size_t i = 0; i < len && n + 1 < size; i++) {
		if (quote && v[i] == quote)
			break;
		if (quote == '"' && v[i] == '\\' && i + 1 < len)
			i++;
		out[n++] = v[i];
	}
	out[n] = '\0';
}

static bool id_allowed(const char *id)
{
	return id[0] && strspn(id, "0123456789abcdefghijklmnopqrstuvwxyz._-") == strlen(id);
}

void ms_osrelease_parse(const char *text, size_t len, struct ms_osrelease *out)
{
	static const struct {
		const char *key;
		size_t off, size;
	} keys[] = {
		{ "ID=", offsetof(struct ms_osrelease, id), sizeof(out->id) },
		{ "VERSION_ID=", offsetof(struct ms_osrelease, version_id), sizeof(out->version_id) },
		{ "VERSION_CODENAME=", offsetof(struct ms_osrelease, version_codename),
		  sizeof(out->version_codename) },
		{ "PRETTY_NAME=", offsetof(struct ms_osrelease, pretty_name), sizeof(out->pretty_name) },
	};
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k].key);

			if (n >= kl && !memcmp(line, keys[k].key, kl))
				value(line + kl, n - kl, (char *)out + keys[k].off, keys[k].size);
		}
		pos += n + 1;
	}
	if (!id_allowed(out->id))
		out->id[0] = '\0';
}

int ms_osrelease_read(const char *path, struct ms_osrelease *out, struct ms_error *err)
{
	const char *paths[] = { path ? path : "/etc/os-release", path ? NULL : "/usr/lib/os-release" };
	char *text = NULL;
	size_t len = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < 2 && paths[i] && rc < 0; i++)
		rc = ms_read_regular(paths[i], MS_OSRELEASE_MAX, &text, &len, err);
	if (rc < 0)
		return rc;
	ms_osrelease_parse(text, len, out);
	free(text);
	return 0;
}
