/*
 * who_pkg.h - the PACKAGE and VERSION cells of `who`, filled after the
 * walk in one package lookup (core/pkg/owner.h) for every distinct path
 * the lines name, rather than once per mapping.
 *
 * who_pkg_note remembers a line just added: its file's path as the kernel
 * names it, which copy it holds (filematch.h), and whether its name may be
 * looked up: not when its process lives under another root (our databases
 * do not describe its files) nor when the name is not proven a path in our
 * root (nameproof.h: a user's symlink on the way, another namespace's
 * name); the cells then stay empty, null in JSON.
 * who_pkg_fill looks the paths up and sets the cells of the columns given
 * (a negative index: not selected).  VERSION is the installed version for
 * the current copy; for a replaced or deleted copy it is the version that
 * ran where that can be known, else "unknown" (null in JSON): the version
 * installed now is not the one that copy holds.  The version that ran is
 * asked of the owner (owner.h, ms_owner_running) for the copy's start: its
 * process's, or its ancestor's that mapped the same copy first
 * (ancestry.h).
 */
#ifndef MAPSCOPE_WHO_PKG_H
#define MAPSCOPE_WHO_PKG_H

#include <stdbool.h>
#include <stddef.h>
#include <libsmartcols.h>

#include "cli/cli.h"
#include "core/files/filematch.h"
#include "core/maps/mapping.h"
#include "core/proc/proc.h"

struct who_pkg_line {
	struct libscols_line *ln;
	size_t path; /* index in paths */
	enum ms_filecopy copy;
	unsigned long long start_time; /* the process's, clock ticks since boot */
	int ppid;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	struct timespec unlinked; /* an old copy's, where its verdict read it */
	pid_t pid;
	uint64_t addr, end;
};

struct who_pkg_path {
	char *name; /* raw, " (deleted)" taken off */
	size_t len;
};

struct who_pkgs {
	struct who_pkg_line *lines;
	size_t nlines, cap_lines;
	struct who_pkg_path *paths;
	size_t npaths, cap_paths;
};

/* The package facts, MS_FACT_PACKAGE to MS_FACT_PKGNOTE (facts.h), that who_pkg_fill sets. */
#define WHO_PKG_FACTS (MS_FACT_PKGNOTE + 1)

/* 0 or -1 (out of memory). */
int who_pkg_note(struct who_pkgs *wp, struct libscols_line *ln, const struct ms_proc *proc,
		 const struct ms_mapping *m, bool no_lookup, enum ms_filecopy copy,
		 const struct timespec *unlinked);
/* 0, or -1 with err filled. */
int who_pkg_fill(struct who_pkgs *wp, const struct cli_opts *o, const int cols[WHO_PKG_FACTS],
		 struct ms_error *err);
void who_pkg_free(struct who_pkgs *wp);

#endif
