#include "config.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <string.h>

#include "pkg/listlines.h"

/*
 * Newlines are found a block at a time, as bits: byte k of the block sets
 * bit k << MARK_SHIFT.  A memchr per line of 60 bytes is mostly call, and
 * finding newlines is most of a scan.
 */
#if defined(__SSE2__)
#define BLOCK 16
#define MARK_SHIFT 0
static uint64_t block_marks(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
}
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BLOCK 8
#define MARK_SHIFT 3
/* Exact: a byte that is not a newline never sets its bit (no carry crosses a byte). */
static uint64_t block_marks(const char *p)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t x;

	memcpy(&x, p, 8);
	x ^= 0x0a0a0a0a0a0a0a0aull;
	return ~(((x & low7) + low7) | x | low7);
}
#else
#define BLOCK 1
#define MARK_SHIFT 0
static uint64_t block_marks(const char *p)
{
	return *p == '\n';
}
#endif

/*
 * The length of each line of t into out (at most cap): their number, or
 * SIZE_MAX when there are more.  A last line without a newline counts.
 */
size_t ms_pkg_split_lines(const char *t, size_t len, uint32_t *out, size_t cap)
{
	size_t n = 0, start = 0, i = 0;

	for (; i + BLOCK <= len; i += BLOCK)
		for (uint64_t m = block_marks(t + i); m; m &= m - 1) {
			size_t at = i + ((size_t)__builtin_ctzll(m) >> MARK_SHIFT);

			if (n == cap)
				return SIZE_MAX;
			out[n++] = (uint32_t)(at - start);
			start = at + 1;
		}
	for (; i < len; i++)
		if (t[i] == '\n') {
			if (n == cap)
				return SIZE_MAX;
			out[n++] = (uint32_t)(i - start);
			start = i + 1;
		}
	if (start < len) {
		if (n == cap)
			return SIZE_MAX;
		out[n++] = (uint32_t)(len - start);
	}
	return n;
}
