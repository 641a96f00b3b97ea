/* rpmlog_parse.c - one line of dnf's or yum's log: see rpmlog_parse.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pkg/pkglog_read.h"
#include "pkg/rpmlog_parse.h"

static bool leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(long y, long m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && leap(y) ? 29 : days[m - 1];
}

long long ms_rpmlog_days(long year, int month, int day)
{
	/* Counted from March so that the leap day ends a year (the civil-from-days method). */
	long long y = (long long)year - (month <= 2);
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* "hh:mm:ss" at s (8 bytes) as seconds of the day, or -1. */
static long clock_at(const char *s)
{
	long h = ms_pkglog_digits(s, 2), mi = ms_pkglog_digits(s + 3, 2), sec = ms_pkglog_digits(s + 6, 2);

	if (s[2] != ':' || s[5] != ':' || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return -1;
	return h * 3600 + mi * 60 + sec;
}

/*
 * dnf's "YYYY-MM-DDThh:mm:ss" then "Z" or "+hhmm"/"-hhmm" at line (len
 * bytes): the seconds since the epoch into *t, and the bytes taken, or 0.
 */
static size_t dnf_time(const char *line, size_t len, time_t *t)
{
	long y, mo, d, clk, off = 0;
	size_t used = 20;

	if (len < 20 || line[4] != '-' || line[7] != '-' || line[10] != 'T')
		return 0;
	y = ms_pkglog_digits(line, 4);
	mo = ms_pkglog_digits(line + 5, 2);
	d = ms_pkglog_digits(line + 8, 2);
	clk = clock_at(line + 11);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || clk < 0)
		return 0;
	if (line[19] != 'Z') {
		long oh, om;

		if (len < 24 || (line[19] != '+' && line[19] != '-'))
			return 0;
		oh = ms_pkglog_digits(line + 20, 2);
		om = ms_pkglog_digits(line + 22, 2);
		if (oh < 0 || oh > 23 || om < 0 || om > 59)
			return 0;
		off = (oh * 3600 + om * 60) * (line[19] == '-' ? -1 : 1);
		used = 24;
	}
	*t = (time_t)(ms_rpmlog_days(y, (int)mo, (int)d) * 86400 + clk - off);
	return used;
}

