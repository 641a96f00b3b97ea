#!/bin/sh
# Files a user could write are read whole into memory before libelf sees
# them, and each at most 64 MiB and all of them together at most 64 MiB in one run: a process
# that maps many big such files cannot make root's `mapscope at` hold
# more.  Two 40 MiB copies of a test library: the first is read and
# named, the second is past the budget and gets no symbol, and a small
# third still fits and is named.
set -u
BIN=${MS_BIN:-./mapscope}
NAME=symbols-budget
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || { echo "$NAME: SKIP (built without libdw)"; exit 77; }
LIB=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")/libstale-a.so
CHILD=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")/stale-child
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-symbud.XXXXXX") || exit 1
CPID=
cleanup() { [ -n "$CPID" ] && kill "$CPID" 2>/dev/null; exec 3>&- 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
fail() { echo "$NAME: FAIL: $*"; exit 1; }

for n in 1 2 3; do
	cp "$LIB" "$TMP/lib$n.so" || fail "cp"
	[ $n = 3 ] || truncate -s 40M "$TMP/lib$n.so" || fail "truncate"
	chmod 0666 "$TMP/lib$n.so"
done
value=$(nm -D --defined-only "$LIB" | awk '$3 == "stale_lib_answer" { print $1 }')
[ -n "$value" ] || fail "no stale_lib_answer in $LIB"

mkfifo "$TMP/in" "$TMP/out"
"$CHILD" <"$TMP/in" >"$TMP/out" &
CPID=$!
exec 3>"$TMP/in"
exec 4<"$TMP/out"
read -r word _ <&4 && [ "$word" = ready ] || fail "stale-child did not start"
for n in 1 2 3; do
	echo "dlopen $TMP/lib$n.so" >&3
	read -r answer <&4 && [ "$answer" = ok ] || fail "dlopen lib$n.so: $answer"
done

# The address of stale_lib_answer in each copy: its offset-0 mapping's start + value.
addrs=
for n in 1 2 3; do
	base=$(awk -v f="$TMP/lib$n.so" '$6 == f && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' "/proc/$CPID/maps")
	[ -n "$base" ] || fail "lib$n.so is not mapped"
	addrs="$addrs $(printf '%x' $((0x$base + 0x$value)))"
done
out=$("$BIN" at "$CPID" $addrs -r -n -o SYMBOL) || fail "at exited $?: $out"
# One line per address, in order; an unknown symbol is an empty line.
[ "$(echo "$out" | wc -l)" = 3 ] || fail "not one line per address: '$out'"
echo "$out" | sed -n 1p | grep -q '^stale_lib_answer+0x0$' || fail "the first big copy: '$out'"
echo "$out" | sed -n 2p | grep -q stale_lib_answer && fail "the second big copy was read past the budget: '$out'"
echo "$out" | sed -n 3p | grep -q '^stale_lib_answer+0x0$' || fail "the small copy: '$(echo "$out" | sed -n 3p)'"
echo "ok 1 - 40 MiB read, the next 40 MiB refused, a small file still read"
