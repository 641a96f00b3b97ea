/* dpkglog_gz.c - gzip through zlib loaded at first use: see dpkglog_gz.h. */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "pkg/dpkglog_gz.h"

#ifdef HAVE_ZLIB
#include <limits.h>
#include <zlib.h>

#include "base/dlload.h"

#define GZ_FUNCS(X) X(gzdopen) X(gzread) X(gzerror) X(gzclose)

static struct {
	struct ms_dl dl;
#define X(f) __typeof__(&f) f;
	GZ_FUNCS(X)
#undef X
} zlib;

static bool zlib_loaded(void)
{
	const struct ms_dl_sym syms[] = {
#define X(f) { #f, (void **)&zlib.f },
		GZ_FUNCS(X)
#undef X
	};

	return ms_dl_load(&zlib.dl, ZLIB_SONAME, syms, sizeof(syms) / sizeof(syms[0]));
}

struct ms_gz {
	gzFile file;
};

int ms_gz_open(int fd, struct ms_gz **out)
{
	struct ms_gz *z;
	int dup_fd;

	*out = NULL;
	if (!zlib_loaded() || !(z = calloc(1, sizeof(*z))))
		return -1;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	z->file = dup_fd >= 0 ? zlib.gzdopen(dup_fd, "rb") : NULL;
	if (!z->file) {
		if (dup_fd >= 0)
			close(dup_fd);
		free(z);
		return -1;
	}
	*out = z;
	return 0;
}

long long ms_gz_read(struct ms_gz *z, void *buf, size_t size)
{
	int n = zlib.gzread(z->file, buf, size > INT_MAX ? INT_MAX : (unsigned)size), errnum = Z_OK;

	/* A stream cut short ends like a whole one, with an error left behind. */
	if (n == 0)
		zlib.gzerror(z->file, &errnum);
	return n < 0 || errnum != Z_OK ? -1 : n;
}

void ms_gz_close(struct ms_gz *z)
{
	if (!z)
		return;
	zlib.gzclose(z->file);
	free(z);
}
#else
int ms_gz_open(int fd, struct ms_gz **out)
{
	(void)fd;
	*out = NULL;
	return -1;
}

long long ms_gz_read(struct ms_gz *z, void *buf, size_t size)
{
	(void)z, (void)buf, (void)size;
	return -1;
}

void ms_gz_close(struct ms_gz *z)
{
	(void)z;
}
#endif
