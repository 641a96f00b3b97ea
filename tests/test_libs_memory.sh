#!/bin/sh
# Memory per library (libs -o RSS,PSS,USS,DIRTY): for a python3 that
# imported ssl (it maps libcrypto and libssl), each library's RSS, PSS, USS
# and DIRTY from `libs --pid=PID -J -b` equal the sums over
# /proc/PID/smaps of all that file's mappings, code and data (USS:
# Private_Clean + Private_Dirty; DIRTY: Private_Dirty + Shared_Dirty), read
# around libs's read (another process that shares the files moves them:
# up to five tries); with --code-only, the sums over its executable
# mappings alone.
set -u
NAME=test_libs_memory
. "$(dirname "$0")/shtest.sh"
[ -x "$PY" ] || skip "needs python3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-libsmem.XXXXXX") || exit 1
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
"$PY" -c 'import ssl' 2>/dev/null || skip "python3 has no ssl module"

start "$tmp/py.out" "$PY" -c '
import ssl, sys, time
ctx = ssl.create_default_context()
print("ready", flush=True)
time.sleep(600)'
pid=$last

# sums PID: "path rss pss uss dirty" per file, in bytes, from smaps.
sums() {
	"$PY" - "$1" "$CODE_ONLY" <<'PYEOF'
import re, sys
tot = {}
cur = None
for line in open("/proc/%s/smaps" % sys.argv[1]):
    m = re.match(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \d+\s*(.*)$", line)
    if m:
        name = m.group(2)
        mine = name.startswith("/") and (sys.argv[2] != "1" or "x" in m.group(1))
        cur = tot.setdefault(name, [0, 0, 0, 0]) if mine else None
        continue
    f = line.split()
    if cur is None or len(f) < 3 or f[2] != "kB":
        continue
    v = int(f[1]) * 1024
    k = f[0].rstrip(":")
    if k == "Rss": cur[0] += v
    elif k == "Pss": cur[1] += v
    if k in ("Private_Clean", "Private_Dirty"): cur[2] += v
    if k in ("Private_Dirty", "Shared_Dirty"): cur[3] += v
for name, s in sorted(tot.items()):
    print(name, *s)
PYEOF
}

ms() {
	"$BIN" libs --pid="$pid" $LIBS_ARGS -J -b -o NAME,RSS,PSS,USS,DIRTY >"$tmp/libs.json" ||
		fail "libs exited $?"
	"$PY" -c '
import json, sys
for r in json.load(open(sys.argv[1]))["libraries"]:
    print(r["name"], r["rss"], r["pss"], r["uss"], r["dirty"])' "$tmp/libs.json" | sort
}

# The files only this process maps, as smaps sums them (see below).
own() { grep -E 'libcrypto|libssl|lib-dynload' "$1"; }
# agree WHAT: libs (in $tmp/ms) against smaps' sums (in $tmp/after); 1 with $why set when not.
agree() {
	grep -q 'libcrypto' "$tmp/ms" || { why="$1: libs shows no libcrypto: $(cat "$tmp/ms")"; return 1; }
	# Every file libs lists, with the sums smaps gives for it.  PSS and USS
	# of a file other processes map (libc: every reader here maps it too)
	# move as they come and go, so those two are compared for the files only
	# python's ssl brings: libcrypto, libssl and its own modules.
	while read -r name rss pss uss dirty; do
		want=$(awk -v n="$name" '$1 == n { print $2, $3, $4, $5 }' "$tmp/after")
		[ -n "$want" ] || { why="$1: $name: not in smaps"; return 1; }
		case $name in
		*libcrypto*|*libssl*|*lib-dynload*) got="$rss $pss $uss $dirty" ;;
		*) got="$rss $(echo "$want" | cut -d' ' -f2,3) $dirty" ;;
		esac
		[ "$got" = "$want" ] || {
			why="$1: $name: libs says RSS PSS USS DIRTY $rss $pss $uss $dirty, smaps sums $want"
			return 1
		}
	done <"$tmp/ms"
}
# check WHAT: libs (LIBS_ARGS) against smaps' sums (CODE_ONLY: executable
# mappings alone), read before and after libs.  Another python on the
# machine that imports ssl for a moment shares these files and moves their
# PSS and USS while libs reads them, so a try counts only when smaps said
# the same before and after; the numbers must then agree on one of five
# tries (a wrong sum disagrees on every one).
check() {
	why="$1: smaps kept changing over five tries"
	for try in 1 2 3 4 5; do
		sums "$pid" >"$tmp/before"
		ms >"$tmp/ms"
		sums "$pid" >"$tmp/after"
		if [ "$(own "$tmp/before")" = "$(own "$tmp/after")" ] && agree "$1"; then
			ok "$1: RSS and DIRTY of $(wc -l <"$tmp/ms") files, and PSS and USS of libcrypto, libssl and python's modules, equal the sums over smaps"
			return
		fi
		echo "# try $try: $why"
		sleep 0.3
	done
	fail "$why"
}

LIBS_ARGS= CODE_ONLY=0 check "every mapping of each library"
awk '$1 ~ /libcrypto/ && $4 > 0 && $5 > 0 { f = 1 } END { exit !f }' "$tmp/ms" ||
	fail "libcrypto has no private or no dirty pages: $(grep libcrypto "$tmp/ms")"
ok "libcrypto's data pages (private, dirty) count with its code"
whole=$(awk '$1 ~ /libcrypto/ { print $2 }' "$tmp/ms")
LIBS_ARGS=--code-only CODE_ONLY=1 check "--code-only: the executable mappings"
code=$(awk '$1 ~ /libcrypto/ { print $2 }' "$tmp/ms")
[ "$code" -lt "$whole" ] || fail "libcrypto's code RSS $code is not below its whole RSS $whole"
ok "libcrypto: $code bytes of code resident, $whole in all"
