#!/bin/sh
# End-to-end test of the explorer's stale and snapshot parts: the real binary
# in tmux against tests/stale-child holding a library that is then deleted.
# Checks the maps view's D flag and the detail pane's verdict, the STALE
# column, the D view (and Enter there), and S: created, then overwrote, the
# file reads back as a snapshot, and a symlink or a FIFO is refused.  The
# settings file is a FIFO: the explorer starts anyway and says it ignored it.  Polls with a deadline; no fixed sleeps.
# Exit 77 (skip) only when tmux is absent.
set -u

E2E_NAME="explorer stale e2e"
E2E_TAG=stale
. "$(dirname "$0")/lib.sh"
# clear_prompt: erase what the prompt holds (the suggested name) with Backspace.
clear_prompt() {
	i=0
	while [ $i -lt 80 ]; do
		keys BSpace
		i=$((i + 1))
	done
}

# -- the child: load a copy of libstale-a.so, then delete the copy ------------------
start_stale_child stale-child-e2e libms-e2e.so

# The default ignore list skips temp files (/tmp): the user's list, which the
# explorer honours like `mapscope stale`, ignores only memfds here.
mkdir -p "$TMP/config/mapscope"
printf '# test list\n/memfd:* memory file\n' > "$TMP/config/mapscope/stale-ignore.conf"
# A FIFO where the settings file belongs must not block the start.
mkfifo "$TMP/config/mapscope/config"

# -- the maps view flags the row D ---------------------------------------------------
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 50 \
	"cd '$TMP' && XDG_CONFIG_HOME='$TMP/config' '$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")' $CPID; echo \$? > '$TMP/status'; sleep 60" ||
	fail "cannot start tmux"
wait_for "the maps view" shows "pid $CPID stale-child-e2e |"
wait_for "the settings FIFO reported" shows "config: a FIFO, not a regular file: not reading it; settings file ignored"
pass "a FIFO as the settings file: the explorer starts, says so, and ignores it"
# Bring the library on screen: a sanitizer build maps far more than fits.
ADDR=$("$BIN" list "$CPID" -r -n -o START,NAME | awk '/libms-e2e/ { print $1; exit }')
[ -n "$ADDR" ] || fail "mapscope list does not show the library"
keys g "$ADDR" Enter
wait_for "the deleted row flagged D" shows_re "^ D +[0-9a-f]+-[0-9a-f]+ .*libms-e2e\\.so \\(deleted\\)"
screen | grep -E '^ [DR] ' | grep -v 'libms-e2e' && fail "a row other than the deleted library is flagged"
pass "the maps view flags the deleted library's rows D, and only those"

# The flagged row is drawn in the stale colour (bold, with or without colour).
screen -e | grep 'libms-e2e' | grep -Eq "$(printf '\033')\\[([0-9;]*;)?1m" ||
	fail "the flagged row is not highlighted"
pass "the flagged row is highlighted"

# -- the detail pane shows the verdict and why ------------------------------------------
start=$(screen | awk '/^ D .*libms-e2e/ { split($2, r, "-"); print r[1]; exit }')
keys g "$start" Enter
keys Enter
wait_for "the verdict in the detail pane" shows "stale     deleted: unlinked, and no file is at the path now"
pass "the detail pane says: deleted, unlinked, and no file is at the path now"
keys Tab

# -- S: created, then overwrote ----------------------------------------------------------
SNAP="$TMP/snap dir/one.json"
mkdir "$TMP/snap dir"
keys S
wait_for "the snapshot prompt" shows_re "^save snapshot to: mapscope-$CPID-[0-9]{8}-[0-9]{6}\\.json"
pass "S suggests mapscope-$CPID-TIME.json"
keys Escape
wait_for "the prompt cancelled" shows "snapshot not saved"
ls "$TMP"/mapscope-*.json >/dev/null 2>&1 && fail "Esc wrote a file"
pass "Esc at the prompt writes nothing"
keys S
wait_for "the snapshot prompt" shows "save snapshot to: "
clear_prompt
keys -l "$SNAP"
keys Enter
wait_for "created" shows "created $SNAP"
[ -s "$SNAP" ] || fail "no file at $SNAP"
pass "S, a path, Enter: created FILE"
keys S
wait_for "the snapshot prompt" shows "save snapshot to: "
clear_prompt
keys -l "$SNAP"
keys Enter
wait_for "overwrote" shows "overwrote $SNAP"
pass "the same path again: overwrote FILE"

