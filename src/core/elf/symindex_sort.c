#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "elf/symindex_sort.h"

struct ms_symindex_entry *ms_symindex_sort(struct ms_symindex_entry *e, struct ms_symindex_entry *tmp,
					   size_t n)
{
	uint64_t differ = 0;
	bool sorted = true;

	for (size_t i = 1; i < n; i++) {
		differ |= e[i].value ^ e[0].value;
		if (e[i].value < e[i - 1].value)
			sorted = false;
	}
	if (sorted)
		return e;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t at[256] = { 0 }, sum = 0;
		struct ms_symindex_entry *swap;

		/* A byte all values share leaves the order as it is. */
		if (!((differ >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			at[(e[i].value >> shift) & 0xff]++;
		for (size_t b = 0; b < 256; b++) {
			size_t count = at[b];

			at[b] = sum;
			sum += count;
		}
		for (size_t i = 0; i < n; i++)
			tmp[at[(e[i].value >> shift) & 0xff]++] = e[i];
		swap = e;
		e = tmp;
		tmp = swap;
	}
	return e;
}
