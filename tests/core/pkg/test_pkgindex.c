/*
 * The negative index of dpkg's lists (pkgindex.h, used by pkgdb.h) over
 * a database made here: NLISTS lists of a few lines, a merged-/usr
 * library, and a library shipped by a package its name does not suggest.
 * The index goes in a directory only root may change (tu_root_tmpdir),
 * never under /var/cache.  Every test counts the list files a lookup
 * reads (ms_pkgdb_lists_read):
 *   - with a sound index, a path no list holds is "not packaged" without
 *     reading the lists, and a listed path its name misleads about is
 *     still found (a hash hit runs the full scan);
 *   - a diverted-to path is answered from the diverted-from path's list
 *     with the index in use;
 *   - a list added or renamed, status or diversions changed: the index is
 *     not used (every list read, the new answer given) and is rebuilt;
 *   - a symlink at the index path, a group-writable, another user's,
 *     truncated, garbage or huge index: not used, nothing followed.
 *   - another user (a child as nobody) reads root's index and, without
 *     it, reads every list and writes no index.
 * Writing needs root: as another user the tests skip, and say so.
 */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pkg/pkgdb.h"
#include "testutil.h"

#define NLISTS 40
#define NFILES (NLISTS + 3) /* and aaa-data, libfoo1:amd64, tools */

struct fx {
	char *dir;   /* the dpkg database */
	char *info;
	char *cache; /* root's, for the index */
	char *index;
};

static int write_list(const struct fx *fx, const char *name, const char *text)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.list", fx->info, name);
	return tu_spit(path, text);
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *status;
	int rc = 0;

	if (!fx)
		return -1;
	*state = fx;
	fx->cache = tu_root_tmpdir();
	if (!fx->cache) {
		print_message("not root, or the current directory is not root's alone: no index can be written\n");
		return 0;
	}
	fx->dir = tu_tmpdir();
	fx->info = tu_join(fx->dir, "info");
	fx->index = tu_join(fx->cache, "dpkg-paths");
	if (mkdir(fx->info, 0755) < 0)
		return -1;
	for (int i = 0; i < NLISTS && rc == 0; i++) {
		char name[32], text[1024];
		size_t at = 0;

		snprintf(name, sizeof(name), "pkg%03d", i);
		at += (size_t)snprintf(text, sizeof(text), "/.\n/usr\n/usr/share\n/usr/share/pkg%03d\n", i);
		for (int k = 0; k < 8; k++)
			at += (size_t)snprintf(text + at, sizeof(text) - at, "/usr/share/pkg%03d/file-%d\n", i, k);
		rc = write_list(fx, name, text);
	}
	rc |= write_list(fx, "libfoo1:amd64", "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libfoo.so.1\n");
	/* libzed.so.1 and libbar.so.2 suggest lists of other names: the first and the last. */
	rc |= write_list(fx, "aaa-data", "/usr/lib/x86_64-linux-gnu/libzed.so.1\n");
	rc |= write_list(fx, "tools", "/.\n/usr\n/usr/lib\n/usr/lib/x86_64-linux-gnu/libbar.so.2\n");
	status = tu_join(fx->dir, "status");
	rc |= tu_spit(status, "Package: tools\nStatus: install ok installed\nVersion: 7\n\n");
	free(status);
	return rc ? -1 : 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	tu_rmtree(fx->dir);
	tu_rmtree(fx->cache);
	free(fx->dir), free(fx->info), free(fx->cache), free(fx->index);
	free(fx);
	return 0;
}

/* Look up one path with the index at fx->index; the lists read, and whether the directory was listed. */
static size_t find_listed(const struct fx *fx, const char *path, struct ms_pkg *out, bool *listed)
{
	struct ms_pkgdb_opts opts = { .index_path = fx->index };
	const char *paths[1] = { path };
	size_t lens[1] = { strlen(path) }, reads;
	struct ms_pkgdb *db;
	struct ms_error err;

	assert_int_equal(ms_pkgdb_open(fx->dir, &opts, &db, &err), 0);
	assert_int_equal(ms_pkgdb_find(db, paths, lens, 1, out, &err), 0);
	reads = ms_pkgdb_lists_read(db);
	if (listed)
		*listed = ms_pkgdb_dir_listed(db);
	ms_pkgdb_close(db);
	return reads;
}

