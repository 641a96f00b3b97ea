/*
 * Fuzz target for the SONAME reader (src/core/elf/soname.h).  Properties:
 *   - it answers 0, MS_END or MS_ERR_LIMIT for any bytes, within the bounds
 *     that ASan checks; a found SONAME is 1 to MS_SONAME_MAX bytes, and
 *     every failure has a short, terminal-safe reason;
 *   - reading the same bytes from a file (memfd, pread) gives the same
 *     answer as parsing them in memory;
 *   - the version read from the same bytes taken as a name is digits and
 *     dots only.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/elf/soname.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[MS_SONAME_MAX + 1], out2[MS_SONAME_MAX + 1], version[MS_VERSION_MAX + 1];
	struct ms_error err = { 0 }, err2 = { 0 };
	size_t vlen;
	int rc, rc2, fd;

	rc = ms_soname_parse(data, size, out, &err);
	if (rc != 0 && rc != MS_END && rc != MS_ERR_LIMIT)
		fuzz_fail("unexpected return code", data, size);
	if (rc == 0 && (strlen(out) == 0 || strlen(out) > MS_SONAME_MAX))
		fuzz_fail("SONAME length out of range", data, size);
	if (rc != 0 && (out[0] || !err.msg[0]))
		fuzz_fail("no reason, or a name, with a failure", data, size);
	if (rc != 0)
		fuzz_check_safe_text(err.msg, strlen(err.msg));

	vlen = ms_version_from_name((const char *)data, size, version);
	if (vlen != strlen(version) || vlen > MS_VERSION_MAX ||
	    strspn(version, "0123456789.") != vlen)
		fuzz_fail("version is not digits and dots", data, size);

	fd = memfd_create("fuzz-soname", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size == 0 || write(fd, data, size) == (ssize_t)size) {
		rc2 = ms_soname_read_fd(fd, out2, &err2);
		if (rc2 != rc || strcmp(out, out2) != 0 || strcmp(err.msg, err2.msg) != 0)
			fuzz_fail("file and memory answers differ", data, size);
	}
	close(fd);
	return 0;
}
