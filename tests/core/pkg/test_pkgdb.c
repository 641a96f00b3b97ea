/*
 * The package lookup over a dpkg database made here: 400 list files of
 * a few hundred lines each, a merged-/usr library (Multi-Arch: same, for
 * two architectures), a path listed by two packages, lines of every length, a status file.  Every way of reading it
 * must give the answer of the plain sequential lookup: the reader thread
 * reading ahead (find called at once, or after it has read everything),
 * with a budget so small that the caller reads nearly every file itself,
 * and the careful per-file path used when others may write the directory.
 * A database opened with the reader and closed unused leaks nothing (the
 * sanitizer build checks).  No answer depends on readdir's order: each
 * database is also read with that order turned round (a seam of pkgdb.h).
 * The status stanza that answers puts its Version before its Package.  Random lists of short lines over three
 * characters (equal lines, equal lengths, empty lines, no last newline)
 * are checked against the plainest reading of the files.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
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

#include "pkg/candidates.h"
#include "pkg/pkgdb.h"
#include "testutil.h"

#define NLISTS 400
#define NPATHS 9

struct db {
	char *dir;
};

static const char *const wanted[NPATHS] = {
	"/usr/lib/x86_64-linux-gnu/libfoo.so.1", /* listed as /lib/...: merged /usr */
	"/usr/share/shared/common",              /* in pkg100 and pkg200: pkg100's */
	"/usr/share/pkg123/file-0076",           /* an ordinary line mid-file */
	"/usr/share/pkg399/file-0000",           /* the first line of a list */
	"/usr/share/pkg007/file-0249",           /* the last line, no newline after it */
	"/usr/share/nobody/owns-this",
	"/usr/share/pkg123/file-007",            /* a prefix of a listed line */
	"/usr/share/pkg123/file-0076",           /* asked twice: both answered */
	"/lib/x86_64-linux-gnu/libfoo.so.1",     /* the alias of the first, asked too */
};

static int write_list(const char *info, const char *name, const char *text)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.list", info, name);
	return tu_spit(path, text);
}

/*
 * The lines of package i: its directories, then 250 files, the odd ones
 * padded to lengths from 27 to 63; with last_newline false the last line
 * has no newline after it.
 */
static char *list_text(int i, bool last_newline)
{
	size_t cap = 64 * 1024, at = 0;
	char *t = malloc(cap);

	at += (size_t)snprintf(t + at, cap - at, "/.\n/usr\n/usr/share\n/usr/share/pkg%03d\n", i);
	for (int k = 0; k < 250; k++)
		at += (size_t)snprintf(t + at, cap - at, "/usr/share/pkg%03d/file-%04d%.*s%s", i, k,
				       k % 2 && k != 249 ? k % 37 : 0, "-padding-padding-padding-padding-pad",
				       k == 249 && !last_newline ? "" : "\n");
	return t;
}

static int setup(void **state)
{
	struct db *db = calloc(1, sizeof(*db));
	char *info, *text, *path;
	int rc = 0;

	db->dir = tu_tmpdir();
	info = tu_join(db->dir, "info");
	if (!db->dir || mkdir(info, 0755) < 0)
		return -1;
	for (int i = 0; i < NLISTS && rc == 0; i++) {
		char name[32];

		snprintf(name, sizeof(name), "pkg%03d", i);
		text = list_text(i, i != 7);
		rc = write_list(info, name, text);
		free(text);
	}
	rc |= write_list(info, "libfoo1:amd64", "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libfoo.so.1\n");
	path = tu_join(info, "libfoo1:amd64.md5sums");
	rc |= tu_spit(path, "/usr/share/shared/common\n");
	free(path);
	/* Multi-Arch: same, for two architectures: the name sorting first owns it. */
	rc |= write_list(info, "libfoo1:i386", "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libfoo.so.1\n");
	/* The shared path goes into two lists, the later in name order made first. */
	for (int k = 0; k < 2 && rc == 0; k++) {
		char list[4096];
		FILE *f;

		snprintf(list, sizeof(list), "%s/%s.list", info, k ? "pkg100" : "pkg200");
		f = fopen(list, "a");
		rc = !f || fputs("\n/usr/share/shared\n/usr/share/shared/common\n", f) < 0 || fclose(f);
	}
	path = tu_join(db->dir, "status");
	rc |= tu_spit(path,
		      "Package: libfoo1\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.2-3\n\n"
		      "Package: pkg123\nStatus: deinstall ok config-files\nVersion: 9\n\n"
		      "Version: 4.5\nPackage: pkg123\nStatus: install ok installed\n");
	free(path);
	free(info);
	*state = db;
	return rc ? -1 : 0;
}

