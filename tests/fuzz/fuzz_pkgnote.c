/*
 * Fuzz target for the ELF package note reader (src/core/elf/pkgnote.h).
 * Each input is read twice: as the first bytes of an ELF file, and as a
 * note's descriptor (so the JSON parser is reached without an ELF around
 * it).  Properties:
 *   - the answer is 0, MS_END, MS_ERR_LIMIT or MS_ERR_PROTO for any bytes,
 *     within the bounds that ASan checks;
 *   - a found note has a name, and every field is NUL-terminated inside
 *     its array and well-formed UTF-8; a refused one leaves every field
 *     empty, with a reason that is short, terminal-safe text;
 *   - reading the same bytes from a file (memfd, pread in two steps) gives
 *     the same answer as parsing them in memory.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/base/escape.h"
#include "core/elf/pkgnote.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool utf8(const char *s, size_t size)
{
	size_t len = strnlen(s, size);

	if (len == size)
		return false;
	for (size_t i = 0; i < len;) {
		enum ms_text_kind kind;

		i += ms_text_unit(s + i, len - i, &kind);
		if (kind == MS_TEXT_INVALID)
			return false;
	}
	return true;
}

static void check(int rc, const struct ms_pkgnote *n, const struct ms_error *err, const uint8_t *data,
		  size_t size)
{
	static const struct ms_pkgnote empty;

	if (rc != 0 && rc != MS_END && rc != MS_ERR_LIMIT && rc != MS_ERR_PROTO)
		fuzz_fail("unexpected return code", data, size);
	if (rc == 0 && (!n->name[0] || !utf8(n->type, sizeof(n->type)) || !utf8(n->name, sizeof(n->name)) ||
			!utf8(n->version, sizeof(n->version)) ||
			!utf8(n->architecture, sizeof(n->architecture)) || !utf8(n->os_cpe, sizeof(n->os_cpe))))
		fuzz_fail("a field without its NUL, not UTF-8, or no name", data, size);
	if (rc != 0 && (memcmp(n, &empty, sizeof(empty)) != 0 || !err->msg[0]))
		fuzz_fail("fields, or no reason, with a failure", data, size);
	if (rc != 0)
		fuzz_check_safe_text(err->msg, strlen(err->msg));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_pkgnote n, n2;
	struct ms_error err = { 0 }, err2 = { 0 };
	int rc, rc2, fd;

	rc = ms_pkgnote_desc(data, size, &n, &err);
	check(rc, &n, &err, data, size);

	err = (struct ms_error){ 0 };
	rc = ms_pkgnote_parse(data, size, &n, &err);
	check(rc, &n, &err, data, size);
	fd = memfd_create("fuzz-pkgnote", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size == 0 || write(fd, data, size) == (ssize_t)size) {
		rc2 = ms_pkgnote_read_fd(fd, &n2, &err2);
		if (rc2 != rc || memcmp(&n, &n2, sizeof(n)) != 0 || strcmp(err.msg, err2.msg) != 0)
			fuzz_fail("file and memory answers differ", data, size);
	}
	close(fd);
	return 0;
}
