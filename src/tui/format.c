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
#include "tui/format.h"
#include "tui/procs_model.h"

#define DELETED_SUFFIX " (deleted)"

static void append(char *buf, size_t size, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *at, const char *fmt, ...)
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

static void escaped_name(char *buf, size_t size, const struct ms_mapping *m, unsigned flags)
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

void tui_format_maprow(char *buf, size_t size, const struct ms_mapping *m,
		       enum tui_mark mark, int verdict, unsigned hidden, unsigned escape_flags)
{
	struct tui_maprow r = { .m = m, .mark = mark, .verdict = verdict };

	tui_format_maprow_rss(buf, size, &r, hidden, false, escape_flags);
}

/* The user's maps columns from the old `hide` bits, RSS off unless rss_column. */
static void maps_layout_from_bits(struct tui_layout *l, unsigned hidden, bool rss_column)
{
	struct tui_colset set;

	tui_colset_default(&set, TUI_CV_MAPS);
	set.hidden |= tui_settings_hide_columns(hidden);
	tui_layout_make(l, TUI_CV_MAPS, &set, rss_column ? 0 : 1u << TUI_MC_RSS,
			TUI_MAPROW_PREFIX, INT_MAX / 2);
}

size_t tui_format_maprow_rss(char *buf, size_t size, const struct tui_maprow *r, unsigned hidden,
			     bool rss_column, unsigned escape_flags)
{
	struct tui_layout l;

	maps_layout_from_bits(&l, hidden, rss_column);
	return tui_format_maprow_cols(buf, size, &l, r, escape_flags);
}

/* A size, blank while unknown (an RSS not yet counted). */
static void known_size_cell(char *out, size_t size, bool known, uint64_t bytes)
{
	if (known)
		ms_format_size(bytes, false, out, size);
}

static void perms_cell(char *out, size_t size, unsigned perms)
{
	if (size >= 5)
		ms_perms_format(perms, out);
}

static void map_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct tui_maprow *r = ctx;
	const struct ms_mapping *m = r->m;

	switch (id) {
	case TUI_MC_RANGE:
		snprintf(out, size, "%12" PRIx64 "-%-12" PRIx64, m->start, m->end);
		break;
	case TUI_MC_SIZE:
		ms_format_size(ms_mapping_size(m), false, out, size);
		break;
	case TUI_MC_RSS: known_size_cell(out, size, r->rss_known, r->rss); break;
	case TUI_MC_PERMS: perms_cell(out, size, m->perms); break;
	case TUI_MC_OFFSET:
		snprintf(out, size, "%8" PRIx64, m->offset);
		break;
	case TUI_MC_DEV:
		snprintf(out, size, "%" PRIu32 ":%" PRIu32 " %" PRIu64, m->dev_major, m->dev_minor,
			 m->inode);
		break;
	default:
		break;
	}
}

size_t tui_format_maprow_cols(char *buf, size_t size, const struct tui_layout *l,
			      const struct tui_maprow *r, unsigned escape_flags)
{
	const struct ms_mapping *m = r->m;
	enum tui_mark mark = r->mark;
	char name[TUI_LINE_MAX];
	size_t at = 0, name_at;

	append(buf, size, &at, "%c%c ",
	       mark == TUI_MARK_ADDED ? '+' : mark == TUI_MARK_REMOVED ? '-' : ' ',
	       tui_verdict_flag(r->verdict));
	at = name_at = tui_layout_row(buf, size, at, l, map_cell, r);
	escaped_name(name, sizeof(name), m, escape_flags);
	append(buf, size, &at, "%s%s", name, mark == TUI_MARK_REMOVED ? " (removed)" : "");
	return name_at;
}

void tui_format_mapheading_rss(char *buf, size_t size, unsigned hidden, bool rss_column)
{
	struct tui_layout l;

	maps_layout_from_bits(&l, hidden, rss_column);
	tui_layout_heading(buf, size, &l, -1, false, NULL);
}

int tui_map_sort_column(const struct tui_mapview *vm)
{
	size_t n;
	const struct tui_column *c = tui_columns(TUI_CV_MAPS, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].sort == (int)vm->sort)
			return (int)i;
	return -1;
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

