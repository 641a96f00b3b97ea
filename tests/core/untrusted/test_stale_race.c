/*
 * The stat-then-open race of the stale lookup (untrusted/lookup.h): between the
 * check of a path and the read of its build ID, the path is swapped for a
 * symlink to a FIFO (through the lookup's race seam).  The lookup must not
 * block (alarm-guarded), must never open the FIFO (inotify IN_OPEN on it
 * stays silent: O_PATH opens raise no event), and must say why it did not
 * read.  A swap after the name is open O_PATH changes nothing: the checked
 * file is what is read.  A lookup that keeps its descriptor
 * (ms_lookup_path_kept) opens what it looked up without walking the name
 * again, so a swap right after the lookup changes nothing either; a lookup
 * answered from the cache keeps none.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf/buildid.h"
#include "elf/lookup_buildid.h"
#include "untrusted/lookup.h"
#include "testutil.h"

struct fx {
	char *dir;
	char *path;  /* dir/lib.so: a copy of libstale-a.so, then the symlink */
	char *fifo;  /* dir/fifo */
	int inotify;
	enum ms_lookup_step swap_at;
	int swaps;
	struct ms_lookup_cache *cache;
	struct ms_lookup_root root;
	struct ms_proc *self;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *lib = tu_built("libstale-a.so");
	struct ms_error err;

	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	fx->path = tu_join(fx->dir, "lib.so");
	fx->fifo = tu_join(fx->dir, "fifo");
	assert_int_equal(tu_copy(lib, fx->path), 0);
	assert_int_equal(mkfifo(fx->fifo, 0600), 0);
	fx->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(fx->inotify >= 0);
	assert_true(inotify_add_watch(fx->inotify, fx->fifo, IN_OPEN) >= 0);
	assert_int_equal(ms_lookup_cache_new(&fx->cache, &err), 0);
	assert_int_equal(ms_proc_open(getpid(), &fx->self, &err), 0);
	free(lib);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	alarm(0);
	ms_lookup_root_release(&fx->root);
	ms_lookup_cache_free(fx->cache);
	ms_proc_close(fx->self);
	close(fx->inotify);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->path);
	free(fx->fifo);
	free(fx);
	return 0;
}

/* The seam: at the chosen step, rename a symlink to the FIFO over the path. */
static void swap_for_fifo_link(void *arg, enum ms_lookup_step step, const char *path)
{
	struct fx *fx = arg;
	char *link;

	if (step != fx->swap_at)
		return;
	link = tu_join(fx->dir, "link");
	assert_int_equal(symlink(fx->fifo, link), 0);
	assert_int_equal(rename(link, path), 0);
	fx->swaps++;
	free(link);
}

static bool fifo_was_opened(struct fx *fx)
{
	char buf[4096];

	return read(fx->inotify, buf, sizeof(buf)) > 0;
}

/* Stat the path, then read its build ID with the swap at step. */
static struct ms_lookup *race(struct fx *fx, enum ms_lookup_step step)
{
	struct ms_lookup *l;

	fx->swap_at = step;
	ms_lookup_cache_set_race_fn(fx->cache, swap_for_fifo_link, fx);
	ms_lookup_root_of(fx->cache, fx->self, &fx->root);
	assert_true(fx->root.fd >= 0);
	assert_int_equal(ms_lookup_path(fx->cache, &fx->root, fx->path, strlen(fx->path), &l), 0);
	assert_int_equal(l->err, 0);
	assert_true(S_ISREG(l->mode));
	/* An open that blocks on the FIFO ends the test here (SIGALRM). */
	alarm(5);
	ms_lookup_build_id(&fx->root, fx->path, strlen(fx->path), l);
	alarm(0);
	assert_int_equal(fx->swaps, 1);
	return l;
}

static void test_swap_before_open_is_refused(void **state)
{
	struct fx *fx = *state;
	struct ms_lookup *l = race(fx, MS_LOOKUP_BEFORE_OPEN);

	assert_false(fifo_was_opened(fx));
	assert_int_equal(l->bid_state, MS_LOOKUP_BID_REFUSED);
	assert_string_equal(l->bid_why, "the path changed under us: not a regular file now");
}