static bool part_ok(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

static bool digits_only(const char *s, size_t len)
{
	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

bool ms_rpmlog_parse_nevra(const char *s, size_t len, struct ms_rpmlog_nevra *out)
{
	const char *end = s + len, *dot, *dash, *colon;
	struct ms_rpmlog_field rest;

	memset(out, 0, sizeof(*out));
	if (!part_ok(s, len))
		return false;
	dot = memrchr(s, '.', len);
	if (!dot)
		return false;
	out->arch = (struct ms_rpmlog_field){ dot + 1, (size_t)(end - dot - 1) };
	rest = (struct ms_rpmlog_field){ s, (size_t)(dot - s) };
	/* yum's form puts the epoch before the name. */
	colon = memchr(rest.at, ':', rest.len);
	if (colon && digits_only(rest.at, (size_t)(colon - rest.at))) {
		out->epoch = (struct ms_rpmlog_field){ rest.at, (size_t)(colon - rest.at) };
		rest = (struct ms_rpmlog_field){ colon + 1, rest.len - out->epoch.len - 1 };
	}
	if (!(dash = memrchr(rest.at, '-', rest.len)))
		return false;
	out->release = (struct ms_rpmlog_field){ dash + 1, (size_t)(rest.at + rest.len - dash - 1) };
	rest.len = (size_t)(dash - rest.at);
	if (!(dash = memrchr(rest.at, '-', rest.len)))
		return false;
	out->version = (struct ms_rpmlog_field){ dash + 1, (size_t)(rest.at + rest.len - dash - 1) };
	out->name = (struct ms_rpmlog_field){ rest.at, (size_t)(dash - rest.at) };
	/* dnf's form puts it before the version. */
	colon = memchr(out->version.at, ':', out->version.len);
	if (colon) {
		size_t elen = (size_t)(colon - out->version.at);

		if (out->epoch.len || !digits_only(out->version.at, elen))
			return false;
		out->epoch = (struct ms_rpmlog_field){ out->version.at, elen };
		out->version.at = colon + 1;
		out->version.len -= elen + 1;
	}
	if (!out->name.len || !out->version.len || !out->release.len || !out->arch.len ||
	    out->name.len > MS_RPMLOG_NAME_MAX || out->arch.len > MS_RPMLOG_ARCH_MAX ||
	    memchr(out->arch.at, '-', out->arch.len) || memchr(out->release.at, ':', out->release.len) ||
	    memchr(out->name.at, ':', out->name.len) ||
	    out->epoch.len + 1 + out->version.len + 1 + out->release.len > MS_RPMLOG_VERSION_MAX)
		return false;
	return true;
}

void ms_rpmlog_evr(const struct ms_rpmlog_nevra *n, char *out, size_t size)
{
	snprintf(out, size, "%.*s%s%.*s-%.*s", (int)n->epoch.len, n->epoch.at, n->epoch.len ? ":" : "",
		 (int)n->version.len, n->version.at, (int)n->release.len, n->release.at);
}

struct word {
	const char *text;
	enum ms_rpmlog_action action;
};

/* "Word: NEVRA" at s (len bytes) by the table; OTHER when no word matches. */
static enum ms_rpmlog_action action_of(const char *s, size_t len, const struct word *words, size_t nwords,
				       struct ms_rpmlog_line *out)
{
	for (size_t i = 0; i < nwords; i++) {
		size_t wl = strlen(words[i].text);

		if (len <= wl + 2 || memcmp(s, words[i].text, wl) || s[wl] != ':' || s[wl + 1] != ' ')
			continue;
		s += wl + 2;
		len -= wl + 2;
		if (ms_rpmlog_parse_nevra(s, len, &out->nevra))
			return words[i].action;
		/* yum's erase of a package it could not match logs the name alone. */
		if (out->yum && words[i].action == MS_RPMLOG_ERASE && part_ok(s, len) && len <= MS_RPMLOG_NAME_MAX) {
			memset(&out->nevra, 0, sizeof(out->nevra));
			out->nevra.name = (struct ms_rpmlog_field){ s, len };
			out->name_only = true;
			return MS_RPMLOG_ERASE;
		}
		return MS_RPMLOG_MALFORMED;
	}
	return MS_RPMLOG_OTHER;
}

static const struct word dnf_words[] = {
	{ "Installed", MS_RPMLOG_INSTALL },     { "Obsolete", MS_RPMLOG_INSTALL },
	{ "Upgrade", MS_RPMLOG_UPGRADE },       { "Upgraded", MS_RPMLOG_UPGRADED },
	{ "Downgrade", MS_RPMLOG_DOWNGRADE },   { "Downgraded", MS_RPMLOG_DOWNGRADED },
	{ "Reinstall", MS_RPMLOG_REINSTALL },   { "Reinstalled", MS_RPMLOG_REINSTALLED },
	{ "Erase", MS_RPMLOG_ERASE },           { "Obsoleted", MS_RPMLOG_OBSOLETED },
};

static const struct word yum_words[] = {
	{ "Installed", MS_RPMLOG_INSTALL },
	{ "Updated", MS_RPMLOG_UPGRADE },
	{ "Erased", MS_RPMLOG_ERASE },
	{ "Obsoleted", MS_RPMLOG_OBSOLETED },
};

#define MARK "--- logging initialized ---"

enum ms_rpmlog_action ms_rpmlog_parse_dnf(const char *line, size_t len, struct ms_rpmlog_line *out)
{
	const char *at, *end = line + len, *sp;
	size_t used;

	memset(out, 0, sizeof(*out));
	if (len > MS_RPMLOG_LINE_MAX || !(used = dnf_time(line, len, &out->when)) || used >= len ||
	    line[used] != ' ')
		return MS_RPMLOG_MALFORMED;
	at = line + used + 1;
	sp = memchr(at, ' ', (size_t)(end - at));
	if (!sp || sp == at)
		return MS_RPMLOG_MALFORMED;
	if (sp - at == 4 && !memcmp(at, "INFO", 4) && (size_t)(end - sp - 1) == strlen(MARK) &&
	    !memcmp(sp + 1, MARK, strlen(MARK)))
		return MS_RPMLOG_MARK;
	/* dnf logs each element at its own level, SUBDEBUG; the rest is what scriptlets said. */
	if (sp - at != 8 || memcmp(at, "SUBDEBUG", 8))
		return MS_RPMLOG_OTHER;
	return action_of(sp + 1, (size_t)(end - sp - 1), dnf_words, sizeof(dnf_words) / sizeof(*dnf_words), out);
}

enum ms_rpmlog_action ms_rpmlog_parse_yum(const char *line, size_t len, struct ms_rpmlog_line *out)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	long mo = 0, d, clk;

	memset(out, 0, sizeof(*out));
	out->yum = true;
	if (len > MS_RPMLOG_LINE_MAX || len < 17 || line[3] != ' ' || line[6] != ' ' || line[15] != ' ')
		return MS_RPMLOG_MALFORMED;
	for (int i = 0; i < 12 && !mo; i++)
		if (!memcmp(line, months + 3 * i, 3))
			mo = i + 1;
	d = ms_pkglog_digits(line + 4, 2);
	clk = clock_at(line + 7);
	/* No year: 29 February is let through. */
	if (!mo || d < 1 || d > month_days(2000, mo) || clk < 0)
		return MS_RPMLOG_MALFORMED;
	out->yum_stamp = (uint32_t)(mo * 100000000 + d * 1000000 + clk / 3600 * 10000 + clk / 60 % 60 * 100 +
				    clk % 60);
	return action_of(line + 16, len - 16, yum_words, sizeof(yum_words) / sizeof(*yum_words), out);
}
