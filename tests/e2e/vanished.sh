#!/bin/sh
# The maps view marks an address range that vanished from the process while
# on screen: a row stays a few ticks, marked `-`, as the man page says.
#   - a whole mapping unmapped;
#   - a hole unmapped in the middle of one: the two pieces left are marked
#     `+`, the hole `-` (it once showed no `-` at all: the old mapping's ghost
#     overlapped the pieces and was dropped whole, and a live process mostly
#     loses memory that way, from merged anonymous areas).
# Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="vanished e2e"
E2E_TAG=vanished
. "$(dirname "$0")/lib.sh"

start_fixture_fed
# The fixture's second private anonymous mapping: gaps on both sides, so
# nothing merges into its place once it is gone.
GONE=$(awk '$1 == "map" && $2 == "anon-rw" { n++; if (n == 2) print $3 }' "$TMP/fixture.out")
[ -n "$GONE" ] || fail "the fixture made no second anon-rw mapping"
NEXT=$(awk -v a="$GONE" '$1 == "map" && $3 == a { getline; print $3 }' "$TMP/fixture.out")

explore 120 12 "$PID"
wait_for "the maps view" shows "pid $PID ms-fixture"
keys g "$GONE" Enter
row_re() { echo "^$1. +0*$2-"; }
wait_for "the mapping at $GONE on screen" shows_re "$(row_re ' ' "$GONE")"
echo "unmap $GONE" >&3
wait_for "the unmap" answered 1
grep -q '^err' "$TMP/fixture.out" && fail "fixture: $(grep '^err' "$TMP/fixture.out")"
wait_for "the vanished range marked -" shows_re "$(row_re '-' "$GONE")"
pass "a range unmapped while on screen shows marked -"
# The ghost is not a mapping: it goes after a few ticks, and the rows
# around it stay.
wait_for "the ghost gone" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -Eq '0*$GONE-'"
[ -z "$NEXT" ] || shows_re "0*$NEXT-" >/dev/null || fail "the next mapping left the screen"
pass "the - row goes after a few ticks"

# A hole in the middle of a mapping, in an area the fixture reserved.
PAGE=$(getconf PAGESIZE)
echo "churn 16" >&3
wait_for "the churn area" answered 2
AREA=$(awk '$2 == "churn" { print $3 }' "$TMP/fixture.out")
hex() { printf '%x' "$1"; }
A=$((0x$AREA + 4 * PAGE))
echo "anon $(hex $A) 6 rw" >&3
wait_for "the new mapping" answered 3
keys g "$(hex $A)" Enter
wait_for "the new mapping on screen" shows_re "^[ +]. +0*$(hex $A)-0*$(hex $((A + 6 * PAGE))) "
echo "unmapat $(hex $((A + 2 * PAGE))) 2" >&3
wait_for "the hole" answered 4
grep -q '^err' "$TMP/fixture.out" && fail "fixture: $(grep '^err' "$TMP/fixture.out")"
wait_for "the hole marked -" shows_re "^-. +0*$(hex $((A + 2 * PAGE)))-0*$(hex $((A + 4 * PAGE))) "
shows_re "^[+ ]. +0*$(hex $A)-0*$(hex $((A + 2 * PAGE))) " >/dev/null || fail "no row for the piece below the hole"
pass "a hole unmapped in a mapping shows marked -"