static void test_swap_after_check_reads_the_checked_file(void **state)
{
	struct fx *fx = *state;
	struct ms_lookup *l = race(fx, MS_LOOKUP_BEFORE_REOPEN);
	char *lib = tu_built("libstale-a.so");
	unsigned char id[MS_BUILD_ID_MAX];
	size_t len;
	int fd = open(lib, O_RDONLY | O_CLOEXEC);

	assert_false(fifo_was_opened(fx));
	assert_int_equal(l->bid_state, MS_LOOKUP_BID_HAVE);
	assert_true(fd >= 0);
	assert_int_equal(ms_buildid_read_fd(fd, id, &len, NULL), 0);
	assert_int_equal(l->bid_len, len);
	assert_memory_equal(l->bid, id, len);
	close(fd);
	free(lib);
}

/* A symlink at the path from the start is not followed: not a regular file. */
static void test_symlink_at_path_is_not_followed(void **state)
{
	struct fx *fx = *state;
	char *link = tu_join(fx->dir, "link");
	struct ms_lookup *l;

	assert_int_equal(symlink(fx->fifo, link), 0);
	assert_int_equal(rename(link, fx->path), 0);
	ms_lookup_root_of(fx->cache, fx->self, &fx->root);
	assert_int_equal(ms_lookup_path(fx->cache, &fx->root, fx->path, strlen(fx->path), &l), 0);
	assert_false(S_ISREG(l->mode));
	ms_lookup_build_id(&fx->root, fx->path, strlen(fx->path), l);
	assert_int_not_equal(l->bid_state, MS_LOOKUP_BID_HAVE);
	assert_false(fifo_was_opened(fx));
	free(link);
}

/* The build ID of the file open at fd equals libstale-a.so's. */
static void assert_stale_a(int fd)
{
	char *lib = tu_built("libstale-a.so");
	unsigned char id[MS_BUILD_ID_MAX], got[MS_BUILD_ID_MAX];
	size_t len, got_len;
	int lfd = open(lib, O_RDONLY | O_CLOEXEC);

	assert_true(lfd >= 0);
	assert_int_equal(ms_buildid_read_fd(lfd, id, &len, NULL), 0);
	assert_int_equal(ms_buildid_read_fd(fd, got, &got_len, NULL), 0);
	assert_int_equal(got_len, len);
	assert_memory_equal(got, id, len);
	close(lfd);
	free(lib);
}

static void test_kept_descriptor_is_what_is_read(void **state)
{
	struct fx *fx = *state;
	struct ms_lookup_kept kept, again;
	struct ms_lookup *l, *l2;
	const char *why;
	char *link = tu_join(fx->dir, "link");
	int fd;

	ms_lookup_root_of(fx->cache, fx->self, &fx->root);
	assert_true(fx->root.fd >= 0);
	assert_int_equal(ms_lookup_path_kept(fx->cache, &fx->root, fx->path, strlen(fx->path), &l, &kept), 0);
	assert_int_equal(l->err, 0);
	assert_true(kept.fd >= 0);
	/* From the cache: nothing walked, nothing kept. */
	assert_int_equal(ms_lookup_path_kept(fx->cache, &fx->root, fx->path, strlen(fx->path), &l2, &again), 0);
	assert_ptr_equal(l2, l);
	assert_int_equal(again.fd, -1);
	/* The path swapped for a link to the FIFO after the lookup: a second walk would refuse it. */
	assert_int_equal(symlink(fx->fifo, link), 0);
	assert_int_equal(rename(link, fx->path), 0);
	alarm(5);
	fd = ms_lookup_open_kept(&fx->root, fx->path, strlen(fx->path), l, &kept, &why);
	alarm(0);
	assert_true(fd >= 0);
	assert_int_equal(kept.fd, -1);
	assert_false(fifo_was_opened(fx));
	assert_stale_a(fd);
	close(fd);
	free(link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_swap_before_open_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_after_check_reads_the_checked_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_at_path_is_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kept_descriptor_is_what_is_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
