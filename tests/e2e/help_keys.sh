#!/bin/sh
# The help screen pages as less does, in tmux at 80x24:
#   - PgDn shows the next page, PgUp the first again (both once did nothing);
#   - Space pages on like PgDn and pauses nothing (it once paused the whole
#     explorer behind the help);
#   - End shows the last note, Home the first line again.
# Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="help keys e2e"
E2E_TAG=helpkeys
. "$(dirname "$0")/lib.sh"

in_pane 80 24 "$BIN --delay=0.2; sleep 60"
wait_for "the process list" shows "mapscope |"
keys '?'
wait_for "the help" shows "mapscope help"
# The help's first line on screen (the second line, under the header), and
# the one under it.  A frame is drawn top down, in pieces: a line is whole
# once the one under it is drawn too.
first() { screen | sed -n 2p; }
second() { screen | sed -n 3p; }
# The help over the whole list: something under its header, no process row left.
help_drawn() { [ -n "$(first)" ] && ! screen | sed -n '3,$p' | grep -qE '^ *[0-9]+ '; }
wait_for "the help under its header, over the whole list" help_drawn
top=$(first)
top2=$(second)
paged() { [ "$(first)" != "$top" ] && [ -n "$(first)" ] && [ "$(second)" != "$top2" ]; }
first_is() { [ "$(first)" = "$1" ]; }
at_top() { [ "$(first)" = "$top" ]; }
# The header says [paused]; a process list row may hold the words (this test's own grep).
paused() { screen | head -n 1 | grep -qF "[paused]"; }
keys PageDown
wait_for "PgDn to page on" paged
page2=$(first)
# A page on: the first page's last line is the one just above, off screen now.
screen | sed -n 3,24p | grep -qxF -e "$top" && fail "PgDn left the first line on screen"
pass "PgDn pages on"
keys PageUp
wait_for "PgUp back to the first page" at_top
pass "PgUp pages back"

keys Space
wait_for "Space to page on" paged
wait_for "Space to go where PgDn went: $page2" first_is "$page2"
paused && fail "Space in the help paused the explorer"
pass "Space pages on like PgDn and pauses nothing"

keys End
wait_for "the last note" shows "A cut shows as an ellipsis"
keys Home
wait_for "Home" at_top
pass "End shows the last note, Home the first line"

keys Escape
wait_for "the process list again" shows "mapscope |"
paused && fail "the process list is paused after Space in the help"
pass "the process list runs on after Space in the help"
