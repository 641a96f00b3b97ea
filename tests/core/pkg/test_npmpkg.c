/*
 * npm packages as owners of files (npmpkg.h) and the JSON reader under
 * them (json_scan.h).  The reader and the folder rule on bytes; then
 * node_modules trees laid out by hand in a temporary directory, owned by
 * nobody when we are root (a user's tree): a scoped package, nested
 * node_modules, pnpm's layout, and the hostile ones: a package.json that
 * names another package, a symlinked package.json or package folder, a
 * FIFO, a sparse 100 MB package.json, escapes in the name and version
 * (kept raw, escaped when described), a name given twice.  Every lookup
 * of a tree runs in a child with a deadline, so a hang fails the test
 * instead of stalling it.
 */
#include "config.h"

#include <errno.h>
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
#include <unistd.h>
#include <cmocka.h>

#include "core/base/json_scan.h"
#include "core/pkg/npmpkg.h"
#include "core/pkg/owner.h"
#include "testutil.h"

#define NOBODY 65534
#define MAXP 8
#define WHY_MAX 128

/* ---- the JSON reader, on bytes -------------------------------------------------------------- */

struct two {
	char name[16], version[16];
	struct ms_json_field f[2];
};

static int scan(const char *text, struct two *t)
{
	t->f[0] = (struct ms_json_field){ .key = "name", .out = t->name, .cap = sizeof(t->name) };
	t->f[1] = (struct ms_json_field){ .key = "version", .out = t->version, .cap = sizeof(t->version) };
	return ms_json_scan(text, strlen(text), t->f, 2);
}