/* Every process column, on a screen wide enough for all. */
static void procs_layout_all(struct tui_layout *l)
{
	struct tui_colset set;

	tui_colset_default(&set, TUI_CV_PROCS);
	tui_layout_make(l, TUI_CV_PROCS, &set, 0, 0, INT_MAX / 2);
}

size_t tui_format_procrow(char *buf, size_t size, const struct ms_procrow *r,
			  unsigned escape_flags)
{
	struct tui_layout l;

	procs_layout_all(&l);
	return tui_format_procrow_cols(buf, size, &l, r, escape_flags);
}

static void proc_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct ms_procrow *r = ctx;

	switch (id) {
	case TUI_PC_PID:
		snprintf(out, size, "%d", (int)r->pid);
		break;
	case TUI_PC_USER:
		snprintf(out, size, "%s", r->user);
		break;
	case TUI_PC_MAPS:
		if (r->maps_err)
			snprintf(out, size, "-");
		else if (r->counted)
			snprintf(out, size, "%zu", r->nmaps);
		break;
	case TUI_PC_MAPPED:
		if (r->maps_err)
			snprintf(out, size, "%s", r->maps_why ? r->maps_why : "?");
		else if (r->counted)
			ms_format_size(r->mapped, false, out, size);
		break;
	case TUI_PC_RSS:
		if (r->kthread || r->state == 'Z')
			snprintf(out, size, "-");
		else
			ms_format_size(r->rss, false, out, size);
		break;
	case TUI_PC_STALE:
		if (r->stale_counted)
			snprintf(out, size, "%zu", r->stale);
		else
			snprintf(out, size, r->counted || r->maps_err ? "-" : "");
		break;
	default:
		break;
	}
}

size_t tui_format_procrow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_procrow *r, unsigned escape_flags)
{
	char cmd[TUI_LINE_MAX];
	size_t at, cmd_at;

	buf[0] = '\0';
	at = cmd_at = tui_layout_row(buf, size, 0, l, proc_cell, r);
	ms_escape(r->cmd, r->cmd_len, cmd, sizeof(cmd), escape_flags);
	if (r->other_root) {
		char where[4 * MS_CONTAINER_NAME_MAX + 32];

		if (r->has_container)
			ms_container_describe(&r->container, escape_flags, where, sizeof(where));
		else
			snprintf(where, sizeof(where), "other root");
		append(buf, size, &at, "[%s] ", where);
	}
	append(buf, size, &at, "%s", cmd);
	return cmd_at;
}

void tui_format_procheading(char *buf, size_t size, int sort_col, bool reverse)
{
	struct tui_layout l;

	procs_layout_all(&l);
	tui_format_procheading_cols(buf, size, &l, sort_col, reverse);
}

