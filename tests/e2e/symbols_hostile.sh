#!/bin/sh
# g on a user's crafted library never freezes the explorer: in tmux (80
# columns, a TERM that does not describe tmux), root's explorer on a
# process of uid 65534 that maps a library whose DWARF sends libdw to open
# a FIFO (DW_FORM_GNU_strp_alt and .gnu_debugaltlink, made by
# tests/hostile_elf.py; see tests/test_symbols_hostile.sh).  g ADDRESS
# Enter, then, while the lookup is being given up on, q (twice if the
# first only closes something): the explorer must have exited within 5 s.
# Exit 77 (skip) only without tmux, libdw, root, gcc or python3.
set -u

E2E_NAME="symbols hostile e2e"
E2E_TAG=symhostile
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || { echo "$E2E_NAME: SKIP (built without libdw)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "$E2E_NAME: SKIP (needs root)"; exit 77; }
CC=$(command -v gcc || command -v cc) || { echo "$E2E_NAME: SKIP (no C compiler)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "$E2E_NAME: SKIP (no python3)"; exit 77; }
. "$(dirname "$0")/lib.sh"
SRCDIR=${srcdir:-.}
HOLD=$(dirname "$FIXTURE")/ms-dlopen-hold
NOBODY=65534
MSPID=

# The user's files in a directory of the user's; the FIFO let go (an
# O_RDWR open never blocks and counts as a writer) and the explorer killed
# before lib.sh's cleanup.
U=$TMP/u
hostile_cleanup() {
	[ -p "$U/fifo" ] && (exec 9<>"$U/fifo") 2>/dev/null
	[ -n "$MSPID" ] && kill -KILL "$MSPID" 2>/dev/null
	cleanup
}
trap hostile_cleanup EXIT
trap 'exit 1' INT TERM

chmod 0711 "$TMP" && mkdir -m 0755 "$U" || fail "cannot make $U"
"$CC" -O1 -shared -fPIC -Wl,--build-id=sha1 -o "$TMP/base.so" "$SRCDIR/tests/hostile_lib.c" ||
	fail "cannot build the test library"
mkfifo "$U/fifo" || fail "mkfifo"
python3 "$SRCDIR/tests/hostile_elf.py" altlink "$TMP/base.so" "$U/altlink.so" "$U/fifo" ||
	fail "hostile_elf.py"
chown -R "$NOBODY:$NOBODY" "$U" || fail "chown"

# The holder, as uid 65534; its stdin open on fd 3 (lib.sh closes it).
. "$SRCDIR/tests/dlopen_hold.sh"
hold_start "$TMP" "$HOLD" "$U/altlink.so" ms_hostile_target
CPID=$HPID PID=$HPID sym=$HSYM
addr=$(printf '%x' $((0x$sym + 4)))

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 80 -y 30 \
	"env TERM=xterm-256color $BIN $PID; echo MS-EXITED; sleep 60" || fail "cannot start tmux"
wait_for "the maps view" shows "pid $PID ms-dlopen-hold"
pane=$(tmux -S "$SOCK" display -p -t ms '#{pane_pid}')
# The explorer: the pane's shell's child (env execs it).
MSPID=$(cat "/proc/$pane/task/$pane/children" 2>/dev/null | awk '{ print $1 }')
[ -n "$MSPID" ] || fail "cannot find the explorer's pid"
pass "the explorer shows uid $NOBODY's process $PID, which maps altlink.so"

# Gone, or a zombie its shell has yet to reap.
gone() {
	st=$(awk '{ print $3 }' "/proc/$MSPID/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ]
}
keys g "$addr" Enter
# Let the lookup start (and, since the isolated reader, be given up on).
sleep 1
start=$(date +%s)
keys q
i=0
while ! gone && [ $i -lt 25 ]; do sleep 0.1; i=$((i + 1)); done
gone || keys q
while ! gone && [ "$(date +%s)" -lt $((start + 5)) ]; do sleep 0.1; done
if ! gone; then
	wchan=$(cat "/proc/$MSPID/wchan" 2>/dev/null)
	sc=$(cat "/proc/$MSPID/syscall" 2>/dev/null | cut -d' ' -f1)
	fail "the explorer did not exit within 5 s of q after g $addr (state $(awk '{ print $3 }' "/proc/$MSPID/stat"), wchan $wchan, syscall $sc)"
fi
MSPID=
wait_for "the shell after the explorer" shows MS-EXITED
pass "g $addr then q: the explorer exits within 5 s"
