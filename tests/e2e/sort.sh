#!/bin/sh
# Sorting in the maps view, in tmux against ms-fixture: > sorts by SIZE (the
# header says so, the rows on screen grow), I reverses it (Home: the largest
# mapping of /proc/PID/maps first), < and I again give the kernel's address
# order back.  Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="sort e2e"
E2E_TAG=sort
. "$(dirname "$0")/lib.sh"

start_fixture
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 120 -y 30 \
	"$BIN --delay=0.2 $PID; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"

# The rows on screen as "START SIZE-IN-BYTES", one a line.
rows() {
	screen | awk 'NR > 2 && $1 ~ /^[0-9a-f]+-[0-9a-f]+$/ {
		s = $2; m = 1
		# A sanitizer build maps terabytes of shadow memory: T and P too.
		if (s ~ /K$/) m = 1024; else if (s ~ /M$/) m = 1048576; else if (s ~ /G$/) m = 1073741824
		else if (s ~ /T$/) m = 1099511627776; else if (s ~ /P$/) m = 1125899906842624
		sub(/[KMGTPB]$/, "", s)
		split($1, r, "-")
		print r[1], s * m
	}'
}
# in_order FIELD DIRECTION: the rows on screen are ordered by field 1 (start,
# hex) or 2 (size), ascending (up) or descending (down); at least 5 rows.
in_order() {
	rows | awk -v f="$1" -v d="$2" '
		function key(s) { return f == 2 ? s + 0 : sprintf("%20s", s) }
		{ k = key($f); if (NR > 1 && ((d == "up" && k < last) || (d == "down" && k > last))) bad = 1; last = k; n++ }
		END { exit (bad || n < 5) }'
}
header_has() { screen | sed -n 1p | grep -qF -e "$1"; }
header_lacks() { ! screen | sed -n 1p | grep -qF -e "$1"; }

keys '>'
wait_for "the header to say sort SIZE" header_has "| sort SIZE"
keys Home
wait_for "rows by growing size" in_order 2 up
pass "> sorts by SIZE, and the header says so"

keys I
wait_for "the header to say reversed" header_has "sort SIZE, reversed"
keys Home
wait_for "rows by shrinking size" in_order 2 down
# The largest mapping (ties: the highest address first, as reversed).
# ([vsyscall] is in the text only, never from the ioctl.)
want=$(grep -v '\[vsyscall\]' "/proc/$PID/maps" | while read -r range _; do
	echo "${range%-*} $((0x${range#*-} - 0x${range%-*}))"
done | sort -k2,2nr -k1,1r | head -n 1 | cut -d' ' -f1)
[ -n "$want" ] || fail "cannot read /proc/$PID/maps"
first_is_largest() { [ "$(rows | head -n 1 | cut -d' ' -f1)" = "$want" ]; }
wait_for "the largest mapping ($want) first" first_is_largest
pass "I reverses it: the largest mapping comes first"

keys '<'
wait_for "address order, reversed" header_has "sort address, reversed"
keys I
wait_for "no sort in the header" header_lacks "| sort"
keys Home
wait_for "rows by address" in_order 1 up
pass "< and I give the kernel's address order back"
