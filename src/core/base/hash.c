#include "config.h"

#include <stdbool.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/hash.h"

uint64_t ms_hash_seed(void)
{
	static uint64_t seed;
	uint64_t s = __atomic_load_n(&seed, __ATOMIC_RELAXED);

	if (s)
		return s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&seed;
	s |= 1;
	/*
	 * The first seed stored is the run's: a racing caller that drew
	 * another takes the winner's, so that no caller ever sees two.
	 */
	if (__atomic_compare_exchange_n(&seed, &(uint64_t){ 0 }, s, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return s;
	return __atomic_load_n(&seed, __ATOMIC_RELAXED);
}

uint64_t ms_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

uint64_t ms_hash_bytes(uint64_t h, const char *p, size_t len)
{
	h = ms_hash_mix(h, len);
	for (; len >= 8; p += 8, len -= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = ms_hash_mix(h, w);
	}
	if (len) {
		uint64_t w = 0;

		memcpy(&w, p, len);
		h = ms_hash_mix(h, w);
	}
	return ms_hash_mix(h, 0);
}
