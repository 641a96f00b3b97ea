#!/bin/sh
# Keys as real terminals send them: the explorer in tmux under TERM values
# that do not describe what tmux sends (tmux sends End as ESC [ 4 ~, Home as
# ESC [ 1 ~, Ctrl+Up as ESC [ 1 ; 5 A, Alt+x as ESC x).  In each state
# (maps view, detail pane, help, prompt) End, Home, Ctrl+Up, Alt+x and a
# lone Esc must do what the help says.  After a key that should change
# nothing, a sentinel key whose effect is visible proves the key was read
# and left the state as it was.  Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="keys e2e"
E2E_TAG=keys
. "$(dirname "$0")/lib.sh"

start_fixture
HEAD="pid $PID ms-fixture | ioctl"

# explorer_in_tmux COLUMNS LINES TERM: mapscope PID in the pane, afresh.
explorer_in_tmux() {
	if tmux -S "$SOCK" has-session -t ms 2>/dev/null; then
		tmux -S "$SOCK" resize-window -t ms -x "$1" -y "$2" &&
			tmux -S "$SOCK" respawn-pane -k -t ms "env TERM=$3 $BIN $PID; sleep 60"
	else
		tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x "$1" -y "$2" \
			"env TERM=$3 $BIN $PID; sleep 60"
	fi || fail "cannot start mapscope in tmux"
}

last_line() { screen | tail -n 1; }
last_is() { [ "$(last_line | sed 's/ *$//')" = "$1" ]; }
no_pane() { ! screen | grep -q -e '^- detail'; }

# The maps view is open (filter $1) and the detail pane is or is not ($2).
maps_state() {
	shows "$HEAD | filter $1 |" && if [ "$2" = pane ]; then shows "build ID"; else no_pane; fi
}

# The RSS heading is on ($1 = rss) or off.
rss_heading() {
	if [ "$1" = rss ]; then screen | sed -n 2p | grep -q ' RSS '; else ! screen | sed -n 2p | grep -q ' RSS '; fi
}

# Sentinels: R toggles the RSS column; j (or k) scrolls the help; a types.
sentinel_maps() {
	keys R
	wait_for "$1 to leave the maps view ($2) open" maps_rss "$2" rss
	keys R
	wait_for "the RSS column off again" maps_rss "$2" norss
}
maps_rss() { maps_state none "$1" && rss_heading "$2"; }
help_top() { screen | sed -n 2p; }
help_top_is() { [ "$(help_top)" = "$1" ]; }
help_top_is_not() { ! help_top_is "$1"; }
# A frame is drawn top down, in pieces: the help's top line is whole once
# the lines under it are drawn too.
help_second() { screen | sed -n 3p; }
# The help over the whole maps view: something under its header, no mapping row left.
help_drawn() { [ -n "$(help_top)" ] && ! screen | sed -n '3,$p' | grep -qE '^.. *[0-9a-f]+-[0-9a-f]+ '; }
# Off the help's first page: neither of its first two lines left where they were.
help_off_first() { help_top_is_not "$help_first" && [ "$(help_second)" != "$help_first2" ]; }
# At the help's last page (End) j cannot scroll: k up, then j back.
sentinel_help() {
	top=$(help_top)
	there=j back=k
	[ "$top" = "$help_first" ] || { there=k back=j; }
	keys $there
	wait_for "$1 to leave the help open" help_top_is_not "$top"
	shows "mapscope help" >/dev/null || fail "$1 closed the help"
	keys $back
	wait_for "the help where it was" help_top_is "$top"
}
sentinel_prompt() {
	keys a
	wait_for "$1 to leave the prompt open and empty" last_is 'name contains: a'
	keys BSpace
	wait_for "the prompt empty again" last_is 'name contains:'
}

