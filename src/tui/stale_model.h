/*
 * stale_model.h - the stale view's model (key D), without curses.
 *
 * It lists every process that maps a file deleted or replaced on disk, each
 * followed by those files with their verdict and explanation, and the
 * systemd unit to restart when there is one.  tui_staleview_scan judges the
 * processes of a process list (the kernel-side filters of ms_stale_scan:
 * executable file-backed mappings and the main executable) and replaces the
 * entries; processes that vanish or deny access are counted, not errors.
 * The view rescans on its timer, like the other views.
 *
 * Each file has its dpkg package, as the stale command's PACKAGE column
 * (core/stale_report.h): looked up in one pass when a scan finds a stale
 * file the view has not looked up before, and remembered by device, inode
 * and name until tui_staleview_forget_packages (F5) or
 * TUI_STALE_PACKAGE_TICKS scans, so that an upgrade shows its new version.
 * No package (not a dpkg system, another root, an unpackaged file) is a
 * package not found.
 *
 * The lines are the processes and their files, flattened.  A filter (\\)
 * keeps a process with all its files when its command line contains the
 * text, else only its files whose names do (and the process line above
 * them).  Search (/ n N) moves to the next line whose command line or file
 * name contains the text (listfind.h).  The selection is a (PID, file) pair
 * kept across rescans and filter changes; when that line is gone, the line
 * now at the same position is selected, and the lines fill the screen.  Entry holds raw text
 * (command line, names): escape it before display (format.h does).
 *
 * By unit (key u, tui_staleview_set_by_unit) the same processes are grouped
 * as `stale --restart-plan` groups them, by core/stale/restart_plan.h
 * itself (stale_units.h gives it the entries): a heading line per group
 * (services first, then other units, user sessions, processes outside any
 * unit, init), its processes under it in PID order, each with its files.
 * The filter keeps a group whole when its unit's name contains the text,
 * else the group's processes as above, under their heading; search also
 * stops at a heading whose unit's name contains the text.  services_shown
 * counts the services among the groups shown: the units a `systemctl
 * restart` of what the screen lists names.  A heading's
 * entry is its group's first process shown, so Enter on it opens that one.
 */
#ifndef MAPSCOPE_TUI_STALE_MODEL_H
#define MAPSCOPE_TUI_STALE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/maps/maps.h"
#include "core/procs/proclist.h"
#include "core/pkg/owner.h"
#include "core/stale/stale.h"
#include "core/proc/container.h"
#include "core/proc/unit.h"
#include "core/stale/restart_plan.h"
#include "tui/listfind.h"

struct tui_stale_entry {
	pid_t pid;
	char user[MS_PROCLIST_USER_MAX];
	char *cmd;                 /* raw, NUL-terminated */
	size_t cmd_len;
	bool has_unit;
	struct ms_unit unit;       /* raw */
	bool other_root;           /* under another root: a container or a chroot */
	bool has_container;
	struct ms_container container; /* raw */
	struct ms_stale_list files; /* the deleted and replaced ones only */
	struct ms_pkg *pkgs;       /* one per file; NULL before packages are known */
};

#define TUI_STALE_PACKAGE_TICKS 30
/* Bound on the files whose packages are remembered; past it, all are forgotten. */
#define TUI_STALE_PACKAGES_MAX 4096

struct tui_stale_pkg {
	char *name;
	size_t name_len;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	struct ms_pkg pkg;
};

/* A line's file for a unit's heading (by unit only). */
#define TUI_STALE_UNIT_LINE (-2)

struct tui_stale_line {
	size_t entry;
	long file;                 /* -1: the process line; TUI_STALE_UNIT_LINE: its group's heading */
	size_t group;              /* by unit: the index in plan.groups */
	size_t shown;              /* a heading: how many of its processes the filter shows */
};

