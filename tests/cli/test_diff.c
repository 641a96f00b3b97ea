/*
 * The snapshot and diff commands, run as the user runs them ($MS_BIN):
 * created/overwrote, --no-clobber, /dev/full, a closed pipe, a symlink and
 * another user's file planted in nobody's directory; a diff of two fixture
 * snapshots around a mapfile and an unmap, and around a heap growth and a
 * dlopen (mappings and --by-file); a library replaced under a process and
 * reloaded (--by-file); two runs of one program under ASLR; the
 * packages a snapshot keeps.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "snapfix.h"

static void test_snapshot_created_overwrote(void **state)
{
	struct snapfix_env *e = *state;
	char *path = tu_join(e->dir, "s.json");
	const char *args[] = { "snapshot", e->pid, "-o", path, NULL };
	const char *nc[] = { "snapshot", e->pid, "-o", path, "--no-clobber", NULL };
	char *err = NULL, *before, *after;
	struct stat st1, st2;

	assert_int_equal(msrun_capture(args, NULL, NULL, &err), 0);
	assert_non_null(strstr(err, "created"));
	assert_non_null(strstr(err, e->pid));
	free(err);
	assert_int_equal(msrun_capture(args, NULL, NULL, &err), 0);
	assert_non_null(strstr(err, "overwrote"));
	free(err);

	before = tu_slurp(path, NULL);
	assert_non_null(before);
	assert_int_equal(stat(path, &st1), 0);
	assert_int_equal(msrun_capture(nc, NULL, NULL, &err), 1);
	assert_non_null(strstr(err, "already exists"));
	free(err);
	after = tu_slurp(path, NULL);
	assert_int_equal(stat(path, &st2), 0);
	assert_string_equal(before, after);
	assert_true(st1.st_mtim.tv_sec == st2.st_mtim.tv_sec && st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec);
	free(before);
	free(after);
	free(path);
}

#define NOBODY 65534

static void root_or_skip(void)
{
	if (geteuid() == 0)
		return;
	printf("# skipped: needs root, to act on a directory and files owned by nobody\n");
	skip();
}

static void assert_same_file(const char *path, const struct stat *was, const char *bytes)
{
	struct stat now;
	char *text = tu_slurp(path, NULL);

	assert_int_equal(lstat(path, &now), 0);
	assert_int_equal(now.st_ino, was->st_ino);
	assert_true(now.st_mtim.tv_sec == was->st_mtim.tv_sec &&
		    now.st_mtim.tv_nsec == was->st_mtim.tv_nsec);
	assert_non_null(text);
	assert_string_equal(text, bytes);
	free(text);
}

/*
 * Issue 11's report, as root: a directory of nobody's holds snap.json, a
 * symlink to a root-owned 0600 file.  snapshot -o there refuses, exit 1,
 * and the root file keeps every byte; nobody's own file needs --force.
 */
