/*
 * Fuzz target for the RECORD reader (src/core/pkg/pyrecord.h).  Properties:
 *   - every path it gives is 1 to cap - 1 bytes, NUL-terminated, and the
 *     reader only moves forward, so it ends on any bytes;
 *   - a path made relative to a site directory is SIZE_MAX, or no longer
 *     than it was, not absolute, without empty, "." or ".." components,
 *     and the same when made relative again (it is settled);
 *   - the paths read with a small buffer are the paths read with a large
 *     one that fit in it, in the same order;
 *   - the same bytes read as an egg-info's installed-files.txt give paths
 *     of the same shape, each under the egg-info directory unless the
 *     line was absolute, and their relative forms the same properties.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pkg/pyrecord.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SITE "/home/u/venv/lib/python3.11/site-packages"
#define EGG "foo-1.2-py3.11.egg-info"
#define SMALL 16
#define LARGE 4096

static void check_relative(const uint8_t *data, size_t size, char *path, size_t len)
{
	char again[LARGE];
	size_t n = ms_pyrecord_site_relative(SITE, strlen(SITE), path, len), m;

	if (n == SIZE_MAX)
		return;
	if (n == 0 || n > len || path[0] == '/')
		fuzz_fail("relative path out of shape", data, size);
	for (size_t at = 0; at <= n;) {
		const char *c = path + at, *slash = memchr(c, '/', n - at);
		size_t clen = slash ? (size_t)(slash - c) : n - at;

		if (clen == 0 || (clen == 1 && c[0] == '.') || (clen == 2 && c[0] == '.' && c[1] == '.'))
			fuzz_fail("empty, . or .. component left", data, size);
		at += clen + 1;
	}
	memcpy(again, path, n);
	m = ms_pyrecord_site_relative(SITE, strlen(SITE), again, n);
	if (m != n || memcmp(again, path, n))
		fuzz_fail("relative path not settled", data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_pyrecord_iter big = { .text = (const char *)data, .len = size };
	struct ms_pyrecord_iter small = big;
	char path[LARGE], spath[SMALL];
	size_t len, slen, last = 0;
	bool have_small = ms_pyrecord_next(&small, spath, sizeof(spath), &slen);

	while (ms_pyrecord_next(&big, path, sizeof(path), &len)) {
		if (len == 0 || len >= sizeof(path) || path[len] != '\0' || big.pos <= last)
			fuzz_fail("path out of range, or no progress", data, size);
		last = big.pos;
		if (len < SMALL) {
			if (!have_small || slen != len || memcmp(spath, path, len))
				fuzz_fail("small and large buffers read differently", data, size);
			have_small = ms_pyrecord_next(&small, spath, sizeof(spath), &slen);
		}
		check_relative(data, size, path, len);
	}
	if (have_small)
		fuzz_fail("the small buffer read a path the large one did not", data, size);
	big = (struct ms_pyrecord_iter){ .text = (const char *)data, .len = size };
	last = 0;
	while (ms_pyrecord_egg_next(&big, EGG, path, sizeof(path), &len)) {
		if (len == 0 || len >= sizeof(path) || path[len] != '\0' || big.pos <= last || memchr(path, '\0', len) ||
		    (path[0] != '/' && strncmp(path, EGG "/", sizeof(EGG))))
			fuzz_fail("egg-info path out of shape, or no progress", data, size);
		last = big.pos;
		check_relative(data, size, path, len);
	}
	return 0;
}
