/*
 * Fuzz target for the frames between mapscope and its symbol reader
 * (src/core/elf/symbols_child.h).  The reader parses files any user may have
 * written, so whatever it sends is as untrusted as they are; and the
 * reader must not be steered by a malformed request either.  Properties:
 *   - every decoder answers 0 or -1 for any bytes, within the bounds that
 *     ASan checks;
 *   - a decoded answer has strings of at most MS_SYMMSG_STR_MAX bytes
 *     without a NUL, a line only with a file, and encodes back to a frame
 *     that decodes to the same answer;
 *   - an ANSWERS frame's answers each pass the same checks, and walking
 *     them ends within the frame;
 *   - a decoded request (ADD, LOOKUP of 1 to MS_SYMMSG_MANY_MAX addresses,
 *     NEED_DEBUG, DEBUG) encodes back to the very bytes it came from.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/symbols_child.h"
#include "core/untrusted/untrusted_child.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STORE (4 * (MS_SYMMSG_STR_MAX + 1))

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_answer(const uint8_t *data, size_t size, unsigned char *frame)
{
	static char store[STORE], store2[STORE];
	struct ms_symbol a = { 0 }, b = { 0 };
	const char *str[] = { NULL, NULL, NULL, NULL };
	size_t n;

	if (ms_symmsg_get_answer(data, size, &a, store, sizeof(store)) != 0)
		return;
	str[0] = a.name, str[1] = a.file, str[2] = a.comp_dir, str[3] = a.why;
	for (int i = 0; i < 4; i++)
		if (str[i] && strlen(str[i]) > MS_SYMMSG_STR_MAX)
			fuzz_fail("answer string over the bound", data, size);
	if (a.line < 0 || (a.line && !a.file))
		fuzz_fail("a line without a file", data, size);
	n = ms_symmsg_put_answer(frame, &a);
	if (ms_symmsg_get_answer(frame, n, &b, store2, sizeof(store2)) != 0 || a.line != b.line ||
	    a.name_off != b.name_off || !same_str(a.name, b.name) || !same_str(a.file, b.file) ||
	    !same_str(a.comp_dir, b.comp_dir) || !same_str(a.why, b.why))
		fuzz_fail("answer does not survive encoding", data, size);
}

/* Every answer of an ANSWERS frame passes the checks of one; the walk ends. */
static void check_answers(const uint8_t *data, size_t size, unsigned char *frame)
{
	static char store[STORE];
	struct ms_symbol a;
	size_t off = 0, seen = 0;
	int got;

	(void)frame;
	while ((got = ms_symmsg_answers_next(data, size, &off, &a, store, sizeof(store))) == 1) {
		if (++seen > size)
			fuzz_fail("answers do not end", data, size);
		if (a.line < 0 || (a.line && !a.file))
			fuzz_fail("a packed answer with a line and no file", data, size);
	}
	if (got == 0 && off > size)
		fuzz_fail("answers read past the frame", data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char copy[MS_CHILD_FRAME_MAX + 1], frame[MS_CHILD_FRAME_MAX + 1];
	static struct ms_symmsg_lookup q[MS_SYMMSG_MANY_MAX];
	struct ms_symmsg_need_debug d;
	size_t count;
	struct ms_symmsg_add a;
	bool found;
	size_t n;

	if (size > MS_CHILD_FRAME_MAX)
		return 0;
	memcpy(copy, data, size);
	check_answer(data, size, frame);
	check_answers(data, size, frame);
	if (ms_symmsg_get_many(data, size, q, &count) == 0 &&
	    (count == 0 || count > MS_SYMMSG_MANY_MAX || (n = ms_symmsg_put_many(frame, q, count)) != size ||
	     memcmp(frame, data, n)))
		fuzz_fail("lookup does not survive encoding", data, size);
	if (ms_symmsg_get_need_debug(data, size, &d) == 0 &&
	    ((n = ms_symmsg_put_need_debug(frame, &d)) != size || memcmp(frame, data, n)))
		fuzz_fail("need-debug does not survive encoding", data, size);
	if (ms_symmsg_get_debug(data, size, &found) == 0 &&
	    ((n = ms_symmsg_put_debug(frame, found)) != size || memcmp(frame, data, n)))
		fuzz_fail("debug does not survive encoding", data, size);
	if (ms_symmsg_get_add(copy, size, &a) == 0) {
		if (strlen(a.path) != size - 32)
			fuzz_fail("add path length", data, size);
		if ((n = ms_symmsg_put_add(frame, &a)) != size || memcmp(frame, data, n))
			fuzz_fail("add does not survive encoding", data, size);
	}
	return 0;
}