static void test_json_values(void **state)
{
	struct two t;

	(void)state;
	assert_int_equal(scan("\xef\xbb\xbf {\"deps\": {\"name\": \"inner\", \"x\": [1, -2.5e+3, true, null, {}]},\n"
			      "\t\"n\\u0061me\": \"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\", \"version\": \"1.0\"} ", &t), 0);
	/* Only the top level counts; escapes decoded, a surrogate pair as one code point. */
	assert_int_equal(t.f[0].state, MS_JSON_STRING);
	assert_string_equal(t.name, "a\"b\\c/\xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(t.f[0].len, strlen(t.name));
	assert_int_equal(t.f[1].state, MS_JSON_STRING);
	assert_string_equal(t.version, "1.0");
	/* An escape sequence in a value is kept raw, for the caller to escape when shown. */
	assert_int_equal(scan("{\"name\": \"x\\u001b[31m\", \"version\": 1}", &t), 0);
	assert_string_equal(t.name, "x\x1b[31m");
	assert_int_equal(t.f[1].state, MS_JSON_OTHER);
	assert_string_equal(t.version, "");
	/* A key twice: none of its values. */
	assert_int_equal(scan("{\"name\": \"a\", \"version\": \"1\", \"name\": \"b\"}", &t), 0);
	assert_int_equal(t.f[0].state, MS_JSON_TWICE);
	assert_string_equal(t.name, "");
	assert_int_equal(scan("{\"name\": \"a\", \"n\\u0061me\": {}}", &t), 0);
	assert_int_equal(t.f[0].state, MS_JSON_TWICE);
	/* Too long, a NUL, a lone surrogate: unfit; absent: absent. */
	assert_int_equal(scan("{\"name\": \"0123456789abcdef\"}", &t), 0);
	assert_int_equal(t.f[0].state, MS_JSON_UNFIT);
	assert_int_equal(t.f[1].state, MS_JSON_ABSENT);
	assert_int_equal(scan("{\"name\": \"a\\u0000b\", \"version\": \"\\ud800x\"}", &t), 0);
	assert_int_equal(t.f[0].state, MS_JSON_UNFIT);
	assert_int_equal(t.f[1].state, MS_JSON_UNFIT);
	assert_int_equal(scan("{}", &t), 0);
	assert_int_equal(t.f[0].state, MS_JSON_ABSENT);
}

static void test_json_errors(void **state)
{
	static const char *const bad[] = {
		"", "[]", "\"name\"", "{", "{\"name\": \"a\"", "{\"name\": \"a\",}", "{\"name\" \"a\"}",
		"{\"name\": \"a\"} x", "{\"name\": \"a\nb\"}", "{\"name\": 01}", "{\"name\": -}", "{\"name\": 1.}",
		"{\"name\": tru}", "{\"name\": \"\\x\"}", "{\"name\": \"\\u12g4\"}", "{\"a\": [1,]}", "{\"a\": [1 2]}",
		"{\"a\": {\"b\"}}", "{\"a\": {\"b\": 1,}}", "{name: \"a\"}", "{\"a\": 'b'}",
	};
	char deep[2 * MS_JSON_DEPTH + 16];
	struct two t;
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (scan(bad[i], &t) != MS_JSON_ERR_SYNTAX)
			fail_msg("accepted: %s", bad[i]);
	/* Nesting: MS_JSON_DEPTH levels are read, one more is refused. */
	n += (size_t)sprintf(deep, "{\"a\":");
	for (int i = 0; i < MS_JSON_DEPTH - 1; i++)
		deep[n++] = '[';
	for (int i = 0; i < MS_JSON_DEPTH - 1; i++)
		deep[n++] = ']';
	strcpy(deep + n, "}");
	assert_int_equal(scan(deep, &t), 0);
	memmove(deep + 6, deep + 5, strlen(deep + 5) + 1);
	deep[5] = '[';
	strcpy(deep + strlen(deep) - 1, "]}");
	assert_int_equal(scan(deep, &t), MS_JSON_ERR_DEPTH);
}

/* ---- the folder rule ------------------------------------------------------------------------ */

static const char *folder(const char *path, char *name)
{
	static char buf[PATH_MAX];
	size_t at = 0, len = ms_npmpkg_folder_of(path, strlen(path), &at);

	if (!len)
		return "(none)";
	memcpy(buf, path, len);
	buf[len] = '\0';
	strcpy(name, path + at);
	name[len - at] = '\0';
	return buf;
}

static void test_folder_rule(void **state)
{
	char name[PATH_MAX];

	(void)state;
	assert_string_equal(folder("/app/node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.8", name),
			    "/app/node_modules/@img/sharp-libvips-linux-x64");
	assert_string_equal(name, "@img/sharp-libvips-linux-x64");
	assert_string_equal(folder("/app/node_modules/a/node_modules/b/build/x.node", name),
			    "/app/node_modules/a/node_modules/b");
	assert_string_equal(name, "b");
	assert_string_equal(folder("/app/node_modules/.pnpm/b@1.0.0/node_modules/b/x.so", name),
			    "/app/node_modules/.pnpm/b@1.0.0/node_modules/b");
	assert_string_equal(folder("/app/node_modules/a/x.so", name), "/app/node_modules/a");
	assert_string_equal(name, "a");
	/* The file must be in the folder; a scope alone, a hidden folder or nothing after: none. */
	assert_string_equal(folder("/app/node_modules/a", name), "(none)");
	assert_string_equal(folder("/app/node_modules/@img/x.so", name), "(none)");
	assert_string_equal(folder("/app/node_modules/@/a/x.so", name), "(none)");
	assert_string_equal(folder("/app/node_modules/.bin/x", name), "(none)");
	assert_string_equal(folder("/app/node_modules//x", name), "(none)");
	assert_string_equal(folder("/app/node_modules/", name), "(none)");
	assert_string_equal(folder("/app/not_node_modules/a/x.so", name), "(none)");
	assert_string_equal(folder("/usr/lib/libc.so.6", name), "(none)");
	/* The innermost node_modules, even where it names no package. */
	assert_string_equal(folder("/app/node_modules/a/node_modules/.bin/x", name), "(none)");
}

/* ---- trees on disk, looked up in a child with a deadline ------------------------------------ */

static const char *fill(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *fill(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && n < PATH_MAX);
	return buf;
}

/* dir/rel with text in it, its folders made; its path into path (may be NULL). */
static void put(const char *dir, const char *rel, const char *text, char *path)
{
	char buf[PATH_MAX], parent[PATH_MAX];

	fill(buf, "%s/%s", dir, rel);
	fill(parent, "%s", buf);
	*strrchr(parent, '/') = '\0';
	assert_int_equal(tu_mkdirs(parent), 0);
	assert_int_equal(tu_spit(buf, text), 0);
	if (path)
		fill(path, "%s", buf);
}

/* node_modules/FOLDER with package.json json and a file lib/x.so; the file's path into path. */
static void put_package(const char *dir, const char *fold, const char *json, char *path)
{
	char rel[PATH_MAX];

	if (json)
		put(dir, fill(rel, "node_modules/%s/package.json", fold), json, NULL);
	put(dir, fill(rel, "node_modules/%s/lib/x.so", fold), "x", path);
}

static void give_to_nobody(const char *dir)
{
	char cmd[PATH_MAX + 64];

	if (geteuid() != 0)
		return;
	fill(cmd, "chown -hR %d:%d '%s'", NOBODY, NOBODY, dir);
	assert_int_equal(system(cmd), 0);
}

struct answer {
	struct ms_pkg pkg[MAXP];
	char why[MAXP][WHY_MAX];
	struct ms_npmpkg_stats st, st2;
	int rc;
};

struct lookup_args {
	bool owner;
	const char *const *paths;
	size_t n;
};

static void lookup_child(void *arg, void *out)
{
	const struct lookup_args *la = arg;
	struct answer *mine = out;
	struct ms_pkg again[MAXP] = { 0 };
	const char *why[MAXP];
	struct ms_npmpkg *np;
	size_t lens[MAXP];

	for (size_t i = 0; i < la->n; i++)
		lens[i] = strlen(la->paths[i]);
	if (la->owner) {
		mine->rc = ms_owner_lookup(la->paths, lens, la->n, mine->pkg, NULL);
		return;
	}
	if ((mine->rc = ms_npmpkg_open(&np, NULL)) < 0)
		return;
	mine->rc = ms_npmpkg_find(np, la->paths, lens, la->n, mine->pkg, why, NULL);
	ms_npmpkg_stats(np, &mine->st);
	for (size_t i = 0; i < la->n; i++)
		snprintf(mine->why[i], WHY_MAX, "%s", why[i] ? why[i] : "");
	if (mine->rc == 0)
		mine->rc = ms_npmpkg_find(np, la->paths, lens, la->n, again, NULL, NULL);
	ms_npmpkg_stats(np, &mine->st2);
	ms_npmpkg_close(np);
}

/*
 * The answers for paths, from the whole owner lookup (owner) or from npm
 * alone (with its reasons, and its stats after a second lookup of the same
 * paths), in a child that must end by the usual deadline.
 */
static void lookup(bool owner, const char *const *paths, size_t n, struct answer *a)
{
	struct lookup_args la = { .owner = owner, .paths = paths, .n = n };

	assert_true(n <= MAXP);
	assert_int_equal(tu_child_answer(lookup_child, &la, a, sizeof(*a)), 0);
	assert_int_equal(a->rc, 0);
}

static void assert_npm(const struct ms_pkg *p, const char *name, const char *version)
{
	assert_true(p->found);
	assert_int_equal(p->source, MS_PKG_SOURCE_NPM);
	assert_string_equal(p->name, name);
	assert_string_equal(p->version, version);
	assert_string_equal(p->arch, "");
}

static void assert_refused(const struct answer *a, size_t i, const char *why)
{
	assert_false(a->pkg[i].found);
	if (!strstr(a->why[i], why))
		fail_msg("path %zu: why is \"%s\", not \"%s\"", i, a->why[i], why);
}

static int tmp_setup(void **state)
{
	return tu_tmpdir_setup(state);
}

static int tmp_teardown(void **state)
{
	return tu_tmpdir_teardown(state);
}

/* The owners: scoped, nested, pnpm's layout; each package.json read once for many files, twice asked. */
static void test_owners(void **state)
{
	const char *dir = *state;
	char scoped[PATH_MAX], scoped2[PATH_MAX], outer[PATH_MAX], inner[PATH_MAX], pnpm[PATH_MAX];
	char none[PATH_MAX], stray[PATH_MAX];
	struct answer a, o;

	put_package(dir, "@img/sharp-libvips-linux-x64",
		    "{\"name\": \"@img/sharp-libvips-linux-x64\", \"version\": \"1.3.5\", \"os\": [\"linux\"]}", scoped);
	put(dir, "node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.8.18.8", "x", scoped2);
	put_package(dir, "a", "{\"version\": \"2.0.0\", \"name\": \"a\"}", outer);
	put_package(dir, "a/node_modules/b", "{\"name\": \"b\", \"version\": \"3.1.4\"}", inner);
	put_package(dir, ".pnpm/c@1.0.0/node_modules/c", "{\"name\": \"c\", \"version\": \"1.0.0\"}", pnpm);
	/* A package without a package.json, and a file under node_modules in no package. */
	put_package(dir, "nojson", NULL, none);
	put(dir, "node_modules/stray.so", "x", stray);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ scoped, scoped2, outer, inner, pnpm, none, stray }, 7, &a);
	assert_npm(&a.pkg[0], "@img/sharp-libvips-linux-x64", "1.3.5");
	assert_npm(&a.pkg[1], "@img/sharp-libvips-linux-x64", "1.3.5");
	assert_npm(&a.pkg[2], "a", "2.0.0");
	assert_npm(&a.pkg[3], "b", "3.1.4");
	assert_npm(&a.pkg[4], "c", "1.0.0");
	assert_refused(&a, 5, "no package.json");
	assert_false(a.pkg[6].found);
	assert_string_equal(a.why[6], "");
	/* Five folders, four package.json files, each once, and none again on the second lookup. */
	assert_int_equal(a.st.folders, 5);
	assert_int_equal(a.st.files, 4);
	assert_int_equal(a.st2.files, 4);
	assert_int_equal(a.st2.folders, 5);
	assert_int_equal(a.st.refused, 0);
	/* In the owner table: npm answers what no database owns. */
	lookup(true, (const char *const[]){ scoped, inner }, 2, &o);
	assert_npm(&o.pkg[0], "@img/sharp-libvips-linux-x64", "1.3.5");
	assert_npm(&o.pkg[1], "b", "3.1.4");
}

