/*
 * Fuzz target for the ELF note reader (src/core/elf/buildid.h).  Properties:
 *   - it answers 0, MS_END or MS_ERR_LIMIT for any bytes, within the bounds
 *     that ASan checks, and a found ID is 1 to MS_BUILD_ID_MAX bytes;
 *   - the reason it gives is short, terminal-safe text;
 *   - reading the same bytes from a file (memfd, pread) gives the same
 *     answer as parsing them in memory.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/elf/buildid.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char id[MS_BUILD_ID_MAX], id2[MS_BUILD_ID_MAX];
	struct ms_error err = { 0 }, err2 = { 0 };
	size_t len = 99, len2 = 99;
	int rc, rc2, fd;

	rc = ms_buildid_parse(data, size, id, &len, &err);
	if (rc != 0 && rc != MS_END && rc != MS_ERR_LIMIT)
		fuzz_fail("unexpected return code", data, size);
	if (rc == 0 && (len == 0 || len > MS_BUILD_ID_MAX))
		fuzz_fail("build ID length out of range", data, size);
	if (rc != 0 && (len != 0 || !err.msg[0]))
		fuzz_fail("no reason, or a length, with a failure", data, size);
	if (rc != 0)
		fuzz_check_safe_text(err.msg, strlen(err.msg));

	fd = memfd_create("fuzz-buildid", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size == 0 || write(fd, data, size) == (ssize_t)size) {
		rc2 = ms_buildid_read_fd(fd, id2, &len2, &err2);
		if (rc2 != rc || len2 != len || (rc == 0 && memcmp(id, id2, len) != 0) ||
		    strcmp(err.msg, err2.msg) != 0)
			fuzz_fail("file and memory answers differ", data, size);
	}
	close(fd);
	return 0;
}
