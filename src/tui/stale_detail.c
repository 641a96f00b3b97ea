#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
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

size_t tui_format_stale_detail(struct tui_detail_line *lines, size_t n, const struct tui_staleview *sv,
			       unsigned escape_flags)
{
	const struct tui_stale_line *l = tui_staleview_line(sv, sv->sel_row);
	const struct tui_stale_entry *e;
	const struct ms_stale_file *f;
	const struct ms_pkg *pkg;
	size_t k = 0;

	if (!l)
		return 0;
	e = &sv->entries[l->entry];
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
	pkg = tui_staleview_package(e, (size_t)l->file);
	line(lines, n, &k, "file", f->name, f->name_len, escape_flags);
	if (k < n) {
		lines[k].label = "verdict";
		snprintf(lines[k].value, sizeof(lines[k].value), "%s%s", ms_stale_verdict_name(f->result.verdict),
			 f->is_exe ? " (the process's executable)" : "");
		k++;
	}
	line(lines, n, &k, "why", f->result.why, strlen(f->result.why), escape_flags);
	if (k < n) {
		lines[k].label = "package";
		if (pkg)
			ms_pkg_describe(pkg, escape_flags, lines[k].value, sizeof(lines[k].value));
		else
			snprintf(lines[k].value, sizeof(lines[k].value), "none found");
		k++;
	}
	if (pkg && pkg->found && pkg->running_state != MS_PKG_RUNNING_INSTALLED) {
		char why[2 * MS_PKG_WHY_MAX];

		if (ms_pkg_running_why(pkg, why, sizeof(why))[0])
			line(lines, n, &k, "version",
			     why, strlen(why), escape_flags);
	}
	return k;
}