/* A package.json that names another package (or none, or its name twice) answers nothing. */
static void test_name_mismatch(void **state)
{
	const char *dir = *state;
	char liar[PATH_MAX], scope[PATH_MAX], noname[PATH_MAX], twice[PATH_MAX], vtwice[PATH_MAX], notjson[PATH_MAX];
	char good[PATH_MAX];
	struct answer a;

	put_package(dir, "liar", "{\"name\": \"openssl\", \"version\": \"3.0.0\"}", liar);
	put_package(dir, "@evil/pkg", "{\"name\": \"@good/pkg\", \"version\": \"1.0.0\"}", scope);
	put_package(dir, "noname", "{\"version\": \"1.0.0\"}", noname);
	put_package(dir, "twice", "{\"name\": \"twice\", \"version\": \"1\", \"name\": \"twice\"}", twice);
	put_package(dir, "vtwice", "{\"name\": \"vtwice\", \"version\": \"1\", \"version\": \"2\"}", vtwice);
	put_package(dir, "notjson", "{\"name\": \"notjson\", \"version\": \"1\",}", notjson);
	put_package(dir, "good", "{\"name\": \"good\"}", good);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ liar, scope, noname, twice, vtwice, notjson, good }, 7, &a);
	assert_refused(&a, 0, "names another package than its folder");
	assert_refused(&a, 1, "names another package than its folder");
	assert_refused(&a, 2, "names no package");
	assert_refused(&a, 3, "gives its name twice");
	assert_refused(&a, 4, "gives its version twice");
	assert_refused(&a, 5, "not a JSON object");
	/* No version said: the owner, without one. */
	assert_npm(&a.pkg[6], "good", "");
	assert_int_equal(a.st.refused, 6);
}