static int teardown(void **state)
{
	struct db *db = *state;

	tu_rmtree(db->dir);
	free(db->dir);
	free(db);
	return 0;
}

/*
 * Answer paths from the database in dir: the plain lookup (opts NULL), or
 * through an open database with opts, searched at once or after the reader
 * has had time to read everything.
 */
static void lookup(const char *dir, const char *const *paths, size_t n, const struct ms_pkgdb_opts *opts,
		   bool wait_for_reader, struct ms_pkg *out)
{
	size_t *lens = calloc(n, sizeof(*lens));
	struct ms_pkgdb *pdb;
	struct ms_error err;

	assert_non_null(lens);
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(paths[i]);
	if (!opts) {
		assert_int_equal(ms_pkgdb_lookup(dir, paths, lens, n, out, &err), 0);
	} else {
		assert_int_equal(ms_pkgdb_open(dir, opts, &pdb, &err), 0);
		if (wait_for_reader)
			usleep(100 * 1000);
		assert_int_equal(ms_pkgdb_find(pdb, paths, lens, n, out, &err), 0);
		ms_pkgdb_close(pdb);
	}
	free(lens);
}

static void lookup_plain(const struct db *db, struct ms_pkg *out)
{
	lookup(db->dir, wanted, NPATHS, NULL, false, out);
}

static void expect_same(const struct ms_pkg *a, const struct ms_pkg *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].found, b[i].found);
		assert_string_equal(a[i].name, b[i].name);
		assert_string_equal(a[i].arch, b[i].arch);
		assert_string_equal(a[i].version, b[i].version);
	}
}

/* The answers with readdir's order turned round are plain's. */
static void expect_same_reversed(const char *dir, const char *const *paths, size_t n, const struct ms_pkg *plain)
{
	struct ms_pkg *rev = calloc(n, sizeof(*rev));

	assert_non_null(rev);
	lookup(dir, paths, n, &(struct ms_pkgdb_opts){ .reverse_readdir = true }, false, rev);
	expect_same(plain, rev, n);
	free(rev);
}

/*
 * Read ahead with budget, rounds times, searched at once in even rounds
 * (the reader still listing or reading) and after it is done in odd ones:
 * the answers of the plain lookup every time.
 */
static void expect_read_ahead_as_plain(const char *dir, const char *const *paths, size_t n, size_t budget,
				       int rounds)
{
	struct ms_pkgdb_opts opts = { .read_ahead = true, .read_ahead_max = budget };
	struct ms_pkg *plain = calloc(n, sizeof(*plain)), *ahead = calloc(n, sizeof(*ahead));

	assert_non_null(plain);
	assert_non_null(ahead);
	lookup(dir, paths, n, NULL, false, plain);
	for (int round = 0; round < rounds; round++) {
		memset(ahead, 0x55, n * sizeof(*ahead));
		lookup(dir, paths, n, &opts, round % 2, ahead);
		expect_same(plain, ahead, n);
	}
	free(plain);
	free(ahead);
}

