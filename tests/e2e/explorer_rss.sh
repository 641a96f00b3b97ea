#!/bin/sh
# End-to-end test of the explorer's RSS column: the real binary in tmux
# against tests/ms-residency-fixture.  The rss setting shows the column at
# start, R hides and shows it, the written region's row shows its 5 resident
# pages, and after the fixture writes 3 more ("grow") the next refresh shows
# 8.  Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only when tmux
# is absent.
set -u

E2E_NAME="explorer rss e2e"
E2E_TAG=rss
. "$(dirname "$0")/lib.sh"
RESFIX="$(cd "$(dirname "$FIXTURE")" && pwd)/ms-residency-fixture"
heading_has_rss() { screen | sed -n 2p | grep -Eq ' SIZE +RSS PERM'; }
heading_lacks_rss() { screen | sed -n 2p | grep -Eq ' SIZE PERM'; }
# row_rss SIZE RSS: the written region's row shows these two sizes, in that order.
row_rss() { screen | grep -F " $START-" | grep -Eq " $1 +$2 rw-p"; }
# row_no_rss SIZE: the row shows its size right before its permissions, no RSS cell between.
row_no_rss() { screen | grep -F " $START-" | grep -Eq " $1 rw-p"; }

# -- the fixture, its stdin a fifo we hold open ---------------------------------------
mkfifo "$TMP/in"
mkdir "$TMP/data"
"$RESFIX" "$TMP/data" < "$TMP/in" > "$TMP/fix.out" 2>&1 &
CPID=$!
exec 3> "$TMP/in"
wait_for "the fixture" grep -q '^ready' "$TMP/fix.out"
START=$(awk '$1 == "map" && $2 == "anon-written" { print $3 }' "$TMP/fix.out")
[ -n "$START" ] || fail "no anon-written line: $(cat "$TMP/fix.out")"
KIB=$(($(getconf PAGESIZE) / 1024))
SIZE="$((8 * KIB))K"

mkdir -p "$TMP/config/mapscope"
printf 'rss = yes\ndelay = 0.2\n' > "$TMP/config/mapscope/config"

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 50 \
	"cd '$TMP' && XDG_CONFIG_HOME='$TMP/config' '$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")' $CPID; echo \$? > '$TMP/status'; sleep 60" ||
	fail "tmux did not start"

wait_for "the RSS heading (rss = yes)" heading_has_rss
pass "the rss setting shows the column at start"
# Bring the written region on screen: a sanitizer build maps far more than fits.
keys g "$START" Enter
wait_for "5 resident pages in the written region" row_rss "$SIZE" "$((5 * KIB))K"
pass "the written region shows its 5 resident pages"

keys R
wait_for "the column to go (R)" heading_lacks_rss
wait_for "the row without its RSS cell" row_no_rss "$SIZE"
pass "R hides the column"
keys R
wait_for "the column back (R)" heading_has_rss
pass "R shows it again"

echo grow >&3
wait_for "the fixture to grow" grep -q '^ok' "$TMP/fix.out"
wait_for "8 resident pages after grow" row_rss "$SIZE" "$((8 * KIB))K"
pass "the next refresh shows the new pages"

# q goes back to the process list, and quits from there.
keys q
wait_for "the process list" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 2p | grep -q COMMAND"
keys q
wait_for "mapscope to exit" test -s "$TMP/status"
[ "$(cat "$TMP/status")" = 0 ] || fail "exit status $(cat "$TMP/status")"
pass "q quits with status 0"
echo "explorer rss e2e: $PASSED checks passed"
