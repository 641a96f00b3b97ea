#!/bin/sh
# The libraries view (L) at 80x24, the issue's case: four Python-module-like
# libraries (_ssl.cpython-311-x86_64-linux-gnu.so and the like, in a deep
# folder of the test's), each with an ELF package note naming a Debian-style
# version (3.11.2-6~deb12u6: a real '~'), mapped by one tests/stale-child.  Under TERM=xterm-256color and
# TERM=screen, LANG=C.UTF-8 and LANG=C, each row shows its whole file name,
# its PACKAGE and its VERSION whole; a folder that is cut shows U+2026 in
# UTF-8 and "..." in C, and no '~' marks a cut (the only '~' on those rows
# is the version's own).  As root, the explorer and the child run as uid
# 65534, so the view lists only the child's files, not the machine's.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) when tmux, cc or
# the linker's --package-metadata is absent, or uid 65534 cannot enter
# $TMPDIR.  The view is filtered (\) to the modules' suffix first: the
# filter's header, and only its 4 rows.
set -u

E2E_NAME="libraries view at 80 columns e2e"
E2E_TAG=libsnarrow
. "$(dirname "$0")/lib.sh"

BUILT=$(cd "$(dirname "$FIXTURE")" && pwd)
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
KID=
cleanup_kid() {
	[ -n "$KID" ] && kill "$KID" 2>/dev/null
	cleanup
}
trap cleanup_kid EXIT INT TERM

skip() { echo "$E2E_NAME: SKIP ($*)"; exit 77; }
command -v cc >/dev/null 2>&1 || skip "no cc to link libraries with a package note"
AS=
if [ "$(id -u)" -eq 0 ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TMP" 2>/dev/null ||
		{ chmod 0755 "$TMP"; setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TMP"; } ||
		skip "uid 65534 cannot enter $TMP"
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi

PKG=libpython3.11-stdlib
VER=3.11.2-6~deb12u6
SUFFIX=.cpython-311-x86_64-linux-gnu.so
MODS="_ssl _bz2 _csv _md5"
DIR="$TMP/opt/python/versions/3.11.2/lib/python3.11/lib-dynload"
mkdir -p "$DIR" "$TMP/config/mapscope" && chmod -R 0755 "$TMP/opt" "$TMP/config" || fail "mkdir"
: > "$TMP/config/mapscope/stale-ignore.conf"
printf 'int ms_libs_narrow_f(void) { return 1; }\n' > "$TMP/f.c"
for m in $MODS; do
	cc -shared -fPIC -o "$DIR/$m$SUFFIX" "$TMP/f.c" -Xlinker \
		"--package-metadata={\"type\":\"deb\",\"name\":\"$PKG\",\"version\":\"$VER\",\"architecture\":\"amd64\"}" \
		2> "$TMP/cc.err" || skip "the linker has no --package-metadata: $(head -1 "$TMP/cc.err")"
	chmod 0644 "$DIR/$m$SUFFIX"
done

mkfifo "$TMP/in" && chmod 0666 "$TMP/in" || fail "mkfifo"
# shellcheck disable=SC2086
$AS "$BUILT/stale-child" < "$TMP/in" > "$TMP/out" 2>&1 &
KID=$!
exec 3> "$TMP/in"
wait_for "the child" grep -q '^ready' "$TMP/out"
for m in $MODS; do
	echo "dlopen $DIR/$m$SUFFIX" >&3
done
wait_for "the child's libraries" sh -c "[ \$(grep -c '^ok' '$TMP/out') -ge 4 ]"
grep -q '^err' "$TMP/out" && fail "the child: $(cat "$TMP/out")"

# What `mapscope libs` says: the note's package and version, for each module.
# shellcheck disable=SC2086
XDG_CONFIG_HOME="$TMP/config" $AS "$BIN" libs -r -n -o NAME,PACKAGE,VERSION --pid="$KID" "*$SUFFIX" > "$TMP/libs.out" 2>&1 ||
	fail "mapscope libs failed: $(cat "$TMP/libs.out")"
for m in $MODS; do
	awk -v n="$DIR/$m$SUFFIX" -v p="$PKG" -v v="$VER" '$1 == n && $2 == p && $3 == v { ok = 1 } END { exit !ok }' \
		"$TMP/libs.out" || fail "libs does not say $PKG $VER for $m: $(cat "$TMP/libs.out")"
done

# row MOD: the screen line of MOD's row (its file name ends the line).
row() { screen | awk -v n="/$1$SUFFIX" 'NR > 2 { sub(/ +$/, "") } NR > 2 && substr($0, length($0) - length(n) + 1) == n { print; exit }'; }
# rows_are N: N lines drawn between the headings and the message line.
rows_are() { [ "$(screen | sed -n '3,23p' | grep -c "[^ ]")" -eq "$1" ]; }
rows_whole() {
	for m in $MODS; do
		r=$(row "$m")
		[ -n "$r" ] || return 1
		case $r in *" $VER "*) ;; *) return 1 ;; esac
	done
}

