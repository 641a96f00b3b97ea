/*
 * Fuzz target for dnf's and yum's log line parser
 * (src/core/pkg/rpmlog_parse.h).  The input is cut at newlines like a log
 * and each line parsed both ways, each with an exact-size copy so ASan
 * sees any read past it.  Properties: no crash; an action that names a
 * package comes from a line within MS_RPMLOG_LINE_MAX, its NEVRA's parts
 * are non-empty (the name alone for yum's name-only erase), inside the
 * line, printable ASCII without spaces, within what struct ms_pkg holds
 * once written EPOCH:VERSION-RELEASE, the epoch digits only; a yum time
 * is a date; parsing the NEVRA again gives the same parts.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pkg/rpmlog_parse.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_part(const struct ms_rpmlog_field *f, const char *line, size_t len, bool may_be_empty,
		       const uint8_t *data, size_t size)
{
	if (!f->len && !may_be_empty)
		fuzz_fail("a NEVRA part empty", data, size);
	if (f->len && (f->at < line || f->at + f->len > line + len))
		fuzz_fail("a NEVRA part outside its line", data, size);
	for (size_t i = 0; i < f->len; i++)
		if ((unsigned char)f->at[i] < 0x21 || (unsigned char)f->at[i] > 0x7e)
			fuzz_fail("a byte a NEVRA part may not hold", data, size);
}

static void check_line(enum ms_rpmlog_action act, const struct ms_rpmlog_line *ln, const char *line, size_t len,
		       const uint8_t *data, size_t size)
{
	const struct ms_rpmlog_nevra *n = &ln->nevra;
	char evr[MS_RPMLOG_VERSION_MAX + 64];

	if (act < MS_RPMLOG_MALFORMED || act > MS_RPMLOG_OBSOLETED)
		fuzz_fail("an action that does not exist", data, size);
	if (act <= MS_RPMLOG_MARK)
		return;
	if (len > MS_RPMLOG_LINE_MAX)
		fuzz_fail("a line over the cap counted", data, size);
	if (ln->yum) {
		uint32_t s = ln->yum_stamp;

		if (s % 100 > 60 || s / 100 % 100 > 59 || s / 10000 % 100 > 23 || s / 1000000 % 100 < 1 ||
		    s / 1000000 % 100 > 31 || s / 100000000 < 1 || s / 100000000 > 12)
			fuzz_fail("a yum time that is no date", data, size);
	}
	check_part(&n->name, line, len, false, data, size);
	if (n->name.len > MS_RPMLOG_NAME_MAX)
		fuzz_fail("a name over its size", data, size);
	if (ln->name_only) {
		if (!ln->yum || act != MS_RPMLOG_ERASE || n->version.len || n->arch.len)
			fuzz_fail("a name alone where a NEVRA belongs", data, size);
		return;
	}
	check_part(&n->epoch, line, len, true, data, size);
	check_part(&n->version, line, len, false, data, size);
	check_part(&n->release, line, len, false, data, size);
	check_part(&n->arch, line, len, false, data, size);
	for (size_t i = 0; i < n->epoch.len; i++)
		if (n->epoch.at[i] < '0' || n->epoch.at[i] > '9')
			fuzz_fail("an epoch that is not digits", data, size);
	if (n->arch.len > MS_RPMLOG_ARCH_MAX)
		fuzz_fail("an architecture over its size", data, size);
	ms_rpmlog_evr(n, evr, sizeof(evr));
	if (strlen(evr) > MS_RPMLOG_VERSION_MAX)
		fuzz_fail("a version over what struct ms_pkg holds", data, size);
}

static void parse_one(const char *src, size_t len, const uint8_t *data, size_t size)
{
	struct ms_rpmlog_line ln;
	char *line = malloc(len ? len : 1);

	if (!line)
		abort();
	memcpy(line, src, len);
	check_line(ms_rpmlog_parse_dnf(line, len, &ln), &ln, line, len, data, size);
	check_line(ms_rpmlog_parse_yum(line, len, &ln), &ln, line, len, data, size);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_each_line(data, size, parse_one);
	return 0;
}
