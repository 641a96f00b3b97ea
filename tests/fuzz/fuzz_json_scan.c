/*
 * Fuzz target for the package.json reader (src/core/base/json_scan.h) and
 * the npm folder rule (src/core/pkg/npmpkg.h), against jansson as the
 * reference.  Properties:
 *   - a value taken (MS_JSON_STRING) is len bytes, NUL-terminated after
 *     them, with no NUL inside and fewer than cap; any other state leaves
 *     "" and len 0;
 *   - every JSON object jansson reads (without its extensions) that is
 *     nested no deeper than MS_JSON_DEPTH and holds no raw NUL, the reader
 *     reads too, and for
 *     "name" and "version" it says what jansson's object holds: the same
 *     string (UNFIT when too long), another type, or absent (jansson is
 *     told to refuse a key given twice, so these have one of each);
 *   - the reader takes only objects: when jansson refuses bytes that are
 *     valid UTF-8 without a BOM, \u0000 or a surrogate escape, the reader
 *     refuses them too, but for the refusals that are jansson's own (a key
 *     twice, a number too large for it);
 *   - a package described from the values is safe for a terminal;
 *   - the folder rule gives a prefix of the path that ends where a
 *     component does, with NAME after a "node_modules/" component, and
 *     something after the folder.
 */
#include "config.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/json_scan.h"
#include "core/pkg/npmpkg.h"
#include "core/pkg/pkg.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 32

static const char *const keys[2] = { "name", "version" };

static void check_shape(const uint8_t *data, size_t size, const struct ms_json_field *f)
{
	if (f->state == MS_JSON_STRING) {
		if (f->len >= f->cap || f->out[f->len] != '\0' || memchr(f->out, '\0', f->len))
			fuzz_fail("value out of shape", data, size);
	} else if (f->len != 0 || f->out[0] != '\0') {
		fuzz_fail("a value left where none was taken", data, size);
	}
}

/* The depth of jansson's value (1 for a scalar). */
static size_t depth(json_t *v)
{
	size_t d = 0, i;
	const char *k;
	json_t *c;

	if (json_is_object(v)) {
		json_object_foreach(v, k, c) {
			size_t cd = depth(c);

			d = cd > d ? cd : d;
		}
		return d + 1;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, c) {
			size_t cd = depth(c);

			d = cd > d ? cd : d;
		}
		return d + 1;
	}
	return 1;
}

/*
 * Bytes where the reader may accept what jansson refuses: not UTF-8,
 * "\u0000", a surrogate escape, a BOM, or a raw NUL (jansson's lexer takes
 * one for the end of a token: it reads {"n":[3<NUL>]} as an object).
 */
static bool reader_may_differ(const char *t, size_t len)
{
	enum ms_text_kind kind;

	if (memchr(t, '\0', len))
		return true;
	if (len >= 3 && !memcmp(t, "\xef\xbb\xbf", 3))
		return true;
	for (size_t i = 0; i < len;) {
		size_t n = ms_text_unit(t + i, len - i, &kind);

		if (kind == MS_TEXT_INVALID)
			return true;
		i += n;
	}
	for (const char *p = t; (p = memmem(p, len - (size_t)(p - t), "\\u", 2)); p += 2) {
		size_t left = len - (size_t)(p - t);

		if (left >= 6 && (!memcmp(p + 2, "0000", 4) || p[2] == 'd' || p[2] == 'D'))
			return true;
	}
	return false;
}

static void check_folder(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	size_t at = 0, len = ms_npmpkg_folder_of(p, size, &at);

	if (!len)
		return;
	if (len >= size || p[len] != '/' || len + 1 >= size || at < 13 || at >= len ||
	    memcmp(p + at - 13, "node_modules/", 13) || (at > 13 && p[at - 14] != '/') || p[at] == '.' ||
	    p[at] == '/')
		fuzz_fail("package folder out of shape", data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char out[2][CAP];
	struct ms_json_field f[2];
	json_error_t jerr;
	json_t *root;
	int rc;

	for (int i = 0; i < 2; i++)
		f[i] = (struct ms_json_field){ .key = keys[i], .out = out[i], .cap = CAP };
	rc = ms_json_scan(text, size, f, 2);
	if (rc != 0 && rc != MS_JSON_ERR_SYNTAX && rc != MS_JSON_ERR_DEPTH)
		fuzz_fail("unknown answer", data, size);
	if (rc == 0) {
		struct ms_pkg pkg = { .found = true, .source = MS_PKG_SOURCE_NPM };
		char described[4 * sizeof(pkg.name) + 4 * sizeof(pkg.version) + 16];

		for (int i = 0; i < 2; i++)
			check_shape(data, size, &f[i]);
		memcpy(pkg.name, out[0], strlen(out[0]) + 1);
		memcpy(pkg.version, out[1], strlen(out[1]) + 1);
		fuzz_check_safe_text(described, ms_pkg_describe(&pkg, 0, described, sizeof(described)));
	}
	root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
	if (root && json_is_object(root) && depth(root) <= MS_JSON_DEPTH && !memchr(text, '\0', size)) {
		if (rc != 0)
			fuzz_fail("jansson reads an object the reader refuses", data, size);
		for (int i = 0; i < 2; i++) {
			json_t *v = json_object_get(root, keys[i]);

			if (!v ? f[i].state != MS_JSON_ABSENT
			       : json_is_string(v) ? (json_string_length(v) < CAP
							      ? f[i].state != MS_JSON_STRING || f[i].len != json_string_length(v) ||
									memcmp(out[i], json_string_value(v), f[i].len)
							      : f[i].state != MS_JSON_UNFIT)
						   : f[i].state != MS_JSON_OTHER)
				fuzz_fail("the reader and jansson disagree on a value", data, size);
		}
	}
	if (!root && rc == 0 && !reader_may_differ(text, size) && !strstr(jerr.text, "duplicate") &&
	    !strstr(jerr.text, "too big") && !strstr(jerr.text, "overflow"))
		fuzz_fail("the reader takes what jansson refuses", data, size);
	json_decref(root);
	check_folder(data, size);
	return 0;
}
