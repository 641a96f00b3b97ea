#!/bin/sh
# The explorer's pictures, in tmux against ms-fixture, under NO_COLOR:
#   - the maps view's address-space strip, apart from the rows after a rule
#     that runs down beside them, under its own heading "ADDRESS SPACE" that
#     ends over it (no rule on the heading line): a kind letter on every row line, the
#     rows on screen in capitals (no colour codes on the screen at all), and
#     End moves the capitals to the strip's bottom;
#   - the header's totals (size and RSS of the whole list) are those
#     `list --total` prints, itself checked against smaps by
#     test_list_total.sh;
#   - the files view has a size bar before NAME, full on the largest row;
#   - the maps view sorted by SIZE shows bars too.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only when tmux is
# absent.
set -u

E2E_NAME="pictures e2e"
E2E_TAG=pictures
. "$(dirname "$0")/lib.sh"

start_fixture
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 110 -y 16 \
	"NO_COLOR=1 $BIN --delay=0.2 $PID; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"
wait_for "the header's totals" shows_re "maps, [0-9.]+[KMGT], rss [0-9.]+[BKMGT]"

# The strip: the last column of the row lines (3 to 15), as one word.
# The strip's letter ends each row line (the screen's trailing blanks are cut).
strip() { screen | awk 'NR > 2 && NR < 16 { printf "%s", substr($0, length($0), 1) }'; }
strip_ok() { strip | grep -Eq '^[cdfhsaCDFHSA]+$'; }
wait_for "the strip on every row line" strip_ok
s=$(strip)
echo "$s" | grep -q '[CDFHSA]' || fail "no window in the strip: $s"
echo "$s" | grep -q '[cdfhsa]' || fail "the window covers the whole strip (the fixture has more mappings than rows): $s"
echo "$s" | grep -Eq '^[CDFHSA]' || fail "at Home the window is not at the top of the strip: $s"
screen -e | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m" && fail "NO_COLOR, yet the screen has colour codes"
# Apart from the rows: a rule before it on every row line, its own heading above.
rules=$(screen | awk 'NR > 2 && NR < 16 { printf "%s", substr($0, length($0) - 1, 1) }')
case $rules in *[!\|]*|'') fail "the strip is not apart from the rows (no rule before it): '$rules'" ;; esac
heading=$(screen | sed -n 2p)
[ ${#heading} -eq 110 ] || fail "the strip's heading does not end over the strip (column 110): '$heading'"
case $heading in *' NAME '*'  ADDRESS SPACE') ;; *) fail "the heading does not end with the strip's own, ADDRESS SPACE: $heading" ;; esac
pass "the strip: a kind letter on each row line, the window in capitals at the top, no colour: $s"

keys End
at_end() { strip | grep -Eq '[CDFHSA]$' && ! strip | grep -Eq '^[CDFHSA]'; }
wait_for "the window at the strip's bottom after End" at_end
pass "End moves the window to the bottom of the strip: $(strip)"

# The header's totals and list --total's, in the same units.
total=$("$BIN" list "$PID" --total -n -o SIZE,RSS,NAME | tail -n 1)
set -- $total
[ "$3" = total ] || fail "list --total printed '$total'"
shows_re "maps, $1, rss $2( |$)" > /dev/null || fail "the header's totals are not '$1, rss $2' as list --total says"
pass "the header shows the list's size $1 and RSS $2, as list --total"

keys F
wait_for "the files view" shows "| sorted by SIZE"
# Under the header the screen may be the maps view's yet: each check waits.
bar_heading() { screen | sed -n 2p | grep -q " BAR  *NAME"; }
top_bar_full() { screen | sed -n 3p | grep -qF "[########]"; }
bars() { screen | sed -n '3,15p' | grep -c '\[#*  *\]\|\[########\]'; }
bars_at_least() { [ "$(bars)" -ge "$1" ]; }
wait_for "a BAR heading before NAME" bar_heading
wait_for "the largest file's bar full" top_bar_full
wait_for "a bar on 5 rows at least" bars_at_least 5
pass "the files view: a bar per row, full on the largest"

keys q
wait_for "the maps view again" shows "pid $PID ms-fixture | ioctl"
keys '>'
wait_for "sorted by SIZE" shows "| sort SIZE"
wait_for "a BAR heading in the maps view sorted by SIZE" bar_heading
wait_for "bars in the sorted maps view" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -qF '[#'"
pass "the maps view sorted by SIZE has bars"