/* A symlinked package.json or package folder is refused, never followed; a FIFO never opened. */
static void test_symlink_fifo(void **state)
{
	const char *dir = *state;
	char linked[PATH_MAX], folder_linked[PATH_MAX], fifo[PATH_MAX], buf[PATH_MAX], target[PATH_MAX];
	char good[PATH_MAX];
	struct answer a;

	put(dir, "elsewhere/package.json", "{\"name\": \"linked\", \"version\": \"6.6.6\"}", target);
	put_package(dir, "linked", NULL, linked);
	assert_int_equal(symlink(target, fill(buf, "%s/node_modules/linked/package.json", dir)), 0);
	/* A package folder that is a symlink now, to a real package. */
	put_package(dir, "good", "{\"name\": \"good\", \"version\": \"1.0.0\"}", good);
	assert_int_equal(symlink(fill(target, "%s/node_modules/good", dir), fill(buf, "%s/node_modules/lnk", dir)), 0);
	fill(folder_linked, "%s/node_modules/lnk/lib/x.so", dir);
	put_package(dir, "fifo", NULL, fifo);
	assert_int_equal(mkfifo(fill(buf, "%s/node_modules/fifo/package.json", dir), 0666), 0);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ linked, folder_linked, fifo, good }, 4, &a);
	assert_refused(&a, 0, "symlink");
	assert_refused(&a, 1, "symlink");
	assert_refused(&a, 2, "a FIFO");
	assert_npm(&a.pkg[3], "good", "1.0.0");
	assert_int_equal(a.st.files, 1);
}

