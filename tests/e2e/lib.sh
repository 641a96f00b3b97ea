# Shared by the explorer's tmux tests.  Before sourcing, a script sets
# E2E_NAME (for messages) and E2E_TAG (for its temporary directory).  It
# gets TMP, SOCK (a private tmux server), PASSED, and these helpers; it sets
# CPID to the fixture it starts (start_fixture does), which cleanup kills.
# Nothing here sleeps a fixed time to wait for the screen: wait_for polls
# with a deadline.

command -v tmux >/dev/null 2>&1 || { echo "$E2E_NAME: SKIP (no tmux)"; exit 77; }
BIN=${MS_BIN:-./mapscope}
FIXTURE=${MS_FIXTURE:-./tests/ms-fixture}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-e2e-$E2E_TAG.XXXXXX") || exit 1
SOCK="$TMP/tmux.sock"
CPID=
PASSED=0
# Seconds a wait_for may take; a sanitizer build (CI runs the suite again
# under ASan) is several times slower.
WAIT_SECONDS=10
[ -n "${ASAN_OPTIONS:-}" ] && WAIT_SECONDS=40

cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null
	exec 3>&- 2>/dev/null
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

fail() {
	echo "$E2E_NAME: FAIL: $*"
	echo "---- last screen ----"
	tmux -S "$SOCK" capture-pane -p -t ms 2>/dev/null
	exit 1
}
pass() { PASSED=$((PASSED + 1)); echo "ok $PASSED - $*"; }
screen() { tmux -S "$SOCK" capture-pane -p -t ms "$@"; }
keys() { tmux -S "$SOCK" send-keys -t ms "$@"; }

# wait_for DESCRIPTION COMMAND...: poll until COMMAND succeeds, for 10 seconds at most.
wait_for() {
	what=$1
	shift
	end=$(($(date +%s) + WAIT_SECONDS))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && fail "timed out waiting for $what"
		sleep 0.05
	done
}
shows() { screen | grep -F -e "$1"; }
shows_re() { screen | grep -E -e "$1"; }

# chooser_toggle NAME: in the open column chooser (C), go down to NAME's
# row from the first and press Space; waits until its box flips.
chooser_row() { screen | awk -v n="$1 " 'NR > 2 && index($0 " ", "] " n) == 3 { print NR - 3; exit }'; }
chooser_lists() { [ -n "$(chooser_row "$1")" ]; }
chooser_toggle() {
	# The heading may be drawn before the rows.
	wait_for "the chooser to list $1" chooser_lists "$1"
	_row=$(chooser_row "$1")
	_was=$(screen | sed -n "$((_row + 3))p" | cut -c2)
	_i=0
	while [ "$_i" -lt "$_row" ]; do keys Down; _i=$((_i + 1)); done
	keys Space
	wait_for "$1 toggled" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | sed -n '$((_row + 3))p' | cut -c2 | grep -qv '^$_was\$'"
}

# start_fixture [FIFO]: ms-fixture over $TMP/fx, its lines in
# $TMP/fixture.out, its stdin FIFO (held open on fd 3) or /dev/null; sets
# CPID and PID once it says ready.
start_fixture() {
	mkdir "$TMP/fx"
	"$FIXTURE" "$TMP/fx" > "$TMP/fixture.out" 2>&1 < "${1:-/dev/null}" &
	CPID=$!
	[ -z "${1:-}" ] || exec 3> "$1"
	wait_for "the fixture" grep -q '^ready' "$TMP/fixture.out"
	PID=$(awk '/^ready/ { print $2 }' "$TMP/fixture.out")
}

# start_fixture_fed: start_fixture fed commands on fd 3 (echo "unmap ADDR"
# >&3); answered N: it has answered N of them.
start_fixture_fed() {
	mkfifo "$TMP/fx.in"
	start_fixture "$TMP/fx.in"
}
answered() { [ "$(grep -c -e '^ok' -e '^err' "$TMP/fixture.out")" -ge "$1" ]; }

