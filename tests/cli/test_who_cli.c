/*
 * `mapscope who NAME` end to end, on real processes holding copies of the
 * system's zlib (any dynamically built Debian system has it):
 *   - current: stale-child dlopens "libz.so.1" (the file the kernel names
 *     libz.so.1.2.13: only its SONAME is libz.so.1);
 *   - deleted: one dlopens a copy DIR/del/libz.so.1, then the copy is
 *     removed;
 *   - replaced: one dlopens DIR/rep/libz.so.1, then another copy is renamed
 *     over it;
 *   - renamed: one dlopens DIR/libzcopy.so, whose base name is not its
 *     SONAME;
 *   - planted: one dlopens DIR/fifo/libq.so, which is then removed and a
 *     FIFO made in its place (a user's trap for a reader that opens the
 *     name: the SONAME must come from the running copy, root only);
 *   - hostile: one dlopens a copy whose name holds ESC and a newline;
 *   - other root: one test pivots a process into a root of its own.
 * Each test runs the real binary, parses its JSON with jansson (or reads
 * its raw lines), and looks at the rows of those processes only: others on
 * the machine may map zlib too.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "fixture_client.h"
#include "msrun.h"
#include "testutil.h"

enum { CURRENT, DELETED, REPLACED, RENAMED, PLANTED, HOSTILE, HOLDERS };

#define HOSTILE_NAME "libz\x1b[31m\nevil.so"

struct fx {
	char *dir;
	char *zlib;            /* the system's, as the kernel names it */
	char *paths[HOLDERS];  /* what each holder dlopened (CURRENT: NULL) */
	struct fixture child[HOLDERS];
	struct msrun_result run;   /* the last run's */
};

/* The path of the first mapping of pid whose name contains needle, or NULL. */
static char *mapped_path(pid_t pid, const char *needle)
{
	char maps[64], *text, *line, *found = NULL;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	text = tu_slurp(maps, NULL);
	if (!text)
		return NULL;
	for (line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n")) {
		char *name = strchr(line, '/');

		if (name && strstr(name, needle))
			found = strdup(name);
	}
	free(text);
	return found;
}

static void hold(struct fx *fx, int which, const char *path)
{
	assert_int_equal(fixture_start_with(&fx->child[which], FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child[which], "dlopen %s", path), 0);
}

/* DIR/name, or DIR/name/more when more is given. */
static char *in_dir(struct fx *fx, const char *name, const char *more)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s%s%s", fx->dir, name, more ? "/" : "", more ? more : "") > 0);
	return p;
}

/* A copy of zlib at DIR/name(/more), made here (a new directory name when more is given), held by which. */
static void hold_copy(struct fx *fx, int which, const char *name, const char *more)
{
	char *sub = in_dir(fx, name, NULL);

	if (more)
		assert_int_equal(mkdir(sub, 0755), 0);
	free(sub);
	fx->paths[which] = in_dir(fx, name, more);
	assert_int_equal(tu_copy(fx->zlib, fx->paths[which]), 0);
	hold(fx, which, fx->paths[which]);
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *other;

	assert_non_null(fx);
	*state = fx;
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	hold(fx, CURRENT, "libz.so.1");
	fx->zlib = mapped_path(fx->child[CURRENT].pid, "/libz.so");
	assert_non_null(fx->zlib);

	hold_copy(fx, DELETED, "del", "libz.so.1");
	assert_int_equal(unlink(fx->paths[DELETED]), 0);

	hold_copy(fx, REPLACED, "rep", "libz.so.1");
	other = in_dir(fx, "rep", "libz.so.1.new");
	assert_int_equal(tu_copy(fx->zlib, other), 0);
	assert_int_equal(rename(other, fx->paths[REPLACED]), 0);
	free(other);

	hold_copy(fx, RENAMED, "libzcopy.so", NULL);

	hold_copy(fx, PLANTED, "fifo", "libq.so");
	assert_int_equal(unlink(fx->paths[PLANTED]), 0);
	assert_int_equal(mkfifo(fx->paths[PLANTED], 0644), 0);

	/* The fixture reads lines: it dlopens a symlink, and the kernel names the file itself. */
	fx->paths[HOSTILE] = in_dir(fx, HOSTILE_NAME, NULL);
	assert_int_equal(tu_copy(fx->zlib, fx->paths[HOSTILE]), 0);
	other = in_dir(fx, "hostile-link.so", NULL);
	assert_int_equal(symlink(fx->paths[HOSTILE], other), 0);
	hold(fx, HOSTILE, other);
	free(other);
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	for (int i = 0; i < HOLDERS; i++) {
		fixture_stop(&fx->child[i]);
		free(fx->paths[i]);
	}
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->zlib);
	msrun_free(&fx->run);
	free(fx);
	return 0;
}

