#!/bin/sh
# The explorer against a library whose directory a FUSE file system that
# never answers LOOKUP was mounted over, after a child (as nobody) mapped
# it (tests/ms-fuse-serve --over).  The mapping's name and device are the
# real file's; only a walk of its path would step into the mount, and
# block in fuse_lookup.  The detail pane must give the verdict unknown and
# why, and the process list (whose STALE column judges every process on
# each tick) must keep answering.  A blocked explorer fails the deadline;
# cleanup stops the server, which aborts the connection and releases it.
# Exit 77 (skip) when tmux is absent, or without root or /dev/fuse.
set -u

E2E_NAME="explorer fuse lookup e2e"
E2E_TAG=fuselookup
. "$(dirname "$0")/lib.sh"
BUILT=$(dirname "$FIXTURE")

# nobody maps DIR/lib.so; the default rules would ignore a file under /tmp.
chmod 755 "$TMP"
mkdir -m 755 "$TMP/DIR" "$TMP/cfg" "$TMP/cfg/mapscope"
cp "$BUILT/libstale-a.so" "$TMP/DIR/lib.so"
: > "$TMP/cfg/mapscope/stale-ignore.conf"
start_fuse_serve --over "$TMP/DIR" "$BUILT/libstale-a.so"

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 250 -y 80 \
	"XDG_CONFIG_HOME='$TMP/cfg' $BIN $PID; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID"
keys g "$START" Enter
keys Enter
wait_for "the verdict in the detail pane" shows "unknown: the path crosses a daemon-served mount"
wait_for "the path in the detail pane" shows "$SERVED"
pass "detail pane: $SERVED is unknown, the path crosses a daemon-served mount"
keys q
wait_for "the process list behind the maps view" shows "STALE COMMAND"
keys / ms-fuse-serve Enter
wait_for "the mapping child judged" shows_re "^ *$PID +nobody +[0-9]+ +[0-9.]+[KMGTPE]? +[0-9.]+[KMGTPE]? +0 "
pass "the process list judges nobody's library without looking into the mount: 0 stale"
keys q
wait_for "the explorer to quit" test -s "$TMP/status"
pass "the explorer keeps answering and quits"
kill "$CPID" 2>/dev/null
wait "$CPID" 2>/dev/null
CPID=
echo "$E2E_NAME: $PASSED passed"
