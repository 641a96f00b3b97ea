#!/bin/sh
# End-to-end test of the libraries view (L from the process list): the real
# binary in tmux against three tests/stale-child processes, two that map a
# copy of libstale-a.so and a third that maps another copy, then deleted.
# Each file's PROCS and VERDICT (and its D flag) agree with
# `mapscope libs -o NAME,PROCS,VERDICT`; search finds a file; Enter lists
# the file's processes; Enter on one opens its maps view with the
# library's first mapping selected; Esc and q come back to the same row at
# each level.  Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only
# when tmux is absent.
set -u

E2E_NAME="libraries view e2e"
E2E_TAG=libs
. "$(dirname "$0")/lib.sh"

BUILT=$(cd "$(dirname "$FIXTURE")" && pwd)
KIDS=
cleanup_kids() {
	for k in $KIDS; do kill "$k" 2>/dev/null; done
	cleanup
}
trap cleanup_kids EXIT INT TERM

# hold N LIB: stale-child N (its commands on fd 3+N) dlopens LIB; sets HELD to its PID.
hold() {
	mkfifo "$TMP/in$1"
	ln -s "$BUILT/stale-child" "$TMP/ms-libsview-$1"
	"$TMP/ms-libsview-$1" < "$TMP/in$1" > "$TMP/out$1" 2>&1 &
	HELD=$!
	KIDS="$KIDS $HELD"
	eval "exec $((3 + $1))> '$TMP/in$1'"
	wait_for "child $1" grep -q '^ready' "$TMP/out$1"
	echo "dlopen $2" >&$((3 + $1))
	wait_for "child $1's library" grep -q '^ok' "$TMP/out$1"
	grep -q '^err' "$TMP/out$1" && fail "child $1: $(cat "$TMP/out$1")"
}

mkdir -p "$TMP/old" "$TMP/config/mapscope"
LIB="$TMP/libms-libsview.so"
OLD="$TMP/old/libms-libsview.so"
cp "$BUILT/libstale-a.so" "$LIB" && cp "$BUILT/libstale-a.so" "$OLD" || fail "no libstale-a.so"
hold 1 "$LIB"; A=$HELD
hold 2 "$LIB"; B=$HELD
hold 3 "$OLD"; C=$HELD
rm -f "$OLD"
# No ignore rules: a deleted library under $TMPDIR is "deleted", not "ignored".
: > "$TMP/config/mapscope/stale-ignore.conf"

# What `mapscope libs` says of both files: PROCS and VERDICT.
XDG_CONFIG_HOME="$TMP/config" "$BIN" libs -r -n -o NAME,PROCS,VERDICT libms-libsview.so > "$TMP/libs.out" ||
	fail "mapscope libs failed"
kept=$(awk -v n="$LIB" '$1 == n { print $2, $3 }' "$TMP/libs.out")
# -r escapes the space before " (deleted)".
gone=$(N="$OLD\\x20(deleted)" awk '$1 == ENVIRON["N"] { print $2, $3 }' "$TMP/libs.out")
[ "$kept" = "2 ok" ] || fail "libs does not say 2 ok for the kept copy: $(cat "$TMP/libs.out")"
[ "$gone" = "1 deleted" ] || fail "libs does not say 1 deleted for the deleted copy: $(cat "$TMP/libs.out")"

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 50 \
	"XDG_CONFIG_HOME='$TMP/config' $BIN --delay=0.5; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the process list" shows "PID"
keys L
wait_for "the libraries view" shows "mapscope | libraries: "
# A frame is drawn top down, in pieces: what is under the line just waited
# for may be the old screen yet, so every check of it waits.
heading_has() { screen | sed -n 2p | grep -q -e "$1"; }
wait_for "the PROCS heading" heading_has "PROCS"
wait_for "the VERDICT heading" heading_has "VERDICT"
pass "L opens the libraries view"

# row_of PATH: the screen line of the file's row (its NAME is the last column).
row_of() { screen | awk -v n="$1" 'NR > 2 && substr($0, length($0) - length(n) + 1) == n { print NR; exit }'; }
# cells PATH: its flag, PROCS and VERDICT as drawn.
cells() { screen | awk -v n="$1" 'NR > 2 && substr($0, length($0) - length(n) + 1) == n {
	flag = substr($0, 1, 1); $0 = substr($0, 3); print flag, $1, $3; exit }'; }
