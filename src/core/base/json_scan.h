/*
 * json_scan.h - the string values of a few top-level keys of one JSON
 * object, read from its bytes: a small bounded reader for JSON that a
 * user writes (npm's package.json), where a library that builds a tree of
 * whatever the text holds is more than is needed.
 *
 * ms_json_scan checks that text (len bytes) is exactly one JSON object
 * (RFC 8259: an optional UTF-8 byte order mark, whitespace around it,
 * nothing after it), its values nested at most MS_JSON_DEPTH deep, and
 * says for each key asked for (fields[i].key, NUL-terminated, compared
 * with each top-level key once its escapes are decoded, as JSON.parse
 * compares them: "n\u0061me" is "name") what the object holds there:
 *   MS_JSON_ABSENT  no such key;
 *   MS_JSON_STRING  a string, its escapes decoded (\" \\ \/ \b \f \n \r \t
 *                   and \uXXXX, a surrogate pair as one code point, written
 *                   as UTF-8) into out, NUL-terminated;
 *   MS_JSON_OTHER   a value of another type (number, object, array, true,
 *                   false, null);
 *   MS_JSON_UNFIT   a string that does not fit in cap bytes with its NUL,
 *                   or that holds \u0000 or a lone surrogate (\uD800): no
 *                   C string says it;
 *   MS_JSON_TWICE   the key more than once at the top level.  None of its
 *                   values is taken: readers disagree on which one wins
 *                   (JSON.parse keeps the last, others the first), so the
 *                   author of the file could show each reader another one.
 * out holds a value only for MS_JSON_STRING, and "" otherwise.
 *
 * Bytes inside strings that are not UTF-8 are kept as they are (so a name
 * compares with a directory's name byte for byte): the values are raw
 * bytes, and any byte but NUL may be in them after decoding (an escape
 * sequence written as \u001b).  Escape before display.
 *
 * Returns 0 for a JSON object, or MS_JSON_ERR_SYNTAX (not JSON, not an
 * object, a control byte inside a string, bytes after it), or
 * MS_JSON_ERR_DEPTH (nested deeper than MS_JSON_DEPTH); the fields' state
 * is then undefined.
 *
 * Pure: no I/O and no allocation, one pass over the bytes (linear time),
 * no recursion (a fixed stack of MS_JSON_DEPTH bytes), so it may read a
 * user's file in-process.  Fuzzed against jansson (tests/fuzz/fuzz_json_scan.c).
 */
#ifndef MAPSCOPE_JSON_SCAN_H
#define MAPSCOPE_JSON_SCAN_H

#include <stddef.h>

#define MS_JSON_DEPTH 64

#define MS_JSON_ERR_SYNTAX (-1)
#define MS_JSON_ERR_DEPTH (-2)

enum ms_json_state {
	MS_JSON_ABSENT = 0,
	MS_JSON_STRING,
	MS_JSON_OTHER,
	MS_JSON_UNFIT,
	MS_JSON_TWICE,
};

struct ms_json_field {
	const char *key;         /* in */
	char *out;               /* in: cap bytes */
	size_t cap;              /* in: at least 1 */
	enum ms_json_state state; /* out */
	size_t len;              /* out: the value's length for MS_JSON_STRING */
};

int ms_json_scan(const char *text, size_t len, struct ms_json_field *fields, size_t nfields);

#endif
