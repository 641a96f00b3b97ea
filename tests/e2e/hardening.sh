#!/bin/sh
# The explorer against hostile input and terminal faults, in tmux:
#   - ms-hostile's names, comm and command line: no raw control byte on the
#     screen, only tmux's own SGR with -e, no OSC 52 clipboard write, no
#     title change, every name shown escaped (maps view and process list);
#   - LC_ALL=C: the explorer works and the screen is ASCII;
#   - a 1x1 terminal and a SIGWINCH storm: it survives and answers keys;
#   - the process execs mid-view: the view is reopened on the new image;
#   - 65,000 mappings: End and Home answer within the deadline.
# Polls with a deadline; never sleeps a fixed time to wait for something.
set -u

command -v tmux >/dev/null 2>&1 || { echo "hardening e2e: SKIP (no tmux)"; exit 77; }
BIN=${MS_BIN:-./mapscope}
FIXTURE=${MS_FIXTURE:-./tests/ms-fixture}
HOSTILE=$(dirname "$FIXTURE")/ms-hostile
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-hard.XXXXXX") || exit 1
SOCK="$TMP/tmux.sock"
PIDS=
PASSED=0
ESC=$(printf '\033')

cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
# A sanitizer build (CI runs the suite again under ASan) is several times slower.
WAIT_SECONDS=10
[ -n "${ASAN_OPTIONS:-}" ] && WAIT_SECONDS=40

S=ms
fail() {
	echo "hardening e2e: FAIL: $*"
	echo "---- last screen of $S ----"
	tmux -S "$SOCK" capture-pane -p -t "$S" 2>/dev/null | cat -v
	exit 1
}
pass() { PASSED=$((PASSED + 1)); echo "ok $PASSED - $*"; }
screen() { tmux -S "$SOCK" capture-pane -p -t "$S" "$@"; }
keys() { tmux -S "$SOCK" send-keys -t "$S" "$@"; }
wait_for() {
	what=$1
	shift
	end=$(($(date +%s) + ${DEADLINE:-$WAIT_SECONDS}))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && fail "timed out waiting for $what"
		sleep 0.05
	done
}
shows() { screen | grep -F -e "$1"; }
lacks() { ! screen | grep -qF -e "$1"; }
# No byte below 0x20 but the newline, no DEL, no C1 (as UTF-8 or raw).
# Byte-wise, so U+2026, the ellipsis of elided names (E2 80 A6), goes first:
# it is mapscope's own and its 0x80 is no C1 control.
ELLIPSIS=$(printf '\342\200\246')
clean() {
	LC_ALL=C sed "s/$ELLIPSIS/.../g" | LC_ALL=C tr -d '\n' |
		LC_ALL=C grep -q "$(printf '[\001-\037\177\200-\237]')" && return 1
	return 0
}
# start_fixture PROGRAM NAME: run it in its own dir; sets FPID and FOUT.
start_fixture() {
	mkdir "$TMP/$2"
	FOUT="$TMP/$2.out"
	"$1" "$TMP/$2" > "$FOUT" 2>&1 < /dev/null &
	FPID=$!
	PIDS="$PIDS $FPID"
	wait_for "$2 to be ready" grep -q '^ready' "$FOUT"
}
# open_explorer SESSION WIDTH HEIGHT ARGS...
open_explorer() {
	S=$1 w=$2 h=$3
	shift 3
	tmux -S "$SOCK" -f /dev/null new-session -d -s "$S" -x "$w" -y "$h" \
		"$* ; echo \$? > '$TMP/$S.status'; sleep 600" || fail "cannot start tmux"
	tmux -S "$SOCK" set-option -g set-clipboard on
}
alive() { [ ! -s "$TMP/$S.status" ]; }

