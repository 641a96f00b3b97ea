/*
 * Fuzz target for the snapshot reader (src/core/snap/snapshot.h).  Properties:
 * no crash or leak; a rejected document leaves an error message that is
 * safe to print (it may quote the file); an accepted one has its mappings
 * in address order without overlap, as the header promises, and writing it
 * back and reading that again gives the same text (dump, parse and dump is
 * a fixed point, so nothing read is lost or changed on the way).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/snap/snapshot.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_snapshot snap, again;
	struct ms_error err = { 0 };
	char *text1 = NULL, *text2 = NULL;
	size_t len1, len2, i;

	memset(&snap, 0, sizeof(snap));
	memset(&again, 0, sizeof(again));
	if (ms_snapshot_parse((const char *)data, size, "fuzz", &snap, &err) < 0) {
		fuzz_check_safe_text(err.msg, strlen(err.msg));
		ms_snapshot_free(&snap);
		return 0;
	}
	for (i = 0; i < snap.maps.count; i++) {
		const struct ms_mapping *m = &snap.maps.items[i];

		if (m->end < m->start || (i && snap.maps.items[i - 1].end > m->start))
			fuzz_fail("accepted mappings out of order or overlapping", data, size);
	}
	if (ms_snapshot_dump(&snap, &text1, &len1, &err) < 0)
		abort();
	if (ms_snapshot_parse(text1, len1, "dump", &again, &err) < 0)
		fuzz_fail("a dumped snapshot does not parse", (const unsigned char *)text1, len1);
	if (ms_snapshot_dump(&again, &text2, &len2, &err) < 0)
		abort();
	if (len1 != len2 || memcmp(text1, text2, len1) != 0)
		fuzz_fail("dump, parse, dump is not a fixed point", data, size);
	free(text1);
	free(text2);
	ms_snapshot_free(&again);
	ms_snapshot_free(&snap);
	return 0;
}
