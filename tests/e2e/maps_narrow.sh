#!/bin/sh
# Issue 35 at 80 columns, in the maps view: a Python module's file name
# (_bz2.cpython-311-x86_64-linux-gnu.so, 36 characters) under a folder
# too long for the screen stays whole, and the strip has its own heading.
# ms-fixture maps the file; in tmux at 80x24, under TERM=xterm-256color and
# TERM=screen, with LANG=C.UTF-8 ('…') and LANG=C ('...'), the view
# filtered with \ to the file:
#  - its row ends in ELLIPSIS/_bz2.cpython-311-x86_64-linux-gnu.so, the
#    folders before the cut the start of the path `mapscope list` prints:
#    DEV, OFFSET and PERMS gave way for it, SIZE and the strip stay;
#  - the heading line ends with the strip's own heading, ADDRESS SPACE,
#    over the strip (column 80), the rule only beside the rows;
#  - at 77 columns the strip gives way too (its rank), its heading with
#    it, and the file name is still whole.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only without tmux.
set -u

E2E_NAME="maps narrow e2e"
E2E_TAG=mapsnarrow
. "$(dirname "$0")/lib.sh"

FILE=_bz2.cpython-311-x86_64-linux-gnu.so
FOLDER=home-user-.pyenv-versions-3.11.7-lib-python3.11-lib-dynload-of-a-test-environment
start_fixture_fed
mkdir "$TMP/fx/$FOLDER" || fail "mkdir"
echo "mapfile $FOLDER/$FILE" >&3
wait_for "the fixture to map $FILE" answered 1
grep -q '^ok' "$TMP/fixture.out" || fail "ms-fixture: $(cat "$TMP/fixture.out")"

# The batch command's name for it: the whole path.
"$BIN" list "$PID" -n -o NAME >"$TMP/list.out" 2>&1 || fail "mapscope list: $(cat "$TMP/list.out")"
path=$(grep -F "/$FILE" "$TMP/list.out" | head -n 1)
[ "$path" = "$TMP/fx/$FOLDER/$FILE" ] || fail "mapscope list names it '$path'"
[ ${#path} -gt 60 ] || fail "the path is only ${#path} characters: it would fit whole"
pass "mapscope list: $path (${#path} characters)"

# check TERM LANG (each_terminal sets ctx and ell)
check() {
	# The same pane for every terminal (lib.sh): a new server in place of a
	# killed one can race its exit ("server exited unexpectedly").
	in_pane 80 24 "env TERM=$1 LANG=$2 LC_ALL= $BIN $PID; sleep 60"
	wait_for "the maps view ($ctx)" shows "pid $PID ms-fixture"
	[ "$(tmux -S "$SOCK" display -p -t ms '#{window_width}x#{window_height}')" = 80x24 ] || fail "the window is not 80x24"
	keys '\'
	wait_for "the filter prompt ($ctx)" shows "name contains:"
	keys -l "$FILE"
	keys Enter
	# The strip comes with the periodic full walk.
	wait_for "the row and the strip ($ctx)" shows_re "/$FILE +\\|[cdfhsaCDFHSA]\$"
	row=$(screen | grep -F "/$FILE" | head -n 1)
	case $row in
	*"/$ell/$FILE "*) ;;
	*) fail "$ctx: the row does not keep '$ell/$FILE' whole: '$row'" ;;
	esac
	# The folders shown before the cut are the path's own start.
	shown=$(printf '%s\n' "$row" | sed "s|.* \\(/[^ ]*\\)$ell/$FILE .*|\\1|")
	case $path in
	"$shown"*) ;;
	*) fail "$ctx: '$shown' before the cut is not the start of $path" ;;
	esac
	heading=$(screen | sed -n 2p)
	case $heading in
	*" SIZE NAME "*"  ADDRESS SPACE") ;;
	*) fail "$ctx: the heading is not START-END, SIZE, NAME and then the strip's own: '$heading'" ;;
	esac
	[ "$(printf '%s' "$heading" | wc -m)" -eq 80 ] || fail "$ctx: the strip's heading does not end over it: '$heading'"
	pass "$ctx: at 80 the row keeps '$ell/$FILE' beside SIZE and the strip, under ADDRESS SPACE"

	tmux -S "$SOCK" resize-window -t ms -x 77 -y 24 || fail "cannot resize the window"
	wait_for "the strip gone at 77 ($ctx)" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q 'ADDRESS'"
	screen | grep -q '|[cdfhsaCDFHSA]$' && fail "$ctx: the strip's heading is gone, not the strip"
	# The screen is drawn again, top down and in pieces: wait for the row.
	wait_for "$ctx: the row keeping '$ell/$FILE' at 77" shows "$ell/$FILE"
	pass "$ctx: at 77 the strip and its heading give way; the file name stays whole"
}

each_terminal check
exit 0
