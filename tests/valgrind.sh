#!/bin/sh
# make check-valgrind: memcheck runs of list, at, stale, libs, snapshot and diff on
# the test fixture; any memory error or definite/indirect leak fails.
# Also a test of make check when valgrind is installed (skipped, exit 77,
# when it is not, or when the build has ASan, which valgrind cannot run).
set -u
command -v valgrind >/dev/null 2>&1 || { echo "valgrind: SKIP (not installed)"; exit 77; }
BIN=${MS_BIN:-./mapscope}
FIXTURE=${MS_FIXTURE:-./tests/ms-fixture}
if nm "$BIN" 2>/dev/null | grep -q __asan_init; then
	echo "valgrind: SKIP (this build uses ASan)"
	exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-vg.XXXXXX") || exit 1
FPID=
cleanup() {
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

mkdir "$TMP/fx"
"$FIXTURE" "$TMP/fx" > "$TMP/fixture.out" 2>&1 < /dev/null &
FPID=$!
end=$(($(date +%s) + 10))
until grep -q '^ready' "$TMP/fixture.out"; do
	[ "$(date +%s)" -ge "$end" ] && { echo "valgrind: FAIL: the fixture did not start"; exit 1; }
	sleep 0.05
done
PID=$(awk '/^ready/ { print $2 }' "$TMP/fixture.out")
RX=$(awk '$1 == "map" && $2 == "file-rx" { print $3 }' "$TMP/fixture.out")
failed=0
n=0
# vg NAME EXPECTED-STATUS ARGS...: run mapscope ARGS under memcheck.
vg() {
	name=$1 want=$2
	shift 2
	n=$((n + 1))
	valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		--track-fds=no --quiet --log-file="$TMP/$name.vg" \
		"$BIN" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
	st=$?
	# valgrind 3.19 warns about syscalls it lacks (openat2, F_CREATED_QUERY):
	# not errors.  Errors and leaks give status 99 and "==PID== " reports.
	if [ "$st" -eq 99 ] || grep -qE '^==[0-9]+== +(Invalid|Conditional|Use of uninit|Syscall param|.* definitely lost|.* indirectly lost)' "$TMP/$name.vg"; then
		echo "not ok $n - $name: memcheck errors or leaks:"
		cat "$TMP/$name.vg"
		failed=1
	elif [ "$st" -ne "$want" ]; then
		echo "not ok $n - $name: exit $st, wanted $want"
		cat "$TMP/$name.err"
		failed=1
	else
		echo "ok $n - $name: no memory errors, no leaks"
	fi
}
vg list 0 list "$PID"
vg list-json 0 list "$PID" -J
vg list-text 0 list "$PID" --backend=text -o +BUILDID
vg list-files 0 list "$PID" --by-file -o +LIBVER,BUILDID,VERDICT
vg at 0 at "$PID" "0x$RX"
vg stale 0 stale "$PID" --show=all
vg stale-json 0 stale "$PID" --show=all -J --by-file
vg stale-metrics 0 stale "$PID" --metrics-file="$TMP/stale.prom"
vg libs-metrics 0 libs --pid="$PID" --metrics-file="$TMP/libs.prom"
vg snapshot 0 snapshot "$PID" -o "$TMP/snap.json"
vg diff 1 diff "$TMP/snap.json" "$$"
vg diff-json 0 diff "$TMP/snap.json" "$PID" -J
exit $failed
