#!/bin/sh
# `mapscope at` names the fixture library's known symbol and its source
# line, takes addresses from arguments and from standard input alike, and
# leaves what it does not know null.
set -u
SRCDIR=${srcdir:-.}
. "$SRCDIR/tests/fixture_sym.sh"
fixture_sym_setup symbols-at
fixture_sym_start "$TMP"
sym=$SYM
addr=$(printf '%x' $((0x$sym + 0x10)))
fixture_sym_lines
first=$SYM_FIRST last=$SYM_LAST

out=$("$BIN" at "$FPID" "$addr" -r -n -o SYMBOL,SOURCE) || fail "at exited $?"
set -- $out
[ "${1:-}" = "ms_fixture_sym_target+0x10" ] || fail "SYMBOL is '${1:-}'"
case "${2:-}" in
*/fixture_sym.c:*) line=${2##*:} ;;
*) fail "SOURCE is '${2:-}'" ;;
esac
[ "$line" -ge "$first" ] && [ "$line" -le "$last" ] || fail "line $line outside $first..$last"
echo "ok 1 - at names ms_fixture_sym_target+0x10 at fixture_sym.c:$line"

# Standard input, one per line, blank lines skipped: the same answers in order.
printf '%s\n\n  0x%s  \n' "$sym" "$addr" | "$BIN" at "$FPID" -r -n -o ADDR,SYMBOL >"$TMP/stdin" ||
	fail "at from stdin exited $?"
printf '%s ms_fixture_sym_target+0x0\n%s ms_fixture_sym_target+0x10\n' "$sym" "$addr" >"$TMP/want"
cmp -s "$TMP/stdin" "$TMP/want" || fail "from stdin: $(cat "$TMP/stdin")"
echo "ok 2 - addresses from standard input"

# An anonymous mapping has no symbol: null in JSON, never a guess.
anon=$(grep -m1 -E '^[0-9a-f]+-[0-9a-f]+ rw-p 00000000 00:00 0 *$' "/proc/$FPID/maps" | cut -d- -f1)
[ -n "$anon" ] || fail "no anonymous mapping in the fixture"
"$BIN" at "$FPID" "$anon" -J -o ADDR,SYMBOL,SOURCE >"$TMP/json" || fail "at -J exited $?"
grep -q '"symbol": null' "$TMP/json" && grep -q '"source": null' "$TMP/json" ||
	fail "anonymous: $(cat "$TMP/json")"
echo "ok 3 - unknown is null"

# A bad line is a usage error (2) that names it; the good ones still print.
printf '%s\nzz\n' "$addr" | "$BIN" at "$FPID" -r -n -o SYMBOL >"$TMP/o" 2>"$TMP/e"
st=$?
[ $st -eq 2 ] && grep -q "'zz' is not a hex address" "$TMP/e" &&
	grep -q '^ms_fixture_sym_target+0x10$' "$TMP/o" || fail "bad line: status $st, $(cat "$TMP/e")"
echo "ok 4 - a bad address is named, exit 2"

# The streaming writer (colwriter.h) prints what libsmartcols prints, byte
# for byte: table (past one chunk of 4,096 rows), raw and JSON, with the
# symbol columns, their unknown cells and a mapping's name.
i=0
while [ $i -lt 2100 ]; do
	printf '%s\n%s\n' "$addr" "$anon"
	i=$((i + 1))
done >"$TMP/many"
for fmt in "" -r -J -n; do
	"$BIN" at "$FPID" $fmt -o ADDR,NAME,SYMBOL,SOURCE <"$TMP/many" >"$TMP/w" || fail "at $fmt exited $?"
	MAPSCOPE_OUTPUT=smartcols "$BIN" at "$FPID" $fmt -o ADDR,NAME,SYMBOL,SOURCE <"$TMP/many" >"$TMP/s" ||
		fail "at $fmt through libsmartcols exited $?"
	[ "$(wc -l <"$TMP/s")" -ge 4200 ] || fail "at $fmt through libsmartcols printed $(wc -l <"$TMP/s") lines"
	cmp -s "$TMP/w" "$TMP/s" || fail "at $fmt: the writer and libsmartcols differ: $(diff "$TMP/w" "$TMP/s" | head -5)"
done
echo "ok 5 - the streaming writer prints what libsmartcols prints"
