/* walk_read.c - a small file at a user's path, read through the walk: see walk_read.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/saferead.h"
#include "untrusted/walk_read.h"

bool ms_walk_reader_ready(struct ms_walk_reader *r)
{
	if (!r->tried) {
		r->tried = true;
		r->root.fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (r->root.fd >= 0 && ms_walk_mounts_load(-1, &r->root.mounts, NULL) == 0 &&
		    ms_walk_mnt_id(r->root.fd, &r->root.mnt) == 0)
			r->root.mnt_known = true;
		r->root.dirs = ms_walk_dircache_new();
	}
	return r->root.fd >= 0 && r->root.mounts;
}

void ms_walk_reader_clear(struct ms_walk_reader *r)
{
	ms_walk_dircache_clear(r->root.dirs);
}

void ms_walk_reader_free(struct ms_walk_reader *r)
{
	ms_walk_dircache_free(r->root.dirs);
	ms_walk_mounts_free(r->root.mounts);
	if (r->root.fd >= 0)
		close(r->root.fd);
	free(r->buf);
	*r = (struct ms_walk_reader)MS_WALK_READER_INIT;
}

ssize_t ms_walk_read(struct ms_walk_reader *r, const char *path, unsigned flags, size_t max, bool whole,
		     bool *complete, const char **why)
{
	struct stat pst, st;
	size_t limit, got = 0;
	int pathfd, fd, e;

	*complete = false;
	if (!ms_walk_reader_ready(r)) {
		*why = "our root or its mount table cannot be read";
		return -EIO;
	}
	pathfd = ms_walk_open(&r->root, path, flags, &pst, why);
	if (pathfd < 0) {
		if (!*why)
			*why = pathfd == -ENOENT ? "no such file" : "cannot be reached";
		return pathfd;
	}
	if (!S_ISREG(pst.st_mode)) {
		close(pathfd);
		*why = ms_file_kind(pst.st_mode, &e);
		return -e;
	}
	if (whole && (uintmax_t)pst.st_size > max) {
		close(pathfd);
		*why = "larger than the bound";
		return -EFBIG;
	}
	fd = ms_walk_reopen_read(pathfd, &pst, &st, why);
	if (fd < 0)
		return -EIO;
	/* One byte past the size it had: a file that grew meanwhile shows it. */
	limit = whole ? (size_t)st.st_size + 1 : max;
	if (limit + 1 > r->cap) {
		char *b = realloc(r->buf, limit + 1);

		if (!b) {
			close(fd);
			*why = "out of memory";
			return -ENOMEM;
		}
		r->buf = b;
		r->cap = limit + 1;
	}
	while (got < limit) {
		ssize_t n = read(fd, r->buf + got, limit - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			*why = "cannot be read";
			return -EIO;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (whole && got > (size_t)st.st_size) {
		*why = "it grew while it was read";
		return -EAGAIN;
	}
	r->buf[got] = '\0';
	*complete = (uintmax_t)got == (uintmax_t)st.st_size;
	*why = NULL;
	return (ssize_t)got;
}