/* The answers, whichever order readdir gives the lists in. */
static void expect_sequential_answers(const struct ms_pkg *out)
{
	assert_true(out[0].found);
	assert_string_equal(out[0].name, "libfoo1");
	assert_string_equal(out[0].arch, "amd64");
	assert_string_equal(out[0].version, "1.2-3");
	assert_true(out[1].found);
	assert_string_equal(out[1].name, "pkg100");
	assert_true(out[2].found);
	assert_string_equal(out[2].name, "pkg123");
	assert_string_equal(out[2].arch, "");
	assert_string_equal(out[2].version, "4.5");
	assert_true(out[3].found);
	assert_string_equal(out[3].name, "pkg399");
	assert_true(out[4].found);
	assert_string_equal(out[4].name, "pkg007");
	assert_false(out[5].found);
	assert_false(out[6].found);
	assert_true(out[7].found);
	assert_string_equal(out[7].name, "pkg123");
	assert_string_equal(out[7].version, "4.5");
	assert_true(out[8].found);
	assert_string_equal(out[8].name, "libfoo1");
	assert_string_equal(out[8].arch, "amd64");
	assert_string_equal(out[8].version, "1.2-3");
}

static void test_sequential_answers(void **state)
{
	const struct db *db = *state;
	struct ms_pkgdb_opts reversed = { .reverse_readdir = true };
	struct ms_pkg out[NPATHS];

	lookup_plain(db, out);
	expect_sequential_answers(out);
	/* The same directory listed the other way round: the same answers. */
	lookup(db->dir, wanted, NPATHS, &reversed, false, out);
	expect_sequential_answers(out);
	reversed.read_ahead = true;
	lookup(db->dir, wanted, NPATHS, &reversed, false, out);
	expect_sequential_answers(out);
}

static void test_read_ahead_same_answers(void **state)
{
	const struct db *db = *state;

	expect_read_ahead_as_plain(db->dir, wanted, NPATHS, 0, 20);
}

/* The reader keeps one file, defers the next; the caller reads the rest. */
static void test_small_budget_same_answers(void **state)
{
	const struct db *db = *state;

	expect_read_ahead_as_plain(db->dir, wanted, NPATHS, 1, 20);
}

static void test_open_shared_directory(void **state)
{
	const struct db *db = *state;
	struct ms_pkg plain[NPATHS], careful[NPATHS];
	char *info = tu_join(db->dir, "info");

	lookup_plain(db, plain);
	/* Writable by others: each file goes through O_PATH and a reopen. */
	assert_int_equal(chmod(info, 0777), 0);
	lookup(db->dir, wanted, NPATHS, &(struct ms_pkgdb_opts){ .read_ahead = true }, false, careful);
	expect_same(plain, careful, NPATHS);
	lookup_plain(db, careful);
	expect_same(plain, careful, NPATHS);
	assert_int_equal(chmod(info, 0755), 0);
	free(info);
}

static void test_read_ahead_started_later(void **state)
{
	const struct db *db = *state;
	struct ms_pkg plain[NPATHS], later[NPATHS];
	struct ms_pkgdb *pdb;
	size_t lens[NPATHS];
	struct ms_error err;

	for (size_t i = 0; i < NPATHS; i++)
		lens[i] = strlen(wanted[i]);
	lookup_plain(db, plain);
	/* Opened plain, the reader started once the caller knows it will ask. */
	assert_int_equal(ms_pkgdb_open(db->dir, NULL, &pdb, &err), 0);
	ms_pkgdb_read_ahead(pdb);
	ms_pkgdb_read_ahead(pdb);
	assert_int_equal(ms_pkgdb_find(pdb, wanted, lens, NPATHS, later, &err), 0);
	expect_same(plain, later, NPATHS);
	/* After a search there is nothing to read ahead for. */
	ms_pkgdb_read_ahead(pdb);
	ms_pkgdb_close(pdb);
	ms_pkgdb_read_ahead(NULL);
}

static void test_closed_unused(void **state)
{
	const struct db *db = *state;
	struct ms_pkgdb_opts opts = { .read_ahead = true };
	struct ms_pkgdb *pdb;
	struct ms_error err;

	/* Nothing stale: the caller closes at once, or after the reader is done. */
	for (int round = 0; round < 10; round++) {
		assert_int_equal(ms_pkgdb_open(db->dir, &opts, &pdb, &err), 0);
		if (round == 9)
			usleep(200 * 1000);
		ms_pkgdb_close(pdb);
	}
}

