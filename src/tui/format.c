#include "config.h"

#include <inttypes.h>
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

/* The flag letter for a verdict: 'D', 'R' or ' '. */
static char tui_verdict_flag(int verdict)
{
	return verdict == MS_STALE_DELETED ? 'D' : verdict == MS_STALE_REPLACED ? 'R' : ' ';
}

void tui_format_maprow(char *buf, size_t size, const struct ms_mapping *m,
		       enum tui_mark mark, int verdict, unsigned hidden, unsigned escape_flags)
{
	struct tui_maprow r = { .m = m, .mark = mark, .verdict = verdict };

	tui_format_maprow_rss(buf, size, &r, hidden, false, escape_flags);
}

size_t tui_format_maprow_rss(char *buf, size_t size, const struct tui_maprow *r, unsigned hidden,
			     bool rss_column, unsigned escape_flags)
{
	const struct ms_mapping *m = r->m;
	enum tui_mark mark = r->mark;
	char tmp[64], perms[5], name[TUI_LINE_MAX];
	size_t at = 0, name_at;

	append(buf, size, &at, "%c%c %12" PRIx64 "-%-12" PRIx64,
	       mark == TUI_MARK_ADDED ? '+' : mark == TUI_MARK_REMOVED ? '-' : ' ',
	       tui_verdict_flag(r->verdict), m->start, m->end);
	if (!(hidden & TUI_COL_SIZE)) {
		ms_format_size(ms_mapping_size(m), false, tmp, sizeof(tmp));
		append(buf, size, &at, " %6s", tmp);
	}
	if (rss_column) {
		tmp[0] = '\0';
		if (r->rss_known)
			ms_format_size(r->rss, false, tmp, sizeof(tmp));
		append(buf, size, &at, " %6s", tmp);
	}
	if (!(hidden & TUI_COL_PERMS)) {
		ms_perms_format(m->perms, perms);
		append(buf, size, &at, " %s", perms);
	}
	if (!(hidden & TUI_COL_OFFSET))
		append(buf, size, &at, " %8" PRIx64, m->offset);
	if (!(hidden & TUI_COL_DEV)) {
		snprintf(tmp, sizeof(tmp), "%" PRIu32 ":%" PRIu32 " %" PRIu64, m->dev_major,
			 m->dev_minor, m->inode);
		append(buf, size, &at, " %-16s", tmp);
	}
	escaped_name(name, sizeof(name), m, escape_flags);
	append(buf, size, &at, " ");
	name_at = at;
	append(buf, size, &at, "%s%s", name, mark == TUI_MARK_REMOVED ? " (removed)" : "");
	return name_at;
}

