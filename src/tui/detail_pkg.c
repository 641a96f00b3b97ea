/* detail_pkg.c - the detail pane's package line: see detail_pkg.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/stale/ignore.h"
#include "core/untrusted/nameproof.h"
#include "tui/detail_pkg.h"

void tui_detail_pkg_forget(struct tui_detail_pkg *dp)
{
	free(dp->name);
	memset(dp, 0, sizeof(*dp));
}

static bool same_file(const struct tui_detail_pkg *dp, const struct ms_mapping *m)
{
	return dp->known && dp->inode == m->inode && dp->dev_major == m->dev_major &&
	       dp->dev_minor == m->dev_minor && dp->name_len == m->name_len &&
	       !memcmp(dp->name, m->name, m->name_len);
}

/* "NAME VERSION (SOURCE)", the running version first for a replaced file. */
static void describe(char *buf, size_t size, const struct ms_pkg *p, unsigned escape_flags)
{
	char name[4 * sizeof(p->name)], ver[4 * sizeof(p->version)], run[4 * sizeof(p->running)];

	ms_escape(p->name, strnlen(p->name, sizeof(p->name)), name, sizeof(name), escape_flags);
	ms_escape(p->version, strnlen(p->version, sizeof(p->version)), ver, sizeof(ver), escape_flags);
	ms_escape(p->running, strnlen(p->running, sizeof(p->running)), run, sizeof(run), escape_flags);
	switch (p->running_state) {
	case MS_PKG_RUNNING_KNOWN:
		snprintf(buf, size, "%s %s (now %s; %s)", name, run, ver, ms_pkg_source_name(p->source));
		break;
	case MS_PKG_RUNNING_UNKNOWN:
		snprintf(buf, size, "%s (running: unknown; now %s; %s)", name, ver, ms_pkg_source_name(p->source));
		break;
	case MS_PKG_RUNNING_INSTALLED:
		snprintf(buf, size, "%s %s (%s%s)", name, ver, ms_pkg_source_name(p->source),
			 p->vendored ? ", vendored" : "");
		break;
	}
}

const char *tui_detail_pkg_line(struct tui_detail_pkg *dp, const struct ms_mapping *m,
				const struct ms_stale_result *verdict, bool other_root, unsigned escape_flags)
{
	struct ms_pkg pkg;
	struct ms_error err;
	const char *path;
	size_t len;

	if (!m || !ms_mapping_is_file_backed(m) || !m->name || m->name_len == 0 || m->name[0] != '/' ||
	    m->name_ambiguous || !verdict)
		return NULL;
	if (same_file(dp, m))
		return dp->line;
	tui_detail_pkg_forget(dp);
	dp->name = malloc(m->name_len + 1);
	if (!dp->name)
		return NULL;
	memcpy(dp->name, m->name, m->name_len);
	dp->name[m->name_len] = '\0';
	dp->name_len = m->name_len;
	dp->inode = m->inode;
	dp->dev_major = m->dev_major;
	dp->dev_minor = m->dev_minor;
	dp->known = true;
	if (other_root) {
		snprintf(dp->line, sizeof(dp->line), "not looked up: the process lives under another root");
		return dp->line;
	}
	if (!verdict->path_ours) {
		snprintf(dp->line, sizeof(dp->line), "not looked up: %s", MS_NAME_WHY_NOT_OURS);
		return dp->line;
	}
	path = dp->name;
	len = ms_name_strip_deleted(dp->name, dp->name_len);
	if (ms_owner_lookup(&path, &len, 1, &pkg, &err) < 0)
		snprintf(dp->line, sizeof(dp->line), "not known: %s", err.msg);
	else if (!pkg.found)
		snprintf(dp->line, sizeof(dp->line), "not packaged");
	else
		describe(dp->line, sizeof(dp->line), &pkg, escape_flags);
	return dp->line;
}
