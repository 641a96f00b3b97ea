#!/bin/sh
# A deleted library under /tmp, which the default ignore rules leave out
# (data/stale-ignore.conf): `stale` of its process lists nothing, yet says
# on stderr how many deleted files the rules ignored and how to see them;
# --show=ignored lists it and says nothing more; memory named like a file
# (a memfd) is not counted.
set -u
NAME=test_stale_ignored
. "$(dirname "$0")/shtest.sh"
. "$(dirname "$0")/syslib.sh"
[ -x "$PY" ] || skip "needs python3"
# A system library python3 can load in a sanitizer build too (syslib.sh).
LIB=$(syslib libbz2.so.1.0 libstale-a.so)
[ -f "$LIB" ] || skip "no $LIB"
# /tmp itself: the rule is about that folder, whatever TMPDIR says.
dir=$(mktemp -d /tmp/ms-ignored.XXXXXX) || exit 1
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
cp "$LIB" "$dir/libignored.so" || fail "cannot copy $LIB"
start "$dir/py.out" "$PY" -c '
import ctypes, os, sys, time
ctypes.CDLL(sys.argv[1])
fd = os.memfd_create("ms-ignored")
os.ftruncate(fd, 4096)
import mmap
m = mmap.mmap(fd, 4096)
print("ready", flush=True)
time.sleep(600)' "$dir/libignored.so"
pid=$last
rm "$dir/libignored.so"

"$BIN" stale "$pid" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 0 ] || fail "stale exited $rc (nothing stale but the ignored file): $(cat "$dir/err")"
[ ! -s "$dir/out" ] || fail "stale listed something: $(cat "$dir/out")"
grep -qx 'mapscope: stale: 1 deleted file ignored by the ignore rules (--show=ignored)' "$dir/err" ||
	fail "no count of the ignored file on stderr: $(cat "$dir/err")"
ok "the deleted library under /tmp is not listed, and stderr says 1 deleted file was ignored"

"$BIN" stale "$pid" --show=ignored -r -n -o NAME,VERDICT >"$dir/out" 2>"$dir/err"
grep -q 'libignored.so' "$dir/out" || fail "--show=ignored does not list it: $(cat "$dir/out")"
grep -q 'ignored by the ignore rules' "$dir/err" && fail "--show=ignored still counts it: $(cat "$dir/err")"
ok "--show=ignored lists it, and no count is said"
