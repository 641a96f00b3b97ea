/*
 * The directories the untrusted walk keeps for a run
 * (src/core/untrusted/untrusted_walk.h, "Directories kept"): a walk that
 * starts below kept directories answers as a walk from the root does,
 * whatever flags kept them (refusals and reasons included: symlinks, a
 * directory of another owner, a name that only begins like a kept one,
 * "." and ".."); a kept directory replaced by a symlink is seen as it
 * was, as the contract says, until the cache is cleared; the cache holds
 * at most MS_WALK_CACHE_DIRS descriptors and closes them all when
 * cleared; a cache serves one root.  The tree is built under the test's
 * temporary directory, which is the walks' root; giving directories to
 * uid 65534 needs root.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "untrusted/untrusted_walk.h"
#include "testutil.h"
#include "walkfix.h"

struct fx {
	struct walkfix w;           /* w.root: every walk from the root */
	struct ms_walk_root cached; /* the same root, with a cache */
};

static char *at(struct fx *fx, const char *rel)
{
	return tu_join(fx->w.dir, rel);
}

/* Give rel to uid 65534 (root only; else everything is the test user's anyway). */
static void chown_at(struct fx *fx, const char *rel)
{
	char *p = at(fx, rel);

	if (geteuid() == 0)
		assert_int_equal(lchown(p, 65534, 65534), 0);
	free(p);
}

static void rename_at(struct fx *fx, const char *from, const char *to)
{
	char *a = at(fx, from), *b = at(fx, to);

	assert_int_equal(rename(a, b), 0);
	free(a);
	free(b);
}

static ino_t inode_at(struct fx *fx, const char *rel)
{
	char *p = at(fx, rel);
	struct stat st;

	assert_int_equal(lstat(p, &st), 0);
	free(p);
	return st.st_ino;
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	*state = fx;
	walkfix_open(&fx->w, (const char *const[]){ "a", "a/b", "a/b/c", "a/bb", "a/bb/c", "a/x", NULL });
	tu_spit_in(fx->w.dir, "a/b/c/f1");
	tu_spit_in(fx->w.dir, "a/b/c/f2");
	tu_spit_in(fx->w.dir, "a/bb/c/f1");
	tu_spit_in(fx->w.dir, "a/x/f3");
	tu_symlink_in(fx->w.dir, "../x", "a/b/l");
	tu_symlink_in(fx->w.dir, "/a/x", "a/b/abs");
	fx->cached = fx->w.root;
	fx->cached.dirs = ms_walk_dircache_new();
	assert_non_null(fx->cached.dirs);
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	ms_walk_dircache_free(fx->cached.dirs);
	walkfix_close(&fx->w);
	free(fx);
	return 0;
}

struct answer {
	int rc; /* 0 or the errno */
	const char *why;
	ino_t ino;
	dev_t dev;
	uint64_t mnt;
	bool mnt_known;
};

static struct answer walk(const struct ms_walk_root *root, const char *path, unsigned flags)
{
	struct answer a = { 0 };
	struct stat st;
	int fd = ms_walk_open_mnt(root, path, flags, &st, &a.mnt, &a.mnt_known, &a.why);

	if (fd < 0) {
		a.rc = -fd;
		return a;
	}
	a.ino = st.st_ino;
	a.dev = st.st_dev;
	close(fd);
	return a;
}

