/* walkfix.c - a root of its own for the untrusted walk's tests: see walkfix.h. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"
#include "walkfix.h"

void walkfix_open(struct walkfix *w, const char *const *dirs)
{
	w->dir = tu_tmpdir();
	assert_non_null(w->dir);
	assert_int_equal(chmod(w->dir, 0755), 0);
	for (; *dirs; dirs++)
		tu_mkdir_in(w->dir, *dirs, 0755);
	w->rootfd = open(w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(w->rootfd >= 0);
	assert_int_equal(ms_walk_mounts_load(-1, &w->mounts, NULL), 0);
	w->root = (struct ms_walk_root){ .fd = w->rootfd, .mounts = w->mounts };
}

void walkfix_close(struct walkfix *w)
{
	ms_walk_mounts_free(w->mounts);
	if (w->rootfd >= 0)
		close(w->rootfd);
	tu_rmtree(w->dir);
	free(w->dir);
	w->dir = NULL;
	w->mounts = NULL;
	w->rootfd = -1;
}