/* Its exit status; what it printed stays in fx->run. */
static int run(struct fx *fx, const char *const *args)
{
	msrun_free(&fx->run);
	fx->run = msrun(NULL, args);
	return fx->run.status;
}

/* `mapscope who ARGS -J`, which must exit 0: its rows. */
static json_t *who_json(struct fx *fx, const char *const *args)
{
	json_error_t jerr;
	json_t *root;

	assert_int_equal(run(fx, args), 0);
	root = json_loads(fx->run.out, 0, &jerr);
	if (!root)
		fail_msg("bad JSON (%s) in: %s", jerr.text, fx->run.out);
	assert_true(json_is_array(json_object_get(root, "mappings")));
	return root;
}

static const char *text_of(json_t *row, const char *key)
{
	json_t *v = json_object_get(row, key);

	if (!json_is_string(v))
		fail_msg("no string \"%s\" in a row", key);
	return json_string_value(v);
}

/*
 * Every row of holder which: named name, with copy and match as given (match
 * NULL: not shown).  How many there are; none when the holder is not listed.
 */
static size_t rows_of(struct fx *fx, json_t *root, int which, const char *name, const char *copy,
		      const char *match)
{
	json_t *row;
	size_t i, n = 0;

	json_array_foreach(json_object_get(root, "mappings"), i, row) {
		if (json_integer_value(json_object_get(row, "pid")) != fx->child[which].pid)
			continue;
		n++;
		assert_string_equal(text_of(row, "name"), name);
		assert_string_equal(text_of(row, "copy"), copy);
		if (match)
			assert_string_equal(text_of(row, "match"), match);
	}
	return n;
}

static char *deleted_name(const char *path)
{
	char *s;

	assert_true(asprintf(&s, "%s (deleted)", path) > 0);
	return s;
}

/* One name finds every copy: by SONAME the system's and the renamed one, by base name the others. */
static void test_who_soname_finds_every_copy(void **state)
{
	struct fx *fx = *state;
	json_t *root = who_json(fx, MSRUN_ARGS("who", "libz.so.1", "-J", "-o", "+MATCH,PID"));
	char *del = deleted_name(fx->paths[DELETED]), *rep = deleted_name(fx->paths[REPLACED]);
	char *planted = deleted_name(fx->paths[PLANTED]);

	assert_true(rows_of(fx, root, CURRENT, fx->zlib, "current", "soname") >= 1);
	assert_true(rows_of(fx, root, DELETED, del, "deleted", "name") >= 1);
	assert_true(rows_of(fx, root, REPLACED, rep, "replaced", "name") >= 1);
	assert_true(rows_of(fx, root, RENAMED, fx->paths[RENAMED], "current", "soname") >= 1);
	/*
	 * A FIFO at the path: only root reads the running copy's SONAME;
	 * nothing waits on the FIFO, and a FIFO is no replacement to compare.
	 */
	if (geteuid() == 0)
		assert_true(rows_of(fx, root, PLANTED, planted, "unknown", "soname") >= 1);
	else
		assert_int_equal(rows_of(fx, root, PLANTED, "", "", NULL), 0);
	json_decref(root);
	free(del);
	free(rep);
	free(planted);
}

/*
 * PACKAGE and VERSION: the system's zlib has dpkg's answer (dpkg-query's
 * package and version); the copies under the test's directory belong to
 * no package, and have no version.
 */
