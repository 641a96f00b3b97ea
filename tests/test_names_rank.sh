#!/bin/sh
# One file, two names that are both paths in our root (a hard link root
# made, as a wheel's vendored copy of a system library could be): dpkg's
# answer outranks a Python RECORD's, whichever process `libs` walks first
# (nameproof.h, libtable.h).  Root hard-links the system's libz into a
# site-packages folder of its own whose zok-9.9.9.dist-info/RECORD lists
# it; one root process maps it by that name, another by the system's.  With
# --pid in both orders, and with each process started first, `libs -J`
# gives the inode dpkg's package and source, never zok.  Needs root, dpkg,
# python3 and a system libz.so.1 dpkg owns on the file system of $TMPDIR.
set -u
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
HOLD=$TDIR/ms-dlopen-hold
skip() { echo "test_names_rank: SKIP: $*"; exit 77; }
fail() { echo "test_names_rank: FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (a hard link to root's library)"
for tool in dpkg-query python3; do
	command -v $tool >/dev/null 2>&1 || skip "needs $tool"
done
. "$(dirname "$0")/syslib.sh"
LIBZ=$(syslib libz.so.1 none)
[ -r "$LIBZ" ] || skip "no system libz.so.1"
LIBZ=$(readlink -f "$LIBZ")
PKG=$(dpkg-query -S "$(basename "$LIBZ")" 2>/dev/null | sed -n '1s/:.*//p')
[ -n "$PKG" ] || skip "dpkg owns no $(basename "$LIBZ")"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-rank.XXXXXX") || exit 1
pids=
cleanup() {
	exec 4>&- 5>&-
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
chmod 0755 "$tmp"
site=$tmp/lib/python3/site-packages
mkdir -p "$site/zok.libs" "$site/zok-9.9.9.dist-info"
chmod -R 0755 "$tmp/lib"
LINK=$site/zok.libs/$(basename "$LIBZ")
ln "$LIBZ" "$LINK" 2>/dev/null || skip "cannot hard-link $LIBZ into \$TMPDIR (another file system)"
printf 'zok.libs/%s,,\nzok-9.9.9.dist-info/RECORD,,\n' "$(basename "$LIBZ")" >"$site/zok-9.9.9.dist-info/RECORD"
printf 'Metadata-Version: 2.1\nName: zok\nVersion: 9.9.9\n' >"$site/zok-9.9.9.dist-info/METADATA"

# hold FD LIB: a root process that maps LIB while fd FD (4 or 5) stays open; its PID in HPID.
hold() {
	rm -f "$tmp/in.$1" "$tmp/out"
	mkfifo "$tmp/in.$1" "$tmp/out" || fail "mkfifo"
	"$HOLD" 0 "$2" zlibVersion <"$tmp/in.$1" >"$tmp/out" &
	pids="$pids $!"
	eval "exec $1>\"\$tmp/in.\$1\""
	HPID=
	while read -r _w _v; do
		case $_w in
		ready) HPID=$_v; break ;;
		err) fail "ms-dlopen-hold $2: $_v" ;;
		esac
	done <"$tmp/out"
	[ -n "$HPID" ] || fail "ms-dlopen-hold $2 did not start"
}

# check A,B: libs --pid=A,B -J: the file's row says PKG from dpkg, and no row says zok.
check() {
	"$BIN" libs --pid="$1" -J -o NAME,PACKAGE,PKGSRC,INODE >"$tmp/libs.json" 2>"$tmp/libs.err" ||
		fail "libs --pid=$1: exit $?: $(cat "$tmp/libs.err")"
	python3 - "$tmp/libs.json" "$PKG" "$(stat -c %i "$LIBZ")" <<'PY' || fail "libs --pid=$1: $(cat "$tmp/libs.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["libraries"] if str(r.get("inode")) == sys.argv[3]]
assert len(rows) == 1, rows
assert rows[0]["package"] == sys.argv[2] and rows[0]["pkgsrc"] == "dpkg", rows[0]
assert not any(r.get("package") == "zok" for r in doc["libraries"]), doc
PY
	echo "ok: libs --pid=$1: $PKG from dpkg"
}

hold 4 "$LINK"; first=$HPID
hold 5 "$LIBZ"; second=$HPID
check "$first,$second"
check "$second,$first"
exec 4>&- 5>&-
wait 2>/dev/null
pids=
hold 4 "$LIBZ"; first=$HPID
hold 5 "$LINK"; second=$HPID
check "$first,$second"
check "$second,$first"
echo "test_names_rank: PASS"
