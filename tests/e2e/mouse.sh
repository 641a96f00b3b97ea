#!/bin/sh
# The mouse and the sort arrows, in tmux against ms-fixture, as xterm
# reports them (SGR 1006 sequences written to the pane, TERM=xterm-256color):
# the wheel moves the selection three rows each way; a click on the SIZE
# heading sorts by SIZE ascending (SIZE^), a second click descending
# (SIZEv); a double click on a row opens it (the detail pane); in the
# process list PID^ (ascending) is the first order, and a click on RSS
# gives RSS^, then RSSv.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only when tmux is
# absent.
set -u

E2E_NAME="mouse e2e"
E2E_TAG=mouse
. "$(dirname "$0")/lib.sh"

start_fixture
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 100 -y 30 \
	"TERM=xterm-256color XDG_CONFIG_HOME='$TMP/cfg' $BIN --delay=0.3 $PID; sleep 60" ||
	fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"

heading() { screen | sed -n 2p; }
heading_has() { heading | grep -qF -e "$1"; }
header_has() { screen | sed -n 1p | grep -qF -e "$1"; }
header_lacks() { ! screen | sed -n 1p | grep -qF -e "$1"; }
# press BUTTON X Y: a press and a release at 1-based column X, line Y.
press() { keys -l "$(printf '\033[<%d;%d;%dM' "$1" "$2" "$3")"; }
click() { press 0 "$1" "$2"; keys -l "$(printf '\033[<0;%d;%dm' "$1" "$2")"; }
# The 1-based column of a heading's first letter.
column_of() { heading | awk -v w="$1" '{ print index($0, w) }'; }

wait_for "the position" header_has " 1/"
press 65 10 10
wait_for "the wheel to move down three rows" header_has " 4/"
press 65 10 10
wait_for "a second notch" header_has " 7/"
press 64 10 10
wait_for "the wheel to move up three rows" header_has " 4/"
pass "the wheel moves the selection three rows down and up"

x=$(column_of SIZE)
[ "$x" -gt 0 ] || fail "no SIZE heading"
click "$x" 2
wait_for "sort by SIZE" header_has "| sort SIZE"
wait_for "SIZE^ in the heading" heading_has "SIZE^"
header_lacks reversed || fail "the first click reversed the order"
pass "a click on SIZE sorts by it, ascending: SIZE^"
click "$x" 2
wait_for "the order reversed" header_has "sort SIZE, reversed"
wait_for "SIZEv in the heading" heading_has "SIZEv"
pass "a second click reverses it: SIZEv"

x=$(column_of START-END)
click "$x" 2
wait_for "address order again" header_lacks "| sort"
wait_for "address order marked ascending (START-END^)" heading_has "START-END^"
pass "a click on START-END gives the address order back: START-END^"

# A double click on the fifth row opens it: the detail pane.
click 10 7
click 10 7
wait_for "the detail pane" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -qE '^range +[0-9a-f]+-[0-9a-f]+'"
pass "a double click on a row opens its detail pane"

keys Escape
wait_for "the pane closed" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q '^- detail'"
keys q
wait_for "the process list" shows "processes ("
wait_for "PID^ in the process list" heading_has "PID^"
pass "the process list's first order, by PID ascending, shows PID^"
# Where RSS is, once the heading is drawn that far.
wait_for "the RSS heading" heading_has RSS
x=$(column_of RSS)
click "$x" 2
wait_for "RSS^" heading_has "RSS^"
click "$x" 2
wait_for "RSSv" heading_has "RSSv"
pass "a click on RSS sorts ascending (RSS^), a second descending (RSSv)"
exit 0
