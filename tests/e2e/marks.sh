#!/bin/sh
# The maps view tells the truth while one moves around, in tmux:
#   - End, a few ticks, Home (and PgUp from End): no row is marked `+`,
#     since the process did not change (`+` once meant "scrolled into view");
#   - End, then x: the screen is full again (it once kept the rows below
#     the old position only, and left the rest blank);
#   - a process that execs another program: the header names the new one;
#   - an exec after g: the banner says so and the screen is full of the
#     new image (it once showed the rows from g's old address: one).
# Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="marks e2e"
E2E_TAG=marks
. "$(dirname "$0")/lib.sh"

start_fixture
explore 120 7 "$PID"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"

# Mapping rows on screen, and those marked + (the mark is the first column).
nrows() { screen | grep -cE '^[+ -]. +[0-9a-f]+-[0-9a-f]+ '; }
no_plus() { [ "$(screen | grep -cE '^\+. +[0-9a-f]+-[0-9a-f]+ ')" -eq 0 ]; }
# "P/N maps" from the header.
position() { screen | sed -n 1p | sed -n 's|.* \([0-9]*\)/\([0-9]*\) maps.*|\1 \2|p'; }
at_end() { set -- $(position); [ -n "${1:-}" ] && [ "$1" = "$2" ]; }
at_home() { set -- $(position); [ "${1:-}" = 1 ]; }
# Ticks pass with nothing to show for them on screen: the scenario itself is
# "wait a little", five ticks at --delay=0.2.
some_ticks() { sleep 1; }
not_at_end() { ! at_end; }

keys End
wait_for "the end of the list" at_end
height=$(nrows)
[ "$height" -ge 3 ] || fail "only $height rows at End"
total=$(position | cut -d' ' -f2)
[ "$total" -gt "$height" ] || fail "the fixture has $total mappings, no more than a screen ($height)"
some_ticks
keys Home
wait_for "the top of the list" at_home
for _ in 1 2 3; do
	no_plus || fail "rows marked + after End, wait, Home, though nothing changed"
	sleep 0.3
done
pass "End, wait, Home: no row marked +"

keys End
wait_for "the end again" at_end
some_ticks
keys PPage
wait_for "a page up" not_at_end
sleep 0.3
no_plus || fail "a row marked + after PgUp from End"
pass "PgUp from End: no row marked +"

keys Home
wait_for "the top again" at_home
keys End
wait_for "the end once more" at_end
keys x
full() {
	set -- $(position)
	[ -n "${2:-}" ] || return 1
	want=$2
	[ "$want" -gt "$height" ] && want=$height
	[ "$(nrows)" -eq "$want" ] && shows "filter x"
}
wait_for "a full screen of executable mappings" full
pass "End, then x: the screen is full ($(nrows) rows)"
keys x

# exec: the header follows the new program's name.
mkfifo "$TMP/go"
sh -c 'read x < "$0"; exec sleep 60' "$TMP/go" &
EPID=$!
trap 'kill "$EPID" 2>/dev/null; cleanup' EXIT INT TERM
explore 120 7 "$EPID"
wait_for "the maps view of sh" shows "pid $EPID sh"
echo go > "$TMP/go"
wait_for "the exec banner" shows "exec'd a new program"
wait_for "the new name in the header" shows "pid $EPID sleep"
kill "$EPID" 2>/dev/null
pass "after an exec the header names the new program"

# g, then an exec: the banner says so and the screen is full of the new
# image.
mkdir "$TMP/gx"
mkfifo "$TMP/gx.in"
"$FIXTURE" "$TMP/gx" < "$TMP/gx.in" > "$TMP/gx.out" 2>&1 &
GPID=$!
trap 'kill "$GPID" "$EPID" 2>/dev/null; cleanup' EXIT INT TERM
exec 4> "$TMP/gx.in"
wait_for "the second fixture" grep -q '^ready' "$TMP/gx.out"
SYM=$(awk '$1 == "sym" { print $3 }' "$TMP/gx.out")
[ -n "$SYM" ] || fail "the fixture named no symbol"
explore 120 7 "$GPID"
wait_for "the maps view of the second fixture" shows "pid $GPID ms-fixture"
keys g "$SYM" Enter
# Built with libdw, g names the code there: exec once it has (the old
# image's address left as the window's top showed one row of the new).
if grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}"; then
	wait_for "g's symbol line" shows "at $SYM: "
fi
echo exec >&4
wait_for "the exec banner after g" shows "exec'd a new program"
screen_full() { [ "$(nrows)" -eq "$height" ]; }
wait_for "a full screen of the new image" screen_full
pass "an exec after g: the banner shows and the screen is full"
