/* detail_pkg.c - the detail pane's package line: see detail_pkg.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/maps/ancestry.h"
#include "core/stale/ignore.h"
#include "core/untrusted/nameproof.h"
#include "tui/detail_pkg.h"
#include "tui/format.h"

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

/*
 * "NAME VERSION (SOURCE)" for the installed copy; for an old one
 * ms_pkg_describe's words, the source, then how the version was found or
 * why it is unknown.
 */
static void describe(char *buf, size_t size, const struct ms_pkg *p, unsigned escape_flags)
{
	char what[1400], why[2 * MS_PKG_WHY_MAX], whyesc[4 * sizeof(why)], ver[4 * sizeof(p->version)];
	struct ms_fact_src src = { .pkg_known = true, .pkg = p };

	if (p->running_state == MS_PKG_RUNNING_INSTALLED) {
		tui_fact_escaped(what, sizeof(what), MS_FACT_PACKAGE, &src, escape_flags);
		tui_fact_escaped(ver, sizeof(ver), MS_FACT_INSTALLED, &src, escape_flags);
		snprintf(buf, size, "%s %s (%s%s)", what, ver, ms_pkg_source_name(p->source),
			 p->vendored ? ", vendored" : "");
		return;
	}
	ms_pkg_describe(p, escape_flags, what, sizeof(what));
	ms_pkg_running_why(p, why, sizeof(why));
	ms_escape(why, strlen(why), whyesc, sizeof(whyesc), escape_flags);
	snprintf(buf, size, "%s [%s]%s%s", what, ms_pkg_source_name(p->source), whyesc[0] ? ": " : "", whyesc);
}

/* Does mapping m hold the file asked about (the same device and inode)? */
static bool holds_file(void *arg, const struct ms_mapping *m)
{
	const struct tui_detail_pkg *dp = arg;

	return m->inode == dp->inode && m->dev_major == dp->dev_major && m->dev_minor == dp->dev_minor;
}

/* pkg for the copy m maps, when its verdict says it is an old one: the version that runs. */
static int date_copy(struct tui_detail_pkg *dp, const struct ms_proc *proc, const struct ms_mapping *m,
		     const struct ms_stale_result *verdict, struct ms_pkg *pkg, struct ms_error *err)
{
	const struct ms_proc_stat *st = proc ? ms_proc_stat_at_open(proc) : NULL;
	struct ms_copy c = { .unlinked = verdict->unlinked, .pid = proc ? ms_proc_pid(proc) : 0, .addr = m->start,
			     .end = m->end, .ino = m->inode, .dev_major = m->dev_major, .dev_minor = m->dev_minor };
	struct ms_owner *owner;
	struct ms_error why;
	const char *path = dp->name;
	size_t len = ms_name_strip_deleted(dp->name, dp->name_len);
	time_t btime;
	int rc;

	if (st && ms_boot_time(&btime, &why) == 0)
		c.start = ms_proc_started_at(ms_ancestry_mapped_since(st->start_time, st->ppid, holds_file, dp), btime);
	rc = ms_owner_open(NULL, &owner, err);
	if (rc == 0)
		rc = ms_owner_find(owner, &path, &len, 1, pkg, err);
	if (rc == 0 && pkg->found && ms_stale_verdict_is_stale(verdict->verdict))
		rc = ms_owner_running(owner, pkg, &c, 1, err);
	ms_owner_close(owner);
	return rc;
}

const char *tui_detail_pkg_line(struct tui_detail_pkg *dp, const struct ms_proc *proc, const struct ms_mapping *m,
				const struct ms_stale_result *verdict, bool other_root, unsigned escape_flags)
{
	struct ms_pkg pkg;
	struct ms_error err;

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
	if (date_copy(dp, proc, m, verdict, &pkg, &err) < 0)
		snprintf(dp->line, sizeof(dp->line), "not known: %s", err.msg);
	else if (!pkg.found)
		tui_fact_escaped(dp->line, sizeof(dp->line), MS_FACT_PACKAGE,
				 &(struct ms_fact_src){ .pkg_known = true }, escape_flags);
	else
		describe(dp->line, sizeof(dp->line), &pkg, escape_flags);
	return dp->line;
}
