#!/bin/sh
# `stale --restart-plan` groups real processes by their systemd unit: two
# holders of a deleted and a replaced copy of libstale-a.so, each in a
# service's cgroup, are named in the plan and in its systemctl line; a
# holder whose copy was replaced by the same build, in a third service, is
# left out; a holder in no unit is listed apart.  The units are cgroups
# made by the test in the name=systemd hierarchy, where systemd is not
# PID 1 (a container): the unit reader (core/proc/unit.h) sees them as it
# sees systemd's.  Exit 77 (skip) without root, setpriv, or such a
# writable hierarchy (with systemd as PID 1 the test does not touch its tree).
set -u
NAME=restart-plan
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
skip() { echo "$NAME: SKIP ($*)"; exit 77; }
fail() { echo "$NAME: FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root to move processes between cgroups"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv"
[ "$(cat /proc/1/comm)" != systemd ] || skip "systemd is PID 1: its cgroup tree is its own"
CG=/sys/fs/cgroup/systemd
grep -q " $CG cgroup .*name=systemd" /proc/self/mounts || skip "no name=systemd hierarchy at $CG"
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
case $TDIR in /*) ;; *) TDIR=$PWD/$TDIR ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-plan.XXXXXX") || exit 1
TAG=msplan$$
SLICE=$CG/system.slice
UNITS=yes
. "$(dirname "$0")/stale_holders.sh"
cleanup() {
	holders_cleanup
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$SLICE" 2>/dev/null || skip "cannot write $SLICE"
: >"$TMP/no-rules.conf"
stale_holders

# shellcheck disable=SC2086
"$BIN" stale --ignore-file "$TMP/no-rules.conf" --restart-plan $PIDS >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc = 1 ] || fail "exit $rc, not 1: $(cat "$TMP/e")"
grep -qx "systemctl restart $TAG-a.service $TAG-b.service" "$TMP/o" ||
	fail "no systemctl line for both units: $(cat "$TMP/o")"
grep -q "$TAG-c" "$TMP/o" && fail "the same-build copy's unit is in the plan: $(cat "$TMP/o")"
grep -qx "  $PID_del ms-dlopen-hold" "$TMP/o" && grep -qx "    deleted: $TMP/del/libstale.so (deleted)" "$TMP/o" ||
	fail "no process or file of $TAG-a.service: $(cat "$TMP/o")"
grep -qx "    replaced: $TMP/rep/libstale.so (deleted)" "$TMP/o" || fail "no replaced file: $(cat "$TMP/o")"
sed -n '/^Not fixed by restarting services:/,$p' "$TMP/o" | grep -qx "  $PID_loose ms-dlopen-hold" ||
	fail "the process outside any unit is not listed apart: $(cat "$TMP/o")"
echo "ok 1 - the plan restarts $TAG-a and $TAG-b, leaves out $TAG-c, lists $PID_loose apart"

# shellcheck disable=SC2086
"$BIN" stale --ignore-file "$TMP/no-rules.conf" --restart-plan -J $PIDS >"$TMP/j" 2>"$TMP/e"
python3 - "$TMP/j" "$TAG" "$PID_loose" "$PID_rep" <<'PYEOF' || fail "JSON: $(cat "$TMP/j")"
import json, sys
doc = json.load(open(sys.argv[1]))
tag, loose, rep = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
units = [u["unit"] for u in doc["units"]]
assert units == [tag + "-a.service", tag + "-b.service"], units
assert all(u["kind"] == "service" for u in doc["units"])
assert doc["command"] == "systemctl restart %s-a.service %s-b.service" % (tag, tag), doc["command"]
b = doc["units"][1]["processes"]
assert [p["pid"] for p in b] == [rep] and b[0]["files"][0]["verdict"] == "replaced", b
rest = doc["rest"]
assert [(g["kind"], [p["pid"] for p in g["processes"]]) for g in rest] == [("none", [loose])], rest
PYEOF
echo "ok 2 - JSON: the same units, command line and the rest"
