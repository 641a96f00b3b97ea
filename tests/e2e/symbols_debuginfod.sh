#!/bin/sh
# debuginfod in the explorer: off by default, on only with --debuginfod.
# The target is `sleep` (stripped, with a build ID, and no debug file
# installed), so a look-up in its code is one a debuginfod server could
# answer.  DEBUGINFOD_URLS points at a stub server on a local port that
# logs every connection:
#   - without --debuginfod, g answers and the stub sees nothing;
#   - with it, the stub is asked for the build ID's debug info;
#   - while a slow transfer runs, the message line shows its progress;
#   - as root the client's cache is /var/cache/mapscope/debuginfod, a
#     directory only root may change: sudo -E and su -m keep a user's HOME
#     and XDG_CACHE_HOME, where the default cache lives, and a link the user
#     planted there as debuginfod_client/cache_clean_interval_s made root
#     create a file where it points.  `at --debuginfod` with both in a
#     directory nobody owns, holding that link (and with DEBUGINFOD_CACHE_PATH
#     pointing there too): the server is asked, the link's target is never
#     created, and the client's files are under /var/cache/mapscope, which
#     is removed afterwards only when this test made it.
# Exit 77 (skip) only when tmux or python3 is absent, or the build has no
# libdw or no debuginfod client.
set -u

E2E_NAME="symbols debuginfod e2e"
E2E_TAG=symdi
CONFIG_H=${MS_CONFIG_H:-config.h}
grep -q '^#define HAVE_LIBDW 1' "$CONFIG_H" || { echo "$E2E_NAME: SKIP (built without libdw)"; exit 77; }
grep -q '^#define HAVE_DEBUGINFOD 1' "$CONFIG_H" ||
	{ echo "$E2E_NAME: SKIP (built without the debuginfod client)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "$E2E_NAME: SKIP (no python3)"; exit 77; }
. "$(dirname "$0")/lib.sh"
STUB="$(dirname "$0")/debuginfod_stub.py"
SPID=
STUBPID=
CACHE=/var/cache/mapscope/debuginfod
MADE=
[ "$(id -u)" -eq 0 ] && [ ! -e /var/cache/mapscope ] && MADE=/var/cache/mapscope
stop() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	[ -n "$STUBPID" ] && kill "$STUBPID" 2>/dev/null
	[ -n "$MADE" ] && rm -rf "$MADE"
	cleanup
}
trap stop EXIT INT TERM

SLEEP=$(command -v sleep)
"$SLEEP" 600 </dev/null >/dev/null 2>&1 &
SPID=$!
wait_for "sleep's mappings" grep -q "$SLEEP\$" "/proc/$SPID/maps"
text=$(awk -v f="$SLEEP" '$2 ~ /x/ && $6 == f { print $1; exit }' "/proc/$SPID/maps")
[ -n "$text" ] || fail "no executable mapping of $SLEEP"
addr=$(printf '%x' $((0x${text%-*} + 0x100)))
id=$("$BIN" list "$SPID" -o BUILDID,NAME -n -r | awk -v f="$SLEEP" '$2 == f && $1 != "" { print $1; exit }')
[ -n "$id" ] || fail "$SLEEP has no build ID"
[ -e "/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" ] &&
	fail "$SLEEP has a debug file installed: nothing would be fetched"

# stub MODE: a fresh stub server, and a client cache that forgot the build ID; sets URL and LOG.
stub() {
	[ -n "$STUBPID" ] && kill "$STUBPID" 2>/dev/null
	rm -rf "$TMP/cache" "$TMP/port"
	[ "$(id -u)" -eq 0 ] && rm -rf "${CACHE:?}/$id"
	LOG="$TMP/stub-$1.log"
	: >"$LOG"
	python3 "$STUB" "$1" "$TMP/port" "$LOG" &
	STUBPID=$!
	wait_for "the stub server" test -s "$TMP/port"
	URL="http://127.0.0.1:$(cat "$TMP/port")"
}