# ---- hostile names in the maps view ---------------------------------------------
start_fixture "$HOSTILE" hostile
HPID=$(awk '/^ready/ { print $2 }' "$FOUT")
# Tall enough for every row even with ASan's shadow mappings in a sanitizer build.
open_explorer hostile 250 200 "$BIN" "$HPID"
tmux -S "$SOCK" set-option -t hostile allow-rename on 2>/dev/null
TITLE0=$(tmux -S "$SOCK" display -p -t hostile '#{pane_title}')
wait_for "the maps view" shows "pid $HPID"
wait_for "the hostile rows" shows 'osc52-\x1b]52;c;cm0gLXJmIC8K\x07'
# The 4,000-byte path loses its middle on screen, and keeps its file name (f...).
# The rows are drawn in pieces, in address order: each is waited for.
for want in 'csi-\x1b[31mRED\x1b[0m\x1b[2J' 'osc-\x1b]0;title\x1b\\' 'bel-\x07\x07' \
	'cr-\x0dOVERWRITE' 'nl-\x0asecond line' 'c1-\xc2\x9b31m-\x9b32m-\x85' \
	'bidi-\xe2\x80\xaefdp.exe\xe2\x81\xa6' 'bad-\xff\xfe\xc0\xaf\xed\xa0\x80' \
	'really (deleted)' 'twin-\x1b' 'twin-\\x1b' '/ffffffffffffffffffffffffffffffff'; do
	wait_for "the maps view to show $want" shows "$want"
done
pass "every hostile name is shown escaped in the maps view"
screen | clean || fail "a raw control byte on the maps view"
screen -e | sed "s/$ESC\[[0-9;:]*m//g" | clean || fail "an escape sequence other than SGR on the maps view"
pass "the maps view holds no control byte; with -e only SGR"
[ -z "$(tmux -S "$SOCK" list-buffers)" ] || fail "OSC 52 reached tmux: a paste buffer was set"
[ "$(tmux -S "$SOCK" display -p -t hostile '#{pane_title}')" = "$TITLE0" ] || fail "the pane title changed"
pass "no OSC 52 clipboard write, no title change"

# ---- the process list: comm and command line ----------------------------------------
keys q
wait_for "the process list" shows "PID"
keys / -- --hostile
wait_for "the hostile command line" shows '--hostile csi-\x1b[31mRED'
screen | clean || fail "a raw control byte on the process list"
screen -e | sed "s/$ESC\[[0-9;:]*m//g" | clean || fail "an escape sequence other than SGR on the process list"
[ -z "$(tmux -S "$SOCK" list-buffers)" ] || fail "OSC 52 reached tmux from the process list"
pass "the process list shows the hostile command line escaped"
keys Escape

