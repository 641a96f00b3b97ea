/*
 * The library tests/hostile_elf.py makes crafted copies of: one function,
 * ms_hostile_target, big enough to hold an address inside it.  Built by
 * tests/test_symbols_hostile.sh without -g; hostile_elf.py writes its own
 * DWARF, whose line table puts the function at hostile_lib.c:7 in
 * /ms-hostile-src (a made-up place: no test reads this file for it).
 */
#include <stdint.h>

__attribute__((noinline, used)) uint64_t ms_hostile_target(uint64_t x)
{
	uint64_t h = x ^ 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 8; i++)
		h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i;
	return h;
}
