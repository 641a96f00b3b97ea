#!/bin/sh
# Messages say what they mean.
#   - A bad settings line names the file and the key, both escaped: the
#     explorer reads its settings before it looks for a terminal, so this
#     runs without one.
#   - Why a process cannot be read names the cause: another user (its uid),
#     or a process of the same user that is not dumpable.
#   - Counts take the right word: "1 process", "2 processes".  The scan
#     summary of `stale` is run as nobody in a fresh PID namespace, where
#     exactly one other process of nobody's is readable and the namespace's
#     init (root's) is not; then with a second readable process.  That part
#     need root, setpriv and unshare; exit 77 (skip) when they are missing.
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

[ "$(id -u)" = 0 ] || { echo "messages: SKIP the rest (needs root)"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "messages: SKIP the rest (no setpriv)"; exit 77; }

# Why a process cannot be read, as nobody: another user's names its uid; one
# of nobody's own that made itself non-dumpable is not "the same user" missing.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
sleep 60 & ROOTS=$!
out=$(as_nobody "$BIN" list "$ROOTS" 2>&1 >/dev/null)
kill "$ROOTS"
[ "$out" = "mapscope: pid $ROOTS: no access to its memory map: needs ptrace access: run as its user (uid 0) or with CAP_SYS_PTRACE" ] ||
	{ echo "messages: FAIL: another user's process: $out"; exit 1; }
echo "ok 2 - another user's process: run as its user (uid 0) or with CAP_SYS_PTRACE"
# The system's python3: a user's (pyenv under /root) is not nobody's to run.
if [ -x /usr/bin/python3 ]; then
	# setpriv itself in the background ($! must be the python process, not a subshell).
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c 'import ctypes, time, sys
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
print("ready", flush=True)
time.sleep(60)' > "$TMP/nodump.out" &
	NODUMP=$!
	i=0
	until grep -q ready "$TMP/nodump.out" 2>/dev/null || [ $i -ge 200 ]; do
		kill -0 "$NODUMP" 2>/dev/null || { echo "messages: FAIL: the non-dumpable process did not start"; exit 1; }
		sleep 0.05
		i=$((i + 1))
	done
	out=$(as_nobody "$BIN" list "$NODUMP" 2>&1 >/dev/null)
	kill "$NODUMP"
	echo "$out" | grep -q "^mapscope: pid $NODUMP: no access to its memory map: it is not dumpable" ||
		{ echo "messages: FAIL: a non-dumpable process of the same user: $out"; exit 1; }
	echo "ok 3 - the same user's non-dumpable process: says it is not dumpable"
else
	echo "ok 3 - # SKIP no /usr/bin/python3 for a non-dumpable process"
fi

command -v unshare >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 ||
	{ echo "messages: SKIP the plurals (no unshare or setpriv)"; exit 77; }
unshare -pf --mount-proc true 2>/dev/null || { echo "messages: SKIP the plurals (no PID namespaces here)"; exit 77; }

# Nobody's shell runs mapscope: a copy where uid 65534 may reach it, as the
# tree may sit where it cannot (a clone under /root).
mkdir -m 0755 "$TMP/bin" && chmod 0755 "$TMP" && cp "$BIN" "$TMP/bin/mapscope" || exit 1
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'exec "$0" --version' "$TMP/bin/mapscope" >/dev/null 2>&1 ||
	{ echo "messages: SKIP the plurals (uid 65534 cannot reach $TMP: set TMPDIR to a directory it may enter)"; exit 77; }

# summary N: the stale summary with N sleepers of nobody's beside mapscope.
summary() {
	# The namespace's init stays a root shell (the trailing ":" keeps it from exec'ing).
	unshare -pf --mount-proc sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '\''
		i=0; while [ $i -lt "$1" ]; do sleep 30 & i=$((i + 1)); done; exec "$0" stale'\'' "$0" "$1"; :' \
		"$TMP/bin/mapscope" "$1" 2>&1 >/dev/null
}

out=$(summary 1)
echo "$out" | grep -q "stale: 1 process scanned;" ||
	{ echo "messages: FAIL: one process scanned reads: $out"; exit 1; }
echo "ok 4 - one process: \"1 process scanned\""
out=$(summary 2)
echo "$out" | grep -q "stale: 2 processes scanned;" ||
	{ echo "messages: FAIL: two processes scanned read: $out"; exit 1; }
echo "ok 5 - two processes: \"2 processes scanned\""
exit 0