# -- S refuses what snapshot -o refuses, and the status line says why -------------------------
# save_to PATH: S, the path, Enter.
save_to() {
	keys S
	wait_for "the snapshot prompt" shows "save snapshot to: "
	clear_prompt
	keys -l "$1"
	keys Enter
}
cp "$SNAP" "$TMP/before.json"
ln -s "$SNAP" "$TMP/snap dir/link.json"
save_to "$TMP/snap dir/link.json"
wait_for "the symlink refused" shows "link.json: a symlink (to $SNAP): not following it"
cmp -s "$SNAP" "$TMP/before.json" || fail "S wrote through a symlink"
pass "S onto a symlink: refused, saying so; the file it points to is untouched"
mkfifo "$TMP/snap dir/fifo.json"
save_to "$TMP/snap dir/fifo.json"
wait_for "the FIFO refused" shows "fifo.json: a FIFO, not a regular file: not writing to it"
[ -p "$TMP/snap dir/fifo.json" ] || fail "the FIFO was replaced"
pass "S onto a FIFO: refused at once, saying so"
"$BIN" diff "$SNAP" "$CPID" > "$TMP/diff.out" 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "mapscope diff on the snapshot exited $rc: $(cat "$TMP/diff.out")"
pass "the file reads back as a snapshot (diff FILE PID exits $rc)"

# -- D: the stale view lists the child, Enter opens it -------------------------------------
keys D
wait_for "the stale view" shows "mapscope | stale:"
# Other processes on the machine may be stale too, and their rows may push the
# child's below the screen: the filter (\\) keeps only the lines that name
# the fixture's library.  Then move the selection (the reversed line) onto
# the child's line, paging if need be, then Enter.
keys '\'
wait_for "the stale filter prompt" shows "name contains:"
keys -l "libms-e2e"
keys Enter
wait_for "the stale view filtered" shows "name~libms-e2e"
ESC=$(printf '\033')
child_line() { screen | awk -v p="$CPID" 'NR > 2 && $1 == p { print NR; exit }'; }
selected_line() {
	screen -e | grep -nE "^($ESC\\[[0-9;]*m)*$ESC\\[([0-9]+;)*7m" | awk -F: '$1 > 2 { print $1; exit }'
}
end=$(($(date +%s) + 20))
while :; do
	[ "$(date +%s)" -ge "$end" ] && fail "could not select the child in the stale view"
	target=$(child_line)
	sel=$(selected_line)
	[ -n "$target" ] && [ "$target" = "$sel" ] && break
	before=$(screen -e)
	if [ -n "$target" ] && [ -n "$sel" ]; then
		d=$((target - sel))
		key=Down
		[ "$d" -lt 0 ] && { key=Up; d=$((-d)); }
		i=0
		while [ "$i" -lt "$d" ]; do
			keys "$key"
			i=$((i + 1))
		done
	else
		keys NPage
	fi
	# Wait for the keys to take effect before looking again.
	wait_for "the stale view to move" sh -c "[ \"\$(tmux -S '$SOCK' capture-pane -e -p -t ms)\" != \"\$1\" ]" sh "$before"
done
# The line under the child's, once drawn (the selection may be, before it).
file_under_child() {
	line=$(child_line)
	[ -n "$line" ] && screen | sed -n "$((line + 1))p" | grep -Eq "^ +deleted +- +/.*libms-e2e\\.so \\(deleted\\)\$"
}
wait_for "the deleted file listed under the child" file_under_child
pass "D lists the child and, below it, its deleted library (no package, so no version: -)"
keys Enter
wait_for "the child's maps view from D" shows "pid $CPID stale-child-e2e |"
pass "Enter in the stale view opens the process"

# -- the STALE column in the process list --------------------------------------------------
keys q
wait_for "the stale view again" shows "mapscope | stale:"
keys q
wait_for "the first maps view" shows "pid $CPID stale-child-e2e |"
keys q
wait_for "the process list" shows "STALE"
keys / "$TMP/stale-child-e2e"
keys Enter
wait_for "the child's STALE count" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | awk -v p=$CPID '\$1 == p && \$6 == 1 { f = 1 } END { exit !f }'"
pass "the process list's STALE column counts 1 for the child"

keys q
wait_for "mapscope to exit" test -s "$TMP/status"
[ "$(cat "$TMP/status")" = 0 ] || fail "exit status $(cat "$TMP/status")"
pass "q quits with status 0"
echo "explorer stale e2e: $PASSED checks passed"
exit 0