# ---- 1x1 and a SIGWINCH storm -------------------------------------------------------------
# Back from its maps view, the list selected the hostile process: Enter opens it again.
keys Enter
wait_for "the hostile maps view again" shows "pid $HPID"
tmux -S "$SOCK" resize-window -t hostile -x 1 -y 1
wait_for "the 1x1 window" sh -c "[ \"\$(tmux -S '$SOCK' display -p -t hostile '#{window_width}x#{window_height}')\" = 1x1 ]"
keys j k
tmux -S "$SOCK" resize-window -t hostile -x 250 -y 200
wait_for "a redraw after 1x1" shows "pid $HPID"
alive || fail "mapscope ended in a 1x1 terminal (status $(cat "$TMP/$S.status"))"
pass "a 1x1 terminal: no crash, it draws again"
# mapscope is the child of the pane's shell; /proc has no ps dependency.
PANE=$(tmux -S "$SOCK" display -p -t hostile '#{pane_pid}')
MPID=
for st in /proc/[0-9]*/stat; do
	# Fields after the last ')': state, then the parent's PID.
	ppid=$(sed -e 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' "$st" 2>/dev/null)
	if [ "$ppid" = "$PANE" ]; then
		MPID=${st#/proc/}
		MPID=${MPID%/stat}
		break
	fi
done
[ -n "$MPID" ] || fail "cannot find mapscope's PID"
i=0
while [ $i -lt 300 ]; do
	kill -WINCH "$MPID" 2>/dev/null || break
	[ $((i % 30)) -eq 0 ] && tmux -S "$SOCK" resize-window -t hostile -x $((40 + i / 3)) -y $((5 + i / 10))
	i=$((i + 1))
done
tmux -S "$SOCK" resize-window -t hostile -x 250 -y 200
keys '?'
wait_for "the help screen after the storm" shows "show this help"
alive || fail "mapscope ended in the SIGWINCH storm"
pass "300 SIGWINCH and 10 resizes: no crash, keys still answered"
keys q

# ---- LC_ALL=C ----------------------------------------------------------------------------------
open_explorer langc 250 200 env LC_ALL=C LANG=C "$BIN" "$HPID"
wait_for "the maps view under LC_ALL=C" shows "pid $HPID"
wait_for "the bidi name under LC_ALL=C" shows 'bidi-\xe2\x80\xaefdp.exe'
screen | LC_ALL=C grep -q "$(printf '[\200-\377]')" && fail "a non-ASCII byte under LC_ALL=C"
screen | clean || fail "a raw control byte under LC_ALL=C"
pass "LC_ALL=C: works, the screen is ASCII"

# ---- exec mid-view -------------------------------------------------------------------------------
# The fixture reads commands from a FIFO we hold open on fd 3.
mkfifo "$TMP/fx.in"
mkdir "$TMP/fx"
FOUT="$TMP/fx.out"
"$FIXTURE" "$TMP/fx" > "$FOUT" 2>&1 < "$TMP/fx.in" &
XPID=$!
PIDS="$PIDS $XPID"
exec 3> "$TMP/fx.in"
wait_for "the fixture" grep -q '^ready' "$FOUT"
OLD=$(awk '$1 == "map" && $2 == "long" { print $3; exit }' "$FOUT")
open_explorer exec 160 40 "$BIN" "$XPID"
keys g "$OLD" Enter
wait_for "the first image's long mapping" shows "$OLD"
# Built with libdw, g goes on to name the code there: the exec must come
# after that look-up, not while it runs (its prompt shows the address too).
if grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}"; then
	wait_for "g's symbol line" shows "at $OLD: "
fi
echo exec >&3
wait_for "the exec" sh -c "[ \$(grep -c '^ready' '$FOUT') -ge 2 ]"
# The new image starts slowly under a sanitizer build on a loaded machine.
DEADLINE=$((WAIT_SECONDS * 3)) wait_for "the exec banner" shows "exec'd a new program"
NEW=$(awk '$1 == "map" && $2 == "long" { n++; if (n == 2) { print $3; exit } }' "$FOUT")
[ "$NEW" != "$OLD" ] || fail "the new image mapped the long file at the same address; cannot tell"
keys g "$NEW" Enter
echo "# exec: long mapping $OLD -> $NEW"
wait_for "the new image's long mapping" shows "$NEW"
# The header follows the new image's command name (exec'd as /proc/self/exe: "exe").
COMM=$(cat "/proc/$XPID/comm")
wait_for "the new command name in the header" shows "pid $XPID $COMM"
# The rows are drawn after the header: the old image's may be on screen yet.
wait_for "the old image's mapping $OLD gone after exec" lacks "$OLD"
alive || fail "mapscope ended on exec"
pass "exec mid-view: the view is reopened on the new image ($OLD -> $NEW)"
exec 3>&-

# ---- 65,000 mappings ------------------------------------------------------------------------
MS_HOSTILE_MANY=65000 start_fixture "$HOSTILE" many
MPID2=$(awk '/^ready/ { print $2 }' "$FOUT")
open_explorer many 160 40 "$BIN" "$MPID2"
wait_for "the maps view of 65,000 mappings" shows "pid $MPID2"
keys End
# The ioctl never reports [vsyscall]; [stack] is the highest mapping it gives.
wait_for "the last row after End" shows "[stack]"
keys Home
wait_for "the first row after Home" shows "ms-hostile"
alive || fail "mapscope ended on 65,000 mappings"
pass "65,000 mappings: End and Home answered"

echo "hardening e2e: $PASSED checks passed"
exit 0
