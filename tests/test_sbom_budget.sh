#!/bin/sh
# The SBOM's hash budget (core/files/sbom.h) against a user who maps more
# files than it holds: a process of uid 65534 maps 4,200 files of its own
# (one ELF library copied 4,200 times), and a root process maps a
# root-owned file no package owns, named after all of them.  The budget
# goes to root's files first, so `libs --format=cyclonedx` gives the root
# file its SHA-256 (as sha256sum says); 4,096 files are hashed in all, and
# each of the user's files left out says why in mapscope:hash-skipped, as
# the metadata's counts do (tests/sbom_check.py).  Before the budget, files
# were hashed in name order and the root file got none.
# Skips, saying why, when not root or without python3-jsonschema.
set -u
BIN=${MS_BIN:-./mapscope}
TDIR=$(cd "$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
NFILES=4200
skip() { echo "test_sbom_budget: SKIP: $*"; exit 77; }
fail() { echo "test_sbom_budget: FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root: files and a process of uid 65534, and a root process"
[ -x $PY ] && $PY -c 'import jsonschema' 2>/dev/null || skip "needs python3-jsonschema (setup.sh installs it)"
. "$SRC/tests/dlopen_hold.sh"
hold_need_tmpdir

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-sbom-budget.XXXXXX") || exit 1
cleanup() {
	exec 3>&- 4>&-
	for p in ${upid:-} ${rpid:-}; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 0755 "$tmp" && mkdir "$tmp/a-user" "$tmp/z-root" || fail "cannot make the folders"
rootlib=$tmp/z-root/libroot.so
cp "$TDIR/libstale-b.so" "$rootlib" && chmod 0644 "$rootlib" || fail "cannot copy the root library"
$PY - "$TDIR/libstale-a.so" "$tmp/a-user" $NFILES <<'EOF' || fail "cannot make the user's files"
import os, shutil, sys
lib, folder, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    path = "%s/lib%04d.so" % (folder, i)
    shutil.copyfile(lib, path)
    os.chown(path, 65534, 65534)
os.chown(folder, 65534, 65534)
EOF

# hold UID DIR FD: ms-dlopen-hold maps every file of DIR as UID until fd FD closes; sets hpid.
hold() {
	mkfifo "$tmp/$3.in" || fail "mkfifo"
	"$TDIR/ms-dlopen-hold" "$1" --map "$2" <"$tmp/$3.in" >"$tmp/$3.out" &
	hpid=$!
	eval "exec $3>\"\$tmp/\$3.in\""
	i=0
	until grep -q '^ready' "$tmp/$3.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] && kill -0 $hpid 2>/dev/null || fail "ms-dlopen-hold --map $2: $(cat "$tmp/$3.out")"
		sleep 0.05
	done
	grep -q "^ready $hpid\$" "$tmp/$3.out" || fail "ms-dlopen-hold --map $2: $(cat "$tmp/$3.out")"
}
hold 65534 "$tmp/a-user" 3
upid=$hpid
grep -q "^mapped $NFILES\$" "$tmp/3.out" || fail "the user's process mapped: $(cat "$tmp/3.out")"
hold 0 "$tmp/z-root" 4
rpid=$hpid

"$BIN" libs --all-mappings --pid="$upid,$rpid" --format=cyclonedx > "$tmp/sbom.json" 2> "$tmp/err" ||
	fail "libs --format=cyclonedx: exit $?: $(cat "$tmp/err")"
root_sum=$(sha256sum "$rootlib" | cut -d' ' -f1)
$PY "$SRC/tests/sbom_check.py" "$SRC/tests/data/cyclonedx" "$tmp/sbom.json" \
	file "$rootlib" "$root_sum" "$rpid" \
	budget "$tmp/a-user/" "hash budget: 4096 files per run, root's files first" 4096 ||
	fail "the SBOM does not hold (above)"
. "$SRC/tests/cdx_validate.sh"
cdx_validate "$tmp/sbom.json" || fail "the SBOM fails the CycloneDX clients (above)"
echo "test_sbom_budget: ok"
