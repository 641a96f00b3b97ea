#!/bin/sh
# The explorer says where a process under another root lives: a process
# that entered its own root by pivot_root (as a container runtime does) is
# moved into a cgroup named like an nspawn machine; its maps view's header
# and detail pane and its row in the process list must name "machine:mstest",
# and a process with our root gets no such label.  Needs root and a cgroup v2 hierarchy; skips otherwise.
# Polls with a deadline; never sleeps a fixed time to wait for something.
set -u

E2E_NAME="where e2e"
E2E_TAG=where
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "$E2E_NAME: SKIP (needs root for pivot_root and cgroups)"; exit 77; }
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || { echo "$E2E_NAME: SKIP (no cgroup v2 hierarchy)"; exit 77; }
CHILD=$(dirname "$FIXTURE")/stale-child
CGDIR="$CG/ms-where-$$"

where_cleanup() {
	exec 4>&- 2>/dev/null
	if [ -n "${SPID:-}" ]; then
		kill "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
	fi
	rmdir "$CGDIR/machine-mstest.scope" "$CGDIR" 2>/dev/null
	cleanup
}
trap where_cleanup EXIT INT TERM

mkdir "$TMP/root"
mkfifo "$TMP/child.in"
"$CHILD" < "$TMP/child.in" > "$TMP/child.out" 2>&1 &
SPID=$!
exec 4> "$TMP/child.in"
wait_for "stale-child" grep -q '^ready' "$TMP/child.out"
echo "pivot $TMP/root" >&4
wait_for "the pivot" grep -q '^ok' "$TMP/child.out"
mkdir -p "$CGDIR/machine-mstest.scope" && echo "$SPID" > "$CGDIR/machine-mstest.scope/cgroup.procs" ||
	{ echo "$E2E_NAME: SKIP (cannot move a process into a new cgroup here)"; exit 77; }

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 120 -y 30 \
	"$BIN $SPID; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $SPID"
header_has() { screen | head -1 | grep -qF -e "$1"; }
wait_for "the header to say where the process lives" header_has "[machine:mstest]"
pass "the maps view's header names the machine"
keys Enter
wait_for "the detail pane" shows "process in"
wait_for "the detail pane to say where the process lives" shows_re "process in.*machine:mstest"
pass "the detail pane names the machine"
keys Escape
wait_for "the detail pane to close" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q 'process in'"
keys q
wait_for "the process list" shows "PID^"
wait_for "the process's row to name the machine" shows_re "^ *$SPID .*\[machine:mstest\] "
pass "the process list's row names the machine"

# Our own root: no label.
start_fixture
# The same pane, another program: a second server start could race the first one's exit.
tmux -S "$SOCK" respawn-pane -k -t ms "$BIN $PID; sleep 60" || fail "cannot restart the pane"
wait_for "the fixture's maps view" shows "pid $PID"
screen | head -1 | grep -q "\[" && fail "a label on a process with our root"
pass "a process with our root has no label"
