/*
 * Fuzz target for the METADATA reader (src/core/pkg/pymeta.h).  Properties:
 *   - a value found is 1 to cap - 1 bytes, holds no NUL, CR or LF, and has
 *     no space or tab at either end; what was not found is left alone;
 *   - bytes that end in a newline answer the same whether or not they are
 *     the whole file (a cut last line is the only difference);
 *   - the same for the directory name reader;
 *   - a package described from the values (pkgdb.h) is safe for a terminal.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pkg/pkgdb.h"
#include "core/pkg/pymeta.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 32

static void check_value(const uint8_t *data, size_t size, const char *v, bool found)
{
	size_t len = strlen(v);

	if (!found) {
		if (strcmp(v, "unset"))
			fuzz_fail("a value written though not found", data, size);
		return;
	}
	if (len == 0 || len >= CAP || strpbrk(v, "\r\n") || v[0] == ' ' || v[0] == '\t' ||
	    v[len - 1] == ' ' || v[len - 1] == '\t')
		fuzz_fail("value out of shape", data, size);
}

static void check(const uint8_t *data, size_t size, unsigned found, const char *name, const char *version)
{
	struct ms_pkg pkg = { .found = true, .source = MS_PKG_SOURCE_PYTHON };
	char described[4 * sizeof(pkg.name) + 4 * sizeof(pkg.version) + 16];
	size_t len;

	if (found & ~(MS_PYMETA_NAME | MS_PYMETA_VERSION))
		fuzz_fail("unknown answer bits", data, size);
	check_value(data, size, name, found & MS_PYMETA_NAME);
	check_value(data, size, version, found & MS_PYMETA_VERSION);
	memcpy(pkg.name, name, strlen(name) + 1);
	memcpy(pkg.version, version, strlen(version) + 1);
	len = ms_pkg_describe(&pkg, 0, described, sizeof(described));
	fuzz_check_safe_text(described, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char name[CAP] = "unset", version[CAP] = "unset", name2[CAP] = "unset", version2[CAP] = "unset";
	unsigned found = ms_pymeta_parse(text, size, true, name, CAP, version, CAP), found2;

	check(data, size, found, name, version);
	found2 = ms_pymeta_parse(text, size, false, name2, CAP, version2, CAP);
	check(data, size, found2, name2, version2);
	if (size > 0 && data[size - 1] == '\n' &&
	    (found2 != found || strcmp(name, name2) || strcmp(version, version2)))
		fuzz_fail("a whole file and its first bytes answer differently", data, size);
	strcpy(name, "unset");
	strcpy(version, "unset");
	found = ms_pymeta_from_dirname(text, size, name, CAP, version, CAP);
	check(data, size, found, name, version);
	return 0;
}
