#!/bin/sh
# Copies of one library in one process are read once by the symbol reader
# (symbols_dw.h, "Identical copies"), yet each copy is named at its own
# addresses, and a file that only looks like a copy keeps its own names.
# One python3 process maps:
#   a1.so, a2.so  libms-fixture-sym.so copied twice: both name
#                 ms_fixture_sym_target+0x10 (a2 answers through a1's index);
#   b.so          the same bytes with another build ID and the symbol renamed
#                 ms_fixture_sym_tarGET (same size): it must not get a1's;
# and, run as root, files uid 65534 owns (a user could have written them):
#   u1.so, u2.so  copies again: both named;
#   c.so          renamed but with a1's build ID: an untrusted file is shared
#                 only with one of the same bytes, so it keeps its own name.
# Run as another user every file is that user's (untrusted): c.so is
# checked the same way.  Exit 77 (skip) without libdw or /usr/bin/python3,
# or in a sanitizer build.
set -u
NAME=symbols-copies
. "${srcdir:-.}/tests/shtest.sh"
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || skip "built without libdw"
[ -x "$PY" ] || skip "no $PY to map the copies"
LIB=$TDIR/libms-fixture-sym.so
[ -r "$LIB" ] || fail "no $LIB"
# A sanitizer build's copy needs the ASan runtime first in the process,
# which the system's python3 does not load.
readelf -d "$LIB" 2>/dev/null | grep -q 'NEEDED.*\[libasan' &&
	skip "$LIB is built with ASan: an uninstrumented $PY cannot load it"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-symcopies.XXXXXX") || exit 1
TMP=$(cd "$TMP" && pwd -P) || exit 1
cleanup() { [ -n "$pids" ] && kill $pids 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM

# patch SRC DST NEWID RENAME: a copy of SRC, the last byte of its build ID
# inverted when NEWID is 1 (the first bytes stay, so the reader compares
# the two IDs whole), every ms_fixture_sym_target renamed when RENAME is 1.
patch() {
	"$PY" - "$@" <<'EOF' || fail "cannot patch $2"
import sys
src, dst, newid, rename = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"
data = bytearray(open(src, "rb").read())
head = b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00"
at = data.find(head)
if at < 0 or data.find(head, at + 1) >= 0:
    sys.exit("not one 20-byte GNU build-ID note")
if newid:
    data[at + len(head) + 19] ^= 0xff
if rename:
    data = data.replace(b"ms_fixture_sym_target", b"ms_fixture_sym_tarGET")
open(dst, "wb").write(data)
EOF
}
cp "$LIB" "$TMP/a1.so" && cp "$LIB" "$TMP/a2.so" || fail "cannot copy $LIB"
patch "$LIB" "$TMP/b.so" 1 1
patch "$LIB" "$TMP/c.so" 0 1
files="a1 a2 b c"
if [ "$(id -u)" = 0 ]; then
	cp "$LIB" "$TMP/u1.so" && cp "$LIB" "$TMP/u2.so" || fail "cannot copy $LIB"
	chmod 0644 "$TMP"/*.so && chown 65534 "$TMP/u1.so" "$TMP/u2.so" "$TMP/c.so" ||
		fail "cannot give files to uid 65534"
	files="a1 a2 b u1 c u2"
fi

# Loaded in this order: the first of each kind is the one the others could share.
cd "$TMP" || fail "cd $TMP"
start "$TMP/out" "$PY" -c '
import ctypes, sys, time
libs = [ctypes.CDLL("./%s.so" % n) for n in sys.argv[1:]]
print("ready", flush=True)
time.sleep(600)' $files
cd - >/dev/null || fail "cd back"
PPID_=$last

# Where each file's offset 0 is mapped.
base() { awk -v p="$TMP/$1.so" '$6 == p && $3 ~ /^0+$/ { split($1, r, "-"); print r[1]; exit }' "/proc/$PPID_/maps"; }
# The symbol's offset from offset 0, measured in a process of our own.
a1=$(base a1)
[ -n "$a1" ] || fail "a1.so is not mapped"
off=$("$PY" -c '
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
fn = ctypes.cast(lib.ms_fixture_sym_target, ctypes.c_void_p).value
for line in open("/proc/self/maps"):
    f = line.split()
    if len(f) > 5 and f[5] == sys.argv[1] and int(f[2], 16) == 0:
        print("%x" % (fn - int(f[0].split("-")[0], 16))); break' "$(readlink -f "$LIB")")
[ -n "$off" ] || fail "cannot find the symbol's offset in $LIB"

: >"$TMP/addrs"
: >"$TMP/want"
for f in $files; do
	b=$(base "$f")
	[ -n "$b" ] || fail "$f.so is not mapped"
	printf '%x\n' $((0x$b + 0x$off + 0x10)) >>"$TMP/addrs"
	case $f in
	b | c) echo "$f ms_fixture_sym_tarGET+0x10" ;;
	*) echo "$f ms_fixture_sym_target+0x10" ;;
	esac >>"$TMP/want"
done
"$BIN" at "$PPID_" -r -n -o SYMBOL <"$TMP/addrs" >"$TMP/got" 2>"$TMP/err" || fail "at exited $?: $(cat "$TMP/err")"
set -- $files
while read -r line; do
	echo "$1 $line"
	shift
done <"$TMP/got" >"$TMP/named"
cmp -s "$TMP/named" "$TMP/want" || fail "named
$(cat "$TMP/named")
instead of
$(cat "$TMP/want")"
ok "copies named at their own addresses ($(echo $files))"

# The same addresses asked the other way round: a2 (a copy) before a1.
tac "$TMP/addrs" | "$BIN" at "$PPID_" -r -n -o SYMBOL >"$TMP/got2" 2>"$TMP/err" || fail "at exited $?"
tac "$TMP/got" | cmp -s - "$TMP/got2" || fail "in reverse order: $(cat "$TMP/got2")"
ok "the same answers whichever copy is read first"