static size_t find1(const struct fx *fx, const char *path, struct ms_pkg *out)
{
	return find_listed(fx, path, out, NULL);
}

static void need_root(const struct fx *fx)
{
	if (!fx->cache)
		skip();
}

static ino_t index_ino(const struct fx *fx)
{
	struct stat st;

	assert_int_equal(lstat(fx->index, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	return st.st_ino;
}

/*
 * Until the coarse clock is in a later second than the info directory's
 * ctime: an index is written only from pins taken so (pkgindex.h).
 */
static void settle(const struct fx *fx)
{
	long long deadline = tu_deadline_in(3000);
	struct timespec now;
	struct stat st;

	assert_int_equal(stat(fx->info, &st), 0);
	do {
		struct timespec ms = { 0, 5000000 };

		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		if (now.tv_sec > st.st_ctim.tv_sec)
			return;
		nanosleep(&ms, NULL);
	} while (tu_now_ms() < deadline);
	fail_msg("the clock did not pass the info directory's ctime within 3 s");
}

/* Build the index: a full scan reads every list and leaves it behind. */
static void build(const struct fx *fx)
{
	struct ms_pkg out;

	settle(fx);
	assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), NFILES);
	assert_false(out.found);
	(void)index_ino(fx);
}

/* Until the file-system clock has moved past path's mtime, so a change to it shows. */
static void next_tick(const char *path)
{
	struct stat st;
	struct timespec now;
	long long deadline = tu_deadline_in(2000);

	assert_int_equal(stat(path, &st), 0);
	do {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
	} while ((now.tv_sec < st.st_mtim.tv_sec ||
		  (now.tv_sec == st.st_mtim.tv_sec && now.tv_nsec <= st.st_mtim.tv_nsec)) &&
		 tu_now_ms() < deadline);
}

static void expect(const struct ms_pkg *p, const char *name)
{
	assert_true(p->found);
	assert_string_equal(p->name, name);
}

static void test_not_packaged_without_the_lists(void **state)
{
	struct fx *fx = *state;
	struct ms_pkg out;

	need_root(fx);
	build(fx);
	/* Names that suggest no list: nothing read at all. */
	assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), 0);
	assert_false(out.found);
	assert_int_equal(find1(fx, "/opt/bench/libqux.so.1", &out), 0);
	assert_false(out.found);
	/* Listed, but in a list its name does not suggest: the hash hits, every list is read. */
	assert_int_equal(find1(fx, "/usr/lib/x86_64-linux-gnu/libbar.so.2", &out), NFILES);
	expect(&out, "tools");
	assert_string_equal(out.version, "7");
	/* The merged-/usr alias of a listed path hits too. */
	assert_int_equal(find1(fx, "/lib/x86_64-linux-gnu/libbar.so.2", &out), NFILES);
	expect(&out, "tools");
	/* A name that suggests its list is found there, as without an index. */
	assert_true(find1(fx, "/usr/lib/x86_64-linux-gnu/libfoo.so.1", &out) < NFILES);
	expect(&out, "libfoo1");
}

static void test_diverted_to_path(void **state)
{
	struct fx *fx = *state;
	char *div;
	struct ms_pkg out;

	need_root(fx);
	/* pkg006 moved pkg005's file aside: the file there is still pkg005's. */
	div = tu_join(fx->dir, "diversions");
	assert_int_equal(tu_spit(div, "/usr/share/pkg005/file-3\n/usr/share/pkg005/file-3.distrib\npkg006\n"), 0);
	free(div);
	build(fx);
	assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), 0);
	/* No list names the asked path, but the lookup is of the diverted one. */
	(void)find1(fx, "/usr/share/pkg005/file-3.distrib", &out);
	expect(&out, "pkg005");
	(void)find1(fx, "/usr/share/pkg005/file-3", &out);
	expect(&out, "pkg006");
}

