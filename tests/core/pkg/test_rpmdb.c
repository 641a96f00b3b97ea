/*
 * The rpm package that owns a file, through librpm, for real: the test
 * builds two versions of a small package with rpmbuild (each ships a
 * different build of a test library under /usr/lib/mapscope-rpmtest/),
 * installs the first into a private root with its own database (rpm
 * --root=ROOT --dbpath=/var/lib/rpm: the host's databases are never
 * touched), has a process map the library, and asks the owner lookup
 * (owner.h, rpm_root = ROOT, no dpkg database) for the path as the
 * kernel names it (ROOT/usr/lib/...); the same path outside ROOT is not
 * that database's.  Name, version-release, architecture and source rpm
 * must be what `rpm -qf --qf` says.  The second version (with an epoch) is
 * then installed over it with rpm -U while the process still maps the
 * old copy: the process's file row, judged and given its package as
 * list --by-file does, names the new version, and its running version is
 * unknown (no dnf or yum log in the test's log directory names the
 * upgrade; test_rpmlog.c and test_rpm_owner.sh date it from one).
 *
 * Refusals, run first so that librpm is not loaded yet and the test can
 * see it was not: a database directory, a database file or the root
 * owned by uid 65534 or writable by its group, and a symlinked database
 * directory, are not read and librpm is not loaded; Debian's empty
 * /var/lib/rpm is no database.  A librpm that cannot be loaded (the
 * seam: another soname) answers nothing and no error.  The database in
 * /usr/lib/sysimage/rpm with /var/lib/rpm a symlink to it (Fedora) is
 * found, and a lookup asks at most MS_RPMDB_PATHS paths.
 *
 * It needs root, rpmbuild and rpm, and a build with librpm; without them
 * it skips and says why.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "files/fileinfo.h"
#include "files/filemap.h"
#include "files/filepkg.h"
#include "fixture_client.h"
#include "maps/maps.h"
#include "pkg/owner.h"
#include "pkg/rpmdb.h"
#include "proc/proc.h"
#include "stale/stale.h"
#include "testutil.h"

#define PKG "mapscope-rpmtest"
#define LIB "/usr/lib/" PKG "/libx.so"

struct fx {
	char *dir;
	char root[PATH_MAX];
	char nodpkg[PATH_MAX];
	char rpm[2][PATH_MAX];
	struct fixture child;
};

static struct fx *group;

/* Run argv; its standard output (malloc'd) in *out when out is set, its
 * standard error dropped.  The exit status, or -1. */
