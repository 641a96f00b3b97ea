#!/bin/sh
# Search (/ n N) and filter (\) in every list: the process list, the files
# view and the stale view, the real binary in tmux against tests/stale-child
# holding a library that is then deleted.  A filter shows only matching rows
# (the header says how many, and what the filter is); Ctrl-U and Enter clear
# it; a search selects the next match.  Then the stale view's VERSION column
# and its detail pane (Tab), and last the maps view's search on a screen
# too small for the child's mappings.  Polls with a deadline; no fixed
# sleeps.  Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="find e2e"
E2E_TAG=find
. "$(dirname "$0")/lib.sh"
start_stale_child stale-child-find libms-find.so
# The default ignore list skips temp files (/tmp): ignore only memfds here.
mkdir -p "$TMP/config/mapscope"
printf '/memfd:* memory file\n' > "$TMP/config/mapscope/stale-ignore.conf"

# The selected row is in reverse video (SGR 7, alone or after other attributes); the header is skipped.
selected_row() { screen -e | sed -n '3,$p' | grep -E "$(printf '\033')\\[([0-9]*;)*7m" | sed 's/\x1b\[[0-9;]*m//g'; }
selected_has() { selected_row | grep -qF -e "$1"; }
last_is() { [ "$(screen | tail -n 1 | sed 's/ *$//')" = "$1" ]; }
body() { screen | sed -n '3,$p' | sed '$d' | grep -v '^ *$'; }
body_count_is() { [ "$(body | wc -l)" -eq "$1" ]; }
body_more_than() { [ "$(body | wc -l)" -gt "$1" ]; }
# A frame is drawn top down, in pieces: the rows under a header just read
# may be the old ones yet, so every check of them waits.
body_has() { body | grep -qF -e "$1"; }
body_lacks() { ! body_has "$1"; }
body_line_has() { body | sed -n "$1p" | grep -qF -e "$2"; }
body_line_re() { body | sed -n "$1p" | grep -Eq -e "$2"; }

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 40 \
	"XDG_CONFIG_HOME='$TMP/config' '$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")'; sleep 60" ||
	fail "cannot start tmux"
wait_for "the process list" shows "PID^"

# -- the process list ---------------------------------------------------------------------
keys '\'
wait_for "the command filter prompt" last_is "command contains:"
keys -l "$TMP/stale-child-find"
wait_for "the list filtered as typed" shows "mapscope | 1 process ("
keys Enter
wait_for "the filter in the header" shows ", command~$TMP/stale-child-find"
# This script's own short-lived commands (grep, tmux send-keys) name the
# filter too, and the list may catch one: the child alone once they are gone.
wait_for "the filter to leave the child's row alone" body_count_is 1
wait_for "the child selected" selected_has "$TMP/stale-child-find"
keys '\'
wait_for "the filter prompt holding the filter" last_is "command contains: $TMP/stale-child-find"
keys C-u Enter
wait_for "the filter cleared" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | head -1 | grep -q 'command~'"
wait_for "clearing the filter to bring rows back" body_more_than 1
wait_for "the child still selected" selected_has "$TMP/stale-child-find"
pass "\\ in the process list: only the matching command line, the child selected; cleared, all rows"

# -- the files view ----------------------------------------------------------------------------
keys Enter
wait_for "the child's maps view" shows "pid $CPID stale-child-fin"
keys F
wait_for "the files view" shows "| sorted by SIZE"
FILES=$(screen | sed -n '1s/.*| files: \([0-9]*\),.*/\1/p')
[ "${FILES:-0}" -gt 2 ] || fail "the files view shows $FILES files"
keys '\'
wait_for "the files filter prompt" last_is "name contains:"
keys -l "libms-find"
keys Enter
wait_for "one file left" shows "| files: 1,"
wait_for "the filter in the header" shows "| name~libms-find |"
wait_for "one row under the filter" body_count_is 1
wait_for "the row left to be the deleted library" body_has "$TMP/libms-find.so (deleted)"
keys '\'
wait_for "the files filter prompt again" last_is "name contains: libms-find"
keys C-u Enter
wait_for "every file back" shows "| files: $FILES,"
pass "\\ in the files view: only the matching file; cleared, all $FILES back"
keys /
wait_for "the files search prompt" last_is "search:"
keys -l "libc.so"
wait_for "the search to select libc" selected_has "libc.so"
keys Enter
keys /
keys -l "no-such-file-name"
keys Enter
wait_for "no match said" last_is "no match"
keys /
keys -l "stale-child"
keys Enter
wait_for "the search to select the executable" selected_has "stale-child"
keys n
wait_for "n to wrap to the same only match" selected_has "stale-child"
pass "/ in the files view selects the matching file; no match says so"
keys q
wait_for "the maps view again" shows "pid $CPID stale-child-fin"
keys q
wait_for "the process list again" shows "PID^"

