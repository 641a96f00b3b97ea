/* debfix.c - a real Debian package for the package tests: see debfix.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/pkg/dpkglog.h"
#include "debfix.h"
#include "jsoncheck.h"
#include "msrun.h"
#include "testutil.h"

#define DPKG_FRONTEND_LOCK "/var/lib/dpkg/lock-frontend"
#define DPKG_LOCK_WAIT_MS 60000

const char *debfix_unavailable(void)
{
	const char *probe[] = { "dpkg-deb", "--version", NULL };
	struct stat st;

	if (geteuid() != 0)
		return "needs root (it installs and purges a package with dpkg)";
	if (debfix_run(probe) != 0)
		return "needs dpkg-deb";
	if (stat("/var/lib/dpkg/info", &st) < 0)
		return "needs dpkg's database (/var/lib/dpkg/info)";
	return NULL;
}

/* Run argv quietly; with locked, it is dpkg and we hold its frontend lock for it. */
static int run_quiet(const char *const *argv, bool locked)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (locked)
			setenv("DPKG_FRONTEND_LOCKED", "1", 1);

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

int debfix_run(const char *const *argv)
{
	return run_quiet(argv, false);
}

/*
 * dpkg, once its frontend lock is ours: another test of the suite (make
 * -j), or apt, may be running dpkg, which would refuse to start.  The wait
 * is bounded; -1 past it.
 */
static int run_dpkg(const char *const *argv)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	long long deadline = tu_deadline_in(DPKG_LOCK_WAIT_MS);
	int fd = open(DPKG_FRONTEND_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0640), rc;

	if (fd < 0)
		return -1;
	while (fcntl(fd, F_SETLK, &fl) < 0) {
		if ((errno != EACCES && errno != EAGAIN) || tu_now_ms() > deadline) {
			fprintf(stderr, "dpkg's frontend lock: %s\n", errno == EACCES || errno == EAGAIN ? "still held" :
				strerror(errno));
			close(fd);
			return -1;
		}
		usleep(50 * 1000);
	}
	rc = run_quiet(argv, true);
	close(fd);
	return rc;
}

char *debfix_dir(void)
{
	char *dir = tu_tmpdir();

	if (dir && chmod(dir, 0755) < 0) {
		tu_rmtree(dir);
		free(dir);
		return NULL;
	}
	return dir;
}

void debfix_init(struct debfix *p, const char *base, const char *dir, const char *file)
{
	struct stat st;
	bool merged = lstat("/lib", &st) == 0 && S_ISLNK(st.st_mode);
	const char *suffix = strrchr(dir, '-');
	int len = snprintf(p->name, sizeof(p->name), "%s-%d-", base, (int)getpid());

	for (suffix = suffix ? suffix + 1 : ""; *suffix && len + 3 < (int)sizeof(p->name); suffix++)
		len += snprintf(p->name + len, sizeof(p->name) - (size_t)len, "%02x", (unsigned char)*suffix);
	p->dir = dir;
	snprintf(p->shipped, sizeof(p->shipped), "%s/%s/%s", merged ? "/lib" : "/usr/lib", p->name, file);
	snprintf(p->mapped, sizeof(p->mapped), "/usr/lib/%s/%s", p->name, file);
}

