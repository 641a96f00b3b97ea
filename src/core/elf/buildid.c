#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elf/buildid.h"
#include "elf/elfnote.h"

struct found {
	unsigned char *out;
	size_t *len;
};

/* The kernel's parse_build_id takes the first GNU build-ID note of a size it can hold. */
static bool take_id(void *arg, const unsigned char *desc, size_t descsz)
{
	struct found *f = arg;

	if (descsz == 0 || descsz > MS_BUILD_ID_MAX)
		return false;
	memcpy(f->out, desc, descsz);
	*f->len = descsz;
	return true;
}

int ms_buildid_parse(const unsigned char *buf, size_t size, unsigned char out[MS_BUILD_ID_MAX],
		     size_t *len, struct ms_error *err)
{
	struct found f = { out, len };
	const struct ms_elfnote_want want = {
		.name = ELF_NOTE_GNU, .namesz = sizeof(ELF_NOTE_GNU), .type = NT_GNU_BUILD_ID,
		.what = "GNU build-ID note", .limit = MS_BUILDID_READ_MAX, .take = take_id, .arg = &f,
	};

	*len = 0;
	return ms_elfnote_find(buf, size < MS_BUILDID_READ_MAX ? size : MS_BUILDID_READ_MAX, &want, err);
}

int ms_buildid_read_fd(int fd, unsigned char out[MS_BUILD_ID_MAX], size_t *len,
		       struct ms_error *err)
{
	unsigned char *buf = malloc(MS_BUILDID_READ_MAX);
	size_t have;
	int rc;

	*len = 0;
	if (!buf)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = ms_elfnote_pread(fd, buf, MS_BUILDID_READ_MAX, &have, err);
	if (rc == 0)
		rc = ms_buildid_parse(buf, have, out, len, err);
	free(buf);
	return rc;
}

void ms_buildid_hex(const unsigned char *id, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 0xf];
	}
	out[2 * len] = '\0';
}