# start_fuse_serve ARGS...: tests/ms-fuse-serve ARGS, its lines in
# $TMP/serve.out; sets CPID (which cleanup stops, releasing anything blocked
# on the server), then PID START SERVED once it says ready.  Exits 77 (skip)
# when FUSE cannot be used here.
start_fuse_serve() {
	"$(dirname "$FIXTURE")/ms-fuse-serve" "$@" > "$TMP/serve.out" 2>&1 < /dev/null &
	CPID=$!
	end=$(($(date +%s) + 10))
	until grep -q -e '^ready' -e '^skip' -e '^error' "$TMP/serve.out" 2>/dev/null; do
		kill -0 "$CPID" 2>/dev/null || break
		[ "$(date +%s)" -ge "$end" ] && fail "ms-fuse-serve did not start"
		sleep 0.05
	done
	if grep -q '^skip' "$TMP/serve.out"; then
		echo "$E2E_NAME: SKIP ($(sed -n 's/^skip //p' "$TMP/serve.out"))"
		exit 77
	fi
	grep -q '^ready' "$TMP/serve.out" || fail "ms-fuse-serve: $(cat "$TMP/serve.out")"
	read -r _ PID START SERVED < "$TMP/serve.out"
}

# start_stale_child NAME [LIBNAME]: tests/stale-child, started through the
# link $TMP/NAME (so its command line is ours alone to search for); its
# commands go to fd 3, its answers to $TMP/child.out.  Sets CPID once it says
# ready.  With LIBNAME it also loads a copy of libstale-a.so made at
# $TMP/LIBNAME and then deletes that copy; LIB names it.
start_stale_child() {
	built=$(dirname "$FIXTURE")
	mkfifo "$TMP/in"
	ln -s "$(cd "$built" && pwd)/stale-child" "$TMP/$1"
	"$TMP/$1" < "$TMP/in" > "$TMP/child.out" 2>&1 &
	CPID=$!
	exec 3> "$TMP/in"
	wait_for "the child" grep -q '^ready' "$TMP/child.out"
	[ -n "${2:-}" ] || return 0
	LIB="$TMP/$2"
	cp "$built/libstale-a.so" "$LIB" || fail "no $built/libstale-a.so"
	echo "dlopen $LIB" >&3
	wait_for "the library loaded" grep -q '^ok' "$TMP/child.out"
	grep -q '^err' "$TMP/child.out" && fail "child: $(cat "$TMP/child.out")"
	rm -f "$LIB"
}

# in_pane COLS ROWS COMMAND: run the shell COMMAND in the tmux session ms, a
# COLS x ROWS terminal; again: in the same pane, in place of the last,
# resized (a new server in place of a killed one can race its exit).
in_pane() {
	if tmux -S "$SOCK" has-session -t ms 2>/dev/null; then
		tmux -S "$SOCK" resize-window -t ms -x "$1" -y "$2" || fail "cannot resize the terminal"
		tmux -S "$SOCK" respawn-pane -k -t ms "$3" || fail "cannot start mapscope again"
		return
	fi
	tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x "$1" -y "$2" "$3" || fail "cannot start tmux"
}

# explore COLS ROWS PID: start mapscope --delay=0.2 PID in_pane.
explore() {
	in_pane "$1" "$2" "$BIN --delay=0.2 $3; sleep 60"
}

# each_terminal CHECK: CHECK TERM LANG for TERM=xterm-256color and screen,
# each with LANG=C.UTF-8 and C, setting ctx (for messages) and ell (the cut
# mark mapscope draws there: U+2026, or "..." outside UTF-8) first; then
# says how many checks passed.
each_terminal() {
	for _term in xterm-256color screen; do
		for _lang in C.UTF-8 C; do
			ctx="TERM=$_term LANG=$_lang"
			case $_lang in
			*UTF-8) ell='…' ;;
			*) ell='...' ;;
			esac
			"$1" "$_term" "$_lang"
		done
	done
	echo "$E2E_NAME: $PASSED checks passed"
}