/* Build deb from the tree of the package of version, shipping lib (a path), with preinst (NULL: none). */
static int build_deb(const struct debfix *p, const char *version, const char *lib, const char *preinst,
		     const char *deb)
{
	char tree[PATH_MAX], path[2 * PATH_MAX], control[512];
	const char *argv[] = { "dpkg-deb", "--root-owner-group", "--build", tree, deb, NULL };

	if (snprintf(tree, sizeof(tree), "%s.tree", deb) >= (int)sizeof(tree))
		return -1;
	snprintf(path, sizeof(path), "%s/DEBIAN", tree);
	if (tu_mkdirs(path) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/DEBIAN/control", tree);
	snprintf(control, sizeof(control),
		 "Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: mapscope tests <tests@invalid>\n"
		 "Description: a library for mapscope's package tests\n",
		 p->name, version);
	if (tu_spit(path, control) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/DEBIAN/preinst", tree);
	if (preinst && (tu_spit(path, preinst) < 0 || chmod(path, 0755) < 0))
		return -1;
	snprintf(path, sizeof(path), "%s%s", tree, p->shipped);
	*strrchr(path, '/') = '\0';
	if (tu_mkdirs(path) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s%s", tree, p->shipped);
	if (tu_copy(lib, path) < 0 || chmod(path, 0644) < 0)
		return -1;
	return debfix_run(argv) == 0 ? 0 : -1;
}

int debfix_build(const struct debfix *p, int n, const char *version, const char *lib, const char *preinst,
		 char deb[PATH_MAX])
{
	char *built = tu_built(lib);
	int rc = -1;

	if (snprintf(deb, PATH_MAX, "%s/%s-%d.deb", p->dir, p->name, n) < PATH_MAX && built)
		rc = build_deb(p, version, built, preinst, deb);
	if (rc < 0)
		fprintf(stderr, "cannot build %s %s with %s\n", p->name, version, lib);
	free(built);
	return rc;
}

void debfix_settle(time_t last)
{
	while (time(NULL) <= last + MS_DPKGLOG_SLACK + 1)
		usleep(100 * 1000);
}

int debfix_install(const char *deb)
{
	const char *argv[] = { "dpkg", "-i", deb, NULL };

	return run_dpkg(argv);
}

int debfix_purge(const struct debfix *p)
{
	const char *argv[] = { "dpkg", "--purge", p->name, NULL };
	int rc = run_dpkg(argv);

	/* The name is this run's own: a package left behind would stay for good. */
	if (rc != 0)
		fprintf(stderr, "dpkg --purge %s failed (%d): purge it by hand\n", p->name, rc);
	return rc;
}

size_t debfix_count(const char *s, const char *name, const char *text)
{
	char *want;
	size_t n = 0;

	if (asprintf(&want, "%s%s", name ? name : "", text) < 0)
		fail_msg("out of memory");
	for (const char *at = strstr(s, want); at; at = strstr(at + 1, want))
		n++;
	free(want);
	return n;
}

bool debfix_field_is(json_t *obj, const char *key, const char *want)
{
	const char *got = json_string_value(json_object_get(obj, key));

	return want ? got && !strcmp(got, want) : json_is_null(json_object_get(obj, key)) || !json_object_get(obj, key);
}

/* `mapscope ARGS` (with -J among them) as uid (0: as we are): its JSON. */
static json_t *run_json(uid_t uid, const char *const *args)
{
	struct msrun_opts o = { .uid = uid };
	struct msrun_result r = msrun(&o, args);
	json_t *root = jc_parse(r.out);

	msrun_free(&r);
	return root;
}

static bool name_is(json_t *obj, const char *name)
{
	return debfix_field_is(obj, "name", name);
}

json_t *debfix_list_row(uid_t uid, pid_t pid, const char *name)
{
	char pidstr[16];
	const char *args[] = { "list", pidstr, "--by-file", "-J", "-o", "NAME,PACKAGE,VERSION,INSTALLED,PKGSRC", NULL };
	json_t *root, *row, *found = NULL;
	size_t i;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	root = run_json(uid, args);
	json_array_foreach(json_object_get(root, "files"), i, row)
		if (name_is(row, name))
			found = json_incref(row);
	json_decref(root);
	return found;
}

json_t *debfix_libs_row(uid_t uid, const char *pattern, const char *name, pid_t pid, bool alone)
{
	char only[32];
	const char *args[] = { "libs", pattern, "--pids", "-J", "-o", "NAME,PID,PACKAGE,VERSION,INSTALLED,PKGSRC,VERDICT",
			       alone ? only : NULL, NULL };
	json_t *root, *row, *child, *found = NULL;
	size_t i, k;

	snprintf(only, sizeof(only), "--pid=%d", (int)pid);
	root = run_json(uid, args);
	json_array_foreach(json_object_get(root, "libraries"), i, row) {
		if (!name_is(row, name))
			continue;
		json_array_foreach(json_object_get(row, "children"), k, child)
			if (json_integer_value(json_object_get(child, "pid")) == pid && !found)
				found = json_incref(row);
	}
	json_decref(root);
	return found;
}

/* Fail the running test, saying what was asked of which row. */
static void expect_failed(const char *what, pid_t pid, const char *version, const char *installed, json_t *row)
{
	char *text = row ? json_dumps(row, JSON_COMPACT) : NULL;

	fail_msg("%s of %d: want version %s, installed %s; got %s", what, (int)pid, version ? version : "null",
		 installed, text ? text : "no row");
}

/* row is p's package, from dpkg, version running and installed installed. */
static bool row_says(const struct debfix *p, json_t *row, const char *version, const char *installed)
{
	return debfix_field_is(row, "package", p->name) && debfix_field_is(row, "pkgsrc", "dpkg") &&
	       debfix_field_is(row, "version", version) && debfix_field_is(row, "installed", installed);
}

void debfix_expect_list(const struct debfix *p, uid_t uid, pid_t pid, const char *name, const char *version,
			const char *installed)
{
	json_t *row = debfix_list_row(uid, pid, name);

	if (!row || !row_says(p, row, version, installed))
		expect_failed("list --by-file", pid, version, installed, row);
	json_decref(row);
}

void debfix_expect_libs(const struct debfix *p, uid_t uid, pid_t pid, const char *name, const char *version,
			const char *installed)
{
	/* Every process of the walk, then pid alone: its ancestors date the copy as well. */
	for (int alone = 0; alone <= 1; alone++) {
		json_t *row = debfix_libs_row(uid, p->mapped, name, pid, alone);

		if (!row || !row_says(p, row, version, installed) || !debfix_field_is(row, "verdict", "replaced"))
			expect_failed(alone ? "libs --pid, the copy" : "libs, the copy", pid, version, installed, row);
		json_decref(row);
	}
}

size_t debfix_who_rows(uid_t uid, const char *path, pid_t pid, const char *copy, const char *pkg,
		       const char *version)
{
	const char *args[] = { "who", path, "-J", "-o", "PID,COPY,PACKAGE,VERSION", NULL };
	json_t *root = run_json(uid, args), *row;
	size_t i, n = 0;

	json_array_foreach(json_object_get(root, "mappings"), i, row)
		n += json_integer_value(json_object_get(row, "pid")) == pid && debfix_field_is(row, "copy", copy) &&
		     debfix_field_is(row, "package", pkg) && debfix_field_is(row, "version", version);
	json_decref(root);
	return n;
}

char *debfix_stale(uid_t uid, const char *dir, const pid_t *pids, size_t n, const char *format, const char *columns,
		   const char *extra)
{
	char *empty = tu_join(dir, "no-ignores"), *opt, *out;
	const char **args = calloc(n + 8, sizeof(*args));
	char (*pidstr)[16] = calloc(n ? n : 1, sizeof(*pidstr));
	struct msrun_opts o = { .uid = uid };
	struct msrun_result r;
	size_t k = 0;

	assert_non_null(empty);
	assert_non_null(args);
	assert_non_null(pidstr);
	assert_int_equal(tu_spit(empty, ""), 0);
	assert_true(asprintf(&opt, "--ignore-file=%s", empty) > 0);
	args[k++] = "stale";
	args[k++] = "--show=all";
	args[k++] = format;
	args[k++] = "-o";
	args[k++] = columns;
	args[k++] = opt;
	if (extra)
		args[k++] = extra;
	for (size_t i = 0; i < n; i++) {
		snprintf(pidstr[i], sizeof(pidstr[i]), "%d", (int)pids[i]);
		args[k++] = pidstr[i];
	}
	r = msrun(&o, args);
	out = r.out;
	r.out = NULL;
	msrun_free(&r);
	free(pidstr);
	free(args);
	free(opt);
	free(empty);
	assert_non_null(out);
	return out;
}

json_t *debfix_stale_entry(json_t *root, pid_t pid, const char *name)
{
	json_t *p, *f;
	size_t i, k;

	json_array_foreach(json_object_get(root, "processes"), i, p) {
		if (pid && json_integer_value(json_object_get(p, "pid")) != pid)
			continue;
		json_array_foreach(json_object_get(p, "children"), k, f)
			if (name_is(f, name))
				return f;
	}
	return NULL;
}
