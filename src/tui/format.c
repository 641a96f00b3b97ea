#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "core/base/units.h"
#include "core/elf/buildid.h"
#include "core/base/escape.h"
#include "tui/settings.h"
#include "core/resid/residency.h"
#include "tui/columns.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/procs_model.h"

#define DELETED_SUFFIX " (deleted)"

/* The stale view's lines below call it by its old name. */
#define append tui_appendf

void tui_appendf(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, size - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at = *at + (size_t)n < size ? *at + (size_t)n : size - 1;
}

void tui_mapping_name(char *buf, size_t size, const struct ms_mapping *m, unsigned flags)
{
	if (m->name_truncated)
		snprintf(buf, size, "(name longer than PATH_MAX)");
	else
		ms_escape(m->name ? m->name : "", m->name_len, buf, size, flags);
}

char tui_verdict_flag(int verdict)
{
	return verdict == MS_STALE_DELETED ? 'D' : verdict == MS_STALE_REPLACED ? 'R' : ' ';
}

void tui_format_filters(char *buf, size_t size, unsigned filter)
{
	size_t at = 0;

	if (filter & MS_FILTER_READABLE)
		append(buf, size, &at, "r");
	if (filter & MS_FILTER_WRITABLE)
		append(buf, size, &at, "w");
	if (filter & MS_FILTER_EXECUTABLE)
		append(buf, size, &at, "x");
	if (filter & MS_FILTER_SHARED)
		append(buf, size, &at, "s");
	if (filter & MS_FILTER_FILE_BACKED)
		append(buf, size, &at, "f");
	if (!at)
		snprintf(buf, size, "none");
}

bool tui_mapping_is_anomalous(const struct ms_mapping *m)
{
	size_t n = strlen(DELETED_SUFFIX);

	if ((m->perms & MS_PERM_WRITE) && (m->perms & MS_PERM_EXEC))
		return true;
	return (m->perms & MS_PERM_EXEC) && m->name && m->name_len >= n &&
	       !memcmp(m->name + m->name_len - n, DELETED_SUFFIX, n);
}

static void perm_words(char *buf, size_t size, unsigned perms)
{
	size_t at = 0;
	char p[5];

	ms_perms_format(perms, p);
	append(buf, size, &at, "%s %s %s %s (%s)", perms & MS_PERM_READ ? "readable" : "-",
	       perms & MS_PERM_WRITE ? "writable" : "-", perms & MS_PERM_EXEC ? "executable" : "-",
	       perms & MS_PERM_SHARED ? "shared" : "private", p);
}

size_t tui_format_detail(struct tui_detail_line *lines, size_t n, const struct ms_mapping *m,
			 const struct ms_stale_result *verdict, bool ioctl_backend,
			 unsigned escape_flags)
{
	char size_text[32], page[32];
	size_t k = 0;

#define LINE(lab, ...) do { \
		if (k < n) { \
			lines[k].label = lab; \
			snprintf(lines[k].value, sizeof(lines[k].value), __VA_ARGS__); \
			k++; \
		} \
	} while (0)

	ms_format_size(ms_mapping_size(m), false, size_text, sizeof(size_text));
	ms_format_size(m->page_size, false, page, sizeof(page));
	LINE("range", "%" PRIx64 "-%" PRIx64, m->start, m->end);
	LINE("size", "%s (%" PRIu64 " bytes)", size_text, ms_mapping_size(m));
	if (k < n) {
		lines[k].label = "flags";
		perm_words(lines[k].value, sizeof(lines[k].value), m->perms);
		k++;
	}
	LINE("page size", "%s%s", page, m->page_size > 4096 ? " (huge pages)" : "");
	LINE("offset", "0x%" PRIx64, m->offset);
	LINE("device", "%" PRIu32 ":%" PRIu32 "  inode %" PRIu64, m->dev_major, m->dev_minor, m->inode);
	if (k < n) {
		lines[k].label = "name";
		tui_mapping_name(lines[k].value, sizeof(lines[k].value), m, escape_flags);
		k++;
	}
	if (verdict && k < n) {
		/* The reason may quote a rule from the user's ignore file. */
		char why[4 * MS_STALE_WHY_MAX + 1];

		ms_escape(verdict->why, strlen(verdict->why), why, sizeof(why), escape_flags);
		LINE("stale", "%s: %s", ms_stale_verdict_name(verdict->verdict), why);
	}
	if (k < n) {
		struct ms_fact_src src = { .build_id = m->build_id, .build_id_len = m->build_id_len };

		lines[k].label = "build ID";
		if (m->build_id_len) {
			tui_fact_escaped(lines[k].value, sizeof(lines[k].value), MS_FACT_BUILDID, &src,
					 escape_flags);
		} else if (m->build_id_skipped) {
			snprintf(lines[k].value, sizeof(lines[k].value), "not read: %s", m->build_id_skipped);
		} else {
			snprintf(lines[k].value, sizeof(lines[k].value), "%s",
				 ioctl_backend ? "none" : "unknown (text backend)");
		}
		k++;
	}
