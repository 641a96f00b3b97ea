#!/bin/sh
# End-to-end test of the files view: the real binary in tmux against
# ms-fixture.  F opens it; the fixture's shared file is one row with its
# size and permissions; libc shows its SONAME and the build ID `list
# --by-file` prints; < > I sort and the header says by what; Enter goes back
# to the maps view at the selected file's first mapping; Esc and q go back;
# with R on, RSS shows and sorts every row; LIBVER, chosen with C, shows
# libc's version as list --by-file does.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only when tmux is
# absent.
set -u

E2E_NAME="files view e2e"
E2E_TAG=files
. "$(dirname "$0")/lib.sh"

start_fixture
CODE=$(awk '$1 == "map" && $2 == "file-rx" { print $3 }' "$TMP/fixture.out")
KIB=$(($(getconf PAGESIZE) / 1024))
heading() { screen | sed -n 2p; }
heading_has() { heading | grep -q -e "$1"; }
# body_row NAME: the screen line (3 = first row) of the row whose name ends in NAME.
body_row() { screen | awk -v n="$1" 'NR > 2 && index($0, n) { print NR; exit }'; }

# The fixture's files live under $TMPDIR, which need not be a directory the
# default list ignores (/tmp, /var/tmp): the explorer gets its own list,
# which ignores the shared file wherever it is.
mkdir -p "$TMP/config/mapscope"
printf '*/fx/shared.dat the test'"'"'s temporary file\n' > "$TMP/config/mapscope/stale-ignore.conf"
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 50 \
	"XDG_CONFIG_HOME='$TMP/config' $BIN $PID; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"

keys F
wait_for "the files view" shows "| sorted by SIZE"
shows "pid $PID ms-fixture | files:" > /dev/null || fail "the header does not name the process"
# The rows are drawn after the header: wait for the row itself.
shared_row() { screen | grep -F "/shared.dat" | grep -Eq "^ +1 +$((2 * KIB))K rw-s +ignored "; }
wait_for "shared.dat as one row of $((2 * KIB))K rw-s, verdict ignored (a rule of the user's list)" shared_row
pass "F shows the fixture's shared file as one row: 1 mapping, $((2 * KIB))K, rw-s, ignored"

libc=$("$BIN" list "$PID" --by-file -r -n -o BUILDID,SONAME,NAME | awk '$2 == "libc.so.6" { print $1; exit }')
[ -n "$libc" ] || fail "list --by-file shows no libc.so.6 SONAME"
wait_for "libc's SONAME and build ID" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -F 'libc.so.6' | grep -qF '$libc'"
pass "libc's row shows SONAME libc.so.6 and build ID $libc, as list --by-file does"

# The package and its version, as list --by-file says them (a dpkg system:
# libc6 and its version; elsewhere "not packaged" and no version).
pkg=$("$BIN" list "$PID" --by-file -r -n -o SONAME,PACKAGE,VERSION | awk '$1 == "libc.so.6" { print $2, $3; exit }')
[ -n "$pkg" ] || fail "list --by-file shows no package for libc.so.6"
wait_for "libc's package and version ($pkg)" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -F 'libc.so.6' | grep -qE ' $(echo "$pkg" | sed 's/[.+~]/\\&/g; s/ / +/') '"
pass "libc's row shows PACKAGE and VERSION $pkg, as list --by-file does"

# Largest first: the top row is the largest in list --by-file.
top=$("$BIN" list "$PID" --by-file -r -n -b -o SIZE,NAME | sort -rn | head -1 | cut -d' ' -f2-)
screen | sed -n 3p | grep -qF "$top" || fail "the first row is not the largest, $top"
pass "sorted by SIZE at first: $top on top"

keys '>'
wait_for "sort by MAPS (RSS is off)" shows "| sorted by MAPS"
wait_for "the MAPS heading marked (MAPSv)" heading_has "MAPSv"
keys '>'
wait_for "sort by NAME" shows "| sorted by NAME"
# in_order NAME...: their rows come in this order, top to bottom.
in_order() {
	prev=0
	for n in "$@"; do
		at=$(body_row "$n")
		[ -n "$at" ] && [ "$at" -gt "$prev" ] || return 1
		prev=$at
	done
}
# Names sort as bytes, whole paths: whether the fixture's files ($TMPDIR)
# come before libc or after it depends on where $TMPDIR is.
order=$("$BIN" list "$PID" --by-file -r -n -o NAME | grep -E '/(fx/code\.bin|fx/shared\.dat|libc\.so\.6)$' |
	LC_ALL=C sort | sed -E 's@.*(/fx/code\.bin|/fx/shared\.dat|/libc\.so\.6)$@\1@')
