/*
 * Fuzz target for the stale ignore-list parser (src/core/stale/ignore.h).
 * Properties: no crash or leak; a parse either succeeds with at most
 * MS_IGNORE_RULES_MAX rules or fails with a message that is safe to print;
 * matching any name against the parsed rules stays in bounds, and a name
 * with " (deleted)" appended matches the same rule as without it (unless
 * it already ended in " (deleted)").
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "core/stale/ignore.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_ignore *ign = NULL;
	struct ms_error err = { 0 };
	const char *name, *r1, *r2;
	size_t half = size / 2, nlen;
	char *deleted;

	/* The first half is the list, the rest a name to match. */
	if (ms_ignore_parse((const char *)data, half, &ign, &err) < 0) {
		if (ign)
			fuzz_fail("a failed parse returned a list", data, size);
		fuzz_check_safe_text(err.msg, strlen(err.msg));
		return 0;
	}
	if (ms_ignore_count(ign) > MS_IGNORE_RULES_MAX)
		fuzz_fail("more rules than the limit", data, size);

	name = (const char *)data + half;
	nlen = strnlen(name, size - half);
	deleted = malloc(nlen + MS_DELETED_SUFFIX_LEN + 1);
	if (!deleted)
		abort();
	memcpy(deleted, name, nlen);
	memcpy(deleted + nlen, MS_DELETED_SUFFIX, MS_DELETED_SUFFIX_LEN + 1);
	r1 = ms_ignore_match(ign, deleted, nlen);
	r2 = ms_ignore_match(ign, deleted, nlen + MS_DELETED_SUFFIX_LEN);
	/* A name that already ends in the suffix loses it in the first match. */
	if (ms_name_strip_deleted(name, nlen) == nlen && r1 != r2)
		fuzz_fail("\" (deleted)\" changes which rule matches", data, size);
	free(deleted);
	ms_ignore_free(ign);
	return 0;
}