static void test_who_package_and_version(void **state)
{
	struct fx *fx = *state;
	json_t *root, *row;
	char *cmd, *owner, *version;
	const char *base = strrchr(fx->zlib, '/') + 1;
	size_t i, current = 0, copies = 0;

	if (access("/var/lib/dpkg/info", F_OK) != 0)
		skip();
	/* "zlib1g:amd64: /lib/x86_64-linux-gnu/libz.so.1.2.13": the package, then its architecture. */
	assert_true(asprintf(&cmd, "dpkg-query -S '%s' 2>/dev/null | head -1 | cut -d: -f1", base) > 0);
	owner = tu_command_line(cmd);
	free(cmd);
	assert_non_null(owner);
	assert_true(asprintf(&cmd, "dpkg-query -S '%s' | head -1 | cut -d: -f1,2 | "
			     "xargs -I{} dpkg-query -W -f='${Version}' {}", base) > 0);
	version = tu_command_line(cmd);
	free(cmd);
	assert_non_null(version);
	root = who_json(fx, MSRUN_ARGS("who", "libz.so.1", "-J", "-o", "PID,NAME,COPY,PACKAGE,VERSION"));
	json_array_foreach(json_object_get(root, "mappings"), i, row) {
		json_int_t pid = json_integer_value(json_object_get(row, "pid"));

		if (pid == fx->child[CURRENT].pid) {
			assert_string_equal(text_of(row, "package"), owner);
			assert_string_equal(text_of(row, "version"), version);
			current++;
		} else if (pid == fx->child[DELETED].pid || pid == fx->child[REPLACED].pid) {
			assert_string_equal(text_of(row, "package"), "not packaged");
			assert_true(json_is_null(json_object_get(row, "version")));
			copies++;
		}
	}
	assert_true(current >= 1);
	assert_true(copies >= 2);
	json_decref(root);
	free(owner);
	free(version);
}

/* COPY is shown by default, beside the name. */
static void test_who_copy_by_default(void **state)
{
	struct fx *fx = *state;
	json_t *root = who_json(fx, MSRUN_ARGS("who", "libzcopy.so", "-J"));
	json_t *row = json_array_get(json_object_get(root, "mappings"), 0);

	assert_non_null(row);
	assert_string_equal(text_of(row, "copy"), "current");
	assert_int_equal(rows_of(fx, root, CURRENT, "", "", NULL), 0);
	assert_true(rows_of(fx, root, RENAMED, fx->paths[RENAMED], "current", NULL) >= 1);
	json_decref(root);
}

/* A path with nothing at it now still finds the holders of what was there. */
static void test_who_deleted_path(void **state)
{
	struct fx *fx = *state;
	char *del = deleted_name(fx->paths[DELETED]);
	char *link = in_dir(fx, "link", NULL), *via_link = in_dir(fx, "link", "libz.so.1"), *target = in_dir(fx, "del", NULL);
	json_t *root = who_json(fx, MSRUN_ARGS("who", fx->paths[DELETED], "-J", "-o", "PID,COPY,MATCH,NAME"));

	assert_true(rows_of(fx, root, DELETED, del, "deleted", "path") >= 1);
	assert_int_equal(rows_of(fx, root, REPLACED, "", "", NULL), 0);
	json_decref(root);

	/* Through a symlinked directory, as /lib on a merged /usr. */
	assert_int_equal(symlink(target, link), 0);
	root = who_json(fx, MSRUN_ARGS("who", via_link, "-J", "-o", "PID,COPY,MATCH,NAME"));
	assert_true(rows_of(fx, root, DELETED, del, "deleted", "path") >= 1);
	json_decref(root);
	free(del);
	free(link);
	free(via_link);
	free(target);
}

/* A path whose file was replaced: the old copy's holders, marked, and not the file there now. */
static void test_who_replaced_path(void **state)
{
	struct fx *fx = *state;
	char *rep = deleted_name(fx->paths[REPLACED]);
	json_t *root = who_json(fx, MSRUN_ARGS("who", fx->paths[REPLACED], "-J", "-o", "PID,COPY,MATCH,NAME"));

	assert_true(rows_of(fx, root, REPLACED, rep, "replaced", "path") >= 1);
	assert_int_equal(rows_of(fx, root, DELETED, "", "", NULL), 0);
	json_decref(root);
	free(rep);
}

