# Sourced by shell tests once NAME is set: the binary and the built test
# programs' folder as make check passes them (BIN, TDIR), python3 (PY);
# skip, fail and ok, printed with printf (dash's echo would read the
# backslashes of a name shown); and start, for the processes a test holds.
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
PY=/usr/bin/python3
skip() { printf '%s\n' "$NAME: SKIP: $*"; exit 77; }
fail() { printf '%s\n' "$NAME: FAIL: $*"; exit 1; }
n=0
ok() { n=$((n + 1)); printf '%s\n' "ok $n - $*"; }

# start OUT COMMAND...: COMMAND in the background, its output in OUT, until
# it prints "ready" there (10 s at most; fail if it exits first).  Its PID
# is $last, and is added to $pids for the caller's trap to kill.
pids=
start() {
	_out=$1
	shift
	"$@" >"$_out" 2>&1 &
	last=$!
	pids="$pids $last"
	_i=0
	until grep -q ready "$_out" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 200 ] || fail "$1 did not get ready: $(cat "$_out")"
		kill -0 $last 2>/dev/null || fail "$1 exited: $(cat "$_out")"
		sleep 0.05
	done
}