/* After change, the index is not used: the new answer, every list read, and a new index. */
static void changed(const struct fx *fx, const char *path, const char *owner, size_t nfiles)
{
	ino_t before = index_ino(fx);
	struct ms_pkg out;

	settle(fx);
	assert_int_equal(find1(fx, path, &out), nfiles);
	if (owner)
		expect(&out, owner);
	else
		assert_false(out.found);
	assert_true(index_ino(fx) != before);
	/* The new one is used. */
	assert_int_equal(find1(fx, "/usr/share/nobody/third", &out), 0);
	assert_false(out.found);
}

static void test_list_added_or_renamed(void **state)
{
	struct fx *fx = *state;
	char *from, *to;

	need_root(fx);
	build(fx);
	next_tick(fx->info);
	/* A new list holds the very path the index says no list holds. */
	assert_int_equal(write_list(fx, "zz-new", "/usr/share/nobody/owns-this\n"), 0);
	changed(fx, "/usr/share/nobody/owns-this", "zz-new", NFILES + 1);
	/* A list renamed: as many lists, another name. */
	next_tick(fx->info);
	from = tu_join(fx->info, "zz-new.list");
	to = tu_join(fx->info, "zz-other.list");
	assert_int_equal(rename(from, to), 0);
	free(from), free(to);
	changed(fx, "/usr/share/nobody/owns-this", "zz-other", NFILES + 1);
}

/*
 * The count of lists pins the index too: a list added while the info
 * directory's mtime was set back (root can) keeps every other pin, and
 * the index is still not used, even where it would rule every path out
 * without naming a list.
 */
static void test_list_added_behind_the_mtime(void **state)
{
	struct fx *fx = *state;
	struct timespec times[2];
	struct ms_pkg out;
	struct stat st;

	need_root(fx);
	build(fx);
	assert_int_equal(stat(fx->info, &st), 0);
	next_tick(fx->info);
	assert_int_equal(write_list(fx, "zz-hidden", "/usr/share/nobody/owns-this\n"), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, fx->info, times, 0), 0);
	assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), NFILES + 1);
	expect(&out, "zz-hidden");
}

/*
 * Pins taken within the second of the info directory's last change are
 * not settled: a change in that second may keep its ctime.
 */
static void test_settled_pins(void **state)
{
	struct ms_pkg_index_pins p = { .info_ctime = { 1700000000, 999999999 } };
	struct timespec before = { 1700000000, 999999999 };

	(void)state;
	assert_false(ms_pkg_index_pins_settled(&p, &before));
	before.tv_nsec = 0;
	assert_false(ms_pkg_index_pins_settled(&p, &before));
	before = (struct timespec){ 1700000001, 0 };
	assert_true(ms_pkg_index_pins_settled(&p, &before));
	before = (struct timespec){ 1699999999, 0 };
	assert_false(ms_pkg_index_pins_settled(&p, &before));
}

static void test_status_or_diversions_changed(void **state)
{
	struct fx *fx = *state;
	char *status = tu_join(fx->dir, "status"), *div = tu_join(fx->dir, "diversions");

	need_root(fx);
	build(fx);
	/* dpkg replaces status at every run; here it is rewritten in place, the same size. */
	next_tick(status);
	assert_int_equal(tu_spit(status, "Package: tools\nStatus: install ok installed\nVersion: 8\n\n"), 0);
	changed(fx, "/usr/share/nobody/elsewhere", NULL, NFILES);
	/* A diversion made: the file at the diverted path is the diverter's. */
	assert_int_equal(tu_spit(div, "/usr/share/nobody/owns-this\n/usr/share/nobody/owns-this.real\n:\n"), 0);
	changed(fx, "/usr/share/nobody/elsewhere", NULL, NFILES);
	free(status), free(div);
}