# explorer OPTIONS...: mapscope on sleep in the pane, with the stub in DEBUGINFOD_URLS.
explorer() {
	cmd="env TERM=xterm-256color DEBUGINFOD_URLS=$URL XDG_CACHE_HOME=$TMP/cache DEBUGINFOD_CACHE_PATH=$TMP/cache $BIN $* $SPID; sleep 60"
	if tmux -S "$SOCK" has-session -t ms 2>/dev/null; then
		tmux -S "$SOCK" respawn-pane -k -t ms "$cmd"
	else
		tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 80 -y 24 "$cmd"
	fi || fail "cannot start mapscope in tmux"
	wait_for "the maps view" shows "pid $SPID sleep | ioctl"
}
answered() { screen | tail -n 1 | grep -q "^at $addr: "; }

stub 404
explorer
keys g "$addr" Enter
wait_for "g's answer" answered
[ -s "$LOG" ] && fail "without --debuginfod the server was asked: $(cat "$LOG")"
pass "without --debuginfod, g answers and no server is asked (DEBUGINFOD_URLS set)"

explorer --debuginfod
keys g "$addr" Enter
wait_for "g's answer" answered
grep -q "^GET /buildid/$id/debuginfo " "$LOG" || fail "with --debuginfod the server saw: $(cat "$LOG")"
pass "with --debuginfod, g asks the server for build ID $id"

stub slow
explorer --debuginfod
keys g "$addr" Enter
wait_for "the progress line" shows_re "^debuginfod: fetching debug info, [0-9]+ of 1024 KiB"
wait_for "g's answer once the server hangs up" answered
pass "while a transfer runs, the message line shows its progress"

[ "$(id -u)" -eq 0 ] || { echo "$E2E_NAME: the cache as root not tested (not root)"; exit 0; }
# nobody's home, with links planted where the client keeps its cache by default.
chmod 755 "$TMP"
HOMEDIR=$TMP/home
mkdir -p "$HOMEDIR/.cache/debuginfod_client" "$TMP/rootonly"
TARGET=$TMP/rootonly/created-by-root
ln -s "$TARGET" "$HOMEDIR/.cache/debuginfod_client/cache_clean_interval_s"
ln -s "$TARGET" "$HOMEDIR/.cache/debuginfod_client/max_unused_age_s"
chown -hR 65534:65534 "$HOMEDIR"
chmod 700 "$TMP/rootonly"

# at_fetch [VAR=VALUE...]: `at --debuginfod` on sleep with nobody's HOME and XDG_CACHE_HOME.
at_fetch() {
	env HOME="$HOMEDIR" XDG_CACHE_HOME="$HOMEDIR/.cache" DEBUGINFOD_URLS="$URL" "$@" \
		"$BIN" at "$SPID" "$addr" --debuginfod -o ADDR,SYMBOL >"$TMP/out" 2>"$TMP/err" ||
		fail "at --debuginfod exited $?: $(cat "$TMP/err")"
	grep -q "^GET /buildid/$id/debuginfo " "$LOG" ||
		fail "the server was not asked: $(cat "$LOG"); stderr: $(cat "$TMP/err")"
	[ -e "$TARGET" ] && fail "root created $TARGET through a link in nobody's cache"
	[ -e "$CACHE/$id" ] || fail "the answer was not kept in $CACHE: $(ls -la "$CACHE" 2>&1)"
}

stub 404
at_fetch
[ -e "$CACHE/cache_clean_interval_s" ] || fail "no client files in $CACHE: $(ls -la "$CACHE" 2>&1)"
[ "$(stat -c %u:%a "$CACHE")" = "0:700" ] || fail "$CACHE is $(stat -c %u:%a "$CACHE"), not root's 0700"
pass "as root the client's cache is $CACHE, never under a user's HOME or XDG_CACHE_HOME"

stub 404
at_fetch DEBUGINFOD_CACHE_PATH="$HOMEDIR/.cache/debuginfod_client"
pass "a DEBUGINFOD_CACHE_PATH from the caller is not used as root either"
