/*
 * Fuzz target for the mount-table classifier (src/core/proc/fstype.h), whose
 * input holds paths and FUSE subtypes chosen by users.  Properties: no
 * crash, leak or read out of bounds for any bytes; every answer is NULL or
 * one of the module's short static reasons (never text from the input);
 * the first line's device, when it parses, gets an answer consistent with
 * its type.  Mount IDs and refused mount points (unescaped from \\ooo) are
 * asked the same way.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/proc/fstype.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reason(const char *why, const uint8_t *data, size_t size)
{
	if (why && (strncmp(why, "file on ", 8) != 0 || strlen(why) > 80))
		fuzz_fail("a reason that is not the module's own", data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_fstypes *t;
	struct ms_error err;

	if (ms_fstypes_parse((const char *)data, size, &t, &err) < 0)
		return 0;
	/* Devices from the input's bytes, and a few fixed ones. */
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		uint32_t major, minor;

		memcpy(&major, data + i, 4);
		memcpy(&minor, data + i + 4, 4);
		check_reason(ms_fstypes_refuse(t, major, minor), data, size);
		check_reason(ms_fstypes_refuse(t, major & 0xff, minor & 0xff), data, size);
	}
	check_reason(ms_fstypes_refuse(t, 0, 0), data, size);
	/* Mount IDs and mount points (untrusted_walk.h): the same kind of answers. */
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		uint64_t id;
		bool known;

		memcpy(&id, data + i, 8);
		check_reason(ms_fstypes_refuse_mount(t, id, &known), data, size);
		check_reason(ms_fstypes_refuse_mount(t, id % 4096, &known), data, size);
	}
	for (size_t i = 0; i < size && i < 64; i++)
		check_reason(ms_fstypes_refuse_point(t, (const char *)data + i, size - i < 64 ? size - i : 64),
			     data, size);
	/* Unlisted anonymous devices (every FUSE and network file system's) are refused. */
	if (!ms_fstypes_refuse(t, 0, 0xffffffffu) && !memmem(data, size, "0:4294967295", 12))
		fuzz_fail("an unlisted anonymous device was not refused", data, size);
	ms_fstypes_free(t);
	return 0;
}