static void test_snapshot_planted_targets(void **state)
{
	struct snapfix_env *e = *state;
	char *dir, *victim, *link, *theirs, *fresh, *err = NULL, *text;
	struct stat victim_st, theirs_st, st;

	root_or_skip();
	dir = tu_join(e->dir, "nobodys");
	victim = tu_join(e->dir, "root-only");
	link = tu_join(dir, "snap.json");
	theirs = tu_join(dir, "theirs.json");
	fresh = tu_join(dir, "fresh.json");
	const char *via_link[] = { "snapshot", e->pid, "-o", link, NULL };
	const char *onto[] = { "snapshot", e->pid, "-o", theirs, NULL };
	const char *forced[] = { "snapshot", e->pid, "-o", theirs, "--force", NULL };
	const char *anew[] = { "snapshot", e->pid, "-o", fresh, NULL };

	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	assert_int_equal(tu_spit(victim, "root's secret\n"), 0);
	assert_int_equal(chmod(victim, 0600), 0);
	assert_int_equal(stat(victim, &victim_st), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(lchown(link, NOBODY, NOBODY), 0);

	assert_int_equal(msrun_capture(via_link, NULL, NULL, &err), 1);
	assert_non_null(strstr(err, "snap.json: a symlink (to "));
	assert_null(strstr(err, "overwrote"));
	free(err);
	assert_same_file(victim, &victim_st, "root's secret\n");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* nobody's own file: refused, naming --force; written with it. */
	assert_int_equal(tu_spit(theirs, "nobody's\n"), 0);
	assert_int_equal(chown(theirs, NOBODY, NOBODY), 0);
	assert_int_equal(stat(theirs, &theirs_st), 0);
	assert_int_equal(msrun_capture(onto, NULL, NULL, &err), 1);
	assert_non_null(strstr(err, "owned by uid 65534"));
	assert_non_null(strstr(err, "--force"));
	free(err);
	assert_same_file(theirs, &theirs_st, "nobody's\n");
	assert_int_equal(msrun_capture(forced, NULL, NULL, &err), 0);
	assert_non_null(strstr(err, "overwrote"));
	free(err);
	text = tu_slurp(theirs, NULL);
	assert_non_null(strstr(text, "\"mapscope\""));
	free(text);

	/* A new file is root's alone to read. */
	assert_int_equal(msrun_capture(anew, NULL, NULL, NULL), 0);
	assert_int_equal(stat(fresh, &st), 0);
	assert_int_equal(st.st_mode & 077, 0);
	free(dir);
	free(victim);
	free(link);
	free(theirs);
	free(fresh);
}

static void test_snapshot_dev_full_and_pipe(void **state)
{
	struct snapfix_env *e = *state;
	const char *to_stdout[] = { "snapshot", e->pid, "-o", "-", NULL };
	const char *to_full[] = { "snapshot", e->pid, "-o", "/dev/full", NULL };
	char *err = NULL;
	int p[2], ep[2];
	pid_t pid;
	char buf[256];
	ssize_t n;

	assert_int_equal(msrun_capture(to_stdout, "/dev/full", NULL, &err), 1);
	assert_non_null(strstr(err, "No space left on device"));
	free(err);
	/* -o writes regular files only; a device is refused before a byte is written. */
	assert_int_equal(msrun_capture(to_full, NULL, NULL, &err), 1);
	assert_non_null(strstr(err, "/dev/full: a character device, not a regular file"));
	free(err);
	/* /dev/full existed: it is never removed. */
	assert_int_equal(access("/dev/full", F_OK), 0);

	/* A reader that went away (| head): quiet, success. */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(ep), 0);
	close(p[0]);
	pid = msrun_spawn(to_stdout, p[1], ep[1]);
	close(p[1]);
	close(ep[1]);
	assert_int_equal(msrun_wait(pid), 0);
	n = read(ep[0], buf, sizeof(buf));
	assert_int_equal(n, 0);
	close(ep[0]);
}

static void test_snapshot_usage(void **state)
{
	struct snapfix_env *e = *state;
	const char *nopid[] = { "snapshot", NULL };
	const char *badpid[] = { "snapshot", "12x", NULL };
	const char *gone[] = { "snapshot", "2147483647", "-o", "-", NULL };

	(void)e;
	assert_int_equal(msrun_capture(nopid, NULL, NULL, NULL), 2);
	assert_int_equal(msrun_capture(badpid, NULL, NULL, NULL), 2);
	assert_int_equal(msrun_capture(gone, NULL, NULL, NULL), 1);
}

/* diff -J -b A B, with one more option (or NULL). */
static json_t *diff_json_with(const char *opt, const char *a, const char *b, int *status)
{
	const char *args[] = { "diff", "-J", "-b", a, b, opt, NULL };
	char *out = NULL;
	json_t *j;

	*status = msrun_capture(args, NULL, &out, NULL);
	assert_non_null(out);
	j = json_loads(out, 0, NULL);
	if (!j)
		fail_msg("diff -J printed no JSON: %s", out);
	free(out);
	return j;
}

static json_t *diff_json(const char *a, const char *b, int *status)
{
	return diff_json_with(NULL, a, b, status);
}

