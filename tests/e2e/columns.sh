#!/bin/sh
# The column chooser at 80 columns, in tmux against ms-fixture: NAME keeps at
# least 24 columns (DEV drops first); C lists the maps view's columns; Space
# on OFFSET hides it and saves a columns.maps line, keeping the file's other
# lines; the heading loses OFFSET; after a restart it is still gone.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) only when tmux is
# absent.
set -u

E2E_NAME="columns e2e"
E2E_TAG=columns
. "$(dirname "$0")/lib.sh"

start_fixture
CFG="$TMP/cfg/mapscope/config"
mkdir -p "$TMP/cfg/mapscope"
chmod 700 "$TMP/cfg" "$TMP/cfg/mapscope"
printf '# my own comment\ndelay = 0.2\n' > "$CFG"
heading() { screen | sed -n 2p; }
heading_has() { heading | grep -qF -e "$1"; }
heading_lacks() { ! heading | grep -qF -e "$1"; }

# Again: in the same pane (in_pane respawns it).
start() {
	in_pane 80 24 "XDG_CONFIG_HOME='$TMP/cfg' $BIN $PID; sleep 60"
	wait_for "the maps view" shows "pid $PID ms-fixture | ioctl"
}

start
# NAME is the last column: the heading is drawn whole up to it.
wait_for "the heading" heading_has NAME
heading_has OFFSET || fail "no OFFSET column to begin with"
name_at=$(heading | awk '{ print index($0, "NAME") }')
[ "$name_at" -gt 0 ] && [ "$name_at" -le $((80 - 24 + 1)) ] ||
	fail "NAME starts at column $name_at of 80: fewer than 24 columns left for it"
heading_lacks DEV:INODE || fail "DEV:INODE still shows at 80 columns, before NAME's room"
pass "at 80 columns NAME has at least 24 columns (from $name_at); DEV dropped first"

keys C
wait_for "the chooser" shows "columns of the maps view"
wait_for "the chooser to say DEV was dropped" shows_re '^\[x\] DEV .*dropped'
# Down to OFFSET: the rows are in the order the maps view shows its columns.
chooser_toggle OFFSET
screen | grep -qE '^\[ \] OFFSET' || fail "OFFSET is still ticked"
wait_for "the save message" shows "columns saved to $CFG"
grep -qx 'columns.maps = START-END,SIZE,RSS,PERMS,DEV,NAME' "$CFG" ||
	fail "no columns.maps line: $(cat "$CFG")"
grep -qx '# my own comment' "$CFG" && grep -qx 'delay = 0.2' "$CFG" ||
	fail "the file's other lines were not kept: $(cat "$CFG")"
[ "$(stat -c %a "$CFG")" = 600 ] || fail "the settings file is not mode 0600"
pass "C, Space on OFFSET: saved as columns.maps, other lines kept, mode 0600"

keys q
wait_for "the maps view again" shows "pid $PID ms-fixture | ioctl"
wait_for "OFFSET gone from the heading" heading_lacks OFFSET
wait_for "PERM to stay in the heading" heading_has PERM
pass "back in the maps view, OFFSET is gone and PERM stays"

start
wait_for "the heading" heading_has NAME
heading_lacks OFFSET || fail "OFFSET is back after a restart"
pass "after a restart OFFSET is still gone"

# The files view at 80: VERSION is never what goes, PERMS is; the chooser
# says which columns this screen drops, as the view lays them out.
keys F
wait_for "the files view" shows "| sorted by SIZE"
wait_for "VERSION at 80 columns" heading_has VERSION
wait_for "PACKAGE at 80 columns" heading_has PACKAGE
heading_lacks PERMS || fail "PERMS shows at 80 columns, before VERSION's room"
keys C
wait_for "the chooser" shows "columns of the files view"
wait_for "PERMS marked dropped" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -E '^\[x\] PERMS' | grep -q 'dropped at this width'"
screen | grep -E '^\[x\] VERSION' | grep -q 'dropped at this width' && fail "VERSION marked dropped"
keys Escape Escape
wait_for "the maps view again" shows "pid $PID ms-fixture | ioctl"
pass "the files view keeps VERSION at 80; the chooser marks PERMS dropped"

# A symlink at the path (a dotfiles manager's) is left alone, and the chooser says so.
mv "$CFG" "$TMP/real-config"
ln -s "$TMP/real-config" "$CFG"
keys C
wait_for "the chooser" shows "columns of the maps view"
keys Space Down Space
wait_for "the refusal" shows "config: a symbolic link: not following"
[ -L "$CFG" ] || fail "the symlink was replaced"
grep -qx 'columns.maps = START-END,SIZE,RSS,PERMS,DEV,NAME' "$TMP/real-config" ||
	fail "the file behind the symlink changed"
pass "a symlink at the settings path is refused, left as it was"
exit 0