/* Random lists against the plainest reading: split at '\n', the first list in name order. */
#define RLISTS 60
#define RWANT 40

static char *random_text(unsigned *seed, size_t *len)
{
	size_t n = (size_t)(rand_r(seed) % 3000), at = 0;
	char *t = malloc(n + 1);

	/* Short lines over a small alphabet: many equal lines, many equal lengths. */
	while (at < n) {
		size_t line = (size_t)(rand_r(seed) % 40);

		for (size_t k = 0; k < line && at < n; k++)
			t[at++] = "/ab"[rand_r(seed) % 3];
		if (at < n)
			t[at++] = '\n';
	}
	t[n] = '\0';
	*len = n;
	return t;
}

/* The package owning line w (len bytes) by the plainest reading, or NULL. */
static const char *naive_owner(char *const *names, char *const *texts, size_t n, const char *w, size_t len)
{
	for (size_t i = 0; i < n; i++)
		for (const char *p = texts[i]; *p;) {
			const char *nl = strchr(p, '\n');
			size_t k = nl ? (size_t)(nl - p) : strlen(p);

			if (k && k == len && !memcmp(p, w, len))
				return names[i];
			p += k + (nl ? 1 : 0);
		}
	return NULL;
}

static void test_random_lists(void **state)
{
	char *dir = tu_tmpdir(), *info = tu_join(dir, "info"), *names[RLISTS], *texts[RLISTS];
	const char *paths[RWANT];
	char want_buf[RWANT][48];
	struct ms_pkg plain[RWANT];
	unsigned seed = 12345;
	size_t n = 0;

	(void)state;
	assert_int_equal(mkdir(info, 0755), 0);
	for (int i = 0; i < RLISTS; i++) {
		char name[32];
		size_t len;

		snprintf(name, sizeof(name), "r%02d", i);
		texts[i] = random_text(&seed, &len);
		assert_int_equal(write_list(info, name, texts[i]), 0);
		free(texts[i]);
	}
	/* Read back, in name order (the names are made in that order). */
	for (int i = 0; i < RLISTS; i++) {
		char name[32], *path;

		snprintf(name, sizeof(name), "r%02d.list", i);
		path = tu_join(info, name);
		names[n] = strndup(name, strlen(name) - 5);
		texts[n++] = tu_slurp(path, NULL);
		free(path);
	}
	for (int w = 0; w < RWANT; w++) {
		size_t len = 1 + (size_t)(rand_r(&seed) % 12);

		for (size_t k = 0; k < len; k++)
			want_buf[w][k] = "/ab"[rand_r(&seed) % 3];
		want_buf[w][len] = '\0';
		paths[w] = want_buf[w];
	}
	lookup(dir, paths, RWANT, NULL, false, plain);
	expect_same_reversed(dir, paths, RWANT, plain);
	for (int w = 0; w < RWANT; w++) {
		const char *owner = naive_owner(names, texts, n, paths[w], strlen(paths[w]));

		assert_int_equal(plain[w].found, owner != NULL);
		if (owner)
			assert_string_equal(plain[w].name, owner);
	}
	expect_read_ahead_as_plain(dir, paths, RWANT, 0, 2);
	expect_read_ahead_as_plain(dir, paths, RWANT, 1, 2);
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
		free(texts[i]);
	}
	tu_rmtree(dir);
	free(info);
	free(dir);
}

/* A database of the given lists (NAME, TEXT pairs, NULL-ended) and diversions (or NULL). */
static char *small_db(const char *const *lists, const char *diversions)
{
	char *dir = tu_tmpdir(), *info = tu_join(dir, "info");

	assert_int_equal(mkdir(info, 0755), 0);
	for (size_t i = 0; lists[i]; i += 2)
		assert_int_equal(write_list(info, lists[i], lists[i + 1]), 0);
	if (diversions) {
		char *path = tu_join(dir, "diversions");

		assert_int_equal(tu_spit(path, diversions), 0);
		free(path);
	}
	free(info);
	return dir;
}