static json_int_t summary_of(json_t *j, const char *key)
{
	json_t *v = json_object_get(json_object_get(j, "summary"), key);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static bool ends_with(const char *s, const char *tail)
{
	return s && strlen(s) >= strlen(tail) && !strcmp(s + strlen(s) - strlen(tail), tail);
}

/* The size of [heap] in a snapshot file. */
#ifdef __SANITIZE_ADDRESS__
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static json_int_t heap_size(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL), *m;
	json_int_t size = -1;
	size_t i;

	assert_non_null(root);
	json_array_foreach(json_object_get(root, "mappings"), i, m)
		if (json_is_string(json_object_get(m, "name")) &&
		    !strcmp(json_string_value(json_object_get(m, "name")), "[heap]"))
			size = (json_int_t)(strtoull(json_string_value(json_object_get(m, "end")), NULL, 16) -
					    strtoull(json_string_value(json_object_get(m, "start")), NULL, 16));
	json_decref(root);
	return size;
}

/*
 * Issue 25's case: between two snapshots the heap grew (sbrk) and a library
 * was loaded.  That is one change, the heap with its growth, and the
 * library's mappings added; by file, one file added.
 */
static void test_diff_heap_growth_and_dlopen(void **state)
{
	struct snapfix_env *e = *state;
	char *a = tu_join(e->dir, "a.json"), *b = tu_join(e->dir, "b.json"), *lib = tu_built("libstale-a.so");
	const char *snap_a[] = { "snapshot", e->pid, "-o", a, NULL };
	const char *snap_b[] = { "snapshot", e->pid, "-o", b, NULL };
	json_t *j, *c, *files;
	json_int_t grown;
	int status;
	size_t i, added = 0, heap_changes = 0;

	/* A [heap] to start from: a sanitizer's allocator never calls brk. */
	assert_int_equal(fixture_command(&e->fx, "brk 4096"), 0);
	assert_int_equal(msrun_capture(snap_a, NULL, NULL, NULL), 0);
	assert_int_equal(fixture_command(&e->fx, "brk 262144"), 0);
	assert_int_equal(fixture_commandf(&e->fx, "dlopen %s stale_lib_answer", lib), 0);
	assert_int_equal(msrun_capture(snap_b, NULL, NULL, NULL), 0);
	assert_true(heap_size(a) > 0);
	grown = heap_size(b) - heap_size(a);
	assert_true(grown >= 262144);

	j = diff_json(a, b, &status);
	assert_int_equal(status, 1);
#ifndef __SANITIZE_ADDRESS__
	assert_int_equal(summary_of(j, "changed"), 1);
	assert_int_equal(summary_of(j, "removed"), 0);
#endif
	json_array_foreach(json_object_get(j, "changes"), i, c) {
		const char *kind = json_string_value(json_object_get(c, "change"));
		const char *name = json_string_value(json_object_get(c, "name"));

		/*
		 * A sanitizer's allocator grows and drops anonymous regions of
		 * its own meanwhile: those are not the heap's, nor a file's.
		 */
		if (SANITIZED && (!name || name[0] != '/') && (!name || strcmp(name, "[heap]")))
			continue;
		if (!strcmp(kind, "changed")) {
			assert_string_equal(name, "[heap]");
			assert_string_equal(json_string_value(json_object_get(c, "fields")), "size");
			assert_int_equal(json_integer_value(json_object_get(c, "delta")), grown);
			heap_changes++;
		} else {
			assert_string_equal(kind, "added");
			if (!ends_with(name, "/libstale-a.so"))
				fail_msg("added a mapping that is not the library's: %s", name ? name : "(unnamed)");
			added++;
		}
	}
	assert_int_equal(heap_changes, 1);
	assert_true(added >= 1);
	if (!SANITIZED)
		assert_int_equal(summary_of(j, "added"), (json_int_t)added);
	json_decref(j);

	j = diff_json_with("--by-file", a, b, &status);
	assert_int_equal(status, 1);
	files = json_object_get(j, "files");
	assert_int_equal(json_array_size(files), 1);
	c = json_array_get(files, 0);
	assert_string_equal(json_string_value(json_object_get(c, "change")), "added");
	assert_true(ends_with(json_string_value(json_object_get(c, "file")), "/libstale-a.so"));
	if (access("/var/lib/dpkg/info", F_OK) == 0)
		assert_string_equal(json_string_value(json_object_get(c, "package")), "not packaged");
	assert_int_equal(summary_of(j, "added"), 1);
	assert_int_equal(summary_of(j, "removed") + summary_of(j, "changed"), 0);
	json_decref(j);

	/* By exact range, as before: the heap is one removal and one addition. */
	j = diff_json_with("--addresses", a, b, &status);
	assert_int_equal(status, 1);
	assert_int_equal(summary_of(j, "changed"), 0);
	if (!SANITIZED) {
		assert_int_equal(summary_of(j, "removed"), 1);
		assert_int_equal(summary_of(j, "added"), (json_int_t)added + 1);
	} else {
		assert_true(summary_of(j, "removed") >= 1);
		assert_true(summary_of(j, "added") >= (json_int_t)added + 1);
	}
	json_decref(j);
	free(a);
	free(b);
	free(lib);
}