cells_are() { [ "$(cells "$1")" = "$2" ]; }
# Other processes on the machine may map many files, stale ones sorted
# first: a search brings each row on screen before it is read.
keys / "$OLD (deleted)"
keys Enter
wait_for "the deleted copy's row" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -qF '$OLD (deleted)'"
wait_for "the deleted copy's row to show D 1 deleted (libs says $gone)" cells_are "$OLD (deleted)" "D 1 deleted"
keys / "$LIB"
keys Enter
wait_for "the kept copy's row" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -qF '$LIB'"
wait_for "the kept copy's row to show 2 ok (libs says $kept)" cells_are "$LIB" "  2 ok"
keys Home
pass "PROCS and VERDICT agree with mapscope libs: $kept, and D $gone"

# Search the kept copy: the selection moves to it.
keys / "$TMP/libms"
keys Enter
wait_for "the search to select the kept copy" sh -c "tmux -S '$SOCK' capture-pane -p -e -t ms | grep -F '$LIB' | grep -q '7m'"
line=$(row_of "$LIB")
pass "/ selects the kept copy (line $line)"

# Enter: the two processes that map it.
keys Enter
wait_for "the file's processes" shows "2 processes map $LIB"
for p in "$A" "$B"; do
	wait_for "pid $p listed" shows_re "^ *$p .*ms-libsview-"
done
screen | grep -Eq "^ *$C " && fail "pid $C (the deleted copy's) is listed"
pass "Enter lists the two processes that map the file, not the third"

# Down to the second in PID order (B, unless PIDs wrapped), Enter: its
# maps view at the library's first mapping.
if [ "$A" -gt "$B" ]; then B=$A; fi
keys Down
# The selected row is in reverse video (SGR 7).
wait_for "pid $B selected" sh -c "tmux -S '$SOCK' capture-pane -p -e -t ms | grep -q '7m *$B '"
first=$(awk -v n="$LIB" '$6 == n { split($1, r, "-"); print r[1]; exit }' "/proc/$B/maps")
[ -n "$first" ] || fail "/proc/$B/maps has no $LIB"
keys Enter
wait_for "pid $B's maps view" shows_re "pid $B ms-libsview-[12] "
keys Enter
wait_for "the detail pane" shows_re "^range +0*$first-"
wait_for "the detail pane to show the library" shows_re "^name .*libms-libsview\\.so"
pass "Enter opens pid $B's maps view at the library's first mapping ($first)"

# Back: maps -> the processes (B still selected) -> the libraries (the same row).
keys Escape
keys Escape
wait_for "the processes again" shows "2 processes map $LIB"
selected_pid() { screen -e | grep -Eq "7m *$1 "; }
wait_for "pid $B still selected" selected_pid "$B"
keys q
wait_for "the libraries view again" shows "mapscope | libraries: "
kept_selected() { screen -e | grep -F "$LIB" | grep -q '7m'; }
wait_for "the kept copy still selected" kept_selected
pass "Esc and q come back to the same row at each level"

# A column chosen with C is filled at once, not at the next walk: with the
# refresh paused (Space) no timed walk comes, yet SONAME shows the kept
# copy's libstale.so.1, as `mapscope libs -o SONAME` says.
want=$(XDG_CONFIG_HOME="$TMP/config" "$BIN" libs -r -n -o SONAME,NAME libms-libsview.so |
	awk -v n="$LIB" '$2 == n { print $1; exit }')
[ "$want" = libstale.so.1 ] || fail "libs gives the kept copy the SONAME '$want'"
screen | sed -n 2p | grep -q SONAME && fail "SONAME shows before it was chosen"
keys Space
wait_for "the refresh paused" shows "[paused]"
keys C
wait_for "the chooser" shows "columns of the libraries view"
chooser_toggle SONAME
keys Escape
wait_for "the libraries view with SONAME" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 2p | grep -q ' SONAME '"
wait_for "the kept copy's SONAME $want" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -F '$LIB' | grep -qF ' $want '"
pass "C adds SONAME, filled while the refresh is paused: $want"
keys Space

keys q
wait_for "the process list again" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q 'libraries:'"
pass "q leaves the libraries view for the process list"
echo "1..$PASSED"
