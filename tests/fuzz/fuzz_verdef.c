/*
 * Fuzz target for the version definitions reader (src/core/elf/verdef.h),
 * LIBVER.  Properties:
 *   - it answers 0, MS_END or MS_ERR_LIMIT for any bytes, within the bounds
 *     that ASan checks; a found name is NAME_N[.N...] of at most
 *     MS_VERDEF_NAME_MAX bytes (letters, digits, '_' and '.'), and
 *     ms_verdef_cmp ranks it above a name that is not of that form;
 *   - every failure has a short, terminal-safe reason and no name;
 *   - reading the same bytes from a file (memfd, pread) gives the same
 *     answer as parsing them in memory;
 *   - one open of the headers (elfdyn.h) answers the SONAME and LIBVER as
 *     the two separate readers do.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/elf/soname.h"
#include "core/elf/verdef.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ms_elfdyn shared; /* 64 KiB: not on the fuzzer's stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[MS_VERDEF_NAME_MAX + 1], out2[MS_VERDEF_NAME_MAX + 1];
	char so[MS_SONAME_MAX + 1], so2[MS_SONAME_MAX + 1];
	struct ms_error err = { 0 }, err2 = { 0 }, serr = { 0 }, serr2 = { 0 };
	int rc, rc2, src, src2, fd;

	rc = ms_verdef_parse(data, size, out, &err);
	if (rc != 0 && rc != MS_END && rc != MS_ERR_LIMIT)
		fuzz_fail("unexpected return code", data, size);
	if (rc == 0 && (strlen(out) == 0 || strlen(out) > MS_VERDEF_NAME_MAX ||
			strspn(out, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.") !=
				strlen(out) ||
			ms_verdef_cmp(out, "not a version") <= 0))
		fuzz_fail("a LIBVER that is not NAME_N[.N...]", data, size);
	if (rc != 0 && (out[0] || !err.msg[0]))
		fuzz_fail("no reason, or a name, with a failure", data, size);
	if (rc != 0)
		fuzz_check_safe_text(err.msg, strlen(err.msg));

	/* The shared open: SONAME and LIBVER as the separate readers give them. */
	src = ms_soname_parse(data, size, so, &serr);
	rc2 = ms_elfdyn_open_mem(&shared, data, size, &err2);
	src2 = rc2;
	if (rc2 == 0) {
		src2 = ms_soname_of(&shared, so2, &serr2);
		rc2 = ms_verdef_of(&shared, out2, &err2);
	} else {
		so2[0] = out2[0] = '\0';
		serr2 = err2;
	}
	if (rc2 != rc || strcmp(out, out2) != 0 || strcmp(err.msg, err2.msg) != 0 ||
	    src2 != src || strcmp(so, so2) != 0 || strcmp(serr.msg, serr2.msg) != 0)
		fuzz_fail("one shared open and the separate readers differ", data, size);

	fd = memfd_create("fuzz-verdef", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size == 0 || write(fd, data, size) == (ssize_t)size) {
		memset(&err2, 0, sizeof(err2));
		rc2 = ms_verdef_read_fd(fd, out2, &err2);
		if (rc2 != rc || strcmp(out, out2) != 0 || strcmp(err.msg, err2.msg) != 0)
			fuzz_fail("file and memory answers differ", data, size);
	}
	close(fd);
	return 0;
}