[ "$(echo "$order" | wc -l)" -eq 3 ] || fail "list --by-file does not show code.bin, shared.dat and libc.so.6: $order"
# shellcheck disable=SC2086 # one word a name
wait_for "files in name order ($(echo $order)), then the kinds" in_order $order "[stack]"
pass "> steps to MAPS, then NAME: files in name order, then the anonymous kinds"
keys I
wait_for "reversed" shows "| sorted by NAME, reversed"
wait_for "the reversed heading marked descending (NAMEv)" heading_has "NAMEv"
# shellcheck disable=SC2046 # one word a name
wait_for "I to reverse the order" in_order "[stack]" $(echo "$order" | sed -n '1!G;h;$p')
keys '<'
wait_for "back to MAPS" shows "| sorted by MAPS, reversed"
keys I '>'
wait_for "NAME again, not reversed" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | head -1 | grep -q 'sorted by NAME\$'"
pass "I reverses and < steps back"

# Select code.bin and jump to its mapping in the maps view: its line once
# the rows are back in name order (the header said so first).
keys Home
# shellcheck disable=SC2086 # one word a name
wait_for "files in name order again" in_order $order "[stack]"
# The order showed before Home: count lines only once the first row is selected (reversed).
wait_for "Home to select the first row" sh -c "tmux -S '$SOCK' capture-pane -p -e -t ms | sed -n 3p | grep -q '\[\([0-9]*;\)*7m'"
line=$(body_row "/code.bin")
[ -n "$line" ] || fail "no code.bin row"
i=3
while [ "$i" -lt "$line" ]; do keys Down; i=$((i + 1)); done
keys Enter
wait_for "the maps view again" shows "pid $PID ms-fixture | ioctl"
keys Enter
wait_for "the detail pane of code.bin's mapping" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -q '^range  *$CODE-'"
wait_for "the detail pane to show code.bin" shows_re "^name .*/fx/code\\.bin"
pass "Enter jumps to code.bin's first mapping ($CODE)"
keys Escape
wait_for "the detail pane to close" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q '^range '"

# Esc and q leave the files view for the maps view.
keys F
wait_for "the files view" shows "| sorted by SIZE"
keys Escape
wait_for "the maps view after Esc" shows "pid $PID ms-fixture | ioctl"
keys F
wait_for "the files view" shows "| sorted by SIZE"
keys q
wait_for "the maps view after q" shows "pid $PID ms-fixture | ioctl"
pass "Esc and q go back to the maps view"

# With R on in the maps view: an RSS column, and > after SIZE sorts by it, over every row.
# The columns give way, by rank, to the names on screen; at 200 columns RSS would
# give way to the fixture's longest name under a locale whose ellipsis is "...".
# Shown wider, the column fits whatever the ellipsis; back to 200 for the files view.
tmux -S "$SOCK" resize-window -t ms -x 240 -y 50 || fail "cannot widen the window"
keys R
wait_for "the maps view's RSS column" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 2p | grep -q ' RSS '"
tmux -S "$SOCK" resize-window -t ms -x 200 -y 50 || fail "cannot narrow the window"
keys F
wait_for "the files view with RSS" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 2p | grep -q ' RSS '"
keys '>'
wait_for "sort by RSS" shows "| sorted by RSS"
top=$("$BIN" list "$PID" --by-file -r -n -b -o RSS,NAME | sort -rn | head -1 | cut -d' ' -f2-)
wait_for "the largest RSS on top, $top" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 3p | grep -qF '${top##*/}'"
pass "R adds RSS, and sorting by it puts $top on top"

# LIBVER is hidden until chosen: C, Space on it, Esc; libc's row then shows
# what list --by-file prints (readelf's highest GLIBC_x.y, test_verdef).
heading | grep -q LIBVER && fail "LIBVER shows before it was chosen"
want=$("$BIN" list "$PID" --by-file -r -n -o LIBVER,SONAME | awk '$2 == "libc.so.6" { print $1; exit }')
case $want in GLIBC_[0-9]*) ;; *) fail "list --by-file gives libc the LIBVER '$want'" ;; esac
keys C
wait_for "the chooser" shows "columns of the files view"
wait_for "the chooser to list LIBVER unticked" shows_re '^\[ \] LIBVER'
chooser_toggle LIBVER
screen | grep -qE '^\[x\] LIBVER' || fail "LIBVER is not ticked"
keys Escape
wait_for "the files view with LIBVER" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 2p | grep -q ' LIBVER '"
wait_for "libc's LIBVER $want" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -F '/libc.so.6' | grep -qF ' $want '"
pass "C adds LIBVER; libc's row shows $want, as list --by-file does"
keys q
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"
keys q
wait_for "the process list" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 2p | grep -q COMMAND"
keys q
wait_for "mapscope to exit" test -s "$TMP/status"
[ "$(cat "$TMP/status")" = 0 ] || fail "exit status $(cat "$TMP/status")"
echo "files view e2e: $PASSED checks passed"
