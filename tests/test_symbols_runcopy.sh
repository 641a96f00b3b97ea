#!/bin/sh
# A library replaced under a running process (another build put over its
# path with cp and mv, as a package upgrade does) or deleted: `mapscope at`
# as root names its code from the running copy (/proc/PID/map_files), as
# eu-addr2line --pid does; run as the process's own unprivileged user, it
# leaves SYMBOL empty and says why on stderr, once per file.  The holder is
# ms-dlopen-hold, started as uid 65534 (so that uid may read its maps), on
# a copy of libms-fixture-sym.so; the other build is libstale-b.so.  Exit
# 77 (skip) only without libdw, root or setpriv.
set -u
NAME=symbols-runcopy
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
NOBODY=65534
skip() { echo "$NAME: SKIP ($*)"; exit 77; }
fail() { echo "$NAME: FAIL: $*"; exit 1; }
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || skip "built without libdw"
[ "$(id -u)" = 0 ] || skip "needs root: map_files is root's"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv"
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
case $TDIR in /*) ;; *) TDIR=$PWD/$TDIR ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-runcopy.XXXXXX") || exit 1
HPID=
cleanup() { exec 3>&- 2>/dev/null; [ -n "$HPID" ] && kill "$HPID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }

. "${srcdir:-.}/tests/dlopen_hold.sh"
hold_fixture_lib_own "$TMP" "$TDIR"
sym=$HSYM
addr=$(printf '%x' $((0x$sym + 0x10)))
want="$sym ms_fixture_sym_target+0x0
$addr ms_fixture_sym_target+0x10"

# check WHAT: root's answers are the running copy's, and eu-addr2line's where it is installed.
check_root() {
	"$BIN" at "$HPID" "$sym" "$addr" -r -n -o ADDR,SYMBOL >"$TMP/o" 2>"$TMP/e" || fail "$1: at exited $?: $(cat "$TMP/e")"
	[ "$(cat "$TMP/o")" = "$want" ] || fail "$1: root's at says '$(cat "$TMP/o")' $(cat "$TMP/e")"
	[ ! -s "$TMP/e" ] || fail "$1: root's at complained: $(cat "$TMP/e")"
	if command -v eu-addr2line >/dev/null 2>&1; then
		ref=$(eu-addr2line --pid "$HPID" -f "0x$sym" "0x$addr" 2>/dev/null | sed -n '1p;3p' | tr '\n' ' ')
		[ "$ref" = "ms_fixture_sym_target ms_fixture_sym_target " ] ||
			fail "$1: eu-addr2line --pid names '$ref'"
	fi
}
# check_user WHAT REASON: as uid 65534, no symbol, and REASON on stderr once for the file.
check_user() {
	as_nobody "$BIN" at "$HPID" "$sym" "$addr" -r -n -o ADDR,SYMBOL >"$TMP/o" 2>"$TMP/e" ||
		fail "$1: at as uid $NOBODY exited $?: $(cat "$TMP/e")"
	[ "$(cat "$TMP/o")" = "$sym 
$addr " ] || fail "$1: as uid $NOBODY, at says '$(cat "$TMP/o")'"
	[ "$(grep -c . "$TMP/e")" = 1 ] && grep -qF "mapscope: pid $HPID: $TMP/libms-fixture-sym.so (deleted): $2" "$TMP/e" ||
		fail "$1: as uid $NOBODY, stderr: '$(cat "$TMP/e")'"
}

check_root "as mapped"
echo "ok 1 - root names ms_fixture_sym_target in the library as mapped"

cp "$TDIR/libstale-b.so" "$TMP/new.so" && mv "$TMP/new.so" "$TMP/libms-fixture-sym.so" || fail "cannot replace"
check_root "replaced"
echo "ok 2 - replaced: root names the running copy's symbols"
# The SONAME too: the file now at the path calls itself libstale.so.1.
soname=$("$BIN" list "$HPID" --by-file -r -n -o NAME,SONAME | grep -F "$TMP/libms-fixture-sym.so" | awk '{ print $NF }')
[ "$soname" = libms-fixture-sym.so ] || fail "replaced: SONAME '$soname'"
echo "ok 2b - replaced: root reads the running copy's SONAME"
check_user "replaced" "the file at the path is not the mapped one (replaced); reading the running copy needs root"
echo "ok 3 - replaced: uid $NOBODY is told why there is no symbol, once"

rm "$TMP/libms-fixture-sym.so" || fail "rm"
check_root "deleted"
echo "ok 4 - deleted: root names the running copy's symbols"
check_user "deleted" "the mapped file was deleted; reading the running copy needs root"
echo "ok 5 - deleted: uid $NOBODY is told why there is no symbol, once"
