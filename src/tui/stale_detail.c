#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/files/facts.h"
#include "tui/stale_detail.h"

static void line(struct tui_detail_line *lines, size_t n, size_t *k, const char *label,
		 const char *raw, size_t len, unsigned escape_flags)
{
	if (*k >= n)
		return;
	lines[*k].label = label;
	ms_escape(raw, len, lines[*k].value, sizeof(lines[*k].value), escape_flags);
	(*k)++;
}

/* A fact's line, where the fact has a text. */
static void fact_line(struct tui_detail_line *lines, size_t n, size_t *k, const char *label, enum ms_fact fact,
		      const struct ms_fact_src *src, unsigned escape_flags)
{
	char buf[MS_FACT_TEXT_MAX];
	size_t len;
	const char *text = ms_fact_text(fact, src, 0, buf, sizeof(buf), &len);

	if (len)
		line(lines, n, k, label, text, len, escape_flags);
}

/* A unit's heading: the unit, its kind, its processes, and what to do. */
static size_t unit_detail(struct tui_detail_line *lines, size_t n, const struct ms_plan_group *g,
			  unsigned escape_flags)
{
	char unit[4 * MS_UNIT_MAX + 32] = "";
	const char *say;
	size_t k = 0, at = 0;

	if (!g)
		return 0;
	say = ms_plan_advice(g);
	if (g->unit && k < n) {
		lines[k].label = "unit";
		ms_unit_describe(g->unit, escape_flags, lines[k].value, sizeof(lines[k].value));
		k++;
	}
	if (k < n) {
		lines[k].label = "kind";
		snprintf(lines[k].value, sizeof(lines[k].value), "%s", ms_plan_kind_name(g->kind));
		k++;
	}
	if (k < n) {
		lines[k].label = "processes";
		lines[k].value[0] = '\0';
		for (size_t i = 0; i < g->count && at + 1 < sizeof(lines[k].value); i++)
			at += (size_t)snprintf(lines[k].value + at, sizeof(lines[k].value) - at, "%s%d", i ? " " : "",
					       (int)g->procs[i]->pid);
		k++;
	}
	if (k < n) {
		lines[k].label = "restart";
		if (!say && g->unit)
			ms_unit_describe(g->unit, escape_flags, unit, sizeof(unit));
		snprintf(lines[k].value, sizeof(lines[k].value), "%s%s", say ? say : "systemctl restart ", unit);
		k++;
	}
	return k;
}

size_t tui_format_stale_detail(struct tui_detail_line *lines, size_t n, const struct tui_staleview *sv,
			       unsigned escape_flags)
{
	const struct tui_stale_line *l = tui_staleview_line(sv, sv->sel_row);
	const struct tui_stale_entry *e;
	const struct ms_stale_file *f;
	struct ms_fact_src src;
	size_t k = 0;

	if (!l)
		return 0;
	e = &sv->entries[l->entry];
	if (l->file == TUI_STALE_UNIT_LINE)
		return unit_detail(lines, n, tui_staleview_line_group(sv, l), escape_flags);
	if (l->file < 0) {
		if (n) {
			lines[k].label = "process";
			snprintf(lines[k].value, sizeof(lines[k].value), "%d, user %.32s, %zu stale %s",
				 (int)e->pid, e->user, e->files.count, e->files.count == 1 ? "file" : "files");
			k++;
		}
		line(lines, n, &k, "command", e->cmd, e->cmd_len, escape_flags);
		if (e->has_unit && k < n) {
			lines[k].label = "unit";
			ms_unit_describe(&e->unit, escape_flags, lines[k].value, sizeof(lines[k].value));
			k++;
		}
		return k;
	}
	f = &e->files.items[l->file];
	line(lines, n, &k, "file", f->name, f->name_len, escape_flags);
	if (k < n) {
		lines[k].label = "verdict";
		snprintf(lines[k].value, sizeof(lines[k].value), "%s%s", ms_stale_verdict_name(f->result.verdict),
			 f->is_exe ? " (the process's executable)" : "");
		k++;
	}
	line(lines, n, &k, "why", f->result.why, strlen(f->result.why), escape_flags);
	tui_staleview_fact_src(sv, e, (size_t)l->file, &src);
	if (src.pkg_why) {
		line(lines, n, &k, "package", src.pkg_why, strlen(src.pkg_why), escape_flags);
		return k;
	}
	if (!src.pkg_known)
		return k;
	fact_line(lines, n, &k, "package", MS_FACT_PACKAGE, &src, escape_flags);
	fact_line(lines, n, &k, "running", MS_FACT_VERSION, &src, escape_flags);
	fact_line(lines, n, &k, "installed", MS_FACT_INSTALLED, &src, escape_flags);
	fact_line(lines, n, &k, "how known", MS_FACT_VERWHY, &src, escape_flags);
	fact_line(lines, n, &k, "source", MS_FACT_PKGSRC, &src, escape_flags);
	fact_line(lines, n, &k, "elf note", MS_FACT_PKGNOTE, &src, escape_flags);
	return k;
}