void tui_format_mapheading_rss(char *buf, size_t size, unsigned hidden, bool rss_column)
{
	size_t at = 0;

	append(buf, size, &at, "   %25s", "START-END   ");
	if (!(hidden & TUI_COL_SIZE))
		append(buf, size, &at, " %6s", "SIZE");
	if (rss_column)
		append(buf, size, &at, " %6s", "RSS");
	if (!(hidden & TUI_COL_PERMS))
		append(buf, size, &at, " %s", "PERM");
	if (!(hidden & TUI_COL_OFFSET))
		append(buf, size, &at, " %8s", "OFFSET");
	if (!(hidden & TUI_COL_DEV))
		append(buf, size, &at, " %-16s", "DEV:INODE");
	append(buf, size, &at, " NAME");
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

size_t tui_format_procrow(char *buf, size_t size, const struct ms_procrow *r,
			  unsigned escape_flags)
{
	char maps[24], mapped[24], rss[24], stale[24], cmd[TUI_LINE_MAX];
	size_t at = 0, cmd_at;

	if (r->maps_err) {
		snprintf(maps, sizeof(maps), "-");
		snprintf(mapped, sizeof(mapped), "%s", r->maps_why ? r->maps_why : "?");
	} else if (r->counted) {
		snprintf(maps, sizeof(maps), "%zu", r->nmaps);
		ms_format_size(r->mapped, false, mapped, sizeof(mapped));
	} else {
		maps[0] = mapped[0] = '\0';
	}
	if (r->kthread || r->state == 'Z')
		snprintf(rss, sizeof(rss), "-");
	else
		ms_format_size(r->rss, false, rss, sizeof(rss));
	if (r->stale_counted)
		snprintf(stale, sizeof(stale), "%zu", r->stale);
	else
		snprintf(stale, sizeof(stale), r->counted || r->maps_err ? "-" : "");
	ms_escape(r->cmd, r->cmd_len, cmd, sizeof(cmd), escape_flags);
	append(buf, size, &at, "%7d %-8.8s %6s %9s %*s %*s ", (int)r->pid, r->user, maps, mapped,
	       TUI_PROCROW_RSS_W, rss, TUI_PROCROW_STALE_W, stale);
	cmd_at = at;
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
	/* Widths and alignment as in tui_format_procrow; negative: left-aligned. */
	static const int width[TUI_PCOL_COUNT] = { 7, -8, 6, 9, TUI_PROCROW_RSS_W, TUI_PROCROW_STALE_W, 0 };
	size_t at = 0;

	for (int c = 0; c < TUI_PCOL_COUNT; c++) {
		char name[16];

		snprintf(name, sizeof(name), "%s%s", tui_proc_col_name((enum tui_proc_col)c),
			 c == sort_col ? (reverse ? "^" : "v") : "");
		append(buf, size, &at, "%s%*s", c ? " " : "", width[c], name);
	}
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

size_t tui_format_staleline(char *buf, size_t size, const struct tui_staleview *sv,
			    const struct tui_stale_line *line, unsigned escape_flags)
{
	const struct tui_stale_entry *e = &sv->entries[line->entry];
	char text[TUI_LINE_MAX], unit[4 * MS_UNIT_MAX + 4 * MS_CONTAINER_NAME_MAX + 64];
	size_t at = 0, last_at;

	if (line->file < 0) {
		size_t n = 0;

		if (e->has_unit)
			n = ms_unit_describe(&e->unit, escape_flags, unit, sizeof(unit));
		else
			n = (size_t)snprintf(unit, sizeof(unit), "-");
		if (e->other_root && n + 3 < sizeof(unit)) {
			unit[n++] = ' ';
			unit[n++] = '[';
			if (e->has_container)
				n += ms_container_describe(&e->container, escape_flags, unit + n, sizeof(unit) - n - 1);
			else
				n += (size_t)snprintf(unit + n, sizeof(unit) - n - 1, "other root");
			snprintf(unit + n, sizeof(unit) - n, "]");
		}
		ms_escape(e->cmd, e->cmd_len, text, sizeof(text), escape_flags);
		append(buf, size, &at, "%7d %-8.8s %5zu ", (int)e->pid, e->user, e->files.count);
		last_at = at;
		append(buf, size, &at, "%s  %s", unit, text);
	} else {
		const struct ms_stale_file *f = &e->files.items[line->file];
		const struct ms_pkg *pkg = tui_staleview_package(e, (size_t)line->file);
		char why[4 * MS_STALE_WHY_MAX + 1], package[4 * 256 + 16] = "-";

		ms_escape(f->name, f->name_len, text, sizeof(text), escape_flags);
		ms_escape(f->result.why, strlen(f->result.why), why, sizeof(why), escape_flags);
		if (pkg)
			ms_pkg_describe(pkg, escape_flags, package, sizeof(package));
		append(buf, size, &at, "        %-8s ", ms_stale_verdict_name(f->result.verdict));
		last_at = at;
		append(buf, size, &at, "%s%s  %s  %s", f->is_exe ? "(exe) " : "", text, package, why);
	}
	return last_at;
}

void tui_format_staleheading(char *buf, size_t size)
{
	snprintf(buf, size, "%7s %-8s %5s %s", "PID", "USER", "FILES", "UNIT  COMMAND / VERDICT FILE  PACKAGE  WHY");
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

/* The files view's columns (files_model.h); all but NAME are ASCII. */
#define SONAME_W 22
#define VERSION_W 9
#define VERDICT_W 10
#define PERMS_W 11 /* "r--,r-x,rw-": a library's usual sets */

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

static const char *file_sort_mark(const struct tui_fileview *fv, enum ms_filesort key)
{
	return fv->sort != key ? "" : fv->reverse ? "^" : "v";
}

void tui_format_fileheading(char *buf, size_t size, const struct tui_fileview *fv, int width)
{
	char maps[8], sz[8], rss[8], name[8];
	size_t at = 0;

	snprintf(maps, sizeof(maps), "MAPS%s", file_sort_mark(fv, MS_FILESORT_MAPS));
	snprintf(sz, sizeof(sz), "SIZE%s", file_sort_mark(fv, MS_FILESORT_SIZE));
	snprintf(rss, sizeof(rss), "RSS%s", file_sort_mark(fv, MS_FILESORT_RSS));
	snprintf(name, sizeof(name), "NAME%s", file_sort_mark(fv, MS_FILESORT_NAME));
	append(buf, size, &at, "%5s %6s", maps, sz);
	if (fv->rss_column)
		append(buf, size, &at, " %6s", rss);
	append(buf, size, &at, " %-*s %-*s %-*s", PERMS_W, "PERMS", VERDICT_W, "VERDICT", VERSION_W,
	       "VERSION");
	if (width >= TUI_FILEVIEW_SONAME_COLS)
		append(buf, size, &at, " %-*s", SONAME_W, "SONAME");
	if (width >= TUI_FILEVIEW_BUILDID_COLS)
		append(buf, size, &at, " %-*s", 2 * MS_BUILD_ID_MAX, "BUILDID");
	append(buf, size, &at, " %s%s", name, fv->sort == MS_FILESORT_ADDR ? " (address order)" : "");
}

size_t tui_format_filerow(char *buf, size_t size, const struct tui_fileview *fv,
			       const struct ms_filerow *r, int width, unsigned escape_flags)
{
	char tmp[64], perms[MS_PERMSETS_MAX], cell[4 * MS_SONAME_MAX + 1];
	const char *name, *verdict = "";
	size_t at = 0, len, name_at;

	ms_format_size(r->size, false, tmp, sizeof(tmp));
	append(buf, size, &at, "%5zu %6s", r->mappings, tmp);
	if (fv->rss_column) {
		tmp[0] = '\0';
		if (r->info.rss_known)
			ms_format_size(r->info.rss, false, tmp, sizeof(tmp));
		append(buf, size, &at, " %6s", tmp);
	}
	ms_permsets_format(r->perm_sets, perms, sizeof(perms));
	if (r->info.verdict_known)
		verdict = ms_stale_verdict_name(r->info.verdict.verdict);
	append(buf, size, &at, " %-*s %-*s", PERMS_W, perms, VERDICT_W, verdict);
	ascii_cell(cell, VERSION_W, r->info.version, strlen(r->info.version));
	append(buf, size, &at, " %-*s", VERSION_W, cell);
	if (width >= TUI_FILEVIEW_SONAME_COLS) {
		name = ms_fileinfo_soname_text(&r->info);
		ascii_cell(cell, SONAME_W, name, strlen(name));
		append(buf, size, &at, " %-*s", SONAME_W, cell);
	}
	if (width >= TUI_FILEVIEW_BUILDID_COLS) {
		ms_buildid_hex(r->info.build_id, r->info.build_id_len, cell);
		append(buf, size, &at, " %-*s", 2 * MS_BUILD_ID_MAX, cell);
	}
	append(buf, size, &at, " ");
	name_at = at;
	name = ms_filerow_name(r, &len);
	if (at < size)
		at += ms_escape(name, len, buf + at, size - at, escape_flags);
	return name_at;
}