# -- the stale view -------------------------------------------------------------------------------
# Other processes on the machine may be stale too, and push the child's
# lines below the screen: every look at the child's rows is made under the
# filter, or after a search has selected (and so shown) them.
keys D
wait_for "the stale view" shows "mapscope | stale:"
keys '\'
wait_for "the stale filter prompt" last_is "name contains:"
keys -l "$TMP/libms-find"
keys Enter
wait_for "the filter in the stale header" shows "| name~$TMP/libms-find"
wait_for "the stale filter to leave the child and its file only" body_count_is 2
wait_for "the child on the first line" body_line_re 1 "^ *$CPID "
wait_for "its library on the second line" body_line_has 2 "$TMP/libms-find.so (deleted)"
keys '\'
keys C-u
keys -l "no-such-process-or-file"
keys Enter
wait_for "nothing matches" shows "nothing matches the filter"
keys '\'
keys C-u Enter
wait_for "the filter cleared" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | head -1 | grep -q 'name~'"
pass "\\ in the stale view: the child and its deleted library only; no match says so"
# Unfiltered, another copy of this test may show its own child and library:
# the searches name this run's folder.
keys Home
keys /
keys -l "$TMP/libms-find"
keys Enter
wait_for "the search to select the library" selected_has "$TMP/libms-find.so"
keys N
wait_for "N back to the same only match" selected_has "$TMP/libms-find.so"
keys /
keys -l "$TMP/stale-child-find"
keys Enter
wait_for "the search to select the child's line" selected_has "$CPID"
pass "/ n N in the stale view select the matching line"

# -- the stale view's VERSION column and detail pane ------------------------------------------
screen | sed -n 2p | grep -q "VERDICT  VERSION  FILE" || fail "no VERSION heading"
keys '\'
wait_for "the stale filter prompt" last_is "name contains:"
keys -l "$TMP/libms-find"
keys Enter
wait_for "the filter in the stale header" shows "| name~$TMP/libms-find"
# No package owns a temp file: "-" in the row, as the stale command's VERSION is empty.
[ -z "$("$BIN" stale -r -n -o VERSION --ignore-file "$TMP/config/mapscope/stale-ignore.conf" "$CPID" | tr -d ' \n')" ] ||
	fail "mapscope stale names a version for the temp library"
wait_for "the file line with its VERSION cell" shows_re "^ +deleted +- +/.*libms-find\.so \(deleted\)\$"
keys /
keys -l "libms-find"
keys Enter
wait_for "the library selected" selected_has "$TMP/libms-find.so"
keys Tab
wait_for "the detail pane" shows "- detail"
wait_for "the whole explanation" shows_re "^why +unlinked, and no file is at the path now"
wait_for "the pane to say the package" shows_re "^package +not packaged"
shows_re "^file +$TMP/libms-find.so \\(deleted\\)" > /dev/null || fail "the pane does not name the file"
keys Escape
wait_for "Esc to close the pane only" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q '^- detail'"
shows_re "^ *$CPID " > /dev/null || fail "Esc closed the stale view with the pane"
pass "the stale view: VERSION column ('-' as stale -o VERSION), Tab shows why and package, Esc closes the pane"

# -- the maps view: a search reaches past the rows on screen --------------------------------------
# A 12-line terminal shows 9 of the child's mappings.  The view holds a
# window of them from the selection on (two screens and a margin): once the
# search has moved it to the library, the executable at the lowest address
# is neither on screen nor in the window, so the search that wraps to it
# has to ask the kernel.
keys q
explore 200 12 "$CPID"
wait_for "the child's maps view, 12 lines" shows "pid $CPID stale-child-fin"
MAPS=$(wc -l < "/proc/$CPID/maps")
[ "$MAPS" -gt 9 ] || fail "the child has $MAPS mappings, not more than a screen"
LIBMAPS=$(grep -cF "$LIB (deleted)" "/proc/$CPID/maps")
FIRST=$(grep -m1 -F "$LIB (deleted)" "/proc/$CPID/maps" | cut -d- -f1)
LAST=$(grep -F "$LIB (deleted)" "/proc/$CPID/maps" | tail -n 1 | cut -d- -f1)
# The executable's first mapping: not the first line under a sanitizer, whose shadow lies lower.
EXE=$(grep -m1 -F "tests/stale-child" "/proc/$CPID/maps" | cut -d- -f1)
[ "$LIBMAPS" -gt 1 ] || fail "the deleted library has $LIBMAPS mappings"
# From the last row: where the loader put the library, it may be on the first screen.
keys End
wait_for "the last row" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | head -n 1 | grep -Eq '\\| ([0-9]+)/\\1 maps'"
wait_for "the last screen, without the library" body_lacks "libms-find"
keys /
wait_for "the maps search prompt" last_is "search:"
keys -l "libms-find"
wait_for "the search to reach the library's first mapping, off screen" selected_has "$FIRST-"
wait_for "the selected row to be the library" selected_has "$LIB (deleted)"
keys Enter
i=1
while [ "$i" -lt "$LIBMAPS" ]; do
	keys n
	i=$((i + 1))
	NTH=$(grep -F "$LIB (deleted)" "/proc/$CPID/maps" | sed -n "${i}p" | cut -d- -f1)
	wait_for "n to the library's mapping $i" selected_has "$NTH-"
done
wait_for "n to the library's last mapping" selected_has "$LAST-"
keys n
wait_for "n past the last match to wrap to the first" selected_has "$FIRST-"
body | grep -qF "tests/stale-child" && fail "the executable is on screen with the library"
keys /
keys -l "tests/stale-child"
keys Enter
wait_for "the search to wrap to the executable, off screen" selected_has "$EXE-"
pass "/ n in the maps view: a match past the screen is found and shown, n wraps"

echo "find e2e: $PASSED checks passed"
exit 0
