#!/bin/sh
# `libs PATTERN` searches as people type: a plain PATTERN (no '/', no glob)
# is a part of a base name, a SONAME, a package or its source package.
# For a python3 that imported ssl, `libs ssl` lists libssl's file, and so
# do its package and source package names as dpkg gives them (skipped
# where dpkg does not know the file).  A whole-name match is listed before
# the parts: two copies of a test library, the part's path sorting first.
# `libs nonexistentlib` says what was searched and exits 1, as grep does;
# `who` keeps its exact meaning (`who ssl` finds nothing).
set -u
NAME=test_libs_search
. "$(dirname "$0")/shtest.sh"
. "$(dirname "$0")/syslib.sh"
[ -x "$PY" ] || skip "needs python3"
"$PY" -c 'import ssl' 2>/dev/null || skip "python3 has no ssl module"
# A system library python3 can load in a sanitizer build too (syslib.sh).
LIB=$(syslib libbz2.so.1.0 libstale-a.so)
[ -f "$LIB" ] || skip "no $LIB (make check builds it)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-libsfind.XXXXXX") || exit 1
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
mkdir "$tmp/a" "$tmp/b"
# The part (libmsfind.so.1) sorts before the whole name (libmsfind.so) by path.
cp "$LIB" "$tmp/a/libmsfind.so.1" && cp "$LIB" "$tmp/b/libmsfind.so" ||
	fail "cannot copy $LIB"

start "$tmp/py.out" "$PY" -c '
import ctypes, ssl, sys, time
ctypes.CDLL(sys.argv[1]); ctypes.CDLL(sys.argv[2])
print("ready", flush=True)
time.sleep(600)' "$tmp/a/libmsfind.so.1" "$tmp/b/libmsfind.so"
pid=$last

# names PATTERN...: the NAME column of `libs --pid` for the patterns, raw; its status in $st.
names() {
	"$BIN" libs --pid="$pid" -r -n -o NAME "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
}
ssl=$(awk '$NF ~ /\/libssl\.so[.0-9]*$/ { print $NF; exit }' "/proc/$pid/maps")
[ -n "$ssl" ] || skip "python3's ssl maps no libssl.so"

names ssl
[ $st -eq 0 ] || fail "libs ssl exited $st: $(cat "$tmp/err")"
grep -qxF "$ssl" "$tmp/out" || fail "libs ssl does not list $ssl: $(cat "$tmp/out")"
ok "libs ssl lists $ssl"

# Whole names first: libmsfind.so is a base name, libmsfind.so.1 contains it.
names libmsfind.so
printf '%s\n%s\n' "$tmp/b/libmsfind.so" "$tmp/a/libmsfind.so.1" >"$tmp/want"
cmp -s "$tmp/out" "$tmp/want" || fail "libs libmsfind.so lists, in order: $(cat "$tmp/out")"
ok "a whole base name is listed before a base name that contains it"

# The package and its source, as dpkg knows them.
if command -v dpkg-query >/dev/null && pkg=$(dpkg-query -S "$ssl" 2>/dev/null | sed -n '1s/:.*//p') &&
   [ -n "$pkg" ]; then
	src=$(dpkg-query -W -f='${source:Package}' "$pkg" 2>/dev/null)
	for p in "$pkg" ${src:+"$src"}; do
		names "$p"
		[ $st -eq 0 ] || fail "libs $p exited $st: $(cat "$tmp/err")"
		grep -qxF "$ssl" "$tmp/out" || fail "libs $p does not list $ssl: $(cat "$tmp/out")"
		ok "libs $p (a package of $ssl) lists it"
	done
else
	printf '%s\n' "# dpkg does not know $ssl: package names not tried"
fi

"$BIN" libs nonexistentlib >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] || fail "libs nonexistentlib exited $st"
[ ! -s "$tmp/out" ] || fail "libs nonexistentlib printed: $(cat "$tmp/out")"
grep -qxF "mapscope: libs: nothing matches 'nonexistentlib' (base names, SONAMEs and package names)" "$tmp/err" ||
	fail "libs nonexistentlib says: $(cat "$tmp/err")"
ok "libs nonexistentlib says what was searched and exits 1"

"$BIN" who ssl >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && [ ! -s "$tmp/out" ] || fail "who ssl exited $st and printed: $(cat "$tmp/out")"
"$BIN" who libmsfind.so >"$tmp/out" 2>"$tmp/err" || fail "who libmsfind.so exited $?"
grep -qF "$tmp/b/libmsfind.so" "$tmp/out" && ! grep -qF "$tmp/a/libmsfind.so.1" "$tmp/out" ||
	fail "who libmsfind.so is not exact: $(cat "$tmp/out")"
ok "who matches whole names only"
