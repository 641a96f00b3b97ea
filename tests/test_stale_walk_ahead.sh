#!/bin/sh
# `mapscope stale` walks the processes on a second thread while it judges
# (core/stale/stale_prefetch.h); held to one CPU it walks them itself.
# Both must give the same report, messages and exit status, byte for byte,
# over more processes than the thread queues (32) and batches (8): holders
# of a deleted, a replaced and a reinstalled copy of libstale-a.so among
# 70 sleepers, with a PID that is gone in the middle.  Skips (77) where
# this shell may use one CPU only, or without taskset.
set -u
NAME=stale-walk-ahead
. "$(dirname "$0")/shtest.sh"
command -v taskset >/dev/null 2>&1 || skip "no taskset"
[ "$(nproc)" -ge 2 ] || skip "one CPU allowed: stale walks without a second thread here"
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
case $TDIR in /*) ;; *) TDIR=$PWD/$TDIR ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-walkahead.XXXXXX") || exit 1
TAG=mswalk$$
UNITS=no
SLICE=
. "$(dirname "$0")/stale_holders.sh"
sleepers=
cleanup() {
	holders_cleanup
	for p in $sleepers; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
: >"$TMP/no-rules.conf"
stale_holders
i=0
while [ $i -lt 70 ]; do
	sleep 600 &
	sleepers="$sleepers $!"
	i=$((i + 1))
done
sh -c 'exit 0' &
gone=$!
wait $gone
first=$(echo $sleepers | cut -d' ' -f1-35)
rest=$(echo $sleepers | cut -d' ' -f36-)
LIST="$first $PID_del $gone $PID_rep $PID_same $rest $PID_loose"

# run OUT CMD...: the report of LIST with every file shown, in OUT.{o,e,rc}
run() {
	out=$1
	shift
	# shellcheck disable=SC2086
	"$@" "$BIN" stale --ignore-file "$TMP/no-rules.conf" --show=all -J -o NAME,PID,VERDICT,WHY $LIST \
		>"$out.o" 2>"$out.e"
	echo $? >"$out.rc"
}
run "$TMP/two"
run "$TMP/one" taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')"

grep -q "\"pid\": $PID_del" "$TMP/two.o" && grep -q '"verdict": "deleted"' "$TMP/two.o" &&
	grep -q '"verdict": "replaced"' "$TMP/two.o" && grep -q '"verdict": "same-build"' "$TMP/two.o" ||
	fail "the holders are not all judged: $(cat "$TMP/two.o" "$TMP/two.e")"
[ "$(grep -c "pid $gone" "$TMP/two.e")" = 1 ] || fail "the gone PID is not reported once: $(cat "$TMP/two.e")"
for p in $sleepers; do
	grep -q "\"pid\": $p," "$TMP/two.o" || fail "sleeper $p is missing: $(head -c 2000 "$TMP/two.o")"
done
ok "with the second thread: every holder judged, every sleeper listed, the gone PID said once"
cmp -s "$TMP/two.o" "$TMP/one.o" || fail "the reports differ: $(diff "$TMP/one.o" "$TMP/two.o" | head -20)"
cmp -s "$TMP/two.e" "$TMP/one.e" || fail "the messages differ: $(diff "$TMP/one.e" "$TMP/two.e")"
cmp -s "$TMP/two.rc" "$TMP/one.rc" || fail "exit $(cat "$TMP/two.rc") with the thread, $(cat "$TMP/one.rc") without"
ok "the same report, messages and exit status ($(cat "$TMP/two.rc")) on one CPU, without the thread"
