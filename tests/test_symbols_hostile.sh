#!/bin/sh
# A user's crafted library cannot make root's `mapscope at` hang or hold
# gigabytes through libdw.  Each case is a library made here
# (tests/hostile_elf.py over tests/hostile_lib.c built with gcc), owned by
# uid 65534 and mapped by a process running as 65534 (ms-dlopen-hold);
# root runs `mapscope at PID ADDR -o ADDR,SYMBOL,SOURCE` under ms-maxrss
# (SIGKILL at a deadline, a memory guard for the machine, the peak RSS of
# the whole process tree).  Every case must end by itself within
# $SECONDS_OK s, exit 0, print the address's row, peak under $RSS_MB MB,
# and leave no process behind (none stuck in D):
#   sane       the control, the same library without the trap: it must be
#              named (ms_hostile_target+0x4, /ms-hostile-src/hostile_lib.c:7),
#              so giving up on everything cannot pass
#   altlink    DW_AT_comp_dir in DW_FORM_GNU_strp_alt, .gnu_debugaltlink
#              naming a FIFO the user made: libdw's find_debug_altlink
#              open()s it and blocks (reached through SOURCE)
#   altfile    the same, the altlink naming a crafted ELF (the sections
#              case's file) that libdw opens and inflates by itself
#   sections   17 SHF_COMPRESSED .debug_* sections of 256 MiB each
#   symtab     a SHF_COMPRESSED .symtab inflating to 2 GiB
#   lines      one CU whose line program is 32 Mi DW_LNS_copy
#   sparse     a 250 MB sparse file (a hole in a section): its peak bound
#              is $SPARSE_MB MB, under the file's size
# Every case runs, then the test fails if any did.  Exit 77 (skip) only
# without libdw, root, gcc or python3.
set -u
NAME=symbols-hostile
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
HOLD=$TDIR/ms-dlopen-hold
MAXRSS=$TDIR/ms-maxrss
SRCDIR=${srcdir:-.}
NOBODY=65534
skip() { echo "$NAME: SKIP ($*)"; exit 77; }
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || skip "built without libdw"
[ "$(id -u)" = 0 ] || skip "needs root: root's mapscope against uid $NOBODY"
CC=$(command -v gcc || command -v cc) || skip "no C compiler to build the test library"
command -v python3 >/dev/null 2>&1 || skip "no python3 to craft the files"

# Bounds: finished within SECONDS_OK (killed at DEADLINE), peak RSS under
# RSS_MB; past GUARD_MB the run is killed so a bomb never takes the
# machine down.  A sanitizer build is slower and holds more.  The sparse
# file's bound is lower: 250 MB of it must not end up in memory (read
# whole, today's parent holds 242 MB), as a libdw child under an address
# space limit of about 100 MB could not hold it either.
SECONDS_OK=10 DEADLINE=20 RSS_MB=300 SPARSE_MB=150 GUARD_MB=1024
if [ -n "${ASAN_OPTIONS:-}" ]; then
	SECONDS_OK=20 DEADLINE=40 RSS_MB=600 SPARSE_MB=300 GUARD_MB=1536
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-symhostile.XXXXXX") || exit 1
HOLDERS=
cleanup() {
	# A mapscope blocked opening the FIFO: an O_RDWR open is a writer and
	# never blocks, which lets it go.
	[ -p "$TMP/fifo" ] && (exec 9<>"$TMP/fifo") 2>/dev/null
	for p in $HOLDERS; do kill -KILL "$p" 2>/dev/null; done
	exec 3>&-
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "$NAME: FAIL: $*"; exit 1; }

chmod 0755 "$TMP" && chown "$NOBODY:$NOBODY" "$TMP" || fail "cannot give $TMP to uid $NOBODY"
"$CC" -O1 -shared -fPIC -Wl,--build-id=sha1 -o "$TMP/base.so" "$SRCDIR/tests/hostile_lib.c" ||
	fail "cannot build the test library"
