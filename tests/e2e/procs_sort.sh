#!/bin/sh
# Sorting the process list, in tmux, over 20 processes of ours (a command
# filter keeps only them) on a screen of 9 rows, refreshed once a minute so
# that only the rows once on screen have their mappings counted:
#   - by MAPS, the rows with a blank MAPS (never counted) come last in
#     either direction (they once came first, ascending);
#   - reversing the sort selects the first row (it once kept the selection
#     on its process, now at the bottom of the list).
# Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="process sort e2e"
E2E_TAG=procsort
. "$(dirname "$0")/lib.sh"

ln -s "$(command -v sleep)" "$TMP/ms-sorted" || fail "cannot link sleep"
PIDS=
i=0
while [ "$i" -lt 20 ]; do
	"$TMP/ms-sorted" 600 &
	PIDS="$PIDS $!"
	i=$((i + 1))
done
trap 'kill $PIDS 2>/dev/null; cleanup' EXIT INT TERM
HIGHEST=$(echo $PIDS | tr ' ' '\n' | sort -n | tail -n 1)

in_pane 160 12 "$BIN --delay=60; sleep 60"
wait_for "the process list" shows "PID^"
keys '\'
keys -l "$TMP/ms-sorted"
keys Enter
wait_for "our 20 processes" shows "mapscope | 20 processes ("

# The rows on screen; a row counted has MAPS, MAPPED and STALE (8 fields
# with the command's two), one never counted has them blank (5).
body() { screen | sed -n '3,$p' | grep -F "$TMP/ms-sorted"; }
counted() { [ "$(echo "$1" | awk '{ print NF }')" -ge 8 ]; }
first_counted() { counted "$(body | sed -n 1p)"; }
# The blanks, if any on screen, all come after the numbers.
blanks_last() { body | awk '{ if (NF >= 8) { if (blank) bad = 1 } else blank = 1 } END { exit bad }'; }
rows_at_least() { [ "$(body | wc -l)" -ge "$1" ]; }
# The rows are drawn after the header, in pieces: every check of them waits.
wait_for "5 of our rows on screen" rows_at_least 5

keys '>' '>'
wait_for "the sort by MAPS" shows "| sort MAPS"
wait_for "sorted by MAPS, a counted first row" first_counted
wait_for "no blank MAPS above a counted one" blanks_last
pass "sorted by MAPS, ascending: blank rows last"
keys I
wait_for "the sort reversed" shows "MAPSv"
wait_for "reversed, a counted first row" first_counted
pass "sorted by MAPS, descending: blank rows last"

# By PID (still descending), then ascending: the lowest PID is selected,
# first; I then selects the first row, the highest, not the lowest at the end.
keys '<' '<'
wait_for "the sort by PID" shows "| sort PID"
keys I
wait_for "PID ascending" shows "PID^"
keys I
wait_for "PID descending" shows "PIDv"
selected_row() { screen -e | sed -n '3,$p' | grep -E "$(printf '\033')\\[([0-9]*;)*7m" | sed 's/\x1b\[[0-9;]*m//g'; }
first_row_pid() { body | sed -n 1p | awk '{ print $1 }'; }
first_row_is() { [ "$(first_row_pid)" = "$1" ]; }
selected_is() { [ "$(selected_row | awk '{ print $1 }')" = "$1" ]; }
wait_for "PID descending, $HIGHEST on the first row" first_row_is "$HIGHEST"
wait_for "after I, the selection on the first row ($HIGHEST)" selected_is "$HIGHEST"
pass "reversing the sort selects the first row"
