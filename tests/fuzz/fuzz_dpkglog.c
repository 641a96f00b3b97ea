/*
 * Fuzz target for the dpkg log line parser (src/core/pkg/dpkglog_parse.h).
 * The input is cut at newlines like a log and each line parsed, each with
 * an exact-size copy so ASan sees any read past it.  Properties: no crash;
 * an action that counts (upgrade, remove, purge) has a date and four
 * non-empty fields inside the line, within the sizes struct ms_pkg holds,
 * of printable ASCII without spaces, and a line over MS_DPKGLOG_LINE_MAX
 * never counts.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pkg/dpkglog_parse.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_field(const struct ms_dpkglog_field *f, const char *line, size_t len, size_t max,
			const uint8_t *data, size_t size)
{
	if (!f->len || f->len > max)
		fuzz_fail("a field empty or over its size", data, size);
	if (f->at < line || f->at + f->len > line + len)
		fuzz_fail("a field outside its line", data, size);
	for (size_t i = 0; i < f->len; i++)
		if ((unsigned char)f->at[i] < 0x21 || (unsigned char)f->at[i] > 0x7e)
			fuzz_fail("a byte a field may not hold", data, size);
}

static void parse_one(const char *src, size_t len, const uint8_t *data, size_t size)
{
	struct ms_dpkglog_line ln;
	enum ms_dpkglog_action act;
	char *line = malloc(len ? len : 1);
	uint64_t s;

	if (!line)
		abort();
	memcpy(line, src, len);
	act = ms_dpkglog_parse_line(line, len, &ln);
	if (act == MS_DPKGLOG_UPGRADE || act == MS_DPKGLOG_REMOVE || act == MS_DPKGLOG_PURGE ||
	    act == MS_DPKGLOG_STATUS) {
		if (len > MS_DPKGLOG_LINE_MAX)
			fuzz_fail("a line over the cap counted", data, size);
		s = ln.stamp;
		if (s % 100 > 60 || s / 100 % 100 > 59 || s / 10000 % 100 > 23 || s / 1000000 % 100 < 1 ||
		    s / 1000000 % 100 > 31 || s / 100000000 % 100 < 1 || s / 100000000 % 100 > 12)
			fuzz_fail("a stamp that is no date", data, size);
		check_field(&ln.pkg, line, len, MS_DPKGLOG_NAME_MAX, data, size);
		check_field(&ln.arch, line, len, MS_DPKGLOG_ARCH_MAX, data, size);
		if (act == MS_DPKGLOG_STATUS)
			check_field(&ln.state, line, len, MS_DPKGLOG_LINE_MAX, data, size);
		else
			check_field(&ln.old_version, line, len, MS_DPKGLOG_VERSION_MAX, data, size);
		check_field(&ln.new_version, line, len, MS_DPKGLOG_VERSION_MAX, data, size);
		if (memchr(ln.arch.at, ':', ln.arch.len))
			fuzz_fail("the architecture holds a colon", data, size);
	} else if (act != MS_DPKGLOG_OTHER && act != MS_DPKGLOG_MALFORMED) {
		fuzz_fail("an action that does not exist", data, size);
	}
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_each_line(data, size, parse_one);
	return 0;
}