/* What is at the index path is not used: every list read; it is rebuilt (a regular file) after. */
static void ignored(const struct fx *fx)
{
	struct ms_pkg out;
	struct stat st;

	assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), NFILES);
	assert_false(out.found);
	assert_int_equal(lstat(fx->index, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* A sparse index just over MS_PKG_INDEX_MAX whose header counts its hashes (the fourth word). */
static void huge_count(const char *path)
{
	off_t size = (off_t)MS_PKG_INDEX_MAX + 8;
	uint64_t count = ((uint64_t)size - MS_PKG_INDEX_HEADER) / 8;
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	assert_int_equal(pwrite(fd, &count, sizeof(count), 3 * sizeof(count)), (ssize_t)sizeof(count));
	close(fd);
}

/* A fresh copy of the sound index good at the index path: it is used. */
static void restore(const struct fx *fx, const char *good)
{
	struct ms_pkg out;

	(void)unlink(fx->index);
	assert_int_equal(tu_copy(good, fx->index), 0);
	assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), 0);
}

static void test_hostile_index(void **state)
{
	struct fx *fx = *state;
	char *good = tu_join(fx->cache, "good"), *target = tu_join(fx->cache, "target");
	size_t len, len2;
	char *before, *after;

	need_root(fx);
	build(fx);
	assert_int_equal(tu_copy(fx->index, good), 0);
	/* A symlink to a sound index: not followed, and replaced, not written through. */
	restore(fx, good);
	assert_int_equal(rename(fx->index, target), 0);
	assert_int_equal(symlink(target, fx->index), 0);
	before = tu_slurp(target, &len);
	ignored(fx);
	after = tu_slurp(target, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(before, after, len);
	free(before), free(after);
	/* Group-writable. */
	restore(fx, good);
	assert_int_equal(chmod(fx->index, 0664), 0);
	ignored(fx);
	/* Another user's. */
	restore(fx, good);
	assert_int_equal(chown(fx->index, 1, 1), 0);
	ignored(fx);
	/* Truncated mid-hash, cut to the header, and garbage. */
	restore(fx, good);
	assert_int_equal(truncate(fx->index, MS_PKG_INDEX_HEADER + 12), 0);
	ignored(fx);
	restore(fx, good);
	assert_int_equal(truncate(fx->index, MS_PKG_INDEX_HEADER - 1), 0);
	ignored(fx);
	assert_int_equal(tu_spit(fx->index, "garbage, not an index; garbage, not an index; garbage, not an index;"
				 "garbage, not an index; garbage, not an index; garbage, not an index;"
				 "garbage, not an index; garbage, not an index; garbage, not an index;\n"), 0);
	assert_int_equal(chmod(fx->index, 0644), 0);
	ignored(fx);
	/* Cut short by whole hashes: fewer than the header counts. */
	restore(fx, good);
	assert_int_equal(truncate(fx->index, MS_PKG_INDEX_HEADER + 8), 0);
	ignored(fx);
	/* Huge (sparse): over MS_PKG_INDEX_MAX, or so, its count saying so. */
	restore(fx, good);
	assert_int_equal(truncate(fx->index, (off_t)MS_PKG_INDEX_MAX + 8), 0);
	ignored(fx);
	restore(fx, good);
	huge_count(fx->index);
	ignored(fx);
	/* A FIFO there: never blocks. */
	assert_int_equal(unlink(fx->index), 0);
	assert_int_equal(mkfifo(fx->index, 0644), 0);
	ignored(fx);
	/* Two links to it: not used. */
	restore(fx, good);
	assert_int_equal(unlink(target), 0);
	assert_int_equal(link(fx->index, target), 0);
	ignored(fx);
	free(good), free(target);
}

/* A path its name leads to: found in its own list, the directory listed or not. */
static void found_listed(const struct fx *fx, bool listed_expected)
{
	struct ms_pkg out;
	bool listed = !listed_expected;

	assert_true(find_listed(fx, "/usr/lib/x86_64-linux-gnu/libfoo.so.1", &out, &listed) < NFILES);
	expect(&out, "libfoo1");
	assert_string_equal(out.arch, "amd64");
	assert_true(listed == listed_expected);
}

/* Write len bytes at off within the index's names (after its header and hashes). */
static void patch_names(const struct fx *fx, size_t off, const char *bytes, size_t len)
{
	uint64_t count;
	int fd = open(fx->index, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &count, sizeof(count), 3 * sizeof(count)), (ssize_t)sizeof(count));
	assert_int_equal(pwrite(fd, bytes, len, (off_t)(MS_PKG_INDEX_HEADER + count * 8 + off)), (ssize_t)len);
	close(fd);
}

