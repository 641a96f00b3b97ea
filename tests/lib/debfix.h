/*
 * debfix.h - a real Debian package for the package tests: built with
 * dpkg-deb around one library of the build tree, installed, upgraded,
 * reinstalled, downgraded and purged by dpkg itself, and what mapscope's
 * JSON says of the file it ships (list --by-file, libs, who, stale).
 *
 * Contract: dpkg and dpkg-deb run with their output kept out of the test
 * log; dpkg only once its frontend lock is ours (another test of the
 * suite may be running dpkg: the wait is bounded, then -1).  The package ships its library where a system's would be: under
 * /lib where /lib is a symlink into /usr (merged /usr, as libc6 does), so
 * the kernel names it under /usr/lib (mapped), else under /usr/lib.  The
 * package trees and .deb files live under the caller's directory.  The
 * package functions return -1 on failure and never abort the test; the
 * query functions run mapscope (as root, or as uid when it is not 0,
 * through msrun) and fail the running cmocka test when its output is not
 * JSON (jc_parse).  Everything returned is the caller's to free
 * (json_decref for json_t).
 */
#ifndef MAPSCOPE_TESTS_DEBFIX_H
#define MAPSCOPE_TESTS_DEBFIX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include <jansson.h>

struct debfix {
	char name[96];          /* the package: its base name and this run's own suffix */
	const char *dir;        /* the caller's temporary directory */
	char shipped[PATH_MAX]; /* where the package puts the library */
	char mapped[PATH_MAX];  /* the name the kernel gives it */
};

/* Why the package tests cannot run here (not root, no dpkg-deb, no dpkg database), or NULL. */
const char *debfix_unavailable(void);

/* Run a command, its output thrown away: its exit status, or -1. */
int debfix_run(const char *const *argv);

/* A new temporary directory (tu_tmpdir) that uid 65534 may read, for debfix_init; NULL on failure. */
char *debfix_dir(void);

/*
 * A package named base, then a suffix of this run's own (the PID and dir's
 * mkdtemp letters, in lower-case hex, as Debian allows in a name), so two
 * copies of the suite on one dpkg database never share a package: it ships
 * file (a base name) in a folder named after it, and builds under dir.
 */
void debfix_init(struct debfix *p, const char *base, const char *dir, const char *file);

/*
 * Build the package's nth .deb, p->dir/NAME-N.deb (its path in deb):
 * version, shipping a copy of lib (a library of the build tree,
 * tu_built), with preinst as its preinst script (NULL: none).  0 or -1,
 * said on stderr.
 */
int debfix_build(const struct debfix *p, int n, const char *version, const char *lib, const char *preinst,
		 char deb[PATH_MAX]);

/*
 * Wait until a dpkg run that ended at last is past its log's slack
 * (dpkglog.h) and one second more: a process started now starts after
 * every line of that run, and a run started now shares no second with it.
 */
void debfix_settle(time_t last);

/* dpkg -i deb; dpkg --purge of the package (a failure said on stderr): the exit status. */
int debfix_install(const char *deb);
int debfix_purge(const struct debfix *p);

/* How many times name (NULL: nothing), then text right after it, occur in s. */
size_t debfix_count(const char *s, const char *name, const char *text);

/* The string at key is want (NULL: the value is null or missing). */
bool debfix_field_is(json_t *obj, const char *key, const char *want);

/*
 * `list PID --by-file -J -o NAME,PACKAGE,VERSION,INSTALLED,PKGSRC`, run
 * as uid: the row named name (a new reference), or NULL when there is none.
 */
json_t *debfix_list_row(uid_t uid, pid_t pid, const char *name);

/*
 * `libs PATTERN --pids -J -o NAME,PID,PACKAGE,VERSION,INSTALLED,PKGSRC,VERDICT`
 * (with --pid=PID when alone), run as uid: the row named name that pid
 * maps (a new reference), or NULL.
 */
json_t *debfix_libs_row(uid_t uid, const char *pattern, const char *name, pid_t pid, bool alone);

/*
 * Fail the running test unless uid's `list --by-file` of pid has a row
 * named name with p's package, from dpkg, VERSION version (NULL: null)
 * and INSTALLED installed.
 */
void debfix_expect_list(const struct debfix *p, uid_t uid, pid_t pid, const char *name, const char *version,
			const char *installed);

/*
 * Fail the running test unless uid's `libs p->mapped --pids` has a row
 * named name that pid maps, replaced, and so has the same with --pid=PID, with p's package, from dpkg,
 * VERSION version (NULL: null) and INSTALLED installed.
 */
void debfix_expect_libs(const struct debfix *p, uid_t uid, pid_t pid, const char *name, const char *version,
			const char *installed);

/* Rows of `who PATH -J`, run as uid, for pid with COPY copy, PACKAGE pkg and VERSION version (NULL: null). */
size_t debfix_who_rows(uid_t uid, const char *path, pid_t pid, const char *copy, const char *pkg,
		       const char *version);

/*
 * `mapscope stale --show=all FORMAT -o COLUMNS [EXTRA] PID...` of the n
 * pids, run as uid, with no ignore file (one under dir, empty): its
 * output, never NULL.
 */
char *debfix_stale(uid_t uid, const char *dir, const pid_t *pids, size_t n, const char *format, const char *columns,
		   const char *extra);

/* The file entry named name under process pid in stale's JSON (borrowed), or NULL. */
json_t *debfix_stale_entry(json_t *root, pid_t pid, const char *name);

#endif