struct tui_staleview {
	struct tui_stale_entry *entries;
	size_t count, cap;
	struct tui_stale_line *lines;
	size_t nlines, lines_cap;
	size_t scanned;            /* processes judged */
	/* As `stale` counts them (procscan.c): denied, and failed to read; one that exited is neither. */
	size_t denied;
	size_t unreadable;
	size_t ignored;            /* deleted files the ignore rules left out (stale.h, ignored_deleted) */
	pid_t sel_pid;
	long sel_file;
	size_t sel_row, top_row, height;
	size_t hscroll;            /* the last column scrolled by this many columns */
	struct tui_stale_pkg *known; /* packages looked up, by file */
	size_t nknown, known_cap;
	unsigned pkg_scans;        /* scans since the packages were forgotten */
	const char *pkgdb_dir;     /* MS_PKGDB_DIR; tests point it elsewhere */
	const char *dpkglog_dir;   /* dpkg's log: NULL for MS_DPKGLOG_DIR; tests point it elsewhere */
	const char *pkg_why;       /* static: why no package could be looked up (no dpkg or rpm), or NULL */
	bool detail;               /* the detail pane (Tab) shows */
	char filter[TUI_FIND_MAX]; /* "" shows every line */
	char search[TUI_FIND_MAX];
	bool by_unit;              /* grouped by systemd unit (u) */
	struct ms_stale_proc *plan_procs; /* by unit: one per entry, what the plan reads */
	struct ms_restart_plan plan;      /* by unit: groups of plan_procs */
	size_t services_shown;     /* by unit: the service groups the filter shows */
};

void tui_staleview_init(struct tui_staleview *sv, size_t height);
void tui_staleview_free(struct tui_staleview *sv);

/*
 * Judge every process of procs with ctx (kernel threads and self skipped),
 * through the given mapping backend, and keep those with stale files.
 * 0 or MS_ERR_NOMEM.
 */
int tui_staleview_scan(struct tui_staleview *sv, struct ms_stale_ctx *ctx,
		       const struct ms_proclist *procs, enum ms_backend backend, pid_t self,
		       struct ms_error *err);

/*
 * Add one process's entry (files: every file scanned; only the stale ones
 * are kept, and nothing is added when there are none).  Call
 * tui_staleview_rebuild after the last one.  0 or MS_ERR_NOMEM.
 */
int tui_staleview_add(struct tui_staleview *sv, const struct ms_procrow *row,
		      const struct ms_unit *unit, const struct ms_stale_list *files);
int tui_staleview_rebuild(struct tui_staleview *sv);

/* The line at i, NULL past the end; the selected process's PID, or 0. */
const struct tui_stale_line *tui_staleview_line(const struct tui_staleview *sv, size_t i);
pid_t tui_staleview_selected_pid(const struct tui_staleview *sv);

void tui_staleview_move(struct tui_staleview *sv, long delta);
void tui_staleview_select(struct tui_staleview *sv, size_t row);
bool tui_staleview_click(struct tui_staleview *sv, size_t line);
void tui_staleview_set_height(struct tui_staleview *sv, size_t height);
void tui_staleview_forget_packages(struct tui_staleview *sv);
/* The package of file f of entry e, or NULL when none was found. */
const struct ms_pkg *tui_staleview_package(const struct tui_stale_entry *e, size_t f);
/*
 * What is known of file f of entry e, for ms_fact_text (core/files/facts.h):
 * its verdict and build ID, and its package where one was asked for (as
 * the stale command asks: not under another root, nor for a name that is
 * not a path in our root).
 */
struct ms_fact_src;
void tui_staleview_fact_src(const struct tui_staleview *sv, const struct tui_stale_entry *e, size_t f,
			    struct ms_fact_src *src);

/* Show only what contains text ("" all), keeping the selection.  0 or MS_ERR_NOMEM. */
int tui_staleview_set_filter(struct tui_staleview *sv, const char *text);
/* Group by unit (true) or list by process, keeping the selection.  0 or MS_ERR_NOMEM. */
int tui_staleview_set_by_unit(struct tui_staleview *sv, bool on);
/* The group of a unit's heading line, NULL for another line. */
const struct ms_plan_group *tui_staleview_line_group(const struct tui_staleview *sv,
						     const struct tui_stale_line *line);

/* Select the next (dir > 0) or previous line matching sv->search; false if none. */
bool tui_staleview_search(struct tui_staleview *sv, int dir, bool from_current);

#endif
