/*
 * Fuzz target for symbol tables (src/core/elf/symbols.h, symindex.h, with the
 * header checks of elfcheck.h in front of libelf and libdw).  The bytes are
 * an ELF image, taken as a file any user could have mapped.  Properties:
 *   - the image is accepted (0) or refused with MS_END or MS_ERR_LIMIT and
 *     a short, terminal-safe reason, within the bounds ASan checks and the
 *     fuzzer's memory limit (a crafted table must not allocate without
 *     bound);
 *   - the per-module index names every indexed symbol's edges exactly as
 *     libdw's own scan (dwfl_module_addrinfo) does;
 *   - looking up names and source lines anywhere in the image returns 0,
 *     and the names and files, once escaped, are safe text.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/elf/symbols.h"
#include "fuzz_check.h"

#define BASE 0x10000000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *s, const uint8_t *data, size_t size)
{
	char *e;

	if (!s)
		return;
	e = ms_escape_dup(s, strlen(s), 0);
	if (!e)
		fuzz_fail("out of memory escaping", data, size);
	fuzz_check_safe_text(e, strlen(e));
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_error err = { 0 };
	struct ms_symbols *s;
	int rc = ms_symbols_image_new(data, size, BASE, &s, &err);

	if (rc == MS_ERR_NOMEM)
		return 0;
	if (rc != 0) {
		if (rc != MS_END && rc != MS_ERR_LIMIT)
			fuzz_fail("unexpected return code", data, size);
		if (rc == MS_ERR_LIMIT)
			fuzz_check_safe_text(err.msg, strlen(err.msg));
		return 0;
	}
	if (ms_symbols_image_check(s, &err) != 0)
		fuzz_fail(err.msg, data, size);
	/* Some addresses through the image, and the edges of its window. */
	for (size_t off = 0; off <= size + 0x1000; off += 1 + size / 61) {
		struct ms_symbol sym;

		if (ms_symbols_lookup(s, BASE + off, MS_SYMBOLS_NAME | MS_SYMBOLS_SOURCE, &sym) != 0)
			fuzz_fail("lookup failed", data, size);
		check_text(sym.name, data, size);
		check_text(sym.file, data, size);
		check_text(sym.comp_dir, data, size);
	}
	ms_symbols_free(s);
	return 0;
}
