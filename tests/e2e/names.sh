#!/bin/sh
# Long names in an 80-column tmux window: the fixture's long path keeps the
# end of its file name, Right and Left scroll the NAME column (the heading
# shows the offset) and COMMAND in the process list, and the detail pane
# wraps the whole name.  Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="names e2e"
E2E_TAG=names
. "$(dirname "$0")/lib.sh"

start_fixture
LONG=$(awk '$1 == "map" && $2 == "long" { print $3 }' "$TMP/fixture.out")
# The fixture prints names in hex.
NAME=$(awk '$1 == "map" && $2 == "long" {
	h = "0123456789abcdef"
	for (i = 1; i < length($NF); i += 2)
		printf "%c", (index(h, substr($NF, i, 1)) - 1) * 16 + index(h, substr($NF, i + 1, 1)) - 1
}' "$TMP/fixture.out")
case $NAME in
/*dddd*/ffff*.dat) ;;
*) fail "unexpected long name from the fixture: $NAME" ;;
esac
case $NAME in
*\\*) fail "the fixture's long name needs no escaping, so its text is what mapscope shows" ;;
esac

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 80 -y 24 \
	"$BIN $PID; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"
keys g "$LONG" Enter
wait_for "the long mapping selected" shows_re "^ *$LONG *-"
# The row without the address-space strip after it (a rule, then a kind letter).
row() { screen | grep -E "^ *$LONG-" | sed -E 's/ *\|[cdfhsaCDFHSA]$//'; }
heading() { screen | sed -n 2p | sed -E "s/ *(\|)? *$//"; }
# The columns' headings end before the strip's own (ADDRESS SPACE, at the right edge).
heading_ends() { heading | sed 's/  *ADDRESS SPACE$//' | grep -q -e "$1\$"; }
row_has() { row | grep -qF -e "$1"; }
# row_ends TEXT: the long row, whole and on one line only, ends with TEXT;
# it is left in ROW.  A screen is read while the terminal may be part way
# through a frame (a scrolled row can show twice until its old line is
# redrawn), so every check of the row waits for it rather than reading it once.
row_ends() {
	ROW=$(row)
	[ "$(printf '%s\n' "$ROW" | wc -l)" -eq 1 ] || return 1
	case $ROW in *"$1") return 0 ;; esac
	return 1
}
proc_row_has() { screen | grep -E "^ *$PID " | grep -qF -e "$1"; }

# -- elided: the start, an ellipsis, the end of the file name ----------------------------
wait_for "the long row to end with its file name's end" row_ends "ff.dat"
r=$ROW
echo "$r" | grep -Eq '(…|\.\.\.)' || fail "the long row has no ellipsis: $r"
# Not even "/.../NAME" fits: the file name's own start shows, no folder before it.
first=/$(basename "$NAME" | cut -c1-3)
echo "$r" | grep -qF " $first" || fail "the long row does not start with its file name's start: $r"
# Characters, not bytes, whatever the locale the suite runs in ('…' is three bytes).
[ "$(printf '%s' "$r" | LC_ALL=C.UTF-8 wc -m)" -le 80 ] || fail "the long row is wider than the window"
pass "the long path is elided in its middle and keeps the end of its file name"

# -- Right: the raw name from an offset; Left: back ----------------------------------------
keys Right
wait_for "the heading to show NAME +8" heading_ends "NAME +8"
want=$(printf '%s' "$NAME" | cut -c9-19)
wait_for "the name from column 8" row_has "$want"
keys Right Right
wait_for "NAME +24" heading_ends "NAME +24"
want=$(printf '%s' "$NAME" | cut -c25-35)
wait_for "the name from column 24" row_has "$want"
pass "Right scrolls NAME: the heading says +8, +24 and the raw name shows from there"
# Right stops while the widest name still shows: the long one's end stays on screen.
i=0
while [ $i -lt 60 ]; do keys Right; i=$((i + 1)); done
LAST=$(( ($(printf '%s' "$NAME" | wc -c) - 1) / 8 * 8 ))
wait_for "Right to stop at NAME +$LAST" heading_ends "NAME +$LAST"
# What is left from there: 1 to 8 characters, as many as the name's length
# (with $TMPDIR in it) leaves past the last multiple of 8.
TAIL=$(printf '%s' "$NAME" | cut -c$((LAST + 1))-)
wait_for "the long row, scrolled to the end, to end with the name's last characters '$TAIL'" row_ends " $TAIL"
pass "Right stops at +$LAST, with the end of the widest name still shown"
i=0
while [ $i -lt 60 ]; do keys Left; i=$((i + 1)); done
wait_for "Left back to the start" heading_ends " NAME"
keys Right Right Right
wait_for "NAME +24 again" heading_ends "NAME +24"
keys Left Left Left Left
wait_for "NAME without an offset" heading_ends " NAME"
wait_for "the long row, back at 0, elided again" row_ends "ff.dat"
pass "Left scrolls back to the elided name"

# -- the detail pane wraps the whole name -------------------------------------------------------
keys Enter
wait_for "the detail pane" shows "build ID"
pane() { screen | awk '/^name / { on = 1 } on && /^(stale|build ID) / { exit } on' | cut -c11- | tr -d '\n' | sed 's/ *$//'; }
pane_is_name() { [ "$(pane)" = "$NAME" ]; }
wait_for "the detail pane to hold the whole name" pane_is_name
pass "the detail pane wraps the whole name ($(printf '%s' "$NAME" | wc -c) bytes)"
keys Escape

# -- COMMAND in the process list ----------------------------------------------------------------
keys Escape
wait_for "the process list" shows "PID^"
keys Right
wait_for "COMMAND +8" heading_ends "COMMAND +8"
cmd=$(tr '\0' ' ' < /proc/$PID/cmdline | cut -c9-20)
wait_for "the fixture's command line from column 8" proc_row_has "$cmd"
pass "Right scrolls COMMAND in the process list"

echo "names e2e: $PASSED checks passed"
exit 0