/* The owner of path in dir, looked up with opts (NULL: the usual way); "" for none. */
static void expect_owner(const char *dir, const struct ms_pkgdb_opts *opts, const char *path, const char *name,
			 const char *arch)
{
	struct ms_pkg out;

	lookup(dir, &path, 1, opts, false, &out);
	assert_int_equal(out.found, name[0] != '\0');
	assert_string_equal(out.name, name);
	assert_string_equal(out.arch, arch);
}

/* The name suggests libfoo1, whose list does not hold the path: bar-utils's does. */
static void test_name_suggests_wrong_package(void **state)
{
	const char *lists[] = { "libfoo1", "/.\n/usr\n/usr/lib\n/usr/lib/libfoo.so.1.0\n",
				"bar-utils", "/.\n/usr\n/usr/lib\n/usr/lib/libfoo.so.1\n",
				"libbar2:amd64", "/.\n/usr/lib/libbar.so.2\n", NULL };
	const struct ms_pkgdb_opts full = { .full_scan = true }, only = { .no_full_scan = true };
	char *dir = small_db(lists, NULL);

	(void)state;
	expect_owner(dir, NULL, "/usr/lib/libfoo.so.1", "bar-utils", "");
	expect_owner(dir, &full, "/usr/lib/libfoo.so.1", "bar-utils", "");
	/* Only the full scan finds it: the candidates alone do not. */
	expect_owner(dir, &only, "/usr/lib/libfoo.so.1", "", "");
	/* And the candidates alone find what the name suggests. */
	expect_owner(dir, &only, "/usr/lib/libbar.so.2", "libbar2", "amd64");
	tu_rmtree(dir);
	free(dir);
}

/*
 * libodd.so.1 suggests nothing, but libc6 ships it beside libc.so.6: the
 * list read for libc.so.6 answers every path it holds.
 */
static void test_list_answers_every_path(void **state)
{
	const char *lists[] = { "libc6:amd64", "/.\n/usr/lib/x\n/usr/lib/x/libc.so.6\n/usr/lib/x/libodd.so.1\n",
				"other", "/.\n/usr/lib/y/libodd.so.1\n", NULL };
	const char *both[] = { "/usr/lib/x/libodd.so.1", "/usr/lib/x/libc.so.6", "/usr/lib/y/libodd.so.1" };
	const struct ms_pkgdb_opts only = { .no_full_scan = true };
	struct ms_pkg out[3];
	char *dir = small_db(lists, NULL);

	(void)state;
	/* Alone, only the full scan finds it. */
	expect_owner(dir, &only, "/usr/lib/x/libodd.so.1", "", "");
	expect_owner(dir, NULL, "/usr/lib/x/libodd.so.1", "libc6", "amd64");
	/* Asked with libc.so.6, the candidates alone do; another package's copy elsewhere is not libc6's. */
	lookup(dir, both, 3, &only, false, out);
	assert_true(out[0].found);
	assert_string_equal(out[0].name, "libc6");
	assert_true(out[1].found);
	assert_false(out[2].found);
	tu_rmtree(dir);
	free(dir);
}

/*
 * dash diverts /bin/sh (listed by dash and by sh-provider) to
 * /bin/sh.distrib; the administrator diverts /usr/bin/tool (tool-pkg's)
 * to /usr/bin/tool.orig.  Both ways, in both modes.
 */