void tui_format_procheading_cols(char *buf, size_t size, const struct tui_layout *l, int sort_col,
				 bool reverse)
{
	/* The table's ids are the sort columns' (columns.c); ascending unless reversed. */
	tui_layout_heading(buf, size, l, sort_col, reverse, NULL);
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
		escaped_name(lines[k].value, sizeof(lines[k].value), m, escape_flags);
		k++;
	}
	if (verdict && k < n) {
		/* The reason may quote a rule from the user's ignore file. */
		char why[4 * MS_STALE_WHY_MAX + 1];

		ms_escape(verdict->why, strlen(verdict->why), why, sizeof(why), escape_flags);
		LINE("stale", "%s: %s", ms_stale_verdict_name(verdict->verdict), why);
	}
	if (k < n) {
		lines[k].label = "build ID";
		if (m->build_id_len) {
			for (uint32_t i = 0; i < m->build_id_len && i < MS_BUILD_ID_MAX; i++)
				snprintf(lines[k].value + 2 * i, sizeof(lines[k].value) - 2 * i, "%02x",
					 m->build_id[i]);
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

/* Escaped to ASCII and cut to width columns, '~' marking a cut. */
static void ascii_cell(char *out, size_t width, const char *s, size_t len)
{
	char esc[4 * MS_SONAME_MAX + 1];
	size_t n = ms_escape(s, len, esc, sizeof(esc), MS_ESC_ASCII);

	if (n > width) {
		esc[width - 1] = '~';
		esc[width] = '\0';
	}
	memcpy(out, esc, strlen(esc) + 1);
}

void tui_ascii_cell(char *out, size_t width, const char *s, size_t len)
{
	ascii_cell(out, width, s, len);
}

/* The files view's columns on a screen width wide, RSS while rss_column. */
static void files_layout_default(struct tui_layout *l, const struct tui_fileview *fv, int width)
{
	struct tui_colset set;

	tui_colset_default(&set, TUI_CV_FILES);
	tui_layout_make(l, TUI_CV_FILES, &set, fv->rss_column ? 0 : 1u << TUI_FC_RSS, 0, width);
}

void tui_format_fileheading(char *buf, size_t size, const struct tui_fileview *fv, int width)
{
	struct tui_layout l;

	files_layout_default(&l, fv, width);
	tui_format_fileheading_cols(buf, size, &l, fv);
}

void tui_format_fileheading_cols(char *buf, size_t size, const struct tui_layout *l,
				 const struct tui_fileview *fv)
{
	size_t n;
	const struct tui_column *c = tui_columns(TUI_CV_FILES, &n);
	int sort_id = -1;

	for (size_t i = 0; i < n; i++)
		if (c[i].sort == (int)fv->sort)
			sort_id = (int)i;
	tui_layout_heading(buf, size, l, sort_id, sort_id >= 0 && c[sort_id].desc != fv->reverse,
			   fv->sort == MS_FILESORT_ADDR ? "NAME (address order)" : NULL);
}

size_t tui_format_filerow(char *buf, size_t size, const struct tui_fileview *fv,
			  const struct ms_filerow *r, int width, unsigned escape_flags)
{
	struct tui_layout l;

	files_layout_default(&l, fv, width);
	return tui_format_filerow_cols(buf, size, &l, r, escape_flags);
}

static void file_cell(const void *ctx, int id, char *out, size_t size)
{
	const struct ms_filerow *r = ctx;
	const char *text;
	char hex[2 * MS_BUILD_ID_MAX + 1];

	switch (id) {
	case TUI_FC_MAPS: snprintf(out, size, "%zu", r->mappings); break;
	case TUI_FC_SIZE: ms_format_size(r->size, false, out, size); break;
	case TUI_FC_RSS: known_size_cell(out, size, r->info.rss_known, r->info.rss); break;
	case TUI_FC_PERMS: ms_permsets_format(r->perm_sets, out, size); break;
	case TUI_FC_VERDICT:
		if (r->info.verdict_known)
			snprintf(out, size, "%s", ms_stale_verdict_name(r->info.verdict.verdict));
		break;
	case TUI_FC_PACKAGE:
	case TUI_FC_VERSION:
		text = tui_filerow_package_text(r, id == TUI_FC_VERSION);
		ascii_cell(out, id == TUI_FC_VERSION ? 16 : 13, text, strlen(text));
		break;
	case TUI_FC_FILEVER:
		ascii_cell(out, 9, r->info.filever, strlen(r->info.filever));
		break;
	case TUI_FC_SONAME:
		text = ms_fileinfo_soname_text(&r->info);
		ascii_cell(out, 22, text, strlen(text));
		break;
	case TUI_FC_LIBVER:
		text = ms_fileinfo_libver_text(&r->info);
		ascii_cell(out, 16, text, strlen(text));
		break;
	case TUI_FC_BUILDID:
		ms_buildid_hex(r->info.build_id, r->info.build_id_len, hex);
		snprintf(out, size, "%s", hex);
		break;
	default:
		break;
	}
}

size_t tui_format_filerow_cols(char *buf, size_t size, const struct tui_layout *l,
			       const struct ms_filerow *r, unsigned escape_flags)
{
	const char *name;
	size_t at, len, name_at;

	buf[0] = '\0';
	at = name_at = tui_layout_row(buf, size, 0, l, file_cell, r);
	name = ms_filerow_name(r, &len);
	if (at < size)
		at += ms_escape(name, len, buf + at, size - at, escape_flags);
	return name_at;
}
