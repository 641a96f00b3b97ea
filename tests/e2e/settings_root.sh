#!/bin/sh
# Root's explorer with a user's HOME (sudo -E): the settings are off.  In
# tmux, against the process list, with trees made here and given to uid
# 65534:
#   - HOME is 65534's, its .config a link to another folder whose
#     mapscope/config is a link to a file holding secret lines: nothing is
#     read (no secret on screen or on stderr), the message line says the
#     settings are off and why, and C then Space hides USER for the session
#     only, saying so, with nothing made or changed in any of those trees;
#   - the same with a .config link to an empty folder (root used to make
#     mapscope/config there), and with XDG_CONFIG_HOME 65534's;
#   - uid 65534 itself (if setpriv is there and it can reach $TMP): its own
#     .config link is refused, not followed, to read or to write.
# Exit 77 (skip) without tmux or root.
set -u

E2E_NAME="settings as root e2e"
E2E_TAG=setroot
[ "$(id -u)" = 0 ] || { echo "$E2E_NAME: SKIP (needs root: root's settings with a user's HOME)"; exit 77; }
. "$(dirname "$0")/lib.sh"
NOBODY=65534
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac

T=$TMP/t
mkdir -p "$T/home" "$T/elsewhere/mapscope" "$T/secret" "$T/home2" "$T/empty" "$T/xdg" ||
	fail "cannot make the trees"
# One line a parse error would name (its key), one it would not.
printf 'TOPSECRET-KEY-5b1e = hunter2\nroot:$6$TOPSECRET-HASH-9d0c$x:19000:0:99999:7:::\n' > "$T/secret/shadow"
chmod 600 "$T/secret/shadow"
ln -s "$T/secret/shadow" "$T/elsewhere/mapscope/config"
ln -s "$T/elsewhere" "$T/home/.config"
ln -s "$T/empty" "$T/home2/.config"
chown -h "$NOBODY:$NOBODY" "$T/home" "$T/home/.config" "$T/home2" "$T/home2/.config" "$T/xdg"

# Everything under the trees, links not followed: what a run may not change.
tree() { find "$T" -printf '%p %y %U %m %s %T@ %l\n' | sort; }
tree > "$TMP/tree.before"
unchanged() {
	tree > "$TMP/tree.after"
	cmp -s "$TMP/tree.before" "$TMP/tree.after" ||
		fail "$1 changed the trees: $(diff "$TMP/tree.before" "$TMP/tree.after")"
}

# start_explorer ENV...: $RUN on the process list, 160 columns wide, with env ENV...;
# again: in the same pane, in place of the last.  Its stderr goes to $TMP/stderr.
start_explorer() {
	in_pane 160 30 "env $* TERM=xterm-256color $RUN 2> '$TMP/stderr'; sleep 60"
	wait_for "the process list" shows_re "^mapscope \| [0-9]+ process(es)?"
}
message_has() { screen | tail -n 1 | grep -qF -e "$1"; }
heading() { screen | sed -n 2p; }
no_secret() {
	# The pattern is not the secret's text: the process list may show this
	# very grep's command line (a PID namespace with few processes).
	screen | grep -q 'TOP[S]ECRET' && fail "a secret line is on screen"
	grep -q 'TOP[S]ECRET' "$TMP/stderr" && fail "a secret line is on stderr: $(cat "$TMP/stderr")"
	return 0
}
# hide_user WHY: C, Space on USER, the message line says WHY, and the list lost USER.
hide_user() {
	keys C
	wait_for "the chooser" shows "columns of the process list"
	chooser_toggle USER
	wait_for "the chooser's message: $1" message_has "$1"
	keys Escape
	wait_for "the process list without USER" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n 2p | grep -q COMMAND"
	heading | grep -q USER && fail "USER still shows after it was hidden"
	return 0
}

RUN=$BIN
off="settings off: HOME belongs to uid $NOBODY (run as that user, or set XDG_CONFIG_HOME)"
start_explorer -u XDG_CONFIG_HOME HOME="$T/home"
no_secret
wait_for "settings off on the message line" message_has "$off"
grep -qxF "mapscope: $off" "$TMP/stderr" || fail "stderr does not say so: $(cat "$TMP/stderr")"
pass "root, HOME of uid $NOBODY: settings off, said once; no secret line on screen or stderr"
hide_user "columns for this session only; settings off: HOME belongs to uid $NOBODY"
no_secret
unchanged "C with HOME of uid $NOBODY"
pass "C, Space on USER: hidden for the session only, nothing made or changed under HOME or where its links lead"

start_explorer -u XDG_CONFIG_HOME HOME="$T/home2"
wait_for "settings off on the message line" message_has "$off"
hide_user "columns for this session only; settings off"
unchanged "C with HOME of uid $NOBODY whose .config leads to an empty folder"
pass "a .config link to an empty folder: no mapscope/config made there"

start_explorer XDG_CONFIG_HOME="$T/xdg" HOME="$T/home"
wait_for "settings off on the message line" message_has \
	"settings off: XDG_CONFIG_HOME belongs to uid $NOBODY (run as that user, or point XDG_CONFIG_HOME to a folder of yours)"
hide_user "columns for this session only; settings off: XDG_CONFIG_HOME belongs to uid $NOBODY"
no_secret
unchanged "C with XDG_CONFIG_HOME of uid $NOBODY"
pass "root, XDG_CONFIG_HOME of uid $NOBODY: settings off, nothing made in it"

# uid 65534 with its own HOME: a .config link is refused, not followed.
command -v setpriv >/dev/null 2>&1 || { echo "$E2E_NAME: uid $NOBODY not tested (no setpriv)"; exit 0; }
chmod 755 "$TMP" "$T"
mkdir -m 0755 "$TMP/bin" && cp "$BIN" "$TMP/bin/mapscope" && chmod 0755 "$TMP/bin/mapscope" ||
	fail "cannot copy mapscope for uid $NOBODY"
mkdir "$T/nhome" "$T/nconfig" && ln -s "$T/nconfig" "$T/nhome/.config" &&
	chown -h "$NOBODY:$NOBODY" "$T/nhome" "$T/nconfig" "$T/nhome/.config" || fail "cannot make nobody's home"
if ! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups test -x "$TMP/bin/mapscope"; then
	echo "$E2E_NAME: uid $NOBODY not tested (it cannot reach $TMP)"
	exit 0
fi
tree > "$TMP/tree.before"
RUN="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups $TMP/bin/mapscope"
start_explorer -u XDG_CONFIG_HOME HOME="$T/nhome"
link="$T/nhome/.config: a symbolic link: not following it"
# The stale-ignore list lives in the same folder: its refusal may be the message shown.
wait_for "the refusal on the message line" message_has "$link"
hide_user "$link; columns not saved"
unchanged "C as uid $NOBODY with a .config link"
pass "uid $NOBODY: its .config link is refused, to read and to write; nothing made where it leads"
exit 0
