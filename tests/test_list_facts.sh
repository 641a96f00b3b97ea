#!/bin/sh
# A file's facts wherever they exist (issue 35):
#   - `list PID -o NAME,PACKAGE,VERSION,...` gives every mapping its file's
#     cells, the same as `list --by-file` gives the file (here libc, owned
#     by the system's package database, and a test library no package owns);
#   - `libs -o LIBVER` shows a library's highest version definition, the
#     same as `list --by-file -o LIBVER` (tests/libms-verdef.so, whose
#     highest is not the highest as text);
#   - an -o column the command lacks names the commands that have it,
#     found in their tables; a name no command has stays "unknown column".
# The process is ms-dlopen-hold, which maps the test library and libc.
set -u
BIN=${MS_BIN:-./mapscope}
HOLD=${MS_HOLD:-tests/ms-dlopen-hold}
LIB=${MS_VERDEF_LIB:-tests/libms-verdef.so}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-listfacts.XXXXXX") || exit 1
hpid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "list facts: FAIL: $*"; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

cp "$LIB" "$tmp/libms-verdef.so" || fail "cannot copy $LIB"
mkfifo "$tmp/in" || fail "mkfifo"
"$HOLD" "$(id -u)" "$tmp/libms-verdef.so" ms_verdef_one < "$tmp/in" > "$tmp/out" 2>&1 &
hpid=$!
exec 3> "$tmp/in"
i=0
until grep -q '^ready' "$tmp/out"; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "the holder did not start: $(cat "$tmp/out")"
	sleep 0.05
done
pid=$(awk '/^ready/ { print $2 }' "$tmp/out")

# ---- list -o per mapping, against --by-file per file
cols=PACKAGE,VERSION,INSTALLED,PKGSRC,SONAME,LIBVER,FILEVER,VERDICT
"$BIN" list "$pid" -r -n -o "NAME,$cols" > "$tmp/maps" || fail "list -o NAME,$cols failed"
"$BIN" list "$pid" --by-file -r -n -o "NAME,$cols" > "$tmp/files" || fail "list --by-file -o NAME,$cols failed"
libc=$(awk '$1 ~ /\/libc\.so\.6$/ { print $1; exit }' "$tmp/maps")
[ -n "$libc" ] || fail "the holder maps no libc.so.6: $(cat "$tmp/maps")"
libc_maps=$(awk -v f="$libc" '$1 == f' "$tmp/maps" | wc -l)
[ "$libc_maps" -ge 2 ] || fail "libc is mapped $libc_maps times; the test wants several"
for f in "$libc" "$tmp/libms-verdef.so"; do
	want=$(awk -v f="$f" '$1 == f' "$tmp/files")
	[ -n "$want" ] || fail "--by-file has no line for $f"
	[ "$(awk -v f="$f" '$1 == f' "$tmp/maps" | sort -u)" = "$want" ] ||
		fail "the mappings of $f differ from its --by-file line '$want': $(awk -v f="$f" '$1 == f' "$tmp/maps" | sort -u)"
done
ok "list -o NAME,$cols: each mapping of libc ($libc_maps) and of the test library has its file's cells"
if [ -n "$(dpkg-query -S "$libc" 2>/dev/null)" ] || [ -n "$(dpkg-query -S "${libc#/usr}" 2>/dev/null)" ]; then
	pkg=$(awk -v f="$libc" '$1 == f { print $2; exit }' "$tmp/maps")
	case $pkg in
	'' | not\\x20packaged) fail "libc is packaged, but list -o PACKAGE says '$pkg'" ;;
	esac
	ok "libc's mappings name its package ($pkg)"
fi
[ "$(awk -v f="$tmp/libms-verdef.so" '$1 == f { print $2; exit }' "$tmp/maps")" = 'not\x20packaged' ] ||
	fail "the test library should be not packaged: $(grep libms-verdef "$tmp/maps")"
ok "the test library's mappings say not packaged"
"$BIN" list "$pid" -J -o NAME,VERSION > "$tmp/json" || fail "list -J -o NAME,VERSION failed"
python3 - "$tmp/json" "$tmp/libms-verdef.so" <<'PY' || fail "list -J -o NAME,VERSION"
import json, sys
rows = json.load(open(sys.argv[1]))["mappings"]
assert rows and all(set(r) == {"name", "version"} for r in rows), rows[:3]
assert all(r["version"] is None for r in rows if r["name"] == sys.argv[2])
PY
ok "list -J -o NAME,VERSION: a mappings array, null where there is no package"
"$BIN" list "$pid" -o START,NAME > /dev/null || fail "plain list failed"

# ---- LIBVER in libs
want=$("$BIN" list "$pid" --by-file -r -n -o NAME,LIBVER | awk -v f="$tmp/libms-verdef.so" '$1 == f { print $2 }')
[ -n "$want" ] || fail "list --by-file shows no LIBVER for the test library"
got=$("$BIN" libs --pid "$pid" -r -n -o NAME,LIBVER | awk -v f="$tmp/libms-verdef.so" '$1 == f { print $2 }')
[ "$got" = "$want" ] || fail "libs -o LIBVER says '$got', list --by-file '$want'"
ok "libs -o NAME,LIBVER: $got, as list --by-file says"

# ---- the message of a column the command lacks
"$BIN" list "$pid" -o NAME,WHY > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "list -o WHY: status $rc, want 2"
grep -qx 'mapscope: list: column WHY is not available here; stale -o, libs -o have it' "$tmp/err" ||
	fail "list -o WHY: $(cat "$tmp/err")"
"$BIN" libs -o NAME,KIND > /dev/null 2> "$tmp/err"
grep -qx 'mapscope: libs: column KIND is not available here; list --by-file -o has it' "$tmp/err" ||
	fail "libs -o KIND: $(cat "$tmp/err")"
"$BIN" stale -o NAME,COPY > /dev/null 2> "$tmp/err"
grep -qx 'mapscope: stale: column COPY is not available here; who -o has it' "$tmp/err" ||
	fail "stale -o COPY: $(cat "$tmp/err")"
"$BIN" list "$pid" -o NAME,NOSUCH > /dev/null 2> "$tmp/err"
grep -qx 'mapscope: unknown column: NOSUCH' "$tmp/err" || fail "list -o NOSUCH: $(cat "$tmp/err")"
ok "a column the command lacks names the commands that have it"
echo "$n passed"