static void test_diversions(void **state)
{
	const char *lists[] = { "dash:amd64", "/.\n/bin\n/bin/dash\n/bin/sh\n",
				"sh-provider", "/.\n/bin\n/bin/sh\n",
				"tool-pkg", "/.\n/usr/bin\n/usr/bin/tool\n", NULL };
	const char *div = "/bin/sh\n/bin/sh.distrib\ndash\n/usr/bin/tool\n/usr/bin/tool.orig\n:\n/usr/bin/cut\n";
	const struct ms_pkgdb_opts modes[] = { { .full_scan = false }, { .full_scan = true } };
	char *dir = small_db(lists, div);

	(void)state;
	for (size_t m = 0; m < 2; m++) {
		const struct ms_pkgdb_opts *o = &modes[m];

		/* The file at the diverted path is the diverter's, under either spelling. */
		expect_owner(dir, o, "/bin/sh", "dash", "amd64");
		expect_owner(dir, o, "/usr/bin/sh", "dash", "amd64");
		/* The file it was moved to is the other lister's. */
		expect_owner(dir, o, "/bin/sh.distrib", "sh-provider", "");
		expect_owner(dir, o, "/usr/bin/sh.distrib", "sh-provider", "");
		/* A local diversion: the file at the path is nobody's, the moved one the package's. */
		expect_owner(dir, o, "/usr/bin/tool", "", "");
		expect_owner(dir, o, "/usr/bin/tool.orig", "tool-pkg", "");
		/* An undiverted path as ever; the cut-short last triple is no diversion. */
		expect_owner(dir, o, "/bin/dash", "dash", "amd64");
		expect_owner(dir, o, "/usr/bin/cut", "", "");
	}
	tu_rmtree(dir);
	free(dir);
}

/* The prefixes a path suggests, in order. */
static void expect_prefixes(const char *path, const char *const *want)
{
	char out[MS_PKG_PREFIXES][MS_PKG_PREFIX_MAX];
	size_t n = ms_pkg_prefixes(path, strlen(path), out), k = 0;

	for (; want[k]; k++) {
		assert_true(k < n);
		assert_string_equal(out[k], want[k]);
	}
	assert_int_equal(n, k);
}

static void test_prefixes(void **state)
{
	(void)state;
	expect_prefixes("/usr/lib/x86_64-linux-gnu/libssl.so.3", (const char *[]){ "libssl", "libssl3", "ssllib", NULL });
	expect_prefixes("/lib/x86_64-linux-gnu/libgcc_s.so.1", (const char *[]){ "libgcc-s", "libgcc-s1", "gcc-slib", NULL });
	expect_prefixes("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
			(const char *[]){ "libpython3.11", "libpython", "libpython3.11-1", "python3.11lib", NULL });
	expect_prefixes("/usr/bin/python3.11", (const char *[]){ "python3.11", "python", "coreutils", "procps", NULL });
	expect_prefixes("/usr/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so",
			(const char *[]){ "lib-dynload", "python3.11", "libpython3.11", NULL });
	expect_prefixes("/usr/lib/locale/C.utf8/LC_CTYPE",
			(const char *[]){ "lc-ctype", "libc-bin", "locales", "c.utf8", "libc.utf8", "locale", "liblocale", NULL });
	expect_prefixes("/x/ab", (const char *[]){ "libx", NULL });
	expect_prefixes("/Ab_/x.so.1", (const char *[]){ "ab-", "libab-", NULL });
}

static void test_not_dpkg(void **state)
{
	const struct db *db = *state;
	struct ms_pkgdb_opts opts = { .read_ahead = true };
	struct ms_pkgdb *pdb = (struct ms_pkgdb *)&pdb;
	char *info = tu_join(db->dir, "info");
	struct ms_error err;

	assert_int_equal(ms_pkgdb_open(info, &opts, &pdb, &err), MS_ERR_NOTSUP);
	assert_null(pdb);
	assert_non_null(strstr(err.msg, "not a dpkg system"));
	free(info);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential_answers),
		cmocka_unit_test(test_read_ahead_same_answers),
		cmocka_unit_test(test_small_budget_same_answers),
		cmocka_unit_test(test_open_shared_directory),
		cmocka_unit_test(test_read_ahead_started_later),
		cmocka_unit_test(test_closed_unused),
		cmocka_unit_test(test_random_lists),
		cmocka_unit_test(test_not_dpkg),
		cmocka_unit_test(test_name_suggests_wrong_package),
		cmocka_unit_test(test_diversions),
		cmocka_unit_test(test_list_answers_every_path),
		cmocka_unit_test(test_prefixes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
