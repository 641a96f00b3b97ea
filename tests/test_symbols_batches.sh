#!/bin/sh
# `mapscope at` asks the symbol reader about one batch of addresses while
# it prints the rows of the batch before (cmd_at.c, flush): every row must
# still get its own address's symbol.  Over five batches' worth of
# addresses that take turns between the fixture's executable files (its
# program, libms-fixture-sym.so, libc, the dynamic loader), each row's
# SYMBOL is checked against eu-addr2line's answer for the same process,
# and its ADDR against the input, in order.
set -u
SRCDIR=${srcdir:-.}
. "$SRCDIR/tests/fixture_sym.sh"
fixture_sym_setup symbols-batches
command -v eu-addr2line >/dev/null 2>&1 || { echo "symbols-batches: SKIP (no eu-addr2line to check against)"; exit 77; }
fixture_sym_start "$TMP"

# The executable mappings of ELF files: "start end" in hex, one a line.
awk '$2 ~ /x/ && ($6 ~ /\.so/ || $6 ~ /ms-fixture$/) { sub("-", " ", $1); print $1 }' "/proc/$FPID/maps" >"$TMP/spans"
files=$(wc -l <"$TMP/spans")
[ "$files" -ge 3 ] || fail "the fixture maps $files executable files, expected at least 3"

# 5,000 addresses (the batch is 1,024): file after file in turn, each at a
# different offset of its executable span.
k=0 n=0
while [ $n -lt 5000 ]; do
	while read -r lo hi; do
		size=$((0x$hi - 0x$lo))
		printf '%x\n' $((0x$lo + (k * 28649 + 13) % size))
		n=$((n + 1))
	done <"$TMP/spans"
	k=$((k + 1))
done >"$TMP/addrs"

"$BIN" at "$FPID" -r -n -o ADDR,SYMBOL <"$TMP/addrs" >"$TMP/ms" 2>"$TMP/err" || fail "at exited $?: $(head -3 "$TMP/err")"
[ "$(wc -l <"$TMP/ms")" -eq "$n" ] || fail "$(wc -l <"$TMP/ms") rows for $n addresses"
# The rows in the input's order, each with its own address.
awk '{ print $1 }' "$TMP/ms" | cmp -s - "$TMP/addrs" || fail "the rows' addresses are not the input's, in order"
# eu-addr2line -S: the symbol line, then the source line; "name" alone at a
# symbol's start, a "(...)" or "??" where none covers.
eu-addr2line --pid "$FPID" -S <"$TMP/addrs" >"$TMP/eu.raw" || fail "eu-addr2line exited $?"
awk 'NR % 2 == 1 { s = $0; if (s ~ /^\(/) s = "??"; else if (s !~ /\+0x/ && s != "??") s = s "+0x0"; print s }' \
	"$TMP/eu.raw" >"$TMP/eu"
awk '{ print (NF > 1 ? $2 : "??") }' "$TMP/ms" >"$TMP/mine"
named=$(grep -vc '^??$' "$TMP/eu")
[ "$named" -ge $((n / 2)) ] || fail "eu-addr2line names only $named of $n addresses"
if ! cmp -s "$TMP/mine" "$TMP/eu"; then
	paste -d ' ' "$TMP/addrs" "$TMP/mine" "$TMP/eu" | awk '$2 != $3' | head -5 >"$TMP/diff"
	fail "$(paste "$TMP/mine" "$TMP/eu" | awk '$1 != $2' | wc -l) of $n rows differ from eu-addr2line: $(cat "$TMP/diff")"
fi
echo "ok 1 - $n addresses over $files files: every row's symbol is eu-addr2line's ($named named)"

# The reader ends while a batch is asked and the parent is elsewhere (it
# reads the next addresses): killed while it waits for the parent to
# choose a debug file.  The rows still come, in order; the file it was
# reading is said once to have crashed it (as for any reader that ends
# while it works), never that its answer was malformed; a new reader
# names the other files' addresses as eu-addr2line does.
first=$(head -n 1024 "$TMP/addrs")
mkfifo "$TMP/in" || fail "mkfifo"
"$BIN" at "$FPID" -r -n -o ADDR,SYMBOL <"$TMP/in" >"$TMP/ms2" 2>"$TMP/err2" &
APID=$!
exec 4>"$TMP/in"
printf '%s\n' "$first" >&4
# The reader is the child of at; both asleep: at reads the FIFO, the
# reader waits for the answer about a debug file (libc has a build ID).
state() { sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
RPID= tries=0
while :; do
	[ -z "$RPID" ] && RPID=$(pgrep -P "$APID" | head -n 1)
	[ -n "$RPID" ] && [ "$(state "$RPID")" = S ] && [ "$(state "$APID")" = S ] && break
	tries=$((tries + 1))
	[ $tries -lt 500 ] || fail "the reader never waited (reader '${RPID:-none}')"
	sleep 0.02
done
kill -KILL "$RPID"
tail -n +1025 "$TMP/addrs" >&4
exec 4>&-
wait "$APID" || fail "at exited $? after its reader was killed: $(head -3 "$TMP/err2")"
awk '{ print $1 }' "$TMP/ms2" | cmp -s - "$TMP/addrs" || fail "after the kill, the rows are not the input's, in order"
grep -q 'malformed' "$TMP/err2" && fail "a killed reader was called malformed: $(cat "$TMP/err2")"
[ "$(grep -c 'symbols: the reader crashed on this file' "$TMP/err2")" -eq 1 ] ||
	fail "the file being read when the reader was killed is not named once: $(cat "$TMP/err2")"
lost=$(sed -n 's/^[^:]*: pid [0-9]*: \(.*\): symbols: the reader crashed on this file$/\1/p' "$TMP/err2")
# Rows of every other file: eu-addr2line's answers.
awk -v lost="$lost" 'NR == FNR { if ($6 == lost) { sub("-", " ", $1); split($1, r, " "); lo[++n] = r[1]; hi[n] = r[2] } next }
	{ keep = 1; a = sprintf("%016s", $1); gsub(" ", "0", a)
	  for (i = 1; i <= n; i++) { l = sprintf("%016s", lo[i]); h = sprintf("%016s", hi[i]); gsub(" ", "0", l); gsub(" ", "0", h); if (a >= l && a < h) keep = 0 }
	  print keep }' "/proc/$FPID/maps" "$TMP/ms2" >"$TMP/keep"
awk '{ print (NF > 1 ? $2 : "??") }' "$TMP/ms2" | paste -d ' ' "$TMP/keep" - "$TMP/eu" | awk '$1 == 1 && $2 != $3' >"$TMP/diff2"
[ -s "$TMP/diff2" ] && fail "after the kill, $(wc -l <"$TMP/diff2") rows of other files differ: $(head -3 "$TMP/diff2")"
echo "ok 2 - a reader killed mid-batch: rows in order, '$lost' named once, the other files still named"
