# Sourced by the hostile-name tests (test_names_attack.sh, test_names_attack_gone.sh):
# uid 65534 chooses what the kernel calls its mappings, through a user and
# mount namespace of its own, and root's mapscope must not believe the name.
# The caller sets NA (its name) and SRC (the source tree).
#   na_setup            skip unless root, setpriv, unshare, python3 and user
#                       namespaces; make $tmp (0755, root's: uid 65534 may
#                       pass), $tmp/u (the user's, 0755), $tmp/no-ignore.conf
#                       (an empty stale ignore list: the built-in one ignores
#                       names under /tmp, where $tmp may be), $tmp/u/evil.so
#                       (the user's library: libms-fixture-sym.so, with
#                       ms_fixture_sym_target) and the life FIFO;
#                       the EXIT trap ends every process started here
#   na_user CMD...      CMD as uid 65534 (its gid, no groups), dumpable
#   na_start OUT CMD... start CMD (a program, so that its PID is $!), its
#                       output in $tmp/OUT, and wait for its line "ready PID";
#                       sets NP.  Its standard input is the life FIFO, which
#                       nothing writes and only the test holds open: it ends
#                       when the test does, whatever kills the test, and so
#                       does CMD (a namespace with it, and its mounts)
#   na_ns OUT SCRIPT [ARG...]
#                       as uid 65534, a new user and mount namespace that
#                       runs sh -c SCRIPT sh ARG..., then holds the namespace
#                       (cat of the life FIFO); sets NSPID, its process
#   na_hold OUT LIB SYMBOL
#                       ms-dlopen-hold as uid 65534 on LIB (a path that may go
#                       through /proc/NSPID/root); sets NP and NSYM
#   na_name PID ADDR    "NAME<TAB>MAJ:MIN:INODE" of the mapping at ADDR
#   na_id PATH          "MAJ:MIN:INODE" of the file at PATH
#   na_owner PATH       the dpkg package that owns PATH (any alias of it), or nothing
#   na_syslib FILE      the real path of FILE in the first system library
#                       folder that has it, or nothing
#   ms, ran, py, none   run mapscope into a file, and judge it (below)
#   cdx_validate FILE   the CycloneDX clients' verdict (tests/cdx_validate.sh)
#   check DESC CMD...   run CMD; print "ok N - DESC", or "FAIL N - DESC: "
#                       and what CMD printed
#   na_done             print 1..N; exit 1 if a check failed
# skip and fail (a broken setup, not a check) end the test.
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
HOLD=$TDIR/ms-dlopen-hold
PY=/usr/bin/python3
. "$SRC/tests/cdx_validate.sh"
NOBODY=65534
skip() { echo "$NA: SKIP: $*"; exit 77; }
fail() { echo "$NA: FAIL (setup): $*"; exit 1; }

n=0
failed=0
check() {
	_desc=$1
	shift
	n=$((n + 1))
	if _said=$("$@" 2>&1); then
		echo "ok $n - $_desc"
	else
		failed=$((failed + 1))
		echo "FAIL $n - $_desc: $(printf '%s' "$_said" | tr '\n' ' ' | cut -c1-600)"
	fi
}
na_done() {
	echo "1..$n"
	[ $failed -eq 0 ] || { echo "$NA: $failed of $n checks failed"; exit 1; }
}

AS_NOBODY="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups"
na_user() { $AS_NOBODY "$@"; }

tmp=
pids=
na_cleanup() {
	# Every process started here reads the life FIFO: closing its one
	# writer ends them (and their namespaces, and so their mounts).
	exec 9>&-
	for _p in $pids; do kill "$_p" 2>/dev/null; done
	wait
	[ -n "$tmp" ] && rm -rf "$tmp"
}