#undef LINE
	return k;
}

size_t tui_format_residency(struct tui_detail_line *lines, size_t n,
			    const struct ms_resinfo *res, const char *source)
{
	char a[32], b[32];
	size_t k = 0;

	if (!n)
		return 0;
	if (!res) {
		lines[k].label = "resident";
		snprintf(lines[k].value, sizeof(lines[k].value), "unavailable");
		return 1;
	}
	ms_format_size(res->rss, false, a, sizeof(a));
	lines[k].label = "resident";
	if (res->zero_known && res->zero) {
		ms_format_size(res->zero, false, b, sizeof(b));
		snprintf(lines[k].value, sizeof(lines[k].value), "%s (%s more on the zero page)  [%s]",
			 a, b, source);
	} else {
		snprintf(lines[k].value, sizeof(lines[k].value), "%s  [%s]", a, source);
	}
	k++;
	if (k < n) {
		ms_format_size(res->swap, false, a, sizeof(a));
		lines[k].label = "swap";
		snprintf(lines[k].value, sizeof(lines[k].value), "%s", a);
		k++;
	}
	if (k < n) {
		ms_format_size(res->huge, false, a, sizeof(a));
		lines[k].label = "huge";
		snprintf(lines[k].value, sizeof(lines[k].value), "%s%s", res->huge ? a : "none",
			 res->hugetlb ? " (hugetlb)" : res->huge ? " (transparent huge pages)" : "");
		k++;
	}
	return k;
}

void tui_format_snapshot_name(char *buf, size_t size, pid_t pid, time_t when)
{
	struct tm tm;
	char stamp[32];

	if (!localtime_r(&when, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)when);
	snprintf(buf, size, "mapscope-%d-%s.json", (int)pid, stamp);
}

size_t tui_fit_by(const char *s, size_t len, int width, int *cols, tui_fit_step step)
{
	size_t at = 0;
	int used = 0;

	while (at < len) {
		int w;
		size_t n = step(s + at, len - at, &w);

		if (used + w > width)
			break;
		used += w;
		at += n;
	}
	if (cols)
		*cols = used;
	return at;
}

/* One character (UTF-8 is stateless, so each starts afresh). */
static size_t char_step(const char *s, size_t len, int *cols)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;

	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, s, len, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		/* Escaped text is valid; in a C locale count each byte as one column. */
		*cols = 1;
		return 1;
	}
	*cols = wcwidth(wc) < 0 ? 1 : wcwidth(wc);
	return n;
}

size_t tui_text_fit(const char *s, size_t len, int width, int *cols)
{
	return tui_fit_by(s, len, width, cols, char_step);
}

size_t tui_fact_escaped(char *out, size_t size, enum ms_fact f, const struct ms_fact_src *src,
			unsigned escape_flags)
{
	char buf[MS_FACT_TEXT_MAX];
	size_t len;
	const char *text = ms_fact_text(f, src, 0, buf, sizeof(buf), &len);

	return ms_escape(text, len, out, size, escape_flags);
}

void tui_fact_cell(char *out, size_t size, enum ms_fact f, const struct ms_fact_src *src)
{
	tui_fact_escaped(out, size, f, src, MS_ESC_ASCII);
}

