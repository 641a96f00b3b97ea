#!/bin/sh
# Messages say what they mean.
#   - A bad settings line names the file and the key, both escaped: the
#     explorer reads its settings before it looks for a terminal, so this
#     runs without one.
#   - Counts take the right word: "1 process", "2 processes".  The scan
#     summary of `stale` is run as nobody in a fresh PID namespace, where
#     exactly one other process of nobody's is readable and the namespace's
#     init (root's) is not; then with a second readable process.  That part
#     needs root and unshare; exit 77 (skip) when they are missing.
set -u
BIN=${MS_BIN:-./mapscope}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-messages.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

dir="$TMP/x$(printf '\033')y"
mkdir -p "$dir/mapscope"
printf 'delay = 2\ncolour = red\nco\033lor = 1\n' > "$dir/mapscope/config"
out=$(XDG_CONFIG_HOME=$dir "$BIN" < /dev/null 2>&1 >/dev/null)
echo "$out" | grep -qxF "mapscope: $TMP/x\\x1by/mapscope/config: line 2: unknown key 'colour'" ||
	{ echo "messages: FAIL: the unknown key's warning reads: $out"; exit 1; }
echo "$out" | grep -qxF "mapscope: $TMP/x\\x1by/mapscope/config: line 3: unknown key 'co\\x1blor'" ||
	{ echo "messages: FAIL: the escaped key's warning reads: $out"; exit 1; }
echo "$out" | grep -q "$(printf '\033')" && { echo "messages: FAIL: a raw ESC in: $out"; exit 1; }
echo "ok 1 - a bad settings line names the file and the key, escaped"

[ "$(id -u)" = 0 ] || { echo "messages: SKIP the plurals (needs root)"; exit 77; }
command -v unshare >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 ||
	{ echo "messages: SKIP the plurals (no unshare or setpriv)"; exit 77; }
unshare -pf --mount-proc true 2>/dev/null || { echo "messages: SKIP the plurals (no PID namespaces here)"; exit 77; }

# summary N: the stale summary with N sleepers of nobody's beside mapscope.
summary() {
	# The namespace's init stays a root shell (the trailing ":" keeps it from exec'ing).
	unshare -pf --mount-proc sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '\''
		i=0; while [ $i -lt "$1" ]; do sleep 30 & i=$((i + 1)); done; exec "$0" stale'\'' "$0" "$1"; :' \
		"$BIN" "$1" 2>&1 >/dev/null
}

out=$(summary 1)
echo "$out" | grep -q "stale: 1 process scanned;" ||
	{ echo "messages: FAIL: one process scanned reads: $out"; exit 1; }
echo "ok 2 - one process: \"1 process scanned\""
out=$(summary 2)
echo "$out" | grep -q "stale: 2 processes scanned;" ||
	{ echo "messages: FAIL: two processes scanned read: $out"; exit 1; }
echo "ok 3 - two processes: \"2 processes scanned\""
exit 0