/* A sparse 100 MB package.json is not opened; one just over 1 MiB neither; one just under is read. */
static void test_oversized(void **state)
{
	const char *dir = *state;
	char huge[PATH_MAX], over[PATH_MAX], under[PATH_MAX], buf[PATH_MAX];
	static const char head[] = "{\"name\": \"under\", \"version\": \"1.0.0\", \"pad\": \"";
	char *text = malloc(MS_NPMPKG_JSON_MAX + 1);
	size_t n = MS_NPMPKG_JSON_MAX - 2;
	struct answer a;

	assert_non_null(text);
	put_package(dir, "huge", "{\"name\": \"huge\", \"version\": \"1.0.0\"}", huge);
	assert_int_equal(truncate(fill(buf, "%s/node_modules/huge/package.json", dir), 100L << 20), 0);
	put_package(dir, "over", "{\"name\": \"over\", \"version\": \"1.0.0\"}", over);
	assert_int_equal(truncate(fill(buf, "%s/node_modules/over/package.json", dir), MS_NPMPKG_JSON_MAX + 1), 0);
	/* Exactly MS_NPMPKG_JSON_MAX bytes, valid JSON. */
	memcpy(text, head, sizeof(head) - 1);
	memset(text + sizeof(head) - 1, 'p', n - (sizeof(head) - 1));
	memcpy(text + n, "\"}", 3);
	put_package(dir, "under", text, under);
	free(text);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ huge, over, under }, 3, &a);
	assert_refused(&a, 0, "larger than 1 MiB");
	assert_refused(&a, 1, "larger than 1 MiB");
	assert_npm(&a.pkg[2], "under", "1.0.0");
	assert_int_equal(a.st.bytes, MS_NPMPKG_JSON_MAX);
}

/* Escapes in a folder's name and in package.json: kept raw, escaped when described. */
static void test_escapes(void **state)
{
	const char *dir = *state;
	char evil[PATH_MAX], line[1024];
	struct answer a;

	put_package(dir, "evil\x1b[31m",
		    "{\"name\": \"evil\\u001b[31m\", \"version\": \"1.0\\u001b]0;owned\\u0007\\u202e\"}", evil);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ evil }, 1, &a);
	assert_npm(&a.pkg[0], "evil\x1b[31m", "1.0\x1b]0;owned\x07\xe2\x80\xae");
	ms_pkg_describe(&a.pkg[0], 0, line, sizeof(line));
	assert_null(strchr(line, '\x1b'));
	assert_null(strchr(line, '\x07'));
	assert_null(strstr(line, "\xe2\x80\xae"));
	assert_non_null(strstr(line, "evil\\x1b[31m"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_folder_rule),
		cmocka_unit_test_setup_teardown(test_owners, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_name_mismatch, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_symlink_fifo, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_oversized, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_escapes, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
