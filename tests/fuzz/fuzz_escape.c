/*
 * Fuzz target for the name escaper (src/core/base/escape.h).  Properties:
 *   - the output holds no control byte and is valid UTF-8 without C1, bidi
 *     or separator characters (ASCII only with MS_ESC_ASCII);
 *   - ms_unescape gives back the input exactly (so the escape is injective:
 *     two different names never print the same);
 *   - the output never exceeds ms_escape_bound, and a short buffer gets a
 *     NUL-terminated prefix of the full output cut at a whole escape.
 * The first byte picks the flags and the short buffer size.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned flags;
	size_t bound, n, back, cut, short_size, i;
	char *out, *dec, *part;
	const char *src;

	if (size < 1)
		return 0;
	flags = (data[0] & 1) ? MS_ESC_ASCII : 0;
	short_size = (size_t)(data[0] >> 1) + 1;
	src = (const char *)data + 1;
	size--;

	bound = ms_escape_bound(size);
	out = malloc(bound);
	dec = malloc(bound + 1);
	part = malloc(short_size);
	if (!out || !dec || !part)
		abort();
	n = ms_escape(src, size, out, bound, flags);
	if (n >= bound || out[n] != '\0' || strlen(out) != n)
		fuzz_fail("length or NUL of the escaped text", data, size);
	fuzz_check_safe_text(out, n);
	if (flags & MS_ESC_ASCII)
		for (i = 0; i < n; i++)
			if ((unsigned char)out[i] >= 0x80)
				fuzz_fail("non-ASCII byte with MS_ESC_ASCII", data, size);

	back = ms_unescape(out, n, dec);
	if (back != size || memcmp(dec, src, size) != 0)
		fuzz_fail("ms_unescape does not give the input back", data, size);

	cut = ms_escape(src, size, part, short_size, flags);
	if (cut >= short_size || part[cut] != '\0' || cut > n || memcmp(part, out, cut) != 0)
		fuzz_fail("a short buffer does not get a prefix of the output", data, size);
	/* Cut at a whole escape: the prefix decodes on its own. */
	if (ms_unescape(part, cut, dec) == (size_t)-1)
		fuzz_fail("a short buffer cut inside an escape", data, size);

	/* ms_unescape on arbitrary text must stay in bounds and never crash. */
	(void)ms_unescape(src, size, dec);

	free(part);
	free(dec);
	free(out);
	return 0;
}
