/* pkg.c - one file's owner as every front end says it: see pkg.h. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "pkg/pkg.h"

/* Append fixed text at *at (always NUL-terminated); false when it does not fit whole. */
static bool describe_add(char *buf, size_t size, size_t *at, const char *text)
{
	size_t len = strlen(text);

	if (*at + len >= size)
		return false;
	memcpy(buf + *at, text, len + 1);
	*at += len;
	return true;
}

/* Append a raw field, escaped, keeping room for reserve more bytes. */
static void describe_field(char *buf, size_t size, size_t *at, const char *field, size_t field_size,
			   size_t reserve, unsigned esc_flags)
{
	if (*at + reserve < size)
		*at += ms_escape(field, strnlen(field, field_size), buf + *at, size - *at - reserve, esc_flags);
}

/* " or B" after the first candidate, when there is a second. */
static void describe_candidates(const struct ms_pkg *p, unsigned esc_flags, char *buf, size_t size,
				size_t *at)
{
	describe_field(buf, size, at, p->running, sizeof(p->running), 1, esc_flags);
	if (p->running_alt[0] && describe_add(buf, size, at, " or "))
		describe_field(buf, size, at, p->running_alt, sizeof(p->running_alt), 1, esc_flags);
}

size_t ms_pkg_describe(const struct ms_pkg *p, unsigned esc_flags, char *buf, size_t size)
{
	bool known = p->running_state == MS_PKG_RUNNING_KNOWN && p->running[0];
	bool unknown = p->running_state == MS_PKG_RUNNING_UNKNOWN;
	bool maybe = unknown && p->running[0];
	size_t at = 0;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	describe_field(buf, size, &at, p->name, sizeof(p->name), 0, esc_flags);
	if (known && (!describe_add(buf, size, &at, " ")))
		return at;
	if (known)
		describe_field(buf, size, &at, p->running, sizeof(p->running), 0, esc_flags);
	if (unknown || p->version[0] || p->note_differs) {
		const char *sep = " (";

		if (maybe) {
			if (!describe_add(buf, size, &at, " (running: "))
				return at;
			describe_candidates(p, esc_flags, buf, size, &at);
			sep = "; ";
		} else if (unknown) {
			if (!describe_add(buf, size, &at, " (" MS_PKG_RUNNING_UNKNOWN_TEXT))
				return at;
			sep = "; ";
		}
		if (p->version[0]) {
			if (!describe_add(buf, size, &at, sep) || !describe_add(buf, size, &at, "now "))
				return at;
			describe_field(buf, size, &at, p->version, sizeof(p->version), 1, esc_flags);
			sep = "; ";
		}
		if (p->note_differs) {
			if (!describe_add(buf, size, &at, sep) || !describe_add(buf, size, &at, "its ELF note says "))
				return at;
			describe_field(buf, size, &at, p->note_name, sizeof(p->note_name), 2, esc_flags);
			if (p->note_version[0] && describe_add(buf, size, &at, " "))
				describe_field(buf, size, &at, p->note_version, sizeof(p->note_version), 1, esc_flags);
		}
		describe_add(buf, size, &at, ")");
	}
	return at;
}

const char *ms_pkg_running_text(const struct ms_pkg *p, char *buf, size_t size)
{
	switch (p->running_state) {
	case MS_PKG_RUNNING_INSTALLED:
		return p->version;
	case MS_PKG_RUNNING_KNOWN:
		return p->running;
	case MS_PKG_RUNNING_UNKNOWN:
		break;
	}
	if (!p->running[0] || size == 0)
		return NULL;
	snprintf(buf, size, "%.*s%s%.*s", (int)strnlen(p->running, sizeof(p->running)), p->running,
		 p->running_alt[0] ? " or " : "", (int)strnlen(p->running_alt, sizeof(p->running_alt)),
		 p->running_alt);
	return buf;
}

const char *ms_pkg_running_why(const struct ms_pkg *p, char *buf, size_t size)
{
	int why = (int)strnlen(p->running_why, sizeof(p->running_why));

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (!p->found || p->running_state == MS_PKG_RUNNING_INSTALLED)
		return buf;
	if (p->running_state == MS_PKG_RUNNING_UNKNOWN && p->running[0])
		snprintf(buf, size, "%.*s%sit %s %.*s%s%.*s", why, p->running_why, why ? "; " : "",
			 p->running_alt[0] ? "is" : "may be", (int)strnlen(p->running, sizeof(p->running)), p->running,
			 p->running_alt[0] ? " or " : "", (int)strnlen(p->running_alt, sizeof(p->running_alt)),
			 p->running_alt);
	else
		snprintf(buf, size, "%.*s", why, p->running_why);
	return buf;
}

const char *ms_pkg_source_name(enum ms_pkg_source source)
{
	switch (source) {
	case MS_PKG_SOURCE_DPKG: return "dpkg";
	case MS_PKG_SOURCE_RPM: return "rpm";
	case MS_PKG_SOURCE_PYTHON: return "python";
	case MS_PKG_SOURCE_NOTE: return "elf-note";
	case MS_PKG_SOURCE_NPM: return "npm";
	case MS_PKG_SOURCE_NONE: break;
	}
	return "none";
}

void ms_pkg_running_unknown(struct ms_pkg *p, const char *fmt, ...)
{
	va_list ap;

	p->running_state = MS_PKG_RUNNING_UNKNOWN;
	p->running[0] = '\0';
	p->running_alt[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(p->running_why, sizeof(p->running_why), fmt, ap);
	va_end(ap);
}

const char *ms_pkg_without_epoch(const char *version)
{
	size_t digits = strspn(version, "0123456789");

	return digits && version[digits] == ':' ? version + digits + 1 : version;
}
