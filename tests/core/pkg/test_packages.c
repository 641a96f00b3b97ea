/*
 * The package behind a stale file, through a real package upgrade: the
 * test builds two versions of a small package with dpkg-deb (each ships a
 * different build of a test library), installs the first with dpkg, has
 * two processes map the library, installs the second over it, and expects
 * `mapscope stale` to call the file replaced and name the package, the
 * version installed now and the version the processes run (the first:
 * dpkg's own log, /var/log/dpkg.log, says it upgraded from it after they
 * started), for each process, in the table and in JSON.  Before that the
 * file is replaced by hand, not by dpkg: the log knows nothing of it, so
 * the version running is unknown, and said so.  Where /lib is merged into /usr, the package ships
 * the library under /lib while the kernel names it under /usr/lib, as on a
 * real Debian system.  It needs root and dpkg; without them it skips and
 * says why.  The package is purged at the end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/pkg/dpkglog.h"
#include "msrun.h"
#include "fixture_client.h"
#include "testutil.h"

#define PKG "mapscope-testpkg"

struct fx {
	char *dir;
	char deb[2][PATH_MAX];
	char shipped[PATH_MAX]; /* where the package puts the library */
	char mapped[PATH_MAX];  /* the name the kernel gives it */
	struct fixture child, child2; /* two processes map the library */
};

/* Run a command with its output kept out of the test log; its exit status. */
static int run(const char *const *argv)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void make_dirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

/* A package of version, shipping lib at fx->shipped. */
static void build_deb(struct fx *fx, int v, const char *version, const char *lib)
{
	char tree[PATH_MAX], path[2 * PATH_MAX + 64], control[512];
	const char *argv[] = { "dpkg-deb", "--root-owner-group", "--build", tree, fx->deb[v], NULL };

	snprintf(tree, sizeof(tree), "%s/tree%d", fx->dir, v);
	snprintf(path, sizeof(path), "%s/DEBIAN", tree);
	make_dirs(path);
	snprintf(path, sizeof(path), "%s/DEBIAN/control", tree);
	snprintf(control, sizeof(control),
		 "Package: " PKG "\nVersion: %s\nArchitecture: all\nMaintainer: mapscope tests <tests@invalid>\n"
		 "Description: a library for mapscope's package test\n", version);
	write_file(path, control);
	snprintf(path, sizeof(path), "%s%s", tree, fx->shipped);
	*strrchr(path, '/') = '\0';
	make_dirs(path);
	snprintf(path, sizeof(path), "%s%s", tree, fx->shipped);
	assert_int_equal(tu_copy(lib, path), 0);
	snprintf(fx->deb[v], sizeof(fx->deb[v]), "%s/pkg%d.deb", fx->dir, v);
	assert_int_equal(run(argv), 0);
}

