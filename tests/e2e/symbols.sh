#!/bin/sh
# g names the code at an address: the explorer in tmux (80 columns, a TERM
# that does not describe tmux) against ms-fixture, whose library
# libms-fixture-sym.so has a known symbol.  g with ms_fixture_sym_target+0x10
# must say "ms_fixture_sym_target+0x10" and "fixture_sym.c:LINE" on the
# message line and in the detail pane.  Exit 77 (skip) only when tmux is
# absent or the build has no libdw (then g has no symbols to show).
set -u

E2E_NAME="symbols e2e"
E2E_TAG=sym
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || { echo "$E2E_NAME: SKIP (built without libdw)"; exit 77; }
. "$(dirname "$0")/lib.sh"
SRCDIR=${srcdir:-.}

start_fixture
sym=$(awk '$1 == "sym" && $2 == "ms_fixture_sym_target" { print $3 }' "$TMP/fixture.out")
[ -n "$sym" ] || fail "the fixture gave no symbol address"
addr=$(printf '%x' $((0x$sym + 0x10)))
# The lines the target's body may be on, from the markers around it.
. "$SRCDIR/tests/fixture_sym.sh"
fixture_sym_lines
first=$SYM_FIRST last=$SYM_LAST

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 80 -y 30 \
	"env TERM=xterm-256color $BIN $PID; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"

# in_range TEXT: the line number after "fixture_sym.c:" in TEXT is the target's.
in_range() {
	line=$(printf '%s\n' "$1" | sed -n 's/.*fixture_sym\.c:\([0-9][0-9]*\).*/\1/p')
	[ -n "$line" ] && [ "$line" -ge "$first" ] && [ "$line" -le "$last" ]
}

keys g "$addr" Enter
status_has() { screen | tail -n 1 | grep -F "ms_fixture_sym_target+0x10" | grep -q "fixture_sym\.c:[0-9]"; }
wait_for "the symbol on the message line" status_has
# The whole line: its line number may be drawn in a later piece than its start.
status_ok() {
	status=$(screen | tail -n 1)
	case "$status" in
	"at $addr: ms_fixture_sym_target+0x10  "*) ;;
	*) return 1 ;;
	esac
	in_range "$status"
}
wait_for "the message line to say at $addr: ms_fixture_sym_target+0x10, a line in $first..$last" status_ok
status=$(screen | tail -n 1)
in_range "$status" || fail "message line's line number outside $first..$last: '$status'"
pass "g $addr: the message line says ms_fixture_sym_target+0x10 at fixture_sym.c:$line"

# The detail pane, with the mapping that holds the address selected.
keys Enter
wait_for "the detail pane's symbol line" shows "symbol    at $addr: ms_fixture_sym_target+0x10"
# The pane wraps at words, dropping the blanks at the break, and cuts a word
# wider than the pane (a long source path, as in a distcheck tree) anywhere,
# even inside its line number.  So join the symbol line with its
# continuations and compare without blanks.
# Its continuations are drawn after it: wait for the whole of it.
pane_text() { screen | awk '/^symbol    at / { on = 1; printf "%s", $0; next } on && /^          / { sub(/^ +/, ""); printf "%s", $0; next } on { exit }' | tr -d ' '; }
pane_ok() {
	pane=$(pane_text)
	case "$pane" in
	*"ms_fixture_sym_target+0x10/"*/tests/fixture_sym.c:*) ;;
	*) return 1 ;;
	esac
	in_range "$pane"
}
wait_for "the pane's symbol line to name ms_fixture_sym_target+0x10 at fixture_sym.c, a line in $first..$last" pane_ok
pane=$(pane_text)
in_range "$pane" || fail "detail pane's line number outside $first..$last: '$pane'"
pass "the detail pane's symbol line names ms_fixture_sym_target+0x10 at fixture_sym.c:$line"

# Another selection has no symbol line: it belongs to the address asked.
keys Down
wait_for "the symbol line to leave" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q '^symbol    at'"
keys Up
wait_for "the symbol line back" shows "symbol    at $addr:"
pass "the symbol line shows only while the mapping holding $addr is selected"

# An address in an anonymous mapping: no symbol, said so, never a guess.
anon=$(grep -m1 -E '^[0-9a-f]+-[0-9a-f]+ rw-p 00000000 00:00 0 *$' "/proc/$PID/maps" | cut -d- -f1)
[ -n "$anon" ] || fail "no anonymous mapping in the fixture"
keys g "$anon" Enter
wait_for "no symbol for an anonymous mapping" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | tail -n 1 | grep -q '^at $anon: no symbol ('"
pass "g $anon (anonymous): no symbol"