/* The one row of diff --by-file -J A B, which must differ in that one file. */
static void expect_one_file(const char *a, const char *b, const char *path, const char *fields)
{
	int status;
	json_t *j = diff_json_with("--by-file", a, b, &status), *c;

	assert_int_equal(status, 1);
	assert_int_equal(json_array_size(json_object_get(j, "files")), 1);
	c = json_array_get(json_object_get(j, "files"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "change")), "changed");
	assert_string_equal(json_string_value(json_object_get(c, "file")), path);
	assert_string_equal(json_string_value(json_object_get(c, "fields")), fields);
	json_decref(j);
}

/*
 * An upgrade under a running process: the library is replaced on disk (the
 * mapped copy is deleted), then reloaded (another file, another build).
 */
static void test_diff_by_file_upgrade(void **state)
{
	struct snapfix_env *e = *state;
	char *lib = tu_join(e->dir, "libswap.so"), *next = tu_join(e->dir, "libswap.so.new");
	char *a = tu_join(e->dir, "a.json"), *b = tu_join(e->dir, "b.json"), *c = tu_join(e->dir, "c.json");
	char *old_build = tu_built("libstale-a.so"), *new_build = tu_built("libstale-b.so");
	const char *snap_a[] = { "snapshot", e->pid, "-o", a, NULL };
	const char *snap_b[] = { "snapshot", e->pid, "-o", b, NULL };
	const char *snap_c[] = { "snapshot", e->pid, "-o", c, NULL };

	assert_int_equal(tu_copy(old_build, lib), 0);
	assert_int_equal(fixture_commandf(&e->fx, "dlopen %s stale_lib_answer", lib), 0);
	assert_int_equal(msrun_capture(snap_a, NULL, NULL, NULL), 0);
	assert_int_equal(tu_copy(new_build, next), 0);
	assert_int_equal(rename(next, lib), 0);
	assert_int_equal(msrun_capture(snap_b, NULL, NULL, NULL), 0);
	expect_one_file(a, b, lib, "deleted");
	assert_int_equal(fixture_command(&e->fx, "dlclose"), 0);
	assert_int_equal(fixture_commandf(&e->fx, "dlopen %s stale_lib_answer", lib), 0);
	assert_int_equal(msrun_capture(snap_c, NULL, NULL, NULL), 0);
	expect_one_file(a, c, lib, "file,buildid");
	/* The reloaded copy against the deleted one: another file, no longer deleted. */
	expect_one_file(b, c, lib, "file,buildid,deleted");
	free(lib);
	free(next);
	free(a);
	free(b);
	free(c);
	free(old_build);
	free(new_build);
}

/* ms-sleeper started, once it runs its own code; *pid to kill. */
static void start_sleeper(pid_t *pid, char pidstr[16])
{
	char *bin = tu_built("ms-sleeper"), byte;
	int p[2];

	assert_int_equal(pipe(p), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execl(bin, "ms-sleeper", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &byte, 1), 1);
	close(p[0]);
	free(bin);
	snprintf(pidstr, 16, "%d", (int)*pid);
}

/* The two runs, stopped by the teardown even when a check failed. */
static int sleepers_setup(void **state)
{
	*state = calloc(2, sizeof(pid_t));
	return *state ? 0 : -1;
}

