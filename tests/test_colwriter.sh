#!/bin/bash
# `mapscope list` (and `libs` without --pids, and `stale`) prints through the streaming
# column writer (src/cli/colwriter.h) when its output is not a terminal, and through libsmartcols
# when MAPSCOPE_OUTPUT=smartcols says so.  The two must agree byte for byte,
# on every output mode and column subset, for:
#   - the hostile fixture: escape sequences, C1, bidi, invalid UTF-8,
#     "\012" and " (deleted)" in names, a 4,000-byte path;
#   - wide and zero-width characters (CJK, emoji, fullwidth, combining),
#     blanks and backslashes, mapped by ms-fixture;
#   - 60,000 rows (MS_HOSTILE_MANY), so that the chunked printing with its
#     first-chunk widths is compared, with wider names in later chunks;
#   - an empty listing.
# It also checks that the full walk (auto: the text, confirmed through the
# ioctl) prints what --backend=ioctl prints, and, where strace is
# installed, that the two runs really took different paths.
set -u
BIN=${MS_BIN:-./mapscope}
FIXTURE=${MS_FIXTURE:-tests/ms-fixture}
HOSTILE=${MS_HOSTILE:-$(dirname "$FIXTURE")/ms-hostile}
failed=0
checked=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-colw.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# start NAME CMD...: run a fixture, wait for "ready PID"; sets $ready_pid.
start() {
	local name=$1 line
	shift
	mkfifo "$tmp/$name.in"
	"$@" < "$tmp/$name.in" > "$tmp/$name.out" 2>&1 &
	pids+=($!)
	exec {fd}> "$tmp/$name.in"
	eval "${name}_fd=$fd"
	for _ in $(seq 600); do
		line=$(grep -m1 '^ready ' "$tmp/$name.out" 2>/dev/null) && break
		grep -q '^err' "$tmp/$name.out" 2>/dev/null && break
		sleep 0.1
	done
	ready_pid=${line#ready }
	if [ -z "$ready_pid" ]; then
		echo "FAIL: $name did not start:"; cat "$tmp/$name.out"
		exit 1
	fi
}

# same ARGS...: both writers, byte for byte (of `mapscope $SAME_CMD`, list by default).
same() {
	local cmd=${SAME_CMD:-list}
	"$BIN" "$cmd" "$@" > "$tmp/fast" 2> "$tmp/fast.err"
	local rc_fast=$?
	MAPSCOPE_OUTPUT=smartcols "$BIN" "$cmd" "$@" > "$tmp/scols" 2> "$tmp/scols.err"
	local rc_scols=$?
	checked=$((checked + 1))
	if [ $rc_fast -ne $rc_scols ] || ! cmp -s "$tmp/fast" "$tmp/scols"; then
		echo "FAIL: $cmd $* (LC_ALL=${LC_ALL:-}): the writers differ (exit $rc_fast vs $rc_scols)"
		cmp "$tmp/fast" "$tmp/scols" | head -n 3
		diff "$tmp/fast" "$tmp/scols" | head -n 6 | cat -A | cut -c1-200
		failed=1
	fi
}

# walk_exact ARGS...: the full walk through the text equals the ioctl's.
walk_exact() {
	"$BIN" list "$@" > "$tmp/auto" 2>&1
	"$BIN" list --backend=ioctl "$@" > "$tmp/ioctl" 2>&1
	checked=$((checked + 1))
	if ! cmp -s "$tmp/auto" "$tmp/ioctl"; then
		echo "FAIL: list $*: the full walk differs from --backend=ioctl"
		diff "$tmp/auto" "$tmp/ioctl" | head -n 6 | cat -A | cut -c1-200
		failed=1
	fi
}

cases() {
	local pid=$1
	same "$pid"
	same -r "$pid"
	same -n "$pid"
	same -b "$pid"
	same -J "$pid"
	same -J -b "$pid"
	same -r -n "$pid"
	same -o NAME,START "$pid"
	same -o START,INODE "$pid"
	same -o START,RSS "$pid"
	same -o SIZE,NAME,PERMS -b "$pid"
	same -r -o NAME,INODE,NAME "$pid"
	same -n -o +RSS,SWAP "$pid"
	same -J -o SIZE,NAME,INODE,RSS "$pid"
	same -o +PAGESIZE "$pid"
	same --file-backed -o NAME,END "$pid"
	same --perms=rwxs "$pid"
	same -J --perms=rwxs "$pid"
	walk_exact "$pid"
	walk_exact -J -o START,NAME "$pid"
}

if ! [ -x "$HOSTILE" ] || ! [ -x "$FIXTURE" ]; then
	echo "FAIL: build $FIXTURE and $HOSTILE first (make check does)"
	exit 1
fi

mkdir "$tmp/h" "$tmp/w" "$tmp/m"
start hostile "$HOSTILE" "$tmp/h"
hostile_pid=$ready_pid

start wide "$FIXTURE" "$tmp/w"
wide_pid=$ready_pid
# Wide, zero-width and blank names: CJK, emoji, fullwidth, a combining
# accent, a space, a tab-free blank run and a backslash.
for name in '日本語のファイル名.dat' 'emoji-🙂🙃-😀.dat' 'ｆｕｌｌｗｉｄｔｈ' \
	    'cafe'$'\xcc\x81''-combining' 'two  blanks here' 'back\slash' \
	    '한국어-이름이-아주-긴-파일-이름입니다-더-넓게.dat'; do
	echo "mapfile $name" >&"$wide_fd"
done
for _ in $(seq 100); do
	[ "$(grep -c '^ok' "$tmp/wide.out")" -ge 7 ] && break
	sleep 0.1
done
if [ "$(grep -c '^ok' "$tmp/wide.out")" -lt 7 ]; then
	echo "FAIL: ms-fixture did not map the wide names:"; cat "$tmp/wide.out"
	exit 1
fi

MS_HOSTILE_MANY=60000 start many "$HOSTILE" "$tmp/m"
many_pid=$ready_pid

for loc in C.UTF-8 C; do
	export LC_ALL=$loc
	cases "$hostile_pid"
	cases "$wide_pid"
done
# libs prints its flat table through the writer too (a tree, --pids, only through libsmartcols).
for loc in C.UTF-8 C; do
	export LC_ALL=$loc
	for pid in "$hostile_pid" "$wide_pid"; do
		SAME_CMD=libs same --pid="$pid" --all-mappings
		SAME_CMD=libs same --pid="$pid" --all-mappings -r
		SAME_CMD=libs same --pid="$pid" --all-mappings -n -b -o +SONAME,BUILDID,RSS,INODE
		SAME_CMD=libs same --pid="$pid" --all-mappings -J -o +PKGSRC,MAPS,RSS,DEV,WHY
		# The first cell of the table empty (a file no package owns has no VERSION).
		SAME_CMD=libs same --pid="$pid" --all-mappings -o VERSION,NAME
		SAME_CMD=libs same --pid="$pid" --all-mappings -r -o VERSION,NAME
	done
done
# stale draws its one-level tree through the writer (the marks in the NAME
# cell); every file shown (--show=all, no ignore rules: the fixtures live
# under /tmp), by process and by file, with and without the tree column.
: > "$tmp/noignore"
for loc in C.UTF-8 C; do
	export LC_ALL=$loc
	for opts in "" "-r" "-n" "--by-file" "--by-file -r -n" "-o PID,VERDICT,NAME" "-o PID,VERDICT" \
		    "-o +MAPS,EXE,DEV,INODE,BUILDID" "-J" "--by-file -J"; do
		# shellcheck disable=SC2086
		SAME_CMD=stale same --ignore-file="$tmp/noignore" --show=all --all-mappings $opts \
			"$hostile_pid" "$wide_pid"
	done
done
export LC_ALL=C.UTF-8
same "$many_pid"
same -r "$many_pid"
same -n "$many_pid"
same -J "$many_pid"
same -o NAME,START "$many_pid"
same -o START,SIZE "$many_pid"
walk_exact "$many_pid"
rows=$("$BIN" list -n "$many_pid" | wc -l)
checked=$((checked + 1))
if [ "$rows" -lt 60000 ]; then
	echo "FAIL: list -n of the 60,000-mapping fixture printed $rows rows"
	failed=1
fi

# The comparison means something only if the two runs took different
# paths: the writer writes in 64 KiB blocks, stdio in blocks of 4 KiB.
if command -v strace > /dev/null 2>&1; then
	writes() {
		# LeakSanitizer cannot run under ptrace: a sanitizer build leaves it off here.
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=write -o "$tmp/strace" "$@" > "$tmp/out" 2>/dev/null
		grep -c 'write(1,' "$tmp/strace"
	}
	fast_writes=$(writes "$BIN" list "$many_pid")
	scols_writes=$(MAPSCOPE_OUTPUT=smartcols writes "$BIN" list "$many_pid")
	checked=$((checked + 1))
	if [ "$fast_writes" -ge "$scols_writes" ]; then
		echo "FAIL: the writer was not used: $fast_writes writes against libsmartcols' $scols_writes"
		failed=1
	fi
else
	echo "note: strace not installed: not checking which writer ran"
fi

echo "colwriter: $checked comparisons, $([ $failed = 0 ] && echo all equal || echo FAILED)"
exit $failed
