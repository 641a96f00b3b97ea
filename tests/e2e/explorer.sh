#!/bin/sh
# End-to-end test of the explorer: the real binary in tmux against ms-fixture.
# Polls the pane with a deadline; never sleeps a fixed time to wait for it.
# Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="explorer e2e"
E2E_TAG=main
. "$(dirname "$0")/lib.sh"

# -- the fixture ---------------------------------------------------------------
start_fixture
LONG=$(awk '$1 == "map" && $2 == "long" { print $3 }' "$TMP/fixture.out")

# -- open it --------------------------------------------------------------------
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 160 -y 40 \
	"$BIN $PID; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl | filter none"
pass "mapscope $PID opens the maps view with the ioctl backend"

# -- x: only executable rows ----------------------------------------------------------
keys x
wait_for "filter x" shows "| filter x |"
# The rows' permissions; the rows are drawn after the header, so each check waits.
perms() { screen | awk 'NR > 2 && $0 ~ /^[ +-] +[0-9a-f]+-[0-9a-f]+ / { print $3 }'; }
only_x() { rows=$(perms); [ -n "$rows" ] && ! echo "$rows" | grep -qv '^..x'; }
wait_for "rows, and none without x, under the x filter" only_x
wait_for "the fixture's file-rx mapping under x" shows 'code.bin'
rows=$(perms)
pass "x shows only executable rows ($(echo "$rows" | wc -l) rows)"
keys x
wait_for "filter none" shows "| filter none |"

# -- the detail pane and the build ID ----------------------------------------
line=$("$BIN" list "$PID" -o START,BUILDID -n -r | awk 'NF == 2 { print; exit }')
[ -n "$line" ] || fail "mapscope list shows no build ID"
start=${line%% *}
buildid=${line#* }
keys g "$start" Enter
keys Enter
wait_for "the build ID in the detail pane" shows "build ID  $buildid"
pass "detail pane shows build ID $buildid of the mapping at $start"
# The package line, as list --by-file names libc's package, version and source.
libc_start=$("$BIN" list "$PID" -o START,NAME -n -r | awk '$2 ~ /\/libc\.so\.6$/ { print $1; exit }')
[ -n "$libc_start" ] || fail "mapscope list shows no libc.so.6 mapping"
pkg=$("$BIN" list "$PID" --by-file -J -o SONAME,PACKAGE,VERSION,PKGSRC | python3 -c '
import json, sys
for f in json.load(sys.stdin)["files"]:
    if f["soname"] == "libc.so.6":
        print("not packaged" if f["pkgsrc"] == "none" else "%s %s (%s)" % (f["package"], f["version"], f["pkgsrc"]))
        break')
[ -n "$pkg" ] || fail "list --by-file names no package for libc.so.6"
keys g "$libc_start" Enter
wait_for "libc's package in the detail pane ($pkg)" shows "package   $pkg"
pass "detail pane shows libc's package as list --by-file does: $pkg"
keys Tab
wait_for "the detail pane to close" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q 'build ID'"

# -- resize to 20x5, below it, and back --------------------------------------------
tmux -S "$SOCK" resize-window -t ms -x 20 -y 5
wait_for "the 20x5 screen" sh -c "[ \"\$(tmux -S '$SOCK' display -p -t ms '#{window_width}x#{window_height}')\" = 20x5 ] && tmux -S '$SOCK' capture-pane -p -t ms | head -1 | grep -q '^pid $PID'"
pass "20x5 still draws the header"
tmux -S "$SOCK" resize-window -t ms -x 19 -y 5
wait_for "terminal too small" shows "terminal too"
pass "19x5 says the terminal is too small"
tmux -S "$SOCK" resize-window -t ms -x 160 -y 40
wait_for "the full screen again" shows "pid $PID ms-fixture | ioctl | filter none"
pass "back to 160x40"

# -- a new mapping appears highlighted --------------------------------------------------
keys g "$LONG" Enter
wait_for "the long mapping selected" shows "ffffffff.dat"
kill -USR1 "$CPID"
wait_for "extra-1.dat marked as new" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -q '^+ .*extra-1\\.dat'"
# The row is also drawn bold (with or without colour), not just marked.
screen -e | grep 'extra-1\.dat' | grep -Eq "$(printf '\033')\\[([0-9;]*;)?1m" ||
	fail "the new row is not drawn bold"
pass "a newly mapped file appears marked + and highlighted"

# -- the process exits: banner, last data kept -------------------------------------
kill "$CPID"
wait "$CPID" 2>/dev/null
CPID=
wait_for "the exit banner" shows "pid $PID exited"
screen | grep -q 'extra-1\.dat' || fail "the last data did not stay on screen"
pass "banner after the fixture exits, last data still shown"

# -- quit ------------------------------------------------------------------------
keys q
wait_for "the process list" shows "PID^"
keys q
wait_for "mapscope to exit" test -s "$TMP/status"
[ "$(cat "$TMP/status")" = 0 ] || fail "exit status $(cat "$TMP/status")"
pass "q, q quits with status 0"

echo "explorer e2e: $PASSED checks passed"
exit 0