static int setup(void **state)
{
	struct stat st;
	struct fx *fx;
	char *a, *b;

	fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	/* Merged /usr: ship under /lib, be mapped under /usr/lib, as libc6 is. */
	if (lstat("/lib", &st) == 0 && S_ISLNK(st.st_mode))
		snprintf(fx->shipped, sizeof(fx->shipped), "/lib/" PKG "/libmstestpkg.so");
	else
		snprintf(fx->shipped, sizeof(fx->shipped), "/usr/lib/" PKG "/libmstestpkg.so");
	snprintf(fx->mapped, sizeof(fx->mapped), "/usr/lib/" PKG "/libmstestpkg.so");
	a = tu_built("libstale-a.so");
	b = tu_built("libstale-b.so");
	build_deb(fx, 0, "1.0", a);
	build_deb(fx, 1, "2.0-1", b);
	free(a);
	free(b);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	const char *purge[] = { "dpkg", "--purge", PKG, NULL };
	struct fx *fx = *state;

	if (!fx)
		return 0;
	fixture_stop(&fx->child);
	fixture_stop(&fx->child2);
	run(purge);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* The file entry named name in stale's JSON tree, or NULL. */
static json_t *file_entry(json_t *root, const char *name)
{
	json_t *procs = json_object_get(root, "processes"), *p, *f;
	size_t i, k;

	json_array_foreach(procs, i, p)
		json_array_foreach(json_object_get(p, "children"), k, f)
			if (!strcmp(json_string_value(json_object_get(f, "name")), name))
				return f;
	return NULL;
}

static bool field_is(json_t *f, const char *key, const char *want)
{
	const char *got = json_string_value(json_object_get(f, key));

	return want ? got && !strcmp(got, want) : json_is_null(json_object_get(f, key));
}

/* How many file entries named name say package pkg, version installed and running (NULL: null), from dpkg. */
static size_t entries_naming(json_t *root, const char *name, const char *pkg, const char *version,
			     const char *running)
{
	json_t *procs = json_object_get(root, "processes"), *p, *f;
	size_t i, k, n = 0;

	json_array_foreach(procs, i, p)
		json_array_foreach(json_object_get(p, "children"), k, f)
			n += field_is(f, "name", name) && field_is(f, "package", pkg) &&
			     field_is(f, "installed", version) && field_is(f, "version", running) &&
			     field_is(f, "pkgsrc", "dpkg");
	return n;
}

/* How many times text occurs in s. */
static size_t occurrences(const char *s, const char *text)
{
	size_t n = 0;

	for (const char *at = strstr(s, text); at; at = strstr(at + 1, text))
		n++;
	return n;
}

/*
 * `mapscope stale` of processes pid and pid2 (0: only pid), every verdict,
 * with format ("-J" or "-n"), columns and extra (may be NULL).
 */
static char *stale_output_of(struct fx *fx, pid_t pid, pid_t pid2, const char *format, const char *columns,
			     const char *extra)
{
	char pidstr[16], pid2str[16], *out, *empty = tu_join(fx->dir, "no-ignores"), *opt;
	const char *args[] = { "stale", "--show=all", format, "-o", columns, NULL, pidstr, pid2str, extra, NULL };

	write_file(empty, "");
	assert_true(asprintf(&opt, "--ignore-file=%s", empty) > 0);
	args[5] = opt;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	snprintf(pid2str, sizeof(pid2str), "%d", (int)pid2);
	if (!pid2)
		args[7] = extra, args[8] = NULL;
	msrun_capture(args, NULL, &out, NULL);
	assert_non_null(out);
	free(opt);
	free(empty);
	return out;
}

static char *stale_output_with(struct fx *fx, const char *format, const char *columns, const char *extra)
{
	return stale_output_of(fx, fx->child.pid, fx->child2.pid, format, columns, extra);
}

static char *stale_output(struct fx *fx, const char *format, const char *columns)
{
	return stale_output_with(fx, format, columns, NULL);
}

/* The JSON of stale_output_of. */
static json_t *stale_json_of(struct fx *fx, pid_t pid, pid_t pid2, const char *columns)
{
	char *out = stale_output_of(fx, pid, pid2, "-J", columns, NULL);
	json_error_t jerr;
	json_t *root;

	root = json_loads(out, 0, &jerr);
	if (!root)
		fail_msg("stale -J is not JSON: %s", out);
	free(out);
	return root;
}

static json_t *stale_json(struct fx *fx, const char *columns)
{
	return stale_json_of(fx, fx->child.pid, fx->child2.pid, columns);
}

/* The one child of pid (from /proc/PID/task/PID/children), or 0. */
static pid_t only_child(pid_t pid)
{
	char path[64], *text;
	long child = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	text = tu_slurp(path, NULL);
	if (text && sscanf(text, "%ld", &child) != 1)
		child = 0;
	free(text);
	return (pid_t)child;
}

/* The file at path swapped for another build by hand, as dpkg would not: the log never hears of it. */
static void replace_by_hand(const char *path)
{
	char tmp[PATH_MAX + 16], *lib = tu_built("libstale-b.so");

	snprintf(tmp, sizeof(tmp), "%s.by-hand", path);
	assert_int_equal(tu_copy(lib, tmp), 0);
	assert_int_equal(rename(tmp, path), 0);
	free(lib);
}

/* `mapscope ARGS` (with -J among them): its JSON. */
static json_t *run_json(const char *const *args)
{
	json_t *root;
	char *out;

	msrun_capture(args, NULL, &out, NULL);
	assert_non_null(out);
	root = json_loads(out, 0, NULL);
	if (!root)
		fail_msg("mapscope %s -J is not JSON: %s", args[0], out);
	free(out);
	return root;
}

/*
 * The VERSION and INSTALLED pid's `list --by-file` gives the row named
 * name, in *version and *installed (NULL for null); false when no row.
 */
static bool list_versions(pid_t pid, const char *name, char **version, char **installed)
{
	char pidstr[16];
	const char *args[] = { "list", pidstr, "--by-file", "-J", "-o", "NAME,PACKAGE,VERSION,INSTALLED", NULL };
	json_t *root, *row;
	size_t i;
	bool found = false;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	root = run_json(args);
	json_array_foreach(json_object_get(root, "files"), i, row) {
		const char *v = json_string_value(json_object_get(row, "version"));
		const char *inst = json_string_value(json_object_get(row, "installed"));

		if (!json_is_string(json_object_get(row, "name")) ||
		    strcmp(json_string_value(json_object_get(row, "name")), name))
			continue;
		*version = v ? strdup(v) : NULL;
		*installed = inst ? strdup(inst) : NULL;
		found = true;
	}
	json_decref(root);
	return found;
}

/* Rows of `who path` for pid with COPY copy, PACKAGE pkg and VERSION version (NULL: null). */
static size_t who_rows(const char *path, pid_t pid, const char *copy, const char *version)
{
	const char *args[] = { "who", path, "-J", "-o", "PID,COPY,PACKAGE,VERSION", NULL };
	json_t *root = run_json(args), *row;
	size_t i, n = 0;

	json_array_foreach(json_object_get(root, "mappings"), i, row) {
		const char *v = json_string_value(json_object_get(row, "version"));

		if (json_integer_value(json_object_get(row, "pid")) != pid ||
		    strcmp(json_string_value(json_object_get(row, "copy")), copy) ||
		    strcmp(json_string_value(json_object_get(row, "package")), PKG))
			continue;
		if (version ? v && !strcmp(v, version) : !v)
			n++;
	}
	json_decref(root);
	return n;
}

/* The libs row named name, asked by pattern: its VERSION in *version (NULL for null); false when none. */
static bool libs_version(const char *pattern, const char *name, char **version)
{
	const char *args[] = { "libs", pattern, "-J", "-o", "NAME,PACKAGE,VERSION,INSTALLED,PROCS", NULL };
	json_t *root = run_json(args), *row;
	bool found = false;
	size_t i;

	json_array_foreach(json_object_get(root, "libraries"), i, row) {
		const char *v = json_string_value(json_object_get(row, "version"));

		if (strcmp(json_string_value(json_object_get(row, "name")), name))
			continue;
		*version = v ? strdup(v) : NULL;
		found = true;
	}
	json_decref(root);
	return found;
}

static void test_upgrade_names_the_package(void **state)
{
	const char *install1[] = { "dpkg", "-i", ((struct fx *)*state)->deb[0], NULL };
	const char *install2[] = { "dpkg", "-i", ((struct fx *)*state)->deb[1], NULL };
	const char *purge[] = { "dpkg", "--purge", PKG, NULL };
	char deleted[PATH_MAX + 16], *table;
	struct fx *fx = *state;
	time_t upgraded;
	json_t *root, *f;
	pid_t worker;

	/* A first install (logged as such), not a reinstall over what an earlier run left. */
	run(purge);
	assert_int_equal(run(install1), 0);
	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->mapped), 0);
	assert_int_equal(fixture_start_with(&fx->child2, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child2, "mapx %s", fx->mapped), 0);
	/* Nothing stale: no package is named, for nothing needs one. */
	root = stale_json(fx, "NAME,VERDICT,PACKAGE,VERSION");
	f = file_entry(root, fx->mapped);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "verdict")), "ok");
	assert_true(json_is_null(json_object_get(f, "package")));
	assert_true(json_is_null(json_object_get(f, "version")));
	json_decref(root);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", fx->mapped);

	/* Replaced without dpkg: which version runs cannot be known from its log. */
	replace_by_hand(fx->mapped);
	root = stale_json(fx, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
	f = file_entry(root, deleted);
	if (!f)
		fail_msg("no entry for %s after the file was replaced by hand", deleted);
	assert_string_equal(json_string_value(json_object_get(f, "verdict")), "replaced");
	assert_int_equal(entries_naming(root, deleted, PKG, "1.0", NULL), 2);
	json_decref(root);
	table = stale_output(fx, "-n", "NAME,PACKAGE");
	assert_int_equal(occurrences(table, PKG " (running: unknown; now 1.0)"), 2);
	free(table);
	table = stale_output(fx, "-n", "VERSION,INSTALLED");
	assert_int_equal(occurrences(table, "unknown 1.0"), 2);
	free(table);
	/* list --by-file: not the version installed now, but unknown (null). */
	{
		char *version = NULL, *installed = NULL;

		assert_true(list_versions(fx->child.pid, deleted, &version, &installed));
		assert_null(version);
		/* libs: null too. */
		assert_true(libs_version(fx->mapped, deleted, &version));
		assert_null(version);
		/* who: null too, never the version installed now. */
		assert_true(who_rows(fx->mapped, fx->child.pid, "replaced", NULL) >= 1);
		assert_non_null(installed);
		assert_string_equal(installed, "1.0");
		free(installed);
	}

	/* Upgraded by dpkg after both started: they run 1.0, 2.0-1 is installed. */
	assert_int_equal(run(install2), 0);
	upgraded = time(NULL);
	root = stale_json(fx, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
	f = file_entry(root, deleted);
	if (!f)
		fail_msg("no entry for %s after the upgrade", deleted);
	assert_string_equal(json_string_value(json_object_get(f, "verdict")), "replaced");
	assert_string_equal(json_string_value(json_object_get(f, "package")), PKG);
	assert_string_equal(json_string_value(json_object_get(f, "installed")), "2.0-1");
	assert_string_equal(json_string_value(json_object_get(f, "version")), "1.0");
	/* Both processes, not only the first to ask. */
	assert_int_equal(entries_naming(root, deleted, PKG, "2.0-1", "1.0"), 2);
	json_decref(root);
	/* The default JSON fields carry them too. */
	table = stale_output(fx, "-J", "+MAPS");
	root = json_loads(table, 0, NULL);
	assert_non_null(root);
	assert_int_equal(entries_naming(root, deleted, PKG, "2.0-1", "1.0"), 2);
	json_decref(root);
	free(table);
	/* The table says it in one cell, for each process; by file too. */
	table = stale_output(fx, "-n", "NAME,PACKAGE");
	assert_int_equal(occurrences(table, PKG " 1.0 (now 2.0-1)"), 2);
	free(table);
	table = stale_output_with(fx, "-n", "NAME,PACKAGE", "--by-file");
	assert_int_equal(occurrences(table, PKG " 1.0 (now 2.0-1)"), 1);
	free(table);
	/* list --by-file says the same of each process: the copy runs 1.0, 2.0-1 is installed. */
	{
		char *version = NULL, *installed = NULL;

		assert_true(list_versions(fx->child.pid, deleted, &version, &installed));
		assert_non_null(version);
		assert_string_equal(version, "1.0");
		assert_non_null(installed);
		assert_string_equal(installed, "2.0-1");
		free(version);
		free(installed);
	}
	/* libs: the old copy's row runs 1.0. */
	{
		char *version = NULL;

		assert_true(libs_version(fx->mapped, deleted, &version));
		assert_non_null(version);
		assert_string_equal(version, "1.0");
		free(version);
	}
	/* who: each process's old copy runs 1.0, whatever is installed now. */
	assert_true(who_rows(fx->mapped, fx->child.pid, "replaced", "1.0") >= 1);
	assert_true(who_rows(fx->mapped, fx->child2.pid, "replaced", "1.0") >= 1);
	assert_int_equal(who_rows(fx->mapped, fx->child.pid, "replaced", "2.0-1"), 0);

	/*
	 * A worker forked after the upgrade (past the log's slack) keeps its
	 * parent's old copy: nothing is logged after its own start, but its
	 * parent, which maps the same copy, started before the upgrade, and
	 * that start counts, asked alone or beside the parent.
	 */
	while (time(NULL) <= upgraded + MS_DPKGLOG_SLACK + 1)
		usleep(100 * 1000);
	assert_int_equal(fixture_command(&fx->child, "fork"), 0);
	worker = only_child(fx->child.pid);
	assert_true(worker > 0);
	root = stale_json_of(fx, worker, 0, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
	assert_int_equal(entries_naming(root, deleted, PKG, "2.0-1", "1.0"), 1);
	json_decref(root);
	/* list --by-file of the worker alone climbs to its parent too. */
	{
		char *version = NULL, *installed = NULL;

		assert_true(list_versions(worker, deleted, &version, &installed));
		assert_non_null(version);
		assert_string_equal(version, "1.0");
		free(version);
		free(installed);
	}
	root = stale_json_of(fx, fx->child.pid, worker, "NAME,VERDICT,PACKAGE,VERSION,INSTALLED,PKGSRC");
	assert_int_equal(entries_naming(root, deleted, PKG, "2.0-1", "1.0"), 2);
	json_decref(root);
}

int main(void)
{
	const char *probe[] = { "dpkg-deb", "--version", NULL };
	struct stat st;

	/* 77: the test harness reports a skip, with the reason above it. */
	if (geteuid() != 0 || run(probe) != 0 || stat("/var/lib/dpkg/info", &st) < 0) {
		printf("test_packages: SKIP: needs root and dpkg (installs and purges " PKG ")\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_upgrade_names_the_package, setup, teardown),
	};

	return cmocka_run_group_tests_name("packages", tests, NULL, NULL);
}
