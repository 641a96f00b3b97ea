#!/bin/sh
# The ELF package note as an owner (src/core/pkg/notepkg.h), end to end:
# libraries linked here with `cc -Xlinker --package-metadata=JSON`, each
# mapped by a process of uid 65534 (ms-dlopen-hold), read by root's
# mapscope through `list --by-file` as a table and as JSON:
#  1. a library no database owns, in a folder of the test's: PACKAGE and
#     VERSION are the note's, PKGSRC elf-note;
#  2. attacks by uid 65534, in a folder it owns: a note whose name holds
#     an OSC escape and a bidi override comes out escaped (no ESC byte
#     anywhere); then the mapped file's path is swapped for a symlink to
#     the library of case 1, then for a FIFO: not packaged, never the
#     symlink's target, and mapscope ends (timeout says otherwise); a note
#     of 70 KB is not read (not packaged), and mapscope ends;
#  3. a package built with dpkg-deb at version 1.0-1 whose library's note
#     says 9.9-9, installed with dpkg: PACKAGE and VERSION are dpkg's,
#     PKGNOTE (and "pkgnote" in JSON) the note's "NAME 9.9-9".  Purged at
#     the end.  Needs root, dpkg and dpkg-deb; without them this part skips
#     (the whole test says SKIP when nothing ran).
set -u
NAME=test_pkgnote
. "$(dirname "$0")/shtest.sh"
. "$(dirname "$0")/dlopen_hold.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (the holder drops to uid 65534; dpkg installs)"
command -v cc >/dev/null 2>&1 || skip "needs cc to link a library with a package note"
hold_need_tmpdir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-pkgnote.XXXXXX") || exit 1
chmod 0755 "$tmp"
# This run's own package: another copy of the suite may run this test on the same dpkg database.
PKG=mapscope-notetest-$$-$(basename "$tmp" | sed 's/.*\.//' | tr -d '\n' | od -An -tx1 | tr -d ' \n')
installed=
cleanup() {
	exec 3>&-
	for p in $pids ${HPID:-}; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	# Another test may hold dpkg's lock for a moment.
	_i=0
	while [ -n "$installed" ] && ! dpkg --purge "$PKG" >"$tmp/purge.out" 2>&1; do
		_i=$((_i + 1))
		[ $_i -lt 60 ] || { printf '%s\n' "$NAME: dpkg --purge $PKG failed: $(cat "$tmp/purge.out")"; break; }
		sleep 1
	done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

printf 'int ms_pkgnote_test_f(void) { return 1; }\n' >"$tmp/f.c"
# mklib OUT JSON
mklib() {
	cc -shared -fPIC -o "$1" "$tmp/f.c" -Xlinker "--package-metadata=$2" 2>"$tmp/cc.err" ||
		fail "cc --package-metadata: $(cat "$tmp/cc.err")"
	chmod 0644 "$1"
}
hold() {
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' \
		"$TDIR/ms-dlopen-hold" >"$tmp/hold-own" && chmod 0755 "$tmp/hold-own" || fail "cannot write the holder"
	hold_start "$tmp" "$tmp/hold-own" "$1" ms_pkgnote_test_f
}
unhold() {
	exec 3>&-
	wait "$HPID" 2>/dev/null
	HPID=
}
# files PID FILE: list --by-file of PID as a table (FILE.txt) and JSON (FILE.json), bounded in time
files() {
	timeout 60 "$BIN" list --by-file -o NAME,PACKAGE,VERSION,PKGSRC,PKGNOTE "$1" >"$2.txt" 2>"$2.err"
	[ $? -eq 124 ] && fail "list --by-file did not end: $(cat "$2.err")"
	timeout 60 "$BIN" list --by-file -J -o NAME,PACKAGE,VERSION,PKGSRC,PKGNOTE "$1" >"$2.json" 2>>"$2.err"
	[ $? -eq 124 ] && fail "list --by-file -J did not end: $(cat "$2.err")"
	[ -s "$2.json" ] || fail "list --by-file -J said nothing: $(cat "$2.err")"
}
# row JSON PATH-SUFFIX: "package|version|pkgsrc|pkgnote" of the file whose name ends so (" (deleted)" aside)
row() {
	$PY - "$1" "$2" <<'EOF'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["files"]
        if (r.get("name") or "").removesuffix(" (deleted)").endswith(sys.argv[2])]
print("|".join(str(rows[0].get(k)) for k in ("package", "version", "pkgsrc", "pkgnote")) if rows else "no row")
EOF
}

# unanswered ROW: no package, or "not packaged"; never the note's (a row not asked is null everywhere).
unanswered() {
	case $1 in
	"None|None|none|None" | "not packaged|None|none|None" | "None|None|None|None") return 0 ;;
	esac
	return 1
}

# 1. A library no database owns.
mkdir -p "$tmp/own" && chmod 0755 "$tmp/own"
mklib "$tmp/own/libown.so" '{"type":"deb","name":"ms-vendored","version":"3.1-4","architecture":"amd64"}'
hold "$tmp/own/libown.so"
files "$HPID" "$tmp/own"
grep -E "/own/libown\.so +ms-vendored +3\.1-4 +elf-note *$" "$tmp/own.txt" >/dev/null ||
	fail "the note's package is not shown: $(cat "$tmp/own.txt")"
