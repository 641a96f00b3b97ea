/* pymeta.c - a distribution's name and version: see pymeta.h. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "pkg/pymeta.h"

/* v (len bytes) into out when it is a value to take: see pymeta.h. */
static bool take(const char *v, size_t len, char *out, size_t cap)
{
	while (len > 0 && (v[0] == ' ' || v[0] == '\t')) {
		v++;
		len--;
	}
	while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= cap || memchr(v, '\0', len) || memchr(v, '\n', len) || memchr(v, '\r', len))
		return false;
	memcpy(out, v, len);
	out[len] = '\0';
	return true;
}

/* The value of header line (len bytes) when it is the header hdr ("Name:"). */
static bool header(const char *line, size_t len, const char *hdr, const char **value, size_t *vlen)
{
	size_t hlen = strlen(hdr);

	if (len < hlen || strncasecmp(line, hdr, hlen))
		return false;
	*value = line + hlen;
	*vlen = len - hlen;
	return true;
}

unsigned ms_pymeta_parse(const char *text, size_t len, bool complete, char *name, size_t name_cap,
			 char *version, size_t version_cap)
{
	unsigned found = 0, seen = 0;
	size_t pos = 0;

	while (pos < len && seen != (MS_PYMETA_NAME | MS_PYMETA_VERSION)) {
		const char *line = text + pos, *v;
		size_t llen = 0, vlen;
		bool folded;

		while (pos + llen < len && line[llen] != '\n' && line[llen] != '\r')
			llen++;
		if (pos + llen == len && !complete)
			break;
		pos += llen;
		/* Lines end as Python's email parser ends them: "\r\n", "\n" or "\r". */
		if (pos < len && text[pos] == '\r')
			pos++;
		if (pos < len && text[pos] == '\n')
			pos++;
		if (llen == 0)
			break;
		/* A folded header goes on in lines that start with a space or tab. */
		folded = pos < len && (text[pos] == ' ' || text[pos] == '\t');
		if (!(seen & MS_PYMETA_NAME) && header(line, llen, "Name:", &v, &vlen)) {
			seen |= MS_PYMETA_NAME;
			if (!folded && take(v, vlen, name, name_cap))
				found |= MS_PYMETA_NAME;
		} else if (!(seen & MS_PYMETA_VERSION) && header(line, llen, "Version:", &v, &vlen)) {
			seen |= MS_PYMETA_VERSION;
			if (!folded && take(v, vlen, version, version_cap))
				found |= MS_PYMETA_VERSION;
		}
	}
	return found;
}

unsigned ms_pymeta_from_dirname(const char *dir, size_t len, char *name, size_t name_cap,
				char *version, size_t version_cap)
{
	static const char dist[] = ".dist-info", egg[] = ".egg-info";
	const char *dash, *end;
	unsigned found = 0;
	bool is_egg = false;

	if (len > sizeof(dist) - 1 && !memcmp(dir + len - (sizeof(dist) - 1), dist, sizeof(dist) - 1)) {
		len -= sizeof(dist) - 1;
	} else if (len > sizeof(egg) - 1 && !memcmp(dir + len - (sizeof(egg) - 1), egg, sizeof(egg) - 1)) {
		len -= sizeof(egg) - 1;
		is_egg = true;
	} else {
		return 0;
	}
	dash = memchr(dir, '-', len);
	if (!dash)
		return 0;
	end = dir + len;
	/* An egg's version ends at the next dash: "-py3.11" and a platform may follow. */
	if (is_egg) {
		const char *next = memchr(dash + 1, '-', (size_t)(end - dash - 1));

		if (next)
			end = next;
	}
	if (take(dir, (size_t)(dash - dir), name, name_cap))
		found |= MS_PYMETA_NAME;
	if (take(dash + 1, (size_t)(end - dash - 1), version, version_cap))
		found |= MS_PYMETA_VERSION;
	return found;
}