mkfifo "$TMP/fifo" || fail "mkfifo"
craft() { python3 "$SRCDIR/tests/hostile_elf.py" "$@" || fail "hostile_elf.py $*"; }
craft sane "$TMP/base.so" "$TMP/sane.so"
craft altlink "$TMP/base.so" "$TMP/altlink.so" "$TMP/fifo"
craft sections "$TMP/base.so" "$TMP/sections.so"
cp "$TMP/sections.so" "$TMP/alt.debug"
craft altlink "$TMP/base.so" "$TMP/altfile.so" "$TMP/alt.debug"
craft symtab "$TMP/base.so" "$TMP/symtab.so"
craft lines "$TMP/base.so" "$TMP/lines.so"
craft sparse "$TMP/base.so" "$TMP/sparse.so"
rm -f "$TMP/base.so"
chown "$NOBODY:$NOBODY" "$TMP"/* && chmod 0644 "$TMP"/*.so "$TMP/alt.debug" || fail "chown"

. "$SRCDIR/tests/dlopen_hold.sh"
# hold CASE: ms-dlopen-hold maps $TMP/CASE.so as uid 65534; sets HPID and
# ADDR (ms_hostile_target + 4).  Its stdin stays open on fd 3 until the
# next hold.
hold() {
	hold_start "$TMP" "$HOLD" "$TMP/$1.so" ms_hostile_target
	HOLDERS="$HOLDERS $HPID"
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$HPID/status")" = "$NOBODY" ] || fail "the holder is not uid $NOBODY"
	ADDR=$(printf '%x' $((0x$HSYM + 4)))
}

# field REPORT KEY: a line of ms-maxrss's report.
field() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

N=0 FAILED=0
check() {
	kind=$1
	hold "$kind"
	"$MAXRSS" "$TMP/rep" "$DEADLINE" "$GUARD_MB" \
		"$BIN" at "$HPID" "$ADDR" -r -n -o ADDR,SYMBOL,SOURCE >"$TMP/out" 2>"$TMP/err"
	[ -p "$TMP/fifo" ] && (exec 9<>"$TMP/fifo") 2>/dev/null
	kill -KILL "$HPID" 2>/dev/null
	N=$((N + 1))
	[ -s "$TMP/rep" ] || { echo "not ok $N - $kind: ms-maxrss gave no report"; FAILED=$((FAILED + 1)); return; }
	status=$(field "$TMP/rep" status) secs=$(field "$TMP/rep" seconds)
	kb=$(field "$TMP/rep" maxrss_kb) killed=$(field "$TMP/rep" killed)
	left=$(field "$TMP/rep" left) stuck=$(field "$TMP/rep" stuck)
	mb=$((kb / 1024))
	bound=$RSS_MB
	[ "$kind" = sparse ] && bound=$SPARSE_MB
	why=
	case $killed in
	none) ;;
	time) why="$why; killed at the deadline ($DEADLINE s)" ;;
	memory) why="$why; killed by the memory guard ($GUARD_MB MB)" ;;
	*) why="$why; killed: $killed" ;;
	esac
	awk -v s="$secs" -v m="$SECONDS_OK" 'BEGIN { exit !(s <= m) }' || why="$why; took $secs s (over $SECONDS_OK)"
	[ "$mb" -lt "$bound" ] || why="$why; peak RSS $mb MB (not under $bound)"
	[ "$status" = 0 ] || why="$why; exit status $status"
	[ "$stuck" = 0 ] || why="$why; $stuck process(es) left in D state"
	[ "$left" = 0 ] || why="$why; $left process(es) outlived it"
	row=$(awk -v a="$ADDR" '$1 == a' "$TMP/out")
	[ -n "$row" ] || why="$why; no row for $ADDR"
	if [ "$kind" = sane ]; then
		set -- $row
		[ "${2:-}" = ms_hostile_target+0x4 ] || why="$why; SYMBOL '${2:-}'"
		[ "${3:-}" = /ms-hostile-src/hostile_lib.c:7 ] || why="$why; SOURCE '${3:-}'"
	fi
	if [ -z "$why" ]; then
		echo "ok $N - $kind: $secs s, peak $mb MB: $row"
	else
		echo "not ok $N - $kind: $secs s, peak $mb MB:${why#;} [stderr: $(head -c 300 "$TMP/err" | tr '\n' ' ')]"
		FAILED=$((FAILED + 1))
	fi
}

for kind in sane altlink altfile sections symtab lines sparse; do
	check "$kind"
done
[ "$FAILED" = 0 ] || fail "$FAILED of $N cases"