/*
 * With a sound index the lists are named by it: the directory is not
 * listed, and the answers are the same, the architecture from the list's
 * name included.
 */
static void test_names_from_the_index(void **state)
{
	struct fx *fx = *state;
	struct ms_pkg out;
	bool listed = false;

	need_root(fx);
	build(fx);
	found_listed(fx, false);
	assert_int_equal(find_listed(fx, "/usr/lib/x86_64-linux-gnu/libbar.so.2", &out, &listed), NFILES);
	expect(&out, "tools");
	assert_false(listed);
	/* Without an index, the directory is listed. */
	assert_int_equal(unlink(fx->index), 0);
	{
		struct ms_pkgdb_opts opts = { .index_path = NULL };
		const char *paths[1] = { "/usr/lib/x86_64-linux-gnu/libfoo.so.1" };
		size_t lens[1] = { strlen(paths[0]) };
		struct ms_pkgdb *db;
		struct ms_error err;

		assert_int_equal(ms_pkgdb_open(fx->dir, &opts, &db, &err), 0);
		assert_int_equal(ms_pkgdb_find(db, paths, lens, 1, &out, &err), 0);
		assert_true(ms_pkgdb_dir_listed(db));
		ms_pkgdb_close(db);
		expect(&out, "libfoo1");
	}
}

/* An index of format 1, without names: used, and written again with them by root. */
static void test_names_added_to_format_1(void **state)
{
	struct fx *fx = *state;
	uint64_t words[2] = { 1, 0 }, count;
	ino_t before;
	int fd;

	need_root(fx);
	build(fx);
	fd = open(fx->index, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &count, sizeof(count), 3 * sizeof(count)), (ssize_t)sizeof(count));
	assert_int_equal(pwrite(fd, &words[0], 8, 8), 8);                            /* the format */
	assert_int_equal(pwrite(fd, &words[1], 8, MS_PKG_INDEX_HEADER - 8), 8);      /* no names */
	assert_int_equal(ftruncate(fd, (off_t)(MS_PKG_INDEX_HEADER + count * 8)), 0);
	close(fd);
	before = index_ino(fx);
	/* Still sound for what it rules out. */
	{
		struct ms_pkg out;

		assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), 0);
	}
	found_listed(fx, true);
	assert_true(index_ino(fx) != before);
	found_listed(fx, false);
}

/*
 * Names that are not a sorted set of list files' names are not used: the
 * directory is listed, and the hashes still serve.
 */
static void test_hostile_names(void **state)
{
	struct fx *fx = *state;
	char *good = tu_join(fx->cache, "good");
	/* The names begin "aaa-data.list\0libfoo1:amd64.list\0pkg000.list\0pkg001.list\0". */
	static const struct {
		size_t off;
		const char *bytes;
	} bad[] = {
		{ 1, "/" },                /* a/a-data.list: a path, not an entry */
		{ 0, "." },                /* .aa-data.list: hidden */
		{ 12, "x" },               /* aaa-data.lisx */
		{ 13, "x" },               /* no NUL: two names run together */
		{ 38, "2" },               /* pkg002.list before pkg001.list, twice */
	};

	need_root(fx);
	build(fx);
	assert_int_equal(tu_copy(fx->index, good), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ms_pkg out;

		print_message("names: %s at %zu\n", bad[i].bytes, bad[i].off);
		restore(fx, good);
		found_listed(fx, false);
		patch_names(fx, bad[i].off, bad[i].bytes, strlen(bad[i].bytes));
		found_listed(fx, true);
		/* The hashes still rule out, without a list read. */
		assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), 0);
	}
	free(good);
}

