#!/bin/sh
# End-to-end test of the stale view's grouping by unit (u), in tmux.  Four
# holders of a copy of libstale-a.so under the test's temp dir: one whose
# copy is deleted, one whose copy is replaced by another build, one whose
# copy is replaced by the same build, and one more with a deleted copy.
# Where the test can give processes units (root, a writable name=systemd
# hierarchy, systemd not PID 1: as test_restart_plan.sh does) the first
# three go into the services TAG-a, TAG-b and TAG-c and the last stays
# outside any unit; elsewhere they stay in whatever unit runs the test.
# Either way the view, filtered to the temp dir (\), must group them as
# `stale --restart-plan -J` does: a heading per unit ("KIND UNIT (N
# process)"), each holder's line under its own, the same-build holder
# nowhere, the header counting the services.  Then: Tab on a heading,
# search (/) stopping at a heading, and u again back to the list by process.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only without tmux
# or python3.
set -u

E2E_NAME="stale units e2e"
E2E_TAG=units
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "$E2E_NAME: SKIP (no python3)"; exit 77; }
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
TDIR=$(cd "$(dirname "$FIXTURE")" && pwd)
TAG=msunits$$
SLICE=/sys/fs/cgroup/systemd/system.slice
UNITS=no
. "$(dirname "$0")/../stale_holders.sh"
trap 'holders_cleanup; cleanup' EXIT
trap 'exit 1' INT TERM

if [ "$(id -u)" = 0 ] && [ "$(cat /proc/1/comm)" != systemd ] &&
	grep -q " ${SLICE%/system.slice} cgroup .*name=systemd" /proc/self/mounts && mkdir -p "$SLICE" 2>/dev/null; then
	UNITS=yes
fi
echo "$E2E_NAME: units made by the test: $UNITS"

stale_holders

# The default ignore list skips temp files: this one ignores memfds only, for the view and the plan alike.
mkdir -p "$TMP/config/mapscope"
printf '# test list\n/memfd:* memory file\n' >"$TMP/config/mapscope/stale-ignore.conf"

# -- what the plan says: one line per group, "HEADING<TAB>PID PID...", in order; then the services' count
# shellcheck disable=SC2086
"$BIN" stale --ignore-file "$TMP/config/mapscope/stale-ignore.conf" --restart-plan -J $PIDS >"$TMP/plan.json" 2>"$TMP/plan.err"
python3 - "$TMP/plan.json" >"$TMP/plan" <<'PYEOF' || fail "the plan's JSON: $(cat "$TMP/plan.json" "$TMP/plan.err")"
import json, sys
doc = json.load(open(sys.argv[1]))
for g in doc["units"] + doc["rest"]:
    n = len(g["processes"])
    head = g["kind"] + (" " + g["unit"] if g.get("unit") else "")
    head += " (%d %s)" % (n, "process" if n == 1 else "processes")
    if g.get("advice"):
        head += ": " + g["advice"]
    print(head + "\t" + " ".join(str(p["pid"]) for p in g["processes"]))
print(len(doc["units"]))
PYEOF
SERVICES=$(tail -n 1 "$TMP/plan")
sed -i '$d' "$TMP/plan"
grep -q "	.*\\b$PID_same\\b" "$TMP/plan" && fail "the plan holds the same-build holder: $(cat "$TMP/plan")"
[ "$(wc -l <"$TMP/plan")" -ge 1 ] || fail "an empty plan: $(cat "$TMP/plan.json")"
if [ "$UNITS" = yes ]; then
	printf '%s\n' "service $TAG-a.service (1 process)	$PID_del" "service $TAG-b.service (1 process)	$PID_rep" \
		"none (1 process): outside any unit: restart each by hand	$PID_loose" >"$TMP/want"
	cmp -s "$TMP/want" "$TMP/plan" || fail "the plan is not the one expected: $(cat "$TMP/plan")"
fi

# -- the stale view, filtered to our temp dir, then u ----------------------------------
in_pane 200 50 "XDG_CONFIG_HOME='$TMP/config' '$BIN' --delay=0.2 $PID_loose; sleep 60"
wait_for "the maps view" shows "pid $PID_loose "
keys D
wait_for "the stale view" shows "mapscope | stale:"
keys '\'
wait_for "the filter prompt" shows "name contains:"
keys -l "$TMP/"
keys Enter
wait_for "the filter" shows "name~$TMP/"
wait_for "every holder listed" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | awk 'NR > 2 { print \$1 }' |
	grep -cxE '$PID_del|$PID_rep|$PID_loose' | grep -qx 3"
screen | awk 'NR > 2 { print $1 }' | grep -qx "$PID_same" && fail "the same-build holder is listed"
screen | grep -qE '^(service|unit|session|none|init) ' && fail "headings before u"
pass "by process: the three stale holders, not the same-build one, no headings"

keys u
wait_for "the header by unit" shows "mapscope | stale by unit, $SERVICES service"
pass "u: the header says by unit, $SERVICES services to restart (as the plan's command)"
# Each heading as the plan words it, below the one before, and each holder
# under its own heading; one heading per group of the plan.  The lines
# under the header are drawn after it, in pieces: this waits for them.
grouped_as_plan() {
	screen >"$TMP/units.screen"
	prev=0
	while IFS='	' read -r head pids; do
		at=$(grep -nxF -e "$head" "$TMP/units.screen" | cut -d: -f1)
		[ -n "$at" ] && [ "$at" -gt "$prev" ] || return 1
		prev=$at
		for p in $pids; do
			awk -v at="$at" -v p="$p" 'NR > at && $1 == p { f = 1 } NR > at && /^[a-z]/ { exit } END { exit !f }' \
				"$TMP/units.screen" || return 1
		done
	done <"$TMP/plan"
	[ "$(grep -cE '^(service|unit|session|none|init) ' "$TMP/units.screen")" = "$(wc -l <"$TMP/plan")" ]
}
wait_for "one heading per group of the plan, in its order, each holder under its own" grouped_as_plan
pass "one heading per group of the plan, in its order, each holder under its own"

# -- Tab on the first heading: the unit and what to run --------------------------------
keys Home
keys Tab
first=$(head -n 1 "$TMP/plan" | cut -f1)
case $first in
service\ *)
	unit=${first#service }
	unit=${unit% (*}
	wait_for "the pane's restart line" shows_re "restart +systemctl restart $unit\$"
	;;
*) wait_for "the pane's kind" shows_re "kind +${first%% *}\$" ;;
esac
pass "Tab on a heading: its kind and what to do"
keys Tab

# -- / stops at a heading by its unit's name (with units of our own) -----------------------------
if [ "$UNITS" = yes ]; then
	ESC=$(printf '\033')
	keys / "$TAG-b"
	keys Enter
	wait_for "the search on TAG-b's heading" sh -c "tmux -S '$SOCK' capture-pane -e -p -t ms |
		grep -E '^($ESC\\[[0-9;]*m)*$ESC\\[([0-9]+;)*7m' | grep -q 'service $TAG-b.service'"
	pass "/ $TAG-b selects its heading"
fi

# -- u again: by process -------------------------------------------------------------------
keys u
wait_for "the header by process" shows "mapscope | stale: "
no_headings() { ! screen | grep -qE '^(service|unit|session|none|init) '; }
wait_for "no headings left after u again" no_headings
pass "u again: by process, no headings"
echo "$E2E_NAME: $PASSED checks passed"
exit 0