static int sleepers_teardown(void **state)
{
	pid_t *pids = *state;

	for (int i = 0; i < 2; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	free(pids);
	return 0;
}

/* Two runs of one program: elsewhere under ASLR, the same by what they map. */
static void test_diff_two_runs_under_aslr(void **state)
{
	pid_t *pids = *state;
	char one[16], two[16];
	json_t *j;
	int status;
	char *aslr = tu_slurp("/proc/sys/kernel/randomize_va_space", NULL);

	if (!aslr || aslr[0] == '0') {
		free(aslr);
		printf("# skipped: address space randomization is off\n");
		skip();
	}
	free(aslr);
	start_sleeper(&pids[0], one);
	start_sleeper(&pids[1], two);

	j = diff_json(one, two, &status);
#ifdef __SANITIZE_ADDRESS__
	/*
	 * AddressSanitizer's own anonymous regions differ in size from run to
	 * run; every mapping of a file must still pair unchanged.
	 */
	{
		json_t *c;
		size_t i;

		json_array_foreach(json_object_get(j, "changes"), i, c)
			if (json_is_string(json_object_get(c, "name")) &&
			    json_string_value(json_object_get(c, "name"))[0] == '/')
				fail_msg("a file's mapping differs between two runs: %s",
					 json_string_value(json_object_get(c, "name")));
		printf("# sanitizer build: %zu anonymous regions of the allocator differ, no file's\n",
		       json_array_size(json_object_get(j, "changes")));
	}
#else
	assert_int_equal(status, 0);
	assert_int_equal(json_array_size(json_object_get(j, "changes")), 0);
#endif
	assert_true(summary_of(j, "unchanged") > 0);
	/* Not the same addresses: the match is by what, not where. */
	assert_true(summary_of(j, "moved") > 0);
	json_decref(j);

	j = diff_json_with("--by-file", one, two, &status);
	assert_int_equal(status, 0);
	assert_int_equal(json_array_size(json_object_get(j, "files")), 0);
	assert_true(summary_of(j, "unchanged") >= 2);
	json_decref(j);

	j = diff_json_with("--addresses", one, two, &status);
	assert_int_equal(status, 1);
	json_decref(j);
}

/* The output of a command (stdout), trailing newline dropped. */
static char *shell_out(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	char buf[256] = "";

	assert_non_null(f);
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	pclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

/* A snapshot keeps each file's package and version, as dpkg says them. */
static void test_snapshot_keeps_packages(void **state)
{
	struct snapfix_env *e = *state;
	char *with = tu_join(e->dir, "with.json"), *without = tu_join(e->dir, "without.json");
	const char *take[] = { "snapshot", e->pid, "-o", with, NULL };
	const char *bare[] = { "snapshot", e->pid, "-o", without, "--no-packages", NULL };
	json_t *root, *m;
	size_t i, packaged = 0;
	int status;
	char *text;

	if (access("/var/lib/dpkg/info", F_OK) != 0) {
		printf("# skipped: not a dpkg system\n");
		skip();
	}
	assert_int_equal(msrun_capture(take, NULL, NULL, NULL), 0);
	root = json_load_file(with, 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "version")), 3);
	assert_true(json_is_object(json_object_get(root, "packages")));
	json_array_foreach(json_object_get(root, "mappings"), i, m) {
		const char *pkg = json_string_value(json_object_get(m, "package"));
		const char *name = json_string_value(json_object_get(m, "name"));
		char cmd[512], *owner, *version;

		if (!name || name[0] != '/' || !strstr(name, "/libc.so.6"))
			continue;
		assert_non_null(pkg);
		snprintf(cmd, sizeof(cmd), "dpkg-query -S '%s' 2>/dev/null | cut -d: -f1", name);
		owner = shell_out(cmd);
		snprintf(cmd, sizeof(cmd), "dpkg-query -W -f='${Version}' '%s'", pkg);
		version = shell_out(cmd);
		/* Merged /usr: dpkg may know the file under /lib only. */
		if (owner[0])
			assert_string_equal(pkg, owner);
		assert_string_equal(json_string_value(json_object_get(m, "package_version")), version);
		assert_string_equal(json_string_value(json_object_get(m, "package_source")), "dpkg");
		free(owner);
		free(version);
		packaged++;
	}
	assert_true(packaged >= 1);
	json_decref(root);

	/* Left out: what an older mapscope reads, and no package is compared. */
	assert_int_equal(msrun_capture(bare, NULL, NULL, NULL), 0);
	text = tu_slurp(without, NULL);
	assert_non_null(strstr(text, "\"version\": 1,"));
	assert_null(strstr(text, "\"package\""));
	free(text);
	root = diff_json_with("--by-file", without, with, &status);
	assert_int_equal(status, 0);
	json_decref(root);
	free(with);
	free(without);
}