got=$(row "$tmp/own.json" /own/libown.so)
[ "$got" = "ms-vendored|3.1-4|elf-note|None" ] || fail "JSON row: $got"
ok "a library no database owns: its note's package and version, PKGSRC elf-note (table and JSON)"
unhold

# 2. The attacker's folder and files.
mkdir -p "$tmp/evil" && chown 65534:65534 "$tmp/evil" && chmod 0755 "$tmp/evil"
mklib "$tmp/evil/libesc.so" '{"name":"ev\u001b]0;pwned\u0007il\u202e","version":"6.6\u001b[2J"}'
chown 65534:65534 "$tmp/evil/libesc.so"
hold "$tmp/evil/libesc.so"
files "$HPID" "$tmp/esc"
if grep -q "$(printf '\033')" "$tmp/esc.txt" "$tmp/esc.json"; then fail "an ESC byte came out raw"; fi
grep -F 'ev\x1b]0;pwned\x07il' "$tmp/esc.txt" | grep -F '6.6\x1b[2J' | grep -q elf-note ||
	fail "the escaped note is not shown: $(cat "$tmp/esc.txt")"
ok "a note with terminal escapes and a bidi override comes out escaped"
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	"ln -s '$tmp/own/libown.so' '$tmp/evil/link' && mv -f '$tmp/evil/link' '$tmp/evil/libesc.so'" ||
	fail "uid 65534 cannot swap its file for a symlink"
files "$HPID" "$tmp/link"
got=$(row "$tmp/link.json" /evil/libesc.so)
unanswered "$got" || fail "a symlink at the path was followed or answered: $got"
grep -q ms-vendored "$tmp/link.txt" && fail "the symlink's target was read: $(cat "$tmp/link.txt")"
ok "the path swapped for a symlink to a noted library: not followed"
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	"rm -f '$tmp/evil/libesc.so' && mkfifo '$tmp/evil/libesc.so'" || fail "uid 65534 cannot make a FIFO"
files "$HPID" "$tmp/fifo"
got=$(row "$tmp/fifo.json" /evil/libesc.so)
unanswered "$got" || fail "a FIFO at the path answered: $got"
ok "the path swapped for a FIFO: mapscope ends, not packaged"
unhold
mklib "$tmp/evil/libhuge.so" "{\"name\":\"huge\",\"pad\":\"$(head -c 70000 /dev/zero | tr '\0' a)\"}"
hold "$tmp/evil/libhuge.so"
files "$HPID" "$tmp/huge"
got=$(row "$tmp/huge.json" /evil/libhuge.so)
unanswered "$got" || fail "a 70 KB note was read: $got"
ok "a note of 70 KB is not read, and mapscope ends"
unhold

# 3. dpkg says one version, the note another.
if ! command -v dpkg >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1 || [ ! -d /var/lib/dpkg/info ]; then
	echo "$NAME: the dpkg part skipped: needs dpkg and dpkg-deb"
	exit 0
fi
dpkg -s "$PKG" >/dev/null 2>&1 && dpkg --purge "$PKG" >/dev/null 2>&1
tree=$tmp/deb
mkdir -p "$tree/DEBIAN" "$tree/usr/lib/$PKG"
mklib "$tree/usr/lib/$PKG/libnote.so" "{\"type\":\"deb\",\"name\":\"$PKG\",\"version\":\"9.9-9\",\"architecture\":\"all\"}"
printf 'Package: %s\nVersion: 1.0-1\nArchitecture: all\nMaintainer: mapscope tests <tests@invalid>\nDescription: a library whose ELF note names another version\n' \
	"$PKG" >"$tree/DEBIAN/control"
dpkg-deb --root-owner-group --build "$tree" "$tmp/$PKG.deb" >/dev/null 2>&1 || fail "dpkg-deb --build"
installed=1
# Another test may hold dpkg's lock for a moment.
i=0
until dpkg -i "$tmp/$PKG.deb" >"$tmp/dpkg.out" 2>&1; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "dpkg -i: $(cat "$tmp/dpkg.out")"
	sleep 1
done
hold "/usr/lib/$PKG/libnote.so"
files "$HPID" "$tmp/dpkg"
grep -E "/usr/lib/$PKG/libnote\.so +$PKG +1\.0-1 +dpkg +$PKG 9\.9-9 *$" "$tmp/dpkg.txt" >/dev/null ||
	fail "dpkg's answer and the note's are not both shown: $(cat "$tmp/dpkg.txt")"
got=$(row "$tmp/dpkg.json" "/usr/lib/$PKG/libnote.so")
[ "$got" = "$PKG|1.0-1|dpkg|$PKG 9.9-9" ] || fail "JSON row: $got"
ok "dpkg says 1.0-1, the note 9.9-9: both are shown (table and JSON)"
unhold
exit 0
