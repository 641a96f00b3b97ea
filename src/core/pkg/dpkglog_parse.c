/* dpkglog_parse.c - one line of dpkg's log: see dpkglog_parse.h. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pkg/dpkglog_parse.h"
#include "pkg/pkglog_read.h"

/* "YYYY-MM-DD HH:MM:SS" at s (19 bytes, checked by the caller), packed; 0 if no date. */
static uint64_t parse_stamp(const char *s)
{
	long y = ms_pkglog_digits(s, 4), mo = ms_pkglog_digits(s + 5, 2), d = ms_pkglog_digits(s + 8, 2);
	long h = ms_pkglog_digits(s + 11, 2), mi = ms_pkglog_digits(s + 14, 2), sec = ms_pkglog_digits(s + 17, 2);

	if (s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
		return 0;
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    sec < 0 || sec > 60)
		return 0;
	return (((((uint64_t)y * 100 + (uint64_t)mo) * 100 + (uint64_t)d) * 100 + (uint64_t)h) * 100 +
		(uint64_t)mi) * 100 + (uint64_t)sec;
}

/*
 * The next space-separated field from *at (before end): printable ASCII
 * only, separated by exactly one space.  False when there is none or a
 * byte is not allowed.
 */
static bool next_field(const char **at, const char *end, struct ms_dpkglog_field *f)
{
	const char *s = *at;

	f->at = s;
	while (s < end && *s != ' ') {
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
			return false;
		s++;
	}
	f->len = (size_t)(s - f->at);
	if (!f->len)
		return false;
	*at = s < end ? s + 1 : s;
	/* A trailing space would make an empty field of the next. */
	return !(s < end && s + 1 == end);
}

static bool is(const struct ms_dpkglog_field *f, const char *word)
{
	return f->len == strlen(word) && !memcmp(f->at, word, f->len);
}

enum ms_dpkglog_action ms_dpkglog_parse_line(const char *line, size_t len, struct ms_dpkglog_line *out)
{
	const char *at = line + 20, *end = line + len, *colon;
	struct ms_dpkglog_field action, pkgarch;
	enum ms_dpkglog_action act;

	memset(out, 0, sizeof(*out));
	if (len > MS_DPKGLOG_LINE_MAX || len < 21 || line[19] != ' ')
		return MS_DPKGLOG_MALFORMED;
	out->stamp = parse_stamp(line);
	if (!out->stamp || !next_field(&at, end, &action))
		return MS_DPKGLOG_MALFORMED;
	if (is(&action, "upgrade"))
		act = MS_DPKGLOG_UPGRADE;
	else if (is(&action, "remove"))
		act = MS_DPKGLOG_REMOVE;
	else if (is(&action, "purge"))
		act = MS_DPKGLOG_PURGE;
	else if (is(&action, "status"))
		act = MS_DPKGLOG_STATUS;
	else
		return MS_DPKGLOG_OTHER;
	if (act == MS_DPKGLOG_STATUS) {
		if (!next_field(&at, end, &out->state) || !next_field(&at, end, &pkgarch) ||
		    !next_field(&at, end, &out->new_version) || at != end)
			return MS_DPKGLOG_MALFORMED;
	} else if (!next_field(&at, end, &pkgarch) || !next_field(&at, end, &out->old_version) ||
		   !next_field(&at, end, &out->new_version) || at != end) {
		return MS_DPKGLOG_MALFORMED;
	}
	colon = memrchr(pkgarch.at, ':', pkgarch.len);
	if (!colon)
		return MS_DPKGLOG_MALFORMED;
	out->pkg = (struct ms_dpkglog_field){ pkgarch.at, (size_t)(colon - pkgarch.at) };
	out->arch = (struct ms_dpkglog_field){ colon + 1, pkgarch.len - out->pkg.len - 1 };
	if (!out->pkg.len || out->pkg.len > MS_DPKGLOG_NAME_MAX || !out->arch.len ||
	    out->arch.len > MS_DPKGLOG_ARCH_MAX || out->old_version.len > MS_DPKGLOG_VERSION_MAX ||
	    out->new_version.len > MS_DPKGLOG_VERSION_MAX)
		return MS_DPKGLOG_MALFORMED;
	return act;
}

uint64_t ms_dpkglog_stamp(time_t t)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
		return 0;
	return (((((uint64_t)(tm.tm_year + 1900) * 100 + (uint64_t)(tm.tm_mon + 1)) * 100 +
		  (uint64_t)tm.tm_mday) * 100 + (uint64_t)tm.tm_hour) * 100 + (uint64_t)tm.tm_min) * 100 +
	       (uint64_t)tm.tm_sec;
}

void ms_dpkglog_stamp_text(uint64_t stamp, char out[20])
{
	unsigned long long v = stamp;

	snprintf(out, 20, "%04llu-%02llu-%02llu %02llu:%02llu:%02llu", v / 10000000000ull % 10000,
		 v / 100000000ull % 100, v / 1000000ull % 100, v / 10000ull % 100, v / 100ull % 100, v % 100);
}
