#!/bin/sh
# g names code in a library that was replaced under the process (another
# build put over its path with cp and mv): run as root, the explorer reads
# the running copy through /proc/PID/map_files and says
# "ms_fixture_sym_target+0x10"; run as the process's own unprivileged user,
# it says that the file at the path is not the mapped one and that reading
# the running copy needs root, never "no file at the path now".  The holder
# is ms-dlopen-hold as uid 65534 on a copy of libms-fixture-sym.so.  Exit
# 77 (skip) only without tmux, libdw, root or setpriv.
set -u

E2E_NAME="symbols runcopy e2e"
E2E_TAG=symrc
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || { echo "$E2E_NAME: SKIP (built without libdw)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "$E2E_NAME: SKIP (needs root: map_files is root's)"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "$E2E_NAME: SKIP (no setpriv)"; exit 77; }
. "$(dirname "$0")/lib.sh"
NOBODY=65534
TDIR=$(dirname "$FIXTURE")
case $TDIR in /*) ;; *) TDIR=$PWD/$TDIR ;; esac
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac

. "${srcdir:-.}/tests/dlopen_hold.sh"
hold_fixture_lib_own "$TMP" "$TDIR"
CPID=$HPID
addr=$(printf '%x' $((0x$HSYM + 0x10)))
cp "$TDIR/libstale-b.so" "$TMP/new.so" && mv "$TMP/new.so" "$TMP/libms-fixture-sym.so" || fail "cannot replace"

# explore AS...: the explorer on the holder, run through AS (nothing for root), 160 columns
# wide; a second run replaces the first in the same pane.
explore() {
	cmd="$* env TERM=xterm-256color $RUN $HPID; sleep 60"
	if tmux -S "$SOCK" has-session -t ms 2>/dev/null; then
		tmux -S "$SOCK" respawn-pane -k -t ms "$cmd" || fail "cannot restart the explorer"
		wait_for "the first explorer to go" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q 'ms_fixture_sym_target'"
	else
		tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 160 -y 30 "$cmd" || fail "cannot start tmux"
	fi
	wait_for "the maps view" shows "pid $HPID ms-dlopen-hold"
	keys g "$addr" Enter
}
last_line_has() { screen | tail -n 1 | grep -qF -e "$1"; }

RUN=$BIN
explore
wait_for "the symbol on the message line" last_line_has "at $addr: ms_fixture_sym_target+0x10"
pass "root: g $addr names ms_fixture_sym_target+0x10 in the replaced library's running copy"

# uid 65534 runs a copy in $TMP (0755): the tree may sit where it cannot reach (/root).
mkdir -m 0755 "$TMP/bin" && cp "$BIN" "$TMP/bin/mapscope" && chmod 0755 "$TMP/bin/mapscope" ||
	fail "cannot copy mapscope for uid $NOBODY"
RUN=$TMP/bin/mapscope
explore setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups
why="at $addr: no symbol (the file at the path is not the mapped one (replaced); reading the running copy needs root)"
wait_for "the reason on the message line" last_line_has "$why"
pass "uid $NOBODY: g $addr says the file at the path is not the mapped one and reading it needs root"
