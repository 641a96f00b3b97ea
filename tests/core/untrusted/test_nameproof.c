/*
 * The proof that a mapping's name is a path to its file (src/core/untrusted/nameproof.h),
 * on a tree the test builds under its temporary directory, looked up from
 * our own root: a symlink root made in root's directory is followed, one a
 * user owns or one in a user's directory refuses the name ("not a path in
 * our root"), and so does a name the kernel does not mark deleted whose
 * path holds another file, a directory (a detached mount's "/") or
 * nothing.  Marked names: gone, another regular file, or something that is
 * not a regular file.  Making a user's symlink needs root (lchown).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "untrusted/lookup.h"
#include "untrusted/nameproof.h"
#include "testutil.h"

#define NOBODY 65534

struct fx {
	char *dir;
	struct stat file; /* DIR/real/file.so: the "mapped" file */
	struct ms_lookup_cache *cache;
	struct ms_lookup_root root;
};

static char *at(struct fx *fx, const char *rel)
{
	return tu_join(fx->dir, rel);
}

static void mkdir_owned(struct fx *fx, const char *rel, uid_t uid)
{
	char *p = at(fx, rel);

	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(lchown(p, uid, uid), 0);
	free(p);
}

static void symlink_owned(struct fx *fx, const char *target, const char *rel, uid_t uid)
{
	char *p = at(fx, rel);

	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(lchown(p, uid, uid), 0);
	free(p);
}

static void spit(struct fx *fx, const char *rel)
{
	char *p = at(fx, rel);

	assert_int_equal(tu_spit(p, "elf"), 0);
	free(p);
}

static int setup(void **state)
{
	struct fx *fx;
	char *file, *fifo;

	if (geteuid() != 0) {
		print_message("skipped: needs root to make a user's symlinks (lchown)\n");
		return 0;
	}
	fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	*state = fx;
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	assert_int_equal(chmod(fx->dir, 0755), 0);
	mkdir_owned(fx, "real", 0);
	spit(fx, "real/file.so");
	spit(fx, "real/other.so");
	file = at(fx, "real/file.so");
	assert_int_equal(stat(file, &fx->file), 0);
	free(file);
	fifo = at(fx, "real/fifo.so");
	assert_int_equal(mkfifo(fifo, 0644), 0);
	free(fifo);
	symlink_owned(fx, "real", "rootlink", 0);
	symlink_owned(fx, "real", "userlink", NOBODY);
	mkdir_owned(fx, "home", NOBODY);
	symlink_owned(fx, "../real", "home/rootlink", 0);
	assert_int_equal(ms_lookup_cache_new(&fx->cache, NULL), 0);
	ms_lookup_root_ours(fx->cache, &fx->root);
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (!fx)
		return 0;
	ms_lookup_root_release(&fx->root);
	ms_lookup_cache_free(fx->cache);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* The proof for a mapping of DIR/real/file.so named rel under DIR ("/" itself when rel is NULL). */
static struct ms_name_proof prove(struct fx *fx, const char *rel)
{
	char *name = rel ? at(fx, rel) : strdup("/");
	struct ms_mapping m = { .name = name, .name_len = strlen(name), .inode = fx->file.st_ino,
				.dev_major = major(fx->file.st_dev), .dev_minor = minor(fx->file.st_dev) };
	struct ms_name_proof p;

	assert_int_equal(ms_name_prove(fx->cache, &fx->root, NULL, &m, &p), 0);
	free(name);
	return p;
}

static void assert_not_ours(const struct ms_name_proof *p, const char *detail)
{
	assert_int_equal(p->kind, MS_NAME_NOT_OURS);
	assert_false(ms_name_is_path(p->kind));
	assert_string_equal(p->why, MS_NAME_WHY_NOT_OURS);
	assert_non_null(strstr(p->detail, detail));
}

static void test_the_file_itself(void **state)
{
	struct fx *fx = *state;
	struct ms_name_proof p;

	if (!fx)
		skip();
	p = prove(fx, "real/file.so");
	assert_int_equal(p.kind, MS_NAME_SAME);
	assert_true(ms_name_is_path(p.kind));
	assert_false(p.relinked);
	/* Unlinked from one name, linked again at it. */
	p = prove(fx, "real/file.so (deleted)");
	assert_int_equal(p.kind, MS_NAME_SAME);
	assert_true(p.relinked);
}

/* root's symlink in root's directory: followed (a merged /usr's /lib). */
static void test_roots_symlink_followed(void **state)
{
	struct fx *fx = *state;
	struct ms_name_proof p;

	if (!fx)
		skip();
	p = prove(fx, "rootlink/file.so");
	assert_int_equal(p.kind, MS_NAME_SAME);
}

/* A user's symlink, or root's in a user's directory: the name is not a path here. */
static void test_users_symlinks_refused(void **state)
{
	struct fx *fx = *state;
	struct ms_name_proof p;

	if (!fx)
		skip();
	p = prove(fx, "userlink/file.so");
	assert_not_ours(&p, "a symlink that a user can change is on the way");
	p = prove(fx, "home/rootlink/file.so");
	assert_not_ours(&p, "a symlink that a user can change is on the way");
	/* What is behind the link makes no difference: no oracle. */
	p = prove(fx, "userlink/absent.so (deleted)");
	assert_not_ours(&p, "a symlink that a user can change is on the way");
	p = prove(fx, "userlink/other.so (deleted)");
	assert_not_ours(&p, "a symlink that a user can change is on the way");
}

/* Unmarked names the kernel still links elsewhere: another file, a directory, nothing. */
static void test_unmarked_elsewhere(void **state)
{
	struct fx *fx = *state;
	struct ms_name_proof p;

	if (!fx)
		skip();
	p = prove(fx, "real/other.so");
	assert_not_ours(&p, "the path holds another file");
	assert_true(p.recheck);
	p = prove(fx, NULL);
	assert_not_ours(&p, "the path holds a directory");
	p = prove(fx, "real/absent.so");
	assert_not_ours(&p, "nothing is at it");
}

/* Marked names: replaced by a regular file, gone, or something else at the path. */
static void test_marked(void **state)
{
	struct fx *fx = *state;
	struct ms_name_proof p;

	if (!fx)
		skip();
	p = prove(fx, "real/other.so (deleted)");
	assert_int_equal(p.kind, MS_NAME_OTHER);
	assert_true(p.marked);
	assert_true(ms_name_is_path(p.kind));
	p = prove(fx, "real/absent.so (deleted)");
	assert_int_equal(p.kind, MS_NAME_GONE);
	assert_true(ms_name_is_path(p.kind));
	p = prove(fx, "real/fifo.so (deleted)");
	assert_int_equal(p.kind, MS_NAME_UNKNOWN);
	assert_string_equal(p.why, MS_NAME_WHY_NOT_REG);
	assert_false(ms_name_is_path(p.kind));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_the_file_itself, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roots_symlink_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_users_symlinks_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmarked_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