static int run(const char *const *argv, char **out)
{
	int pipefd[2], status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(out ? pipefd[1] : null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	if (out)
		*out = pid > 0 ? tu_drain(pipefd[0], tu_deadline(), NULL, NULL) : NULL;
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void rpm_cmd(const char *root, const char *a, const char *b, const char *c)
{
	char rootopt[PATH_MAX + 16];
	const char *argv[] = { "rpm", rootopt, "--dbpath=/var/lib/rpm", a, b, c, NULL };

	snprintf(rootopt, sizeof(rootopt), "--root=%s", root);
	if (run(argv, NULL) != 0)
		fail_msg("rpm --root=%s %s %s %s failed", root, a, b ? b : "", c ? c : "");
}

/* rpm's own answer for path in root: "NAME EVR ARCH SOURCERPM", malloc'd. */
static char *rpm_says(const char *root, const char *path)
{
	char rootopt[PATH_MAX + 16], *out = NULL;
	const char *argv[] = { "rpm", rootopt, "--dbpath=/var/lib/rpm", "-qf", "--qf",
			       "%{NAME} %{EVR} %{ARCH} %{SOURCERPM}", path, NULL };

	snprintf(rootopt, sizeof(rootopt), "--root=%s", root);
	assert_int_equal(run(argv, &out), 0);
	assert_non_null(out);
	return out;
}

static void build_rpm(struct fx *fx, int v, const char *ver, const char *rel, const char *epoch, const char *lib)
{
	char spec[PATH_MAX], top[PATH_MAX + 16], dver[64], drel[64], depoch[64], dlib[PATH_MAX + 8];
	const char *argv[] = { "rpmbuild", "--quiet", "--nodeps", "--define", top, "--define", dver,
			       "--define", drel, "--define", dlib, "--define", depoch, "-bb", spec, NULL };
	FILE *f;

	snprintf(spec, sizeof(spec), "%s/%s.spec", fx->dir, PKG);
	f = fopen(spec, "we");
	assert_non_null(f);
	fputs("Name: " PKG "\nVersion: %{v}\nRelease: %{r}\n%{?e:Epoch: %{e}}\n"
	      "Summary: a library for mapscope's rpm test\nLicense: MIT\n"
	      "%global debug_package %{nil}\n%global __os_install_post %{nil}\n"
	      "%description\nA library for mapscope's rpm test.\n"
	      "%install\nmkdir -p %{buildroot}/usr/lib/" PKG "\ncp %{lib} %{buildroot}" LIB "\n"
	      "%files\n" LIB "\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(top, sizeof(top), "_topdir %s/top%d", fx->dir, v);
	snprintf(dver, sizeof(dver), "v %s", ver);
	snprintf(drel, sizeof(drel), "r %s", rel);
	snprintf(dlib, sizeof(dlib), "lib %s", lib);
	snprintf(depoch, sizeof(depoch), epoch ? "e %s" : "_mapscope_no_epoch 1", epoch);
	assert_int_equal(run(argv, NULL), 0);
	/* The one package built, whatever architecture rpmbuild chose. */
	{
		char find[PATH_MAX + 16], *out = NULL;
		const char *fargv[] = { "find", find, "-name", "*.rpm", NULL };

		snprintf(find, sizeof(find), "%s/top%d/RPMS", fx->dir, v);
		assert_int_equal(run(fargv, &out), 0);
		assert_non_null(out);
		out[strcspn(out, "\n")] = '\0';
		assert_true(out[0] == '/');
		snprintf(fx->rpm[v], sizeof(fx->rpm[v]), "%s", out);
		free(out);
	}
}

static int group_setup(void **state)
{
	char *a = tu_built("libstale-a.so"), *b = tu_built("libstale-b.so");

	group = calloc(1, sizeof(*group));
	assert_non_null(group);
	group->dir = tu_tmpdir();
	assert_non_null(group->dir);
	build_rpm(group, 0, "1.0", "1", NULL, a);
	build_rpm(group, 1, "2.0", "3", "2", b);
	free(a);
	free(b);
	*state = group;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tu_rmtree(group->dir);
	free(group->dir);
	free(group);
	return 0;
}

/* A fresh private root with version 1 installed. */
static int setup(void **state)
{
	static int n;
	struct fx *fx = group;

	snprintf(fx->root, sizeof(fx->root), "%s/root%d", fx->dir, n++);
	snprintf(fx->nodpkg, sizeof(fx->nodpkg), "%s/no-dpkg", fx->dir);
	assert_int_equal(mkdir(fx->root, 0755), 0);
	rpm_cmd(fx->root, "--initdb", NULL, NULL);
	rpm_cmd(fx->root, "--nodeps", "-i", fx->rpm[0]);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	fixture_stop(&fx->child);
	return 0;
}

static char *at_root(const struct fx *fx, const char *rel)
{
	char *p;

	assert_true(asprintf(&p, "%s%s", fx->root, rel) > 0);
	return p;
}

/*
 * The owner lookup, rpm under fx->root, no dpkg, of LIB and an unowned
 * path as the kernel names them (under the root), and of LIB as named
 * outside the root, which that database does not describe.
 */
static struct ms_owner *ask(const struct fx *fx, struct ms_pkg out[3])
{
	char *lib = at_root(fx, LIB), *unowned = at_root(fx, "/usr/lib/" PKG "/unowned.so");
	const char *paths[] = { lib, unowned, LIB };
	size_t lens[] = { strlen(paths[0]), strlen(paths[1]), strlen(paths[2]) };
	struct ms_owner_opts opts = { .dpkg_dir = fx->nodpkg, .rpm_root = fx->root };
	struct ms_error err;
	struct ms_owner *o;

	assert_int_equal(ms_owner_open(&opts, &o, &err), 0);
	assert_int_equal(ms_owner_find(o, paths, lens, 3, out, &err), 0);
	assert_false(out[1].found);
	assert_false(out[2].found);
	free(lib);
	free(unowned);
	return o;
}

static void assert_as_rpm_says(const struct fx *fx, const struct ms_pkg *p, const char *version)
{
	char got[1024], *said = rpm_says(fx->root, LIB);

	assert_true(p->found);
	assert_int_equal(p->source, MS_PKG_SOURCE_RPM);
	assert_string_equal(p->name, PKG);
	assert_string_equal(p->version, version);
	assert_true(p->arch[0] != '\0');
	/* The source package, from which the source rpm's name is rebuilt (purl.h's upstream). */
	assert_string_equal(p->src_name, PKG);
	snprintf(got, sizeof(got), "%s %s %s %s-%s.src.rpm", p->name, p->version, p->arch, p->src_name,
		 p->src_version[0] ? p->src_version : ms_pkg_without_epoch(p->version));
	assert_string_equal(got, said);
	free(said);
}

static bool librpm_mapped(void)
{
	char *maps = tu_slurp("/proc/self/maps", NULL);
	bool mapped;

	assert_non_null(maps);
	mapped = strstr(maps, "/librpm.so") != NULL;
	free(maps);
	return mapped;
}

/* Refused: nothing answered, no database object, librpm never loaded. */
static void assert_refused(const struct fx *fx, int code)
{
	struct ms_rpmdb *db = (struct ms_rpmdb *)1;
	struct ms_pkg out[3];
	struct ms_error err;
	struct ms_owner *o;

	assert_int_equal(ms_rpmdb_open(&(struct ms_rpmdb_opts){ .root = fx->root }, &db, &err), code);
	assert_null(db);
	o = ask(fx, out);
	assert_false(out[0].found);
	assert_false(ms_owner_has_db(o));
	ms_owner_close(o);
	assert_false(librpm_mapped());
}

static void set_owner(const struct fx *fx, const char *rel, uid_t uid)
{
	char *p = at_root(fx, rel);

	assert_int_equal(lchown(p, uid, (gid_t)-1), 0);
	free(p);
}

static void add_mode(const struct fx *fx, const char *rel, mode_t bits)
{
	char *p = at_root(fx, rel);
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(chmod(p, (st.st_mode & 07777) | bits), 0);
	free(p);
}

static void test_refused_database_dir_of_nobody(void **state)
{
	set_owner(*state, "/var/lib/rpm", 65534);
	assert_refused(*state, MS_ERR_NOACCESS);
}

static void test_refused_database_file_of_nobody(void **state)
{
	set_owner(*state, "/var/lib/rpm/rpmdb.sqlite", 65534);
	assert_refused(*state, MS_ERR_NOACCESS);
}

static void test_refused_group_writable(void **state)
{
	char *file = at_root(*state, "/var/lib/rpm/rpmdb.sqlite");

	add_mode(*state, "/var/lib/rpm/rpmdb.sqlite", S_IWGRP);
	assert_refused(*state, MS_ERR_NOACCESS);
	assert_int_equal(chmod(file, 0644), 0);
	add_mode(*state, "/var", S_IWGRP);
	assert_refused(*state, MS_ERR_NOACCESS);
	free(file);
}

static void test_refused_root_of_nobody(void **state)
{
	set_owner(*state, "", 65534);
	assert_refused(*state, MS_ERR_NOACCESS);
}

/* A symlinked database directory is not followed, even to a sound database. */
static void test_symlinked_dir_is_no_database(void **state)
{
	struct fx *fx = *state;
	char *moved = at_root(fx, "/var/lib/rpm-real"), *dir = at_root(fx, "/var/lib/rpm");

	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(symlink("rpm-real", dir), 0);
	assert_refused(fx, MS_ERR_NOTSUP);
	free(moved);
	free(dir);
}

/* Debian's rpm package ships an empty /var/lib/rpm. */
static void test_empty_dir_is_no_database(void **state)
{
	struct fx *fx = *state;
	char *dir = at_root(fx, "/var/lib/rpm"), *moved = at_root(fx, "/var/lib/rpm-real");

	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_refused(fx, MS_ERR_NOTSUP);
	free(dir);
	free(moved);
}

/* No librpm (another soname): nothing answered, no error; the real one answers. */
static void test_without_librpm_nothing(void **state)
{
	struct fx *fx = *state;
	char *lib = at_root(fx, LIB);
	const char *paths[] = { lib };
	size_t lens[] = { strlen(lib) };
	struct ms_pkg out[1] = { { .found = false } };
	struct ms_error err;
	struct ms_rpmdb *db;

	assert_int_equal(ms_rpmdb_open(&(struct ms_rpmdb_opts){ .root = fx->root,
								.soname = "libmapscope-no-such-rpm.so.9" },
				       &db, &err), 0);
	assert_int_equal(ms_rpmdb_find(db, paths, lens, 1, out, &err), 0);
	assert_false(out[0].found);
	ms_rpmdb_close(db);
	assert_false(librpm_mapped());

	assert_int_equal(ms_rpmdb_open(&(struct ms_rpmdb_opts){ .root = fx->root }, &db, &err), 0);
	assert_int_equal(ms_rpmdb_find(db, paths, lens, 1, out, &err), 0);
	assert_true(out[0].found);
	ms_rpmdb_close(db);
	free(lib);
}

/* Fedora 36 on: the database in /usr/lib/sysimage/rpm, /var/lib/rpm a symlink to it. */
static void test_sysimage_database(void **state)
{
	struct fx *fx = *state;
	char *dir = at_root(fx, "/var/lib/rpm"), *sysimage = at_root(fx, "/usr/lib/sysimage");
	char *moved = at_root(fx, "/usr/lib/sysimage/rpm");
	struct ms_pkg out[3];
	struct ms_owner *o;

	assert_int_equal(mkdir(sysimage, 0755), 0);
	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(symlink("../../usr/lib/sysimage/rpm", dir), 0);
	o = ask(fx, out);
	assert_true(out[0].found);
	assert_string_equal(out[0].name, PKG);
	assert_string_equal(out[0].version, "1.0-1");
	ms_owner_close(o);
	free(dir);
	free(sysimage);
	free(moved);
}

/* At most MS_RPMDB_PATHS paths are asked: the one after them is not found. */
static void test_paths_bounded(void **state)
{
	struct fx *fx = *state;
	size_t n = MS_RPMDB_PATHS + 1;
	const char **paths = calloc(n, sizeof(*paths));
	size_t *lens = calloc(n, sizeof(*lens));
	struct ms_pkg *out = calloc(n, sizeof(*out));
	char *lib = at_root(fx, LIB), *unowned = at_root(fx, "/usr/lib/" PKG "/unowned.so");
	struct ms_error err;
	struct ms_rpmdb *db;

	assert_non_null(paths);
	assert_non_null(lens);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		paths[i] = i == 0 || i == n - 1 ? lib : unowned;
		lens[i] = strlen(paths[i]);
	}
	assert_int_equal(ms_rpmdb_open(&(struct ms_rpmdb_opts){ .root = fx->root }, &db, &err), 0);
	assert_int_equal(ms_rpmdb_find(db, paths, lens, n, out, &err), 0);
	assert_true(out[0].found);
	assert_false(out[n - 1].found);
	ms_rpmdb_close(db);
	free(paths);
	free(lens);
	free(out);
	free(lib);
	free(unowned);
}

static void test_owner_of_a_mapped_library(void **state)
{
	struct fx *fx = *state;
	char *mapped = at_root(fx, LIB);
	struct ms_pkg out[3];
	struct ms_owner *o;

	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", mapped), 0);
	o = ask(fx, out);
	assert_true(ms_owner_has_db(o));
	assert_as_rpm_says(fx, &out[0], "1.0-1");
	assert_int_equal(out[0].running_state, MS_PKG_RUNNING_INSTALLED);
	ms_owner_close(o);
	free(mapped);
}

/* The file row (filemap.h) of the process's mapping named name. */
static size_t row_named(const struct ms_filemap *fm, const char *name)
{
	for (size_t i = 0; i < fm->count; i++)
		if (fm->rows[i].name && !strcmp(fm->rows[i].name, name))
			return i;
	fail_msg("no file row named %s", name);
	abort(); /* not reached: fail_msg ends the test */
}

/*
 * Version 2 installed over version 1 under the process: the process's
 * file row, judged and given its package as list --by-file does (the
 * package asked under fx->root), is version 1's deleted copy, owned by the
 * package now at version 2, and which version it runs is unknown.
 */
static void test_upgrade_under_the_process(void **state)
{
	struct fx *fx = *state;
	struct ms_maps_opts mopts = { .backend = MS_BACKEND_AUTO };
	struct ms_owner_opts oopts = { .dpkg_dir = fx->nodpkg, .rpm_root = fx->root, .rpm_log_dir = fx->root };
	char *mapped = at_root(fx, LIB), deleted[PATH_MAX + 16];
	struct ms_maplist list = { 0 };
	struct ms_filemap fm = { 0 };
	struct ms_fileinfo_ctx *ctx;
	const struct ms_fileinfo *info;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	struct ms_pkg out[3];
	struct ms_owner *o;
	size_t row;

	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", mapped), 0);
	rpm_cmd(fx->root, "--nodeps", "-U", fx->rpm[1]);
	o = ask(fx, out);
	assert_as_rpm_says(fx, &out[0], "2:2.0-3");
	ms_owner_close(o);

	if (ms_proc_open(fx->child.pid, &proc, &err) < 0 || ms_maps_open(proc, &mopts, &maps, &err) < 0 ||
	    ms_maps_collect(maps, 0, &list, &err) < 0)
		fail_msg("pid %d: %s", (int)fx->child.pid, err.msg);
	assert_int_equal(ms_filemap_build(&fm, &list, NULL, &err), 0);
	/* The process still maps version 1's copy, which rpm -U unlinked. */
	snprintf(deleted, sizeof(deleted), "%s (deleted)", mapped);
	row = row_named(&fm, deleted);
	assert_int_equal(ms_fileinfo_ctx_new(NULL, proc, maps, &ctx, &err), 0);
	assert_int_equal(ms_fileinfo_describe(ctx, &fm, &list, row, 1, MS_FILEINFO_VERDICT, &err), 0);
	assert_int_equal(ms_filepkg_describe(&oopts, &fm, row, 1, NULL, false, &err), 0);
	info = &fm.rows[row].info;
	assert_true(info->verdict_known);
	assert_true(ms_stale_verdict_is_stale(info->verdict.verdict));
	assert_true(info->pkg_known);
	assert_true(info->pkg.found);
	assert_int_equal(info->pkg.source, MS_PKG_SOURCE_RPM);
	assert_string_equal(info->pkg.name, PKG);
	assert_string_equal(info->pkg.version, "2:2.0-3");
	assert_int_equal(info->pkg.running_state, MS_PKG_RUNNING_UNKNOWN);
	ms_fileinfo_ctx_free(ctx);
	ms_filemap_free(&fm);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	free(mapped);
}

int main(void)
{
	const char *rpmbuild[] = { "rpmbuild", "--version", NULL }, *rpm[] = { "rpm", "--version", NULL };

	/* 77: the test harness reports a skip, with the reason above it. */
#ifndef HAVE_LIBRPM
	printf("test_rpmdb: SKIP: built without librpm (configure --with-librpm)\n");
	return 77;
#endif
	if (geteuid() != 0 || run(rpmbuild, NULL) != 0 || run(rpm, NULL) != 0) {
		printf("test_rpmdb: SKIP: needs root, rpmbuild and rpm (packages rpm, librpm-dev)\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		/* Before any test loads librpm: the refusals check it stays unloaded. */
		cmocka_unit_test_setup_teardown(test_refused_database_dir_of_nobody, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_database_file_of_nobody, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_group_writable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_root_of_nobody, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinked_dir_is_no_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_dir_is_no_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_without_librpm_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sysimage_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_of_a_mapped_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_under_the_process, setup, teardown),
	};

	return cmocka_run_group_tests_name("rpmdb", tests, group_setup, group_teardown);
}