/* The cached walk answers as the walk from the root, to the reason and the mount. */
static void same_answer(struct fx *fx, const char *path, unsigned flags)
{
	struct answer c = walk(&fx->cached, path, flags), p = walk(&fx->w.root, path, flags);

	if (c.rc != p.rc || c.why != p.why || c.ino != p.ino || c.dev != p.dev || c.mnt_known != p.mnt_known ||
	    (c.mnt_known && c.mnt != p.mnt))
		fail_msg("%s (flags %#x): kept directories give %d (%s, inode %lu), a walk from the root %d (%s, inode %lu)",
			 path, flags, c.rc, c.why ? c.why : "-", (unsigned long)c.ino, p.rc, p.why ? p.why : "-",
			 (unsigned long)p.ino);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static const unsigned flag_sets[] = {
	0,
	MS_WALK_NO_SYMLINKS,
	MS_WALK_ROOT_DIRS,
	MS_WALK_NO_SYMLINKS | MS_WALK_ROOT_DIRS,
	MS_WALK_FOLLOW_LAST,
	MS_WALK_ROOT_SYMLINKS,
	MS_WALK_ROOT_SYMLINKS | MS_WALK_ROOT_DIRS | MS_WALK_FOLLOW_LAST,
};
#define NFLAGS (sizeof(flag_sets) / sizeof(flag_sets[0]))

/*
 * Every path with every set of flags, in three orders, so that each walk
 * may start below directories that walks with other flags kept.
 */
static void test_same_answers(void **state)
{
	static const char *const paths[] = {
		"/a/b/c/f1", "/a/b/c/f2", "/a/b/l/f3", "/a/b/abs/f3", "/a/b/c/../c/f1", "/a/b/./c/f2",
		"/a/b/c/nope", "/a/b/c/f1/x", "/a/bb/c/f1", "/a/b/cc", "/a/b/c", "/a/b/c/", "/a/b/c/.",
		"/a/x/f3", "//a//b//c//f2", "/", "/a/b/l/../c/f1", "/a/b/c/../../../../a/x/f3", "/a/b/l",
		"/u/d/f", "/u/d/../d/f", "/u/l/f", "/open/f", "/sticky/mine/f", "/sticky/theirs/f",
		"/sticky/ulink/f", "/a/b/nope/f",
	};
	struct fx *fx = *state;
	size_t n = sizeof(paths) / sizeof(paths[0]);

	/* Another user's directories, a symlink of theirs, a directory open to all, a sticky one. */
	tu_mkdir_in(fx->w.dir, "u", 0755);
	tu_mkdir_in(fx->w.dir, "u/d", 0755);
	tu_spit_in(fx->w.dir, "u/d/f");
	tu_symlink_in(fx->w.dir, "d", "u/l");
	chown_at(fx, "u");
	chown_at(fx, "u/l");
	tu_mkdir_in(fx->w.dir, "open", 0777);
	tu_spit_in(fx->w.dir, "open/f");
	tu_mkdir_in(fx->w.dir, "sticky", 01777);
	tu_mkdir_in(fx->w.dir, "sticky/mine", 0755);
	tu_mkdir_in(fx->w.dir, "sticky/theirs", 0755);
	tu_spit_in(fx->w.dir, "sticky/mine/f");
	tu_spit_in(fx->w.dir, "sticky/theirs/f");
	tu_symlink_in(fx->w.dir, "mine", "sticky/ulink");
	chown_at(fx, "sticky/theirs");
	chown_at(fx, "sticky/ulink");
	for (size_t i = 0; i < n; i++)
		for (size_t f = 0; f < NFLAGS; f++)
			same_answer(fx, paths[i], flag_sets[f]);
	for (size_t f = 0; f < NFLAGS; f++)
		for (size_t i = n; i-- > 0;)
			same_answer(fx, paths[i], flag_sets[f]);
	ms_walk_dircache_clear(fx->cached.dirs);
	for (size_t k = 0; k < n * NFLAGS; k++)
		same_answer(fx, paths[(k * 7) % n], flag_sets[(k * 3) % NFLAGS]);
}

/*
 * A directory of another owner, kept by a walk that does not ask who owns
 * it, is refused to one that does, with the walk's own reason; and a
 * symlink planted below a kept directory after it was kept is refused as
 * from the root.
 */
static void test_refusals_below_kept(void **state)
{
	struct fx *fx = *state;
	struct answer a;

	if (geteuid() != 0) {
		print_message("skipped: needs root to give a directory to uid 65534\n");
		skip();
	}
	tu_mkdir_in(fx->w.dir, "u", 0755);
	tu_mkdir_in(fx->w.dir, "u/d", 0755);
	tu_spit_in(fx->w.dir, "u/d/f");
	chown_at(fx, "u/d");
	assert_int_equal(walk(&fx->cached, "/u/d/f", 0).rc, 0);
	a = walk(&fx->cached, "/u/d/f", MS_WALK_ROOT_DIRS);
	assert_int_equal(a.rc, EPERM);
	assert_ptr_equal(a.why, walk(&fx->w.root, "/u/d/f", MS_WALK_ROOT_DIRS).why);
	/* Its parent is root's: still refused when only the parent could be used. */
	a = walk(&fx->cached, "/u/d/f", MS_WALK_ROOT_DIRS | MS_WALK_NO_SYMLINKS);
	assert_int_equal(a.rc, EPERM);

	assert_int_equal(walk(&fx->cached, "/a/b/c/f1", MS_WALK_NO_SYMLINKS).rc, 0);
	tu_symlink_in(fx->w.dir, "c", "a/b/planted");
	a = walk(&fx->cached, "/a/b/planted/f1", MS_WALK_NO_SYMLINKS);
	assert_int_equal(a.rc, ELOOP);
	assert_ptr_equal(a.why, walk(&fx->w.root, "/a/b/planted/f1", MS_WALK_NO_SYMLINKS).why);
	/* A user's symlink, where only root's are followed. */
	chown_at(fx, "a/b/planted");
	a = walk(&fx->cached, "/a/b/planted/f1", MS_WALK_ROOT_SYMLINKS);
	assert_int_equal(a.rc, ELOOP);
	assert_ptr_equal(a.why, MS_WALK_WHY_USER_LINK);
	/* Root's own symlink in root's directory is followed, from the kept one. */
	a = walk(&fx->cached, "/a/b/l/f3", MS_WALK_ROOT_SYMLINKS);
	assert_int_equal(a.rc, 0);
	assert_int_equal(a.ino, inode_at(fx, "a/x/f3"));
}

/* A root others may write to: every walk that asks is refused, the first and the later ones. */
static void test_root_not_roots(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(walk(&fx->cached, "/a/b/c/f1", 0).rc, 0);
	assert_int_equal(chmod(fx->w.dir, 0777), 0);
	for (int i = 0; i < 2; i++) {
		same_answer(fx, "/a/b/c/f1", MS_WALK_ROOT_DIRS);
		assert_int_equal(walk(&fx->cached, "/a/b/c/f1", MS_WALK_ROOT_DIRS).rc, EPERM);
	}
	assert_int_equal(walk(&fx->cached, "/a/b/c/f2", 0).rc, 0);
}

/*
 * The race the contract keeps: a kept directory replaced by a symlink
 * between two walks is seen as it was (the later walk finds the file in
 * the old directory, now elsewhere, and never what the symlink points
 * to); once the run is over (cleared), the symlink is refused as from the
 * root.  That the old file is found also shows the kept directory is used.
 */
static void test_replaced_by_symlink(void **state)
{
	struct fx *fx = *state;
	ino_t f1 = inode_at(fx, "a/b/c/f1");
	struct answer a;

	tu_mkdir_in(fx->w.dir, "a/x/c", 0755);
	tu_spit_in(fx->w.dir, "a/x/c/f1");
	assert_int_equal(walk(&fx->cached, "/a/b/c/f2", MS_WALK_NO_SYMLINKS).rc, 0);
	rename_at(fx, "a/b/c", "a/b/old");
	tu_symlink_in(fx->w.dir, "../x/c", "a/b/c");
	a = walk(&fx->w.root, "/a/b/c/f1", MS_WALK_NO_SYMLINKS);
	assert_int_equal(a.rc, ELOOP);
	a = walk(&fx->cached, "/a/b/c/f1", MS_WALK_NO_SYMLINKS);
	assert_int_equal(a.rc, 0);
	assert_int_equal(a.ino, f1);
	/* With other flags too: the kept directory is the flags' own business only for ROOT_DIRS. */
	a = walk(&fx->cached, "/a/b/c/f1", 0);
	assert_int_equal(a.rc, 0);
	assert_int_equal(a.ino, f1);
	/* The symlink itself, as the last name, is what is at the path now. */
	a = walk(&fx->cached, "/a/b/c", 0);
	assert_int_equal(a.rc, 0);
	assert_int_equal(a.ino, inode_at(fx, "a/b/c"));
	ms_walk_dircache_clear(fx->cached.dirs);
	a = walk(&fx->cached, "/a/b/c/f1", MS_WALK_NO_SYMLINKS);
	assert_int_equal(a.rc, ELOOP);
	/* Followed where the flags allow, to the symlink's target. */
	a = walk(&fx->cached, "/a/b/c/f1", 0);
	assert_int_equal(a.rc, 0);
	assert_int_equal(a.ino, inode_at(fx, "a/x/c/f1"));
}

/*
 * ".." leaves kept directories without closing them: a later walk still
 * starts below them (descriptors opened meanwhile would have taken the
 * numbers of closed ones).
 */
static void test_dotdot_keeps_kept(void **state)
{
	struct fx *fx = *state;
	int spare[8];

	assert_int_equal(walk(&fx->cached, "/a/b/c/f1", 0).rc, 0);
	same_answer(fx, "/a/b/c/../c/f2", 0);
	same_answer(fx, "/a/b/c/../../x/f3", 0);
	same_answer(fx, "/a/b/abs/f3", 0);
	for (size_t i = 0; i < 8; i++)
		assert_true((spare[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
	same_answer(fx, "/a/b/c/f1", 0);
	same_answer(fx, "/a/b/c/f2", MS_WALK_NO_SYMLINKS);
	for (size_t i = 0; i < 8; i++)
		close(spare[i]);
}

/*
 * At most MS_WALK_CACHE_DIRS descriptors, however many directories the
 * walks pass (side by side, or one deep path); right answers after the
 * least used ones made room; none left once cleared.
 */
static void test_bounded(void **state)
{
	struct fx *fx = *state;
	char rel[4096], path[4096];
	int before = count_fds();

	for (int i = 0; i < 2 * MS_WALK_CACHE_DIRS; i++) {
		snprintf(rel, sizeof(rel), "d%d", i);
		tu_mkdir_in(fx->w.dir, rel, 0755);
		snprintf(rel, sizeof(rel), "d%d/f", i);
		tu_spit_in(fx->w.dir, rel);
	}
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 2 * MS_WALK_CACHE_DIRS; i++) {
			snprintf(path, sizeof(path), "/d%d/f", i);
			same_answer(fx, path, 0);
			assert_true(count_fds() <= before + MS_WALK_CACHE_DIRS);
		}
	ms_walk_dircache_clear(fx->cached.dirs);
	assert_int_equal(count_fds(), before);
	/* One path deeper than the cache holds. */
	strcpy(rel, "deep");
	tu_mkdir_in(fx->w.dir, rel, 0755);
	for (int i = 0; i < MS_WALK_CACHE_DIRS + 8; i++) {
		strcat(rel, "/s");
		tu_mkdir_in(fx->w.dir, rel, 0755);
	}
	strcat(rel, "/f");
	tu_spit_in(fx->w.dir, rel);
	snprintf(path, sizeof(path), "/%s", rel);
	for (int round = 0; round < 3; round++) {
		same_answer(fx, path, 0);
		assert_true(count_fds() <= before + MS_WALK_CACHE_DIRS);
	}
	ms_walk_dircache_clear(fx->cached.dirs);
	assert_int_equal(count_fds(), before);
}

/* A cache serves one root: walks from another root with the same cache find that root's files. */
static void test_one_root(void **state)
{
	struct fx *fx = *state;
	struct ms_walk_root other;
	char *p = at(fx, "a/bb");
	struct answer a;

	other = fx->cached;
	other.fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(p);
	assert_true(other.fd >= 0);
	/* "/c/f1" names a/bb/c/f1 from there, and c/f1 from the first root. */
	tu_mkdir_in(fx->w.dir, "c", 0755);
	tu_spit_in(fx->w.dir, "c/f1");
	assert_int_equal(walk(&fx->cached, "/c/f1", 0).rc, 0);
	a = walk(&other, "/c/f1", 0);
	assert_int_equal(a.rc, 0);
	assert_int_equal(a.ino, inode_at(fx, "a/bb/c/f1"));
	/* And back: the first root's walks are its own again. */
	a = walk(&fx->cached, "/c/f1", 0);
	assert_int_equal(a.rc, 0);
	assert_int_equal(a.ino, inode_at(fx, "c/f1"));
	a = walk(&other, "/a/f1", 0);
	assert_int_equal(a.rc, ENOENT);
	close(other.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_below_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_not_roots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_by_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dotdot_keeps_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_root, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
