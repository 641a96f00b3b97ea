/*
 * libms-fixture-sym.so: a library ms-fixture links, with one symbol the
 * tests know.  ms_fixture_sym_target is big enough that +0x10 lies inside
 * it, and its first and last source lines are exported so a test can tell
 * a right SOURCE from a guessed one.
 */
#include <stdint.h>

extern const int ms_fixture_sym_first_line, ms_fixture_sym_last_line;
uint64_t ms_fixture_sym_target(uint64_t x);

const int ms_fixture_sym_first_line = __LINE__ + 2;
__attribute__((noinline, used)) uint64_t ms_fixture_sym_target(uint64_t x)
{
	uint64_t h = x ^ 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 8; i++)
		h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i;
	return h;
}
const int ms_fixture_sym_last_line = __LINE__ - 1;