/* Globs, on the base name and on the SONAME; raw output escapes the kernel's name. */
static void test_who_glob_raw(void **state)
{
	struct fx *fx = *state;
	char line[4200];
	json_t *root;

	root = who_json(fx, MSRUN_ARGS("who", "libzcop*", "-J", "-o", "PID,COPY,MATCH,NAME"));
	assert_true(rows_of(fx, root, RENAMED, fx->paths[RENAMED], "current", "name") >= 1);
	assert_int_equal(rows_of(fx, root, CURRENT, "", "", NULL), 0);
	json_decref(root);

	root = who_json(fx, MSRUN_ARGS("who", "libz.so.[0-9]", "-J", "-o", "PID,COPY,MATCH,NAME"));
	assert_true(rows_of(fx, root, CURRENT, fx->zlib, "current", "soname") >= 1);
	json_decref(root);

	assert_int_equal(run(fx, MSRUN_ARGS("who", "libz.so.1", "-r", "-o", "PID,COPY,NAME")), 0);
	snprintf(line, sizeof(line), "\n%d deleted %s\\x20(deleted)\n", (int)fx->child[DELETED].pid,
		 fx->paths[DELETED]);
	if (!strstr(fx->run.out, line))
		fail_msg("no line \"%s\" in:\n%s", line + 1, fx->run.out);

	/* A glob's match is escaped as every name is: no raw ESC or newline reaches the terminal. */
	assert_int_equal(run(fx, MSRUN_ARGS("who", "libz*evil.so", "-r", "-o", "PID,NAME")), 0);
	/* Raw output escapes the escapes' backslashes once more (\x5c), as libsmartcols does. */
	snprintf(line, sizeof(line), "%d %s/libz\\x5cx1b[31m\\x5cx0aevil.so\n", (int)fx->child[HOSTILE].pid,
		 fx->dir);
	if (!strstr(fx->run.out, line) || strchr(fx->run.out, '\x1b'))
		fail_msg("no escaped line \"%s\" in:\n%s", line, fx->run.out);
}

/* Nothing maps the name: status 1, not an error. */
static void test_who_no_holder(void **state)
{
	struct fx *fx = *state;
	char *gone = in_dir(fx, "never", "here.so");

	assert_int_equal(run(fx, MSRUN_ARGS("who", "libms-no-such-library.so.77")), 1);
	assert_int_equal(run(fx, MSRUN_ARGS("who", gone)), 1);
	free(gone);
}

/*
 * A process in a mount namespace of its own, after pivot_root into DIR/root,
 * maps P = DIR/lib/libq.so there: the kernel names it P, and our P is
 * another copy.  Its copy is judged under its own root: current, and
 * replaced once its root's P is replaced.  Root only (mounts); skipped
 * where pivot_root is refused (the tests run in a chroot).
 */
static void test_who_other_root(void **state)
{
	struct fx *fx = *state;
	char *root, *libdir, *lib, *inner_dir, *inner, *other, *del;
	struct fixture child = { 0 };
	bool pivoted;
	json_t *out;

	if (geteuid() != 0)
		skip();
	root = in_dir(fx, "root", NULL);
	libdir = in_dir(fx, "lib", NULL);
	lib = in_dir(fx, "lib", "libq.so");
	del = deleted_name(lib);
	assert_true(asprintf(&inner_dir, "%s%s", root, libdir) > 0);
	assert_true(asprintf(&inner, "%s%s", root, lib) > 0);
	assert_true(asprintf(&other, "%s.new", inner) > 0);
	assert_int_equal(tu_mkdirs(inner_dir), 0);
	assert_int_equal(mkdir(libdir, 0755), 0);
	assert_int_equal(tu_copy(fx->zlib, inner), 0);
	assert_int_equal(tu_copy(fx->zlib, lib), 0);
	assert_int_equal(fixture_start_with(&child, FIXTURE_STALE_CHILD), 0);
	pivoted = fixture_commandf(&child, "pivot %s", root) == 0;
	if (!pivoted)
		goto done;
	assert_int_equal(fixture_commandf(&child, "dlopen %s", lib), 0);
	/* rows_of looks holders up by their slot: this one takes the hostile one's. */
	fixture_stop(&fx->child[HOSTILE]);
	fx->child[HOSTILE].pid = child.pid;

	out = who_json(fx, MSRUN_ARGS("who", lib, "-J", "-o", "PID,COPY,MATCH,NAME"));
	assert_true(rows_of(fx, out, HOSTILE, lib, "current", "path") >= 1);
	json_decref(out);

	assert_int_equal(tu_copy(fx->zlib, other), 0);
	assert_int_equal(rename(other, inner), 0);
	out = who_json(fx, MSRUN_ARGS("who", lib, "-J", "-o", "PID,COPY,MATCH,NAME"));
	assert_true(rows_of(fx, out, HOSTILE, del, "replaced", "path") >= 1);
	json_decref(out);
done:
	fixture_stop(&child);
	free(del);
	free(other);
	free(inner);
	free(inner_dir);
	free(lib);
	free(libdir);
	free(root);
	/* Where pivot_root is refused (a chroot), freed first: LeakSanitizer checks skips too. */
	if (!pivoted)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_who_soname_finds_every_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_copy_by_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_package_and_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_deleted_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_replaced_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_glob_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_no_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_other_root, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
