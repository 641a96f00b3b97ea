#!/bin/sh
# LIBVER of a library replaced under a running process (another build put
# over its path with cp and mv, as an upgrade does) or deleted is read from
# the running copy (/proc/PID/map_files, root only), in the same open as
# its SONAME; anyone else gets "?", never the file now at the path.  The
# holder is ms-dlopen-hold, started as uid 65534 (so that uid may read its
# maps), on a copy of libms-verdef.so (LIBVER MSV_1.10, SONAME
# libms-verdef.so.1); the other build is libstale-b.so (no version
# definitions, SONAME libstale.so.1).  Exit 77 (skip) only without root or
# setpriv, or when uid 65534 cannot enter $TMPDIR.
set -u
NAME=libver-runcopy
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
NOBODY=65534
skip() { echo "$NAME: SKIP ($*)"; exit 77; }
fail() { echo "$NAME: FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root: map_files is root's"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv"
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
case $TDIR in /*) ;; *) TDIR=$PWD/$TDIR ;; esac
. "${srcdir:-.}/tests/dlopen_hold.sh"
hold_need_tmpdir
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-libverrun.XXXXXX") || exit 1
HPID=
trap 'exec 3>&- 2>/dev/null; [ -z "$HPID" ] || kill "$HPID" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

hold_lib_own "$TMP" "$TDIR" libms-verdef.so ms_verdef_one
LIB=$TMP/libms-verdef.so

# cells [as_nobody]: "SONAME LIBVER" of the library's row (raw output).
cells() {
	"$@" "$BIN" list "$HPID" --by-file -r -n -o SONAME,LIBVER,NAME >"$TMP/o" 2>"$TMP/e" ||
		fail "list --by-file exited $?: $(cat "$TMP/e")"
	grep -F "$LIB" "$TMP/o" | awk '{ print $1, $2 }'
}
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }

# expect N WHAT NOBODY_WANTS: root's cells are the running copy's; uid 65534's are NOBODY_WANTS.
expect() {
	got=$(cells)
	[ "$got" = "libms-verdef.so.1 MSV_1.10" ] || fail "$2: root reads '$got', not the running copy"
	got=$(cells as_nobody)
	[ "$got" = "$3" ] || fail "$2, uid $NOBODY: '$got', not '$3'"
	echo "ok $1 - $2: root reads SONAME libms-verdef.so.1, LIBVER MSV_1.10; uid $NOBODY gets '$3'"
}

expect 1 "as mapped" "libms-verdef.so.1 MSV_1.10"
cp "$TDIR/libstale-b.so" "$TMP/new.so" && mv "$TMP/new.so" "$LIB" || fail "cannot replace"
expect 2 "replaced by libstale.so.1" "? ?"
rm "$LIB" || fail "rm"
expect 3 "deleted" "? ?"