run=0
for term in xterm-256color screen; do
	for lang in C.UTF-8 C; do
		run=$((run + 1))
		cmd="env TERM=$term LANG=$lang LC_ALL=$lang XDG_CONFIG_HOME='$TMP/config' $AS '$BIN' --delay=0.5; sleep 60"
		# One window for every run: the next one replaces the pane's program.
		if [ "$run" -eq 1 ]; then
			tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 80 -y 24 "$cmd" || fail "cannot start tmux"
		else
			tmux -S "$SOCK" respawn-pane -k -t ms "$cmd" || fail "cannot restart the pane"
		fi
		[ "$(tmux -S "$SOCK" display -p -t ms '#{pane_width}x#{pane_height}')" = 80x24 ] ||
			fail "the pane is not 80x24"
		wait_for "the process list ($term, $lang)" shows "PID"
		keys L
		wait_for "the libraries view ($term, $lang)" shows "mapscope | libraries: "
		# Only the modules' rows, whatever else runs (the explorer's own libraries
		# included: a sanitizer build maps libasan, whose version is wider).
		keys '\'
		wait_for "the libraries filter prompt ($term, $lang)" shows "path, SONAME or package contains:"
		keys -l "$SUFFIX"
		keys Enter
		wait_for "the walk, filtered ($term, $lang)" shows "| libraries: 4 files | name~$SUFFIX |"
		# The rows are drawn after the header, in pieces: wait for them.
		wait_for "the filter to show the 4 modules' rows only ($term, $lang)" rows_are 4
		wait_for "the modules' rows whole ($term, $lang)" rows_whole
		heading=$(screen | sed -n 2p)
		for h in PROCS PACKAGE VERSION NAME; do
			case $heading in *"$h"*) ;; *) fail "no $h heading at 80 ($term, $lang): $heading" ;; esac
		done
		if [ "$lang" = C ]; then mark=...; else mark=$(printf '\342\200\246'); fi
		for m in $MODS; do
			r=$(row "$m")
			case $r in
			*"/$mark/$m$SUFFIX") ;;
			*) fail "$m's row does not end in /$mark/$m$SUFFIX ($term, $lang): $r" ;;
			esac
			# PACKAGE loses its middle, not its flavour ("stdlib").
			case $r in
			*" lib"*"$mark"*"stdlib "*) ;;
			*) fail "$m's row lacks its package's start and end ($term, $lang): $r" ;;
			esac
			# The only '~' is the version's own: none marks a cut.
			[ "$(printf '%s' "$r" | tr -cd '~' | wc -c)" -eq 1 ] || fail "a '~' on $m's row beside $VER's ($term, $lang): $r"
		done
		if [ "$lang" = C ]; then
			screen | LC_ALL=C grep -q "$(printf '[\200-\377]')" && fail "a non-ASCII byte under LANG=C ($term)"
		fi
		pass "80x24 $term $lang: each module's whole file name, its package and $VER"
	done
done
[ "$run" -eq 4 ] || fail "ran $run of 4 terminals"
exit 0
