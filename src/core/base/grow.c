#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/grow.h"

int ms_grow(void **items, size_t *cap, size_t count, size_t elem, size_t first)
{
	size_t want;
	void *grown;

	if (count < *cap)
		return 0;
	if (*cap > SIZE_MAX / 2)
		return MS_ERR_NOMEM;
	want = *cap ? 2 * *cap : (first ? first : 16);
	if (elem && want > SIZE_MAX / elem)
		return MS_ERR_NOMEM;
	grown = realloc(*items, want * elem);
	if (!grown)
		return MS_ERR_NOMEM;
	*items = grown;
	*cap = want;
	return 0;
}