static void test_diff_fixture(void **state)
{
	struct snapfix_env *e = *state;
	char *a = tu_join(e->dir, "a.json"), *b = tu_join(e->dir, "b.json");
	const char *snap_a[] = { "snapshot", e->pid, "-o", a, NULL };
	const char *snap_b[] = { "snapshot", e->pid, "-o", b, NULL };
	const struct fx_map *gone = fixture_find(&e->fx, "space");
	const struct fx_map *added;
	char cmd[64], want[32];
	json_t *j, *changes, *sum;
	int status, seen_added = 0, seen_removed = 0;
	size_t i;
	json_t *c;

	assert_non_null(gone);
	assert_int_equal(msrun_capture(snap_a, NULL, NULL, NULL), 0);
	/* Unchanged so far: a file against the live process. */
	j = diff_json(a, e->pid, &status);
	assert_int_equal(status, 0);
	assert_int_equal(json_array_size(json_object_get(j, "changes")), 0);
	json_decref(j);

	assert_int_equal(fixture_command(&e->fx, "mapfile brand-new.dat"), 0);
	snprintf(cmd, sizeof(cmd), "unmap %lx", (unsigned long)gone->start);
	assert_int_equal(fixture_command(&e->fx, cmd), 0);
	added = fixture_find(&e->fx, "extra");
	assert_non_null(added);
	assert_int_equal(msrun_capture(snap_b, NULL, NULL, NULL), 0);

	j = diff_json(a, b, &status);
	assert_int_equal(status, 1);
	changes = json_object_get(j, "changes");
	sum = json_object_get(j, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "added")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "changed")), 0);
	assert_int_equal(json_integer_value(json_object_get(sum, "removed")), 1);
	assert_int_equal(json_array_size(changes), 2);
	json_array_foreach(changes, i, c) {
		const char *kind = json_string_value(json_object_get(c, "change"));
		const char *start = json_string_value(json_object_get(c, "start"));

		if (!strcmp(kind, "added")) {
			snprintf(want, sizeof(want), "%lx", (unsigned long)added->start);
			assert_string_equal(start, want);
			assert_non_null(strstr(json_string_value(json_object_get(c, "name")), "brand-new.dat"));
			seen_added++;
		} else {
			assert_string_equal(kind, "removed");
			snprintf(want, sizeof(want), "%lx", (unsigned long)gone->start);
			assert_string_equal(start, want);
			seen_removed++;
		}
	}
	assert_int_equal(seen_added, 1);
	assert_int_equal(seen_removed, 1);
	json_decref(j);
	free(a);
	free(b);
}

static void test_diff_errors(void **state)
{
	struct snapfix_env *e = *state;
	char *bad = tu_join(e->dir, "bad.json");
	const char *args[] = { "diff", bad, e->pid, NULL };
	const char *missing[] = { "diff", "/nonexistent/x.json", e->pid, NULL };
	const char *one[] = { "diff", e->pid, NULL };
	char *err = NULL;

	assert_int_equal(tu_spit(bad, "{\n  \"mapscope\": \"snapshot\",\n  oops\n}\n"), 0);
	assert_int_equal(msrun_capture(args, NULL, NULL, &err), 2);
	assert_non_null(strstr(err, "bad.json:3:"));
	free(err);
	assert_int_equal(msrun_capture(missing, NULL, NULL, NULL), 2);
	assert_int_equal(msrun_capture(one, NULL, NULL, NULL), 2);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_snapshot_created_overwrote, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_dev_full_and_pipe, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_planted_targets, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_usage, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_diff_fixture, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_diff_errors, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_diff_heap_growth_and_dlopen, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_diff_by_file_upgrade, snapfix_env_setup, snapfix_env_teardown),
		cmocka_unit_test_setup_teardown(test_diff_two_runs_under_aslr, sleepers_setup, sleepers_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_keeps_packages, snapfix_env_setup, snapfix_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
