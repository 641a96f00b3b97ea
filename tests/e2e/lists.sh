#!/bin/sh
# Living in the lists: the real binary in tmux against ms-fixture.
#   - Esc on the first screen (the process list) does not quit; q does.
#   - Ctrl-U clears a prompt (search, name filter, g, snapshot path).
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only when tmux is
# absent.
set -u

E2E_NAME="lists e2e"
E2E_TAG=lists
. "$(dirname "$0")/lib.sh"

start_fixture
last_line() { screen | tail -n 1 | sed 's/ *$//'; }
last_is() { [ "$(last_line)" = "$1" ]; }
exited() { [ -s "$TMP/status" ]; }

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 160 -y 30 \
	"$BIN; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the process list" shows "PID^"

# -- Esc on the first screen ------------------------------------------------------------
# Each Esc is seen (it says "q quits"; a j in between clears that) before the next key.
for i in 1 2 3; do
	keys Escape
	wait_for "Esc $i to say that q quits" last_is "q quits"
	keys j
	wait_for "j to clear the message" last_is "? help  q back/quit"
done
exited && fail "Esc quit the explorer"
# A sentinel: a key the list handles after the Esc presses, then still no exit.
keys /
wait_for "the search prompt after Esc" last_is "search:"
keys Escape
# The heading shows with the prompt open too: wait for the key hints back.
wait_for "Esc to close the prompt only" last_is "? help  q back/quit"
exited && fail "Esc on the prompt quit the explorer"
pass "Esc on the process list does not quit; it says q quits"

# -- Ctrl-U clears a prompt ---------------------------------------------------------------
keys /
keys -l "no such command line"
wait_for "the typed search" last_is "search: no such command line"
keys C-u
wait_for "Ctrl-U to clear the search prompt" last_is "search:"
# The fixture's directory is in its command line alone.
keys -l "$TMP/fx"
wait_for "typing again after Ctrl-U" last_is "search: $TMP/fx"
keys Enter
# The selected (reverse-video) row is the fixture's: its PID, as the command
# line may be cut before $TMP/fx (a tree under a long path).
selected_is_fixture() {
	screen -e | grep -F "$(printf '\033[7m')" | sed "s/$(printf '\033')\[[0-9;]*m//g" | grep -qE "^ *$PID "
}
wait_for "the search to land on the fixture" selected_is_fixture
keys Enter
wait_for "the fixture's maps view" shows "pid $PID ms-fixture | ioctl"
for k in '\' g S; do
	keys "$k"
	case $k in
	'\') label="name contains:" ;;
	g) label="go to address (hex):" ;;
	S) label="save snapshot to:" ;;
	esac
	wait_for "the $k prompt" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | tail -n 1 | grep -qF '$label'"
	keys -l "xyz"
	wait_for "typing in the $k prompt" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | tail -n 1 | grep -qF 'xyz'"
	keys C-u
	wait_for "Ctrl-U to clear the $k prompt" last_is "$label"
	keys Escape
	after="? help  q back/quit"
	[ "$k" = S ] && after="snapshot not saved"
	wait_for "Esc to close the $k prompt" last_is "$after"
done
pass "Ctrl-U clears the search, name filter, g and snapshot prompts"

# -- q quits from the first screen ---------------------------------------------------------
keys q
wait_for "q back to the process list" shows "PID^"
keys q
wait_for "q to quit from the process list" exited
[ "$(cat "$TMP/status")" = 0 ] || fail "the explorer exited with $(cat "$TMP/status")"
pass "q quits from the process list"

echo "lists e2e: $PASSED checks passed"
exit 0
