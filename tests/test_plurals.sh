#!/bin/sh
# Counts in messages take the right word: "1 process", "2 processes".  The
# scan summary of `stale` is run as nobody in a fresh PID namespace, where
# exactly one other process of nobody's is readable and the namespace's
# init (root's) is not; then with a second readable process.  Needs root
# and unshare; exit 77 (skip) otherwise.
set -u
BIN=${MS_BIN:-./mapscope}
[ "$(id -u)" = 0 ] || { echo "plurals: SKIP (needs root)"; exit 77; }
command -v unshare >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 ||
	{ echo "plurals: SKIP (no unshare or setpriv)"; exit 77; }
unshare -pf --mount-proc true 2>/dev/null || { echo "plurals: SKIP (no PID namespaces here)"; exit 77; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

# summary N: the stale summary with N sleepers of nobody's beside mapscope.
summary() {
	# The namespace's init stays a root shell (the trailing ":" keeps it from exec'ing).
	unshare -pf --mount-proc sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '\''
		i=0; while [ $i -lt "$1" ]; do sleep 30 & i=$((i + 1)); done; exec "$0" stale'\'' "$0" "$1"; :' \
		"$BIN" "$1" 2>&1 >/dev/null
}

out=$(summary 1)
echo "$out" | grep -q "stale: 1 process scanned;" ||
	{ echo "plurals: FAIL: one process scanned reads: $out"; exit 1; }
echo "ok 1 - one process: \"1 process scanned\""
out=$(summary 2)
echo "$out" | grep -q "stale: 2 processes scanned;" ||
	{ echo "plurals: FAIL: two processes scanned read: $out"; exit 1; }
echo "ok 2 - two processes: \"2 processes scanned\""
exit 0
