#!/bin/sh
# The explorer against a mapped file whose FUSE daemon never answers READ
# (tests/ms-fuse-serve): the maps view opens, the detail pane says the build
# ID was not read and why, and the process list (whose STALE column judges
# every process on each tick) keeps answering keys.  A build-ID read by the
# kernel there would sleep uninterruptibly: then the deadline fails the test
# and cleanup stops the server, which aborts the connection and releases it.
# Exit 77 (skip) when tmux is absent, or without root or /dev/fuse.
set -u

E2E_NAME="explorer fuse e2e"
E2E_TAG=fuse
. "$(dirname "$0")/lib.sh"
BUILT=$(dirname "$FIXTURE")

start_fuse_serve "$BUILT/libstale-a.so"

# -- the maps view and the detail pane ------------------------------------------
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 50 \
	"$BIN $PID; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID"
keys g "$START" Enter
keys Enter
wait_for "the skipped build ID in the detail pane" shows "build ID  not read: file on a fuse file system"
wait_for "the served path in the detail pane" shows "$SERVED"
pass "detail pane: the build ID of $SERVED was not read, and says why"
keys q
wait_for "the process list behind the maps view" shows "STALE COMMAND"
keys q
wait_for "the explorer to quit" test -s "$TMP/status"
pass "back to the process list, and quit"

# -- the process list judges every process on its ticks --------------------------------
# No ignore rules (the mount point is under /tmp, which the defaults ignore),
# so the replaced file is judged: its path crosses the FUSE mount, which the
# lookup never steps into, so it is unknown, not stale (0).
mkdir -p "$TMP/cfg/mapscope"
: > "$TMP/cfg/mapscope/stale-ignore.conf"
rm -f "$TMP/status"
# The same pane, another program: a second server start could race the first one's exit.
tmux -S "$SOCK" resize-window -t ms -x 250 -y 80
tmux -S "$SOCK" respawn-pane -k -t ms \
	"XDG_CONFIG_HOME='$TMP/cfg' $BIN; echo \$? > '$TMP/status'; sleep 60" || fail "cannot restart the pane"
wait_for "the process list" shows "STALE COMMAND"
keys / ms-fuse-serve Enter
wait_for "the mapping child judged" shows_re "^ *$PID +root +[0-9]+ +[0-9.]+[KMGTPE]? +[0-9.]+[KMGTPE]? +0 "
pass "the process list judges the child's FUSE file without looking into the mount: 0 stale"
keys q
wait_for "the process list to quit" test -s "$TMP/status"
pass "the process list keeps answering and quits"
echo "$E2E_NAME: $PASSED passed"
