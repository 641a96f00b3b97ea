#!/bin/sh
# The libraries view's search (/) finds what `mapscope libs PATTERN` finds
# for a source package name: for a python3 that imported ssl, searching
# the source package of its libssl (openssl, as dpkg gives it) selects a
# row that `libs SOURCE` lists, where no path, SONAME or binary package
# name contains the text.  Skips (77) without tmux or python3's ssl, or
# where dpkg does not know the file's source package.  Polls; no sleeps.
set -u

E2E_NAME="libraries view search"
E2E_TAG=libsfind
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
skip() { echo "$E2E_NAME: SKIP ($*)"; exit 77; }
[ -x "$PY" ] && "$PY" -c 'import ssl' 2>/dev/null || skip "python3 has no ssl module"
"$PY" -c '
import ssl, time
print("ready", flush=True)
time.sleep(600)' > "$TMP/py.out" 2>&1 &
CPID=$!
wait_for "python3" grep -q '^ready' "$TMP/py.out"
ssl=$(awk '$NF ~ /\/libssl\.so[.0-9]*$/ { print $NF; exit }' "/proc/$CPID/maps")
[ -n "$ssl" ] || skip "python3's ssl maps no libssl.so"
command -v dpkg-query >/dev/null || skip "no dpkg"
pkg=$(dpkg-query -S "$ssl" 2>/dev/null | sed -n '1s/:.*//p')
src=$(dpkg-query -W -f='${source:Package}' "$pkg" 2>/dev/null)
[ -n "$pkg" ] && [ -n "$src" ] && [ "$src" != "$pkg" ] || skip "dpkg gives no source package for $ssl"

# The rows `libs` finds for the source package, with their packages.
"$BIN" libs -r -n -o NAME,PACKAGE "$src" > "$TMP/libs.out" 2>"$TMP/libs.err" ||
	fail "libs $src exited $?: $(cat "$TMP/libs.err")"
grep -q "^$ssl " "$TMP/libs.out" || fail "libs $src does not list $ssl: $(cat "$TMP/libs.out")"
# The search must find the source package, not a name that contains it.
if awk -v s="$src" 'index($0, s) { found = 1 } END { exit !found }' "$TMP/libs.out"; then
	skip "a name or package of libs $src contains '$src' itself"
fi

tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 50 \
	"$BIN --delay=0.5; echo \$? > '$TMP/status'; sleep 60" || fail "cannot start tmux"
wait_for "the process list" shows "PID"
keys L
wait_for "the libraries view" shows "mapscope | libraries: "
wait_for "the first walk" shows " files | "
keys / "$src"
keys Enter
# The selected row is in reverse video (SGR 7): one of the rows libs lists.
wait_for "a selected row" sh -c "tmux -S '$SOCK' capture-pane -p -e -t ms | sed -n '3,\$p' | grep -q '7m'"
# The row selected before the search is one too: wait for the search's.
selects_listed() {
	sel=$(screen -e | sed -n '3,$p' | grep '7m' | head -1)
	found=
	while read -r name _; do
		case "$sel" in *"$name"*) found=$name ;; esac
	done < "$TMP/libs.out"
	[ -n "$found" ]
}
wait_for "/ $src to select a row libs $src lists" selects_listed
shows "no match" >/dev/null && fail "the search for $src says no match"
selects_listed || fail "/ $src selects a row libs $src does not list: $sel"
pass "/ $src (the source package) selects $found, as libs $src lists it"
keys q q