/*
 * Built by a scan that finds its path in the first list, with or without
 * the reader reading ahead: every list is still hashed, the reader's
 * included, the scan not stopping once the path is found.
 */
static void built_whole(struct fx *fx, bool read_ahead)
{
	struct ms_pkgdb_opts opts = { .index_path = fx->index, .read_ahead = read_ahead };
	const char *paths[1] = { "/usr/lib/x86_64-linux-gnu/libzed.so.1" };
	size_t lens[1] = { strlen(paths[0]) };
	long long deadline = tu_deadline_in(5000);
	struct ms_pkgdb *db;
	struct ms_error err;
	struct ms_pkg out;

	need_root(fx);
	settle(fx);
	assert_int_equal(ms_pkgdb_open(fx->dir, &opts, &db, &err), 0);
	/* The reader reads every list before the lookup begins. */
	while (read_ahead && ms_pkgdb_lists_read(db) < NFILES && tu_now_ms() < deadline) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	assert_int_equal(ms_pkgdb_find(db, paths, lens, 1, &out, &err), 0);
	assert_int_equal(ms_pkgdb_lists_read(db), NFILES);
	ms_pkgdb_close(db);
	expect(&out, "aaa-data");
	(void)index_ino(fx); /* written */
	/* tools sorts last, read by the reader: its line is in the index. */
	assert_int_equal(find1(fx, "/usr/lib/x86_64-linux-gnu/libbar.so.2", &out), NFILES);
	expect(&out, "tools");
	assert_int_equal(find1(fx, "/usr/share/nobody/owns-this", &out), 0);
}

static void test_built_whole(void **state)
{
	built_whole(*state, false);
}

static void test_built_whole_read_ahead(void **state)
{
	built_whole(*state, true);
}

/*
 * Another user reads root's index and writes none: a child as nobody
 * answers an unlisted path reading no list, and, the index gone, reads
 * them all and leaves nothing behind.
 */
static void test_user_reads_never_writes(void **state)
{
	struct fx *fx = *state;
	struct ms_pkg out;
	struct stat st;
	int status;
	pid_t pid;

	need_root(fx);
	build(fx);
	assert_int_equal(chmod(fx->cache, 0755), 0);
	assert_int_equal(chmod(fx->dir, 0755), 0);
	if (tu_tmpdir_open_to(65534) != 1)
		skip();
	for (int gone = 0; gone < 2; gone++) {
		if (gone)
			assert_int_equal(unlink(fx->index), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
				_exit(2);
			/* It reads root's index, and leaves none of its own. */
			_exit(find1(fx, "/usr/share/nobody/owns-this", &out) == (gone ? NFILES : 0) && !out.found ? 0 : 1);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(lstat(fx->index, &st), -1);
}

static void test_no_full_scan_writes_nothing(void **state)
{
	struct fx *fx = *state;
	struct ms_pkgdb_opts opts = { .index_path = fx->index, .no_full_scan = true };
	const char *paths[1] = { "/usr/share/nobody/owns-this" };
	size_t lens[1] = { strlen(paths[0]) };
	struct ms_pkgdb *db;
	struct ms_error err;
	struct ms_pkg out;
	struct stat st;

	need_root(fx);
	assert_int_equal(ms_pkgdb_open(fx->dir, &opts, &db, &err), 0);
	assert_int_equal(ms_pkgdb_find(db, paths, lens, 1, &out, &err), 0);
	ms_pkgdb_close(db);
	assert_int_equal(lstat(fx->index, &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_packaged_without_the_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diverted_to_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_added_or_renamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_added_behind_the_mtime, setup, teardown),
		cmocka_unit_test(test_settled_pins),
		cmocka_unit_test_setup_teardown(test_status_or_diversions_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_from_the_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_added_to_format_1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_built_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_built_whole_read_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_reads_never_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_full_scan_writes_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
