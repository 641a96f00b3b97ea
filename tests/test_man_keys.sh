#!/bin/sh
# The man page's KEYS section must be what the action table generates.
set -u
BIN=${MS_BIN:-./mapscope}
MAN=${srcdir:-.}/man/mapscope.1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-man.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

awk '/^\.SH KEYS$/ { on = 1; next } on && /^\.SH / { exit } on' "$MAN" > "$TMP/man"
"$BIN" --dump-keys=roff > "$TMP/table" || { echo "man keys: FAIL: --dump-keys failed"; exit 1; }
[ -s "$TMP/table" ] || { echo "man keys: FAIL: empty action table dump"; exit 1; }
if ! diff -u "$TMP/table" "$TMP/man"; then
	echo "man keys: FAIL: man/mapscope.1 KEYS differs from the action table; regenerate with"
	echo "  mapscope --dump-keys=roff"
	exit 1
fi
echo "man keys: KEYS section matches the action table ($(grep -c '^\.TP' "$TMP/table") keys)"