na_setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root: root's mapscope against uid $NOBODY"
	for _t in setpriv unshare mount; do
		command -v $_t >/dev/null 2>&1 || skip "needs $_t"
	done
	[ -x $PY ] || skip "needs $PY to read the JSON"
	[ -x "$HOLD" ] && [ -f "$TDIR/libms-fixture-sym.so" ] && [ -f "$TDIR/libstale-a.so" ] ||
		fail "ms-dlopen-hold, libms-fixture-sym.so or libstale-a.so is not built in $TDIR (make check builds them)"
	na_user test -x "$HOLD" || skip "uid $NOBODY cannot run $HOLD (a folder it cannot enter)"
	trap na_cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-names.XXXXXX") || fail "mktemp"
	chmod 0755 "$tmp" || fail "chmod $tmp"
	na_user test -x "$tmp" ||
		skip "uid $NOBODY cannot enter ${TMPDIR:-/tmp}, where the user's files would be"
	mkdir -m 0755 "$tmp/u" && chown $NOBODY:$NOBODY "$tmp/u" || fail "mkdir $tmp/u"
	cp "$TDIR/libms-fixture-sym.so" "$tmp/u/evil.so" && chown $NOBODY:$NOBODY "$tmp/u/evil.so" ||
		fail "cannot copy the user's library"
	: > "$tmp/no-ignore.conf" || fail "cannot write $tmp/no-ignore.conf"
	mkfifo "$tmp/life" || fail "mkfifo"
	exec 9<>"$tmp/life"
	_why=$(na_user unshare -Urm sh -c 'mount --bind "$1/evil.so" "$1/evil.so" && mount -t tmpfs none "$1"' \
		sh "$tmp/u" 2>&1) ||
		skip "uid $NOBODY cannot mount in a user namespace of its own: $_why"
}

na_start() {
	_out=$tmp/$1
	shift
	"$@" <"$tmp/life" >"$_out" 2>&1 9>&- &
	_pid=$!
	pids="$pids $_pid"
	_i=0
	until grep -qs '^ready ' "$_out"; do
		kill -0 "$_pid" 2>/dev/null || fail "$*: ended: $(cat "$_out")"
		_i=$((_i + 1))
		[ $_i -le 200 ] || fail "$*: not ready after 10 s: $(cat "$_out")"
		sleep 0.05
	done
	NP=$(sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$_out")
	[ "$NP" = "$_pid" ] || fail "$*: said ready '$NP', started as $_pid"
}

na_ns() {
	_out=$1
	_script=$2
	shift 2
	na_start "$_out" $AS_NOBODY unshare -Urm sh -c "set -e; $_script; echo ready \$\$; exec cat" sh "$@"
	NSPID=$NP
}

na_hold() {
	na_start "$1" $AS_NOBODY "$HOLD" $NOBODY "$2" "$3"
	NSYM=$(sed -n 's/^sym //p' "$tmp/$1")
}

na_name() { $PY "$SRC/tests/names_check.py" mapname "$1" "$2"; }
na_id() {
	$PY -c 'import os, sys
s = os.stat(sys.argv[1])
print("%d:%d:%d" % (os.major(s.st_dev), os.minor(s.st_dev), s.st_ino))' "$1"
}

na_owner() {
	_real=$(readlink -f "$1")
	dpkg-query -S "$(basename "$1")" 2>/dev/null | while IFS= read -r _line; do
		_path=${_line#*: }
		[ "$(readlink -f "$_path")" = "$_real" ] && { echo "${_line%%:*}"; break; }
	done
}

na_syslib() {
	for _d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib; do
		[ -f "$_d/$1" ] && { readlink -f "$_d/$1"; return; }
	done
}

# ms OUT ARG...: mapscope ARG..., its output in $tmp/OUT, its error output
# and exit status beside it; ran OUT fails (saying why) when that status
# is an error (2), so a check never judges the output of a failed run.
ms() {
	_ms=$1
	shift
	"$BIN" "$@" >"$tmp/$_ms" 2>"$tmp/$_ms.err"
	echo $? >"$tmp/$_ms.rc"
}
ran() {
	[ "$(cat "$tmp/$1.rc")" -le 1 ] && return 0
	echo "mapscope exited $(cat "$tmp/$1.rc"): $(head -c 400 "$tmp/$1.err")"
	return 1
}
# py CHECK OUT ARG...: names_check.py CHECK on the output OUT
py() {
	_c=$1
	ran "$2" || return 1
	_f=$tmp/$2
	shift 2
	$PY "$SRC/tests/names_check.py" "$_c" "$_f" "$@"
}
# none OUT WORD...: no line of OUT holds any WORD (the lines that do are printed)
none() {
	ran "$1" || return 1
	_f=$tmp/$1
	shift
	_pat=
	for _w in "$@"; do
		_pat="$_pat$_w
"
	done
	! grep -n -F -e "${_pat%?}" "$_f" | head -n 3 | grep .
}
