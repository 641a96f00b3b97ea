#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

#include "base/dlload.h"
#endif

#include "elf/buildid.h"
#include "elf/elfcheck.h"
#include "base/safewrite.h"
#include "elf/symbols_fetch.h"

struct ms_symbols_fetch {
#ifdef HAVE_DEBUGINFOD
	debuginfod_client *client;
#endif
	struct timespec deadline;
	ms_symbols_progress_fn progress;
	void *arg;
};

#ifdef HAVE_DEBUGINFOD
/*
 * The client library, resolved with dlopen the first time a fetcher is
 * made; the handle stays open for the program's life.  Linked, it loaded
 * libcurl and its TLS and Kerberos libraries at every start of mapscope.
 */
static struct {
	struct ms_dl dl;
	__typeof__(&debuginfod_begin) begin;
	__typeof__(&debuginfod_end) end;
	__typeof__(&debuginfod_set_user_data) set_user_data;
	__typeof__(&debuginfod_get_user_data) get_user_data;
	__typeof__(&debuginfod_set_progressfn) set_progressfn;
	__typeof__(&debuginfod_find_debuginfo) find_debuginfo;
} client_lib;

static bool load_client(void)
{
	const struct ms_dl_sym syms[] = {
		{ "debuginfod_begin", (void **)&client_lib.begin },
		{ "debuginfod_end", (void **)&client_lib.end },
		{ "debuginfod_set_user_data", (void **)&client_lib.set_user_data },
		{ "debuginfod_get_user_data", (void **)&client_lib.get_user_data },
		{ "debuginfod_set_progressfn", (void **)&client_lib.set_progressfn },
		{ "debuginfod_find_debuginfo", (void **)&client_lib.find_debuginfo },
	};

	return ms_dl_load(&client_lib.dl, DEBUGINFOD_SONAME, syms, sizeof(syms) / sizeof(syms[0]));
}
#endif

int ms_symbols_debuginfod_check(struct ms_error *err)
{
#ifdef HAVE_DEBUGINFOD
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct ms_error why;
	int rc;

	if (!urls || !*urls)
		return ms_error_set(err, MS_ERR_NOTSUP, 0, "DEBUGINFOD_URLS is not set");
	if (geteuid() != 0)
		return 0;
	/*
	 * The client reads DEBUGINFOD_CACHE_PATH when it queries, so set it
	 * before any fetch (ours, or libdw's own for an alternate link).
	 */
	rc = ms_safewrite_root_dir(AT_FDCWD, MS_SYMBOLS_DEBUGINFOD_CACHE, &why);
	if (rc < 0)
		return ms_error_set(err, MS_ERR_NOTSUP, why.sys_errno, "no safe cache: %s", why.msg);
	if (setenv("DEBUGINFOD_CACHE_PATH", MS_SYMBOLS_DEBUGINFOD_CACHE, 1) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, errno, "out of memory");
	return 0;
#else
	return ms_error_set(err, MS_ERR_NOTSUP, 0, "mapscope was built without the debuginfod client");
#endif
}

static double remaining(const struct ms_symbols_fetch *f)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(f->deadline.tv_sec - now.tv_sec) + (f->deadline.tv_nsec - now.tv_nsec) / 1e9;
}

#ifdef HAVE_DEBUGINFOD
static int on_progress(debuginfod_client *c, long done, long total)
{
	struct ms_symbols_fetch *f = client_lib.get_user_data(c);

	if (f->progress)
		f->progress(f->arg, done, total);
	return remaining(f) <= 0;
}
#endif

int ms_symbols_fetch_new(bool on, unsigned seconds, ms_symbols_progress_fn progress, void *arg,
			 struct ms_symbols_fetch **out)
{
	struct ms_symbols_fetch *f;
	struct ms_error err;

	*out = NULL;
	if (!on || ms_symbols_debuginfod_check(&err) < 0) {
		unsetenv("DEBUGINFOD_URLS");
		return 0;
	}
	if (!(f = calloc(1, sizeof(*f))))
		return MS_ERR_NOMEM;
	clock_gettime(CLOCK_MONOTONIC, &f->deadline);
	f->deadline.tv_sec += seconds ? seconds : MS_SYMBOLS_DEBUGINFOD_SECONDS;
	f->progress = progress;
	f->arg = arg;
#ifdef HAVE_DEBUGINFOD
	if (!load_client() || !(f->client = client_lib.begin())) {
		free(f);
		unsetenv("DEBUGINFOD_URLS");
		return 0;
	}
	client_lib.set_user_data(f->client, f);
	client_lib.set_progressfn(f->client, on_progress);
#endif
	*out = f;
	return 0;
}

int ms_symbols_fetch_debuginfo(struct ms_symbols_fetch *f, const unsigned char *id, size_t len)
{
#ifdef HAVE_DEBUGINFOD
	unsigned char got[MS_BUILD_ID_MAX];
	size_t got_len = 0;
	double left = remaining(f);
	char seconds[32];
	struct stat st;
	char *path = NULL;
	int fd;

	if (left < 1)
		return -1;
	snprintf(seconds, sizeof(seconds), "%d", (int)left);
	setenv("DEBUGINFOD_TIMEOUT", seconds, 1);
	fd = client_lib.find_debuginfo(f->client, id, (int)len, &path);
	free(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    ms_elfcheck_fd(fd, (uint64_t)st.st_size, false, NULL) != 0 ||
	    ms_buildid_read_fd(fd, got, &got_len, NULL) != 0 || got_len != len || memcmp(got, id, len)) {
		close(fd);
		return -1;
	}
	return fd;
#else
	(void)f; (void)id; (void)len; (void)remaining;
	return -1;
#endif
}

void ms_symbols_fetch_free(struct ms_symbols_fetch *f)
{
	if (!f)
		return;
#ifdef HAVE_DEBUGINFOD
	client_lib.end(f->client);
#endif
	free(f);
}
