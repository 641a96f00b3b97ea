#!/bin/sh
# A user's crafted library cannot make root's `mapscope list PID --by-file
# -o +LIBVER` hang, loop or read what it should not.  Each case is a small
# ELF made by tests/hostile_verdef.py, owned by uid 65534 and mapped (read
# only, not loaded: the loader would walk the chain itself) by a process
# running as 65534; root lists that process's files with SONAME and LIBVER
# under ms-maxrss (SIGKILL at a deadline).  The run must end by itself
# within $SECONDS_OK s, exit 0, and give each file its expected LIBVER:
#   sane     HOSTILE_2.10 (the control: above HOSTILE_2.9.9 as numbers;
#            giving up on every file cannot pass)
#   auxloop  HOSTILE_2.10 (a vda_next loop and vd_cnt 65535: never followed)
#   chain    CHAIN_1023 (100000 definitions without DT_VERDEFNUM: walked
#            to 1024 and no further)
#   wrap     ? (a vd_next that loops back in 32-bit arithmetic)
#   huge     ? (DT_VERDEFNUM 2^32 - 1)
#   outside  ? (a vd_aux far past the file)
#   trunc    ? (the file ends inside its definitions)
# and every SONAME but trunc's still read (libhostile.so.1, libchain.so.1).
# Exit 77 (skip) only without root, python3 or setpriv.
set -u
NAME=libver-hostile
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
MAXRSS=$TDIR/ms-maxrss
SRCDIR=${srcdir:-.}
NOBODY=65534
skip() { echo "$NAME: SKIP ($*)"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root: root's mapscope against uid $NOBODY"
command -v python3 >/dev/null 2>&1 || skip "no python3 to craft the files"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv to run as uid $NOBODY"
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups test -x "${TMPDIR:-/tmp}" ||
	skip "uid $NOBODY cannot enter ${TMPDIR:-/tmp}"
# A python3 that uid 65534 may run (root's PATH may hold one under /root).
HOLDPY=
for py in /usr/bin/python3 "$(command -v python3)"; do
	if setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$py" -c pass 2>/dev/null; then
		HOLDPY=$py
		break
	fi
done
[ -n "$HOLDPY" ] || skip "no python3 that uid $NOBODY may run"

SECONDS_OK=5 DEADLINE=20 GUARD_MB=512
[ -n "${ASAN_OPTIONS:-}" ] && SECONDS_OK=15 DEADLINE=40

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-libverhostile.XXXXXX") || exit 1
fail() { echo "$NAME: FAIL: $*"; exit 1; }
HPID=
# The holder ends when its standard input (fd 3) closes; killed if it does not.
trap 'exec 3>&-; [ -z "$HPID" ] || kill -KILL "$HPID" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

CASES="sane auxloop chain wrap huge outside trunc"
for k in $CASES; do
	python3 "$SRCDIR/tests/hostile_verdef.py" "$k" "$TMP/lib$k.so" || fail "hostile_verdef.py $k"
done
chmod 0755 "$TMP" && chmod 0644 "$TMP"/*.so && chown "$NOBODY:$NOBODY" "$TMP" "$TMP"/*.so ||
	fail "cannot give $TMP to uid $NOBODY"

# The holder: uid 65534 maps every file read-only and says "ready", then
# waits for its standard input (fd 3 here) to end.
mkfifo "$TMP/in" "$TMP/out" || fail "mkfifo"
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$HOLDPY" -c '
import mmap, os, sys
held = []
for p in sys.argv[1:]:
    with open(p, "rb") as f:
        held.append(mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ))
print("ready", os.getpid(), flush=True)
sys.stdin.read()
' $(for k in $CASES; do echo "$TMP/lib$k.so"; done) <"$TMP/in" >"$TMP/out" &
HPID=$!
exec 3>"$TMP/in"
read -r word pid <"$TMP/out" || fail "the holder did not start"
[ "$word" = ready ] && [ "$pid" = "$HPID" ] || fail "the holder said '$word $pid'"
[ "$(awk '/^Uid:/ { print $2 }' "/proc/$HPID/status")" = "$NOBODY" ] || fail "the holder is not uid $NOBODY"

"$MAXRSS" "$TMP/rep" "$DEADLINE" "$GUARD_MB" \
	"$BIN" list "$HPID" --by-file -o NAME,SONAME,LIBVER -J >"$TMP/json" 2>"$TMP/err"
field() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/rep"; }
[ -s "$TMP/rep" ] || fail "ms-maxrss gave no report"
secs=$(field seconds) status=$(field status) killed=$(field killed)
[ "$killed" = none ] || fail "killed ($killed) after $secs s"
awk -v s="$secs" -v m="$SECONDS_OK" 'BEGIN { exit !(s <= m) }' || fail "took $secs s (over $SECONDS_OK)"
[ "$status" = 0 ] || fail "exit status $status: $(head -c 300 "$TMP/err")"

python3 - "$TMP/json" "$TMP" <<'PY' || fail "a LIBVER or SONAME is not what the case wants"
import json, sys
doc, tmp = json.load(open(sys.argv[1])), sys.argv[2]
want = {
    "sane": ("libhostile.so.1", "HOSTILE_2.10"),
    "auxloop": ("libhostile.so.1", "HOSTILE_2.10"),
    "chain": ("libchain.so.1", "CHAIN_1023"),
    "wrap": ("libhostile.so.1", "?"),
    "huge": ("libhostile.so.1", "?"),
    "outside": ("libhostile.so.1", "?"),
    "trunc": ("?", "?"),
}
got = {}
for f in doc["files"]:
    for k in want:
        if f["name"] == "%s/lib%s.so" % (tmp, k):
            got[k] = (f["soname"], f["libver"])
bad = 0
for k, w in sorted(want.items()):
    ok = got.get(k) == w
    bad += not ok
    print("%s %s: SONAME %s, LIBVER %s%s" % ("ok" if ok else "not ok", k, *(got.get(k) or ("-", "-")),
          "" if ok else " (want %s, %s)" % w))
sys.exit(1 if bad else 0)
PY
echo "$NAME: PASS: $(echo $CASES | wc -w) crafted libraries of uid $NOBODY listed in $secs s, each LIBVER as bounded"