for term in xterm-256color linux vt220; do
	explorer_in_tmux 160 40 "$term"
	wait_for "the maps view and its index ($term)" shows_re "$HEAD \\| filter none \\| 1/[0-9]+ maps"
	N=$(screen | sed -n '1s#.*| 1/\([0-9]*\) maps.*#\1#p')

	# -- the maps view ---------------------------------------------------------------
	keys End
	wait_for "End to select the last row ($term)" shows "$HEAD | filter none | $N/$N maps"
	sentinel_maps "End ($term)" nopane
	keys Home
	wait_for "Home to select the first row ($term)" shows "$HEAD | filter none | 1/$N maps"
	sentinel_maps "Home ($term)" nopane
	keys C-Up
	sentinel_maps "Ctrl+Up ($term)" nopane
	wait_for "Ctrl+Up to leave the first row selected ($term)" shows "| 1/$N maps"
	keys M-x
	sentinel_maps "Alt+x ($term)" nopane
	if [ "$term" = xterm-256color ]; then
		# The other forms of End and Home, raw.
		for seq in "1b 5b 38 7e" "1b 5b 46" "1b 4f 46"; do
			keys -H $seq
			wait_for "End as $seq" shows "| $N/$N maps"
			keys -H 1b 5b 37 7e
			wait_for "Home as ESC [ 7 ~ after $seq" shows "| 1/$N maps"
		done
		keys -H 1b 5b 48
		sentinel_maps "Home as ESC [ H" nopane
		wait_for "ESC [ H to keep the first row" shows "| 1/$N maps"
	fi
	pass "maps view ($term): End, Home, Ctrl+Up, Alt+x"

	# -- the detail pane ------------------------------------------------------------------
	keys Enter
	wait_for "the detail pane ($term)" maps_state none pane
	keys End
	wait_for "End in the pane ($term)" shows "| $N/$N maps"
	sentinel_maps "End in the pane ($term)" pane
	keys Home
	wait_for "Home in the pane ($term)" shows "| 1/$N maps"
	sentinel_maps "Home in the pane ($term)" pane
	keys C-Up
	sentinel_maps "Ctrl+Up in the pane ($term)" pane
	keys M-x
	sentinel_maps "Alt+x in the pane ($term)" pane
	keys Escape
	wait_for "Esc to close the pane only ($term)" maps_state none nopane
	sentinel_maps "Esc in the pane ($term)" nopane
	pass "detail pane ($term): End, Home, Ctrl+Up, Alt+x keep it; Esc closes the pane, not the view"

	# -- the help ---------------------------------------------------------------------------
	keys '?'
	wait_for "the help ($term)" shows "mapscope help"
	wait_for "the help over the whole maps view ($term)" help_drawn
	help_first=$(help_top)
	help_first2=$(help_second)
	for k in End Home C-Up M-x; do
		keys "$k"
		# The page End and Home go to, on screen before the sentinel reads where the help is.
		case $k in
		End) wait_for "End to show the help's last page ($term)" help_off_first ;;
		Home) wait_for "Home to show the help's first page ($term)" help_top_is "$help_first" ;;
		esac
		sentinel_help "$k in the help ($term)"
	done
	keys Escape
	wait_for "Esc to close the help ($term)" maps_state none nopane
	sentinel_maps "Esc in the help ($term)" nopane
	pass "help ($term): End, Home, Ctrl+Up, Alt+x keep it; Esc closes it"

	# -- the prompt -----------------------------------------------------------------------------
	keys '\'
	wait_for "the name prompt ($term)" last_is 'name contains:'
	for k in End Home C-Up M-x; do
		keys "$k"
		sentinel_prompt "$k in the prompt ($term)"
	done
	keys Escape
	wait_for "Esc to close the prompt ($term)" last_is '? help  q back/quit'
	sentinel_maps "Esc in the prompt ($term)" nopane
	pass "prompt ($term): End, Home, Ctrl+Up, Alt+x keep it; Esc closes it, not the view"
	# Esc then Enter in one write, as a script or a fast typist sends them: two keys.
	keys '\'
	wait_for "the name prompt again ($term)" last_is 'name contains:'
	keys Escape Enter
	wait_for "Esc to close the prompt and Enter to open the pane ($term)" maps_state none pane
	keys Escape
	wait_for "Esc to close the pane ($term)" maps_state none nopane
	pass "Esc then Enter at once ($term): the prompt closes, the pane opens"

	# -- Esc from the maps view: the process list, on the process left -----------------------
	keys Escape
	wait_for "Esc to go back to the process list ($term)" shows "PID^"
	wait_for "the process left shown in the list ($term)" shows_re "^ *$PID "
	keys Enter
	wait_for "Enter to reopen the process left ($term)" shows "$HEAD | filter none"
	pass "Esc from the maps view ($term): back to the list, $PID selected and shown"
done

# -- going back on a short screen: the process left is scrolled into view, selected --------
selected_row() { screen -e | grep -F "$(printf '\033[7m')" | sed 's/\x1b\[[0-9;]*m//g'; }
selected_is() { selected_row | grep -Eq "^ *$1 "; }
not_selected() { ! selected_is "$1"; }
explorer_in_tmux 120 8 xterm-256color
wait_for "the maps view (8 lines)" shows "$HEAD | filter none"
keys Escape
wait_for "the process list (8 lines)" shows "PID^"
wait_for "$PID shown and selected after Esc" selected_is "$PID"
# Another process, found by search (this pane's shell: "sh -c env TERM=..."; the
# tmux server's command line holds the rest of that text too), opened and left.
keys /
keys -l "c env TERM="
keys Enter
wait_for "the search to move off $PID" not_selected "$PID"
keys Enter
wait_for "another process's maps view" shows_re "^pid [0-9]+ "
OTHER=$(screen | sed -n '1s/^pid \([0-9]*\) .*/\1/p')
[ "$OTHER" != "$PID" ] || fail "the search opened $PID again"
keys q
wait_for "the process list again" shows "PID^"
wait_for "$OTHER selected after going back from it" selected_is "$OTHER"
pass "back on an 8-line screen: $PID (from the command line) and $OTHER (from the list) selected and shown"

echo "keys e2e: $PASSED checks passed"
exit 0
