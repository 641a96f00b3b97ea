#!/bin/sh
# The explorer ended by a signal gives the terminal back as it found it.
# For SIGTERM, SIGHUP, SIGINT and SIGQUIT sent from outside (kill, a closed
# SSH session, a service manager's stop), in tmux, with a plain sh at the
# prompt (no line editor that would repair the terminal itself):
#   - the alternate screen is off, the cursor visible, mouse reporting and
#     cursor-key application mode off;
#   - the tty echoes what is typed and runs it as a line (ICANON, ECHO);
#   - mapscope ended by that same signal (the shell sees 128 + its number).
# Polls with a deadline; never sleeps a fixed time to wait for something.
set -u

E2E_NAME="signals e2e"
E2E_TAG=sig
. "$(dirname "$0")/lib.sh"

start_fixture

flag() { tmux -S "$SOCK" display -p -t ms "#{$1}"; }
flag_is() { [ "$(flag "$1")" = "$2" ]; }

# The PID of the pane's child: mapscope, started by the pane's sh.
child_of_pane() {
	pane=$(tmux -S "$SOCK" display -p -t ms '#{pane_pid}')
	for st in /proc/[0-9]*/stat; do
		ppid=$(sed -e 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' "$st" 2>/dev/null)
		if [ "$ppid" = "$pane" ]; then
			p=${st#/proc/}
			echo "${p%/stat}"
			return 0
		fi
	done
	return 1
}

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 120 -y 30 "env PS1='sh\$ ' sh" ||
	fail "cannot start tmux"
wait_for "the shell prompt" shows 'sh$'

n=0
for pair in TERM:15 HUP:1 INT:2 QUIT:3; do
	sig=${pair%:*}
	num=${pair#*:}
	n=$((n + 1))
	keys "clear; ulimit -c 0; $BIN $PID" Enter
	wait_for "the maps view ($sig)" shows "pid $PID ms-fixture"
	wait_for "the alternate screen ($sig)" flag_is alternate_on 1
	MPID=$(child_of_pane) || fail "mapscope's PID not found ($sig)"
	kill -s "$sig" "$MPID"
	wait_for "mapscope to end on SIG$sig" sh -c "! kill -0 $MPID"
	wait_for "the main screen after SIG$sig" flag_is alternate_on 0
	flag_is cursor_flag 1 || fail "SIG$sig: the cursor is still hidden"
	flag_is keypad_cursor_flag 0 || fail "SIG$sig: cursor keys are left in application mode"
	flag_is mouse_any_flag 0 || fail "SIG$sig: mouse reporting is still on"
	# Typed at the prompt: echoed as typed, and run as a line.
	keys "echo status-$n=\$?" Enter
	wait_for "echo and a line run after SIG$sig" sh -c \
		"tmux -S '$SOCK' capture-pane -p -t ms | grep -qF 'sh\$ echo status-$n=\$?' &&
		 tmux -S '$SOCK' capture-pane -p -t ms | grep -qx 'status-$n=$((128 + num))'"
	pass "SIG$sig: mapscope ends with status $((128 + num)) and the terminal is restored"
done
