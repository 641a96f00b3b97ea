#!/bin/sh
# diff of two snapshots around the end of a middle thread (issue 36): a
# real process (ms-threads) runs 4 threads on glibc's default stacks; the
# second is joined between the snapshots, and `diff` (table and -J) and
# `diff --addresses` report exactly its stack as removed, with its guard
# page, and nothing added, changed or moved.  The pairing by address order
# failed it: the stack above was removed, and others changed or moved.
#
# Which stack is the thread's comes from the process itself (the address
# of a local of that thread), not from its place in the list.  glibc maps
# a default stack in one piece and makes all but its lowest page
# accessible, so the guard page is a PROT_NONE mapping of its own, ending
# where the stack starts: that one goes with the stack (none is expected
# where there is none).  glibc keeps a joined thread's stack for reuse;
# the process runs with GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0,
# so that the join really unmaps it, as it does in a program once the
# cache (40 MiB by default) is full.  A libc that keeps it anyway is a
# skip, and so is an AddressSanitizer build of ms-threads, whose runtime
# unmaps per-thread memory of its own.  What the kernel shows in
# /proc/PID/maps before and after is the truth the diff is held to: the
# thread's mappings are the only ones gone.
set -u
NAME=test_diff_thread
. "$(dirname "$0")/shtest.sh"
[ -x "$PY" ] || skip "needs python3"
THREADS=$TDIR/ms-threads
[ -x "$THREADS" ] || fail "no $THREADS (make check builds it)"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ms-diffthread.XXXXXX") || exit 1
trap 'exec 3>&-; for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
mkfifo "$dir/in" || fail "mkfifo"
# Held open read-write, so neither the process nor the shell waits for the other end.
exec 3<>"$dir/in"
start "$dir/out" sh -c 'GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0; export GLIBC_TUNABLES
exec "$0" 4 <"$1"' "$THREADS" "$dir/in"
pid=$last
grep -q '^sanitizer' "$dir/out" &&
	skip "ms-threads is built with AddressSanitizer, whose runtime unmaps memory of its own when a thread ends"
addr=$(awk '$1 == "thread" && $2 == 2 { print $3 }' "$dir/out")
[ -n "$addr" ] || fail "ms-threads did not say where thread 2 runs: $(cat "$dir/out")"

"$BIN" snapshot "$pid" -o "$dir/a.json" 2>"$dir/err" || fail "snapshot A: $(cat "$dir/err")"
cat "/proc/$pid/maps" >"$dir/maps.a" || fail "cannot read /proc/$pid/maps"
echo "end 2" >&3
i=0
until grep -q -e '^ok' -e '^err' "$dir/out"; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "ms-threads did not answer end 2: $(cat "$dir/out")"
	sleep 0.05
done
grep -q '^ok' "$dir/out" || fail "end 2: $(cat "$dir/out")"
"$BIN" snapshot "$pid" -o "$dir/b.json" 2>"$dir/err" || fail "snapshot B: $(cat "$dir/err")"
cat "/proc/$pid/maps" >"$dir/maps.b" || fail "cannot read /proc/$pid/maps"

# The thread's stack (the mapping holding its local) and its guard page
# (a PROT_NONE mapping ending where the stack starts, if there is one),
# from the kernel's maps; "kept" when the stack is still mapped after the join.
"$PY" - "$dir/maps.a" "$dir/maps.b" "$addr" >"$dir/expected" 2>"$dir/err" <<'EOF' || fail "$(cat "$dir/err")"
import sys

def maps(path):
    rows = []
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        f = line.split(maxsplit=5)
        start, end = (int(x, 16) for x in f[0].split("-"))
        rows.append((start, end, f[1], f[5].strip() if len(f) > 5 else ""))
    return rows

before, after = maps(sys.argv[1]), maps(sys.argv[2])
addr = int(sys.argv[3], 16)
stack = [m for m in before if m[0] <= addr < m[1]]
if len(stack) != 1 or stack[0][2] != "rw-p" or stack[0][3]:
    sys.exit("thread 2's address %x is not in one anonymous rw-p mapping: %r" % (addr, stack))
stack = stack[0]
if stack in after:
    print("kept")
    sys.exit(0)
gone = [stack] + [m for m in before if m[1] == stack[0] and m[2] == "---p" and not m[3]]
if set(before) - set(after) != set(gone) or set(after) - set(before):
    shown = lambda ms: " ".join("%x-%x %s %s" % m for m in sorted(ms))
    sys.exit("the process changed more than thread 2's stack: gone [%s], new [%s]" %
             (shown(set(before) - set(after)), shown(set(after) - set(before))))
for m in gone:
    print("%x %x" % (m[0], m[1]))
EOF
grep -qx kept "$dir/expected" && skip "this libc kept thread 2's stack after the join (stack cache tunable not honoured)"
nexp=$(wc -l <"$dir/expected")
ok "thread 2 ended: the kernel unmapped $nexp mappings, its stack and guard: $(tr '\n' ' ' <"$dir/expected")"

# check LABEL FILE [moved]: FILE, a diff -J, removes exactly the expected
# ranges, and nothing else differs (nor moved, a count the summary must have).
check() {
	"$PY" - "$2" "$dir/expected" "$3" >"$dir/why" 2>&1 <<'EOF' || fail "$1: $(cat "$dir/why")"
import json, sys

doc = json.load(open(sys.argv[1]))
want = sorted(tuple(int(x, 16) for x in line.split()) for line in open(sys.argv[2]))
rows = [v for k, v in doc.items() if k != "summary"]
if len(rows) != 1 or not isinstance(rows[0], list):
    sys.exit("not one table of rows: %r" % list(doc))
rows = rows[0]
got = sorted((r["change"], int(r["start"], 16), int(r["end"], 16)) for r in rows)
s = doc["summary"]
bad = []
if got != [("removed",) + w for w in want]:
    bad.append("rows %s, want removed %s" % (["%s %x-%x" % g for g in got], ["%x-%x" % w for w in want]))
if (s["removed"], s["added"], s["changed"], s.get("moved", 0)) != (len(want), 0, 0, 0):
    bad.append("summary %r" % s)
if sys.argv[3] == "moved" and "moved" not in s:
    bad.append("no moved count in the summary %r" % s)
if bad:
    print("; ".join(bad))
    sys.exit(1)
EOF
}

"$BIN" diff "$dir/a.json" "$dir/b.json" -J -o CHANGE,START,END,PERMS,NAME >"$dir/j" 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || fail "diff -J exited $rc, not 1 (differences): $(cat "$dir/err")"
check "diff -J" "$dir/j" moved
ok "diff -J: exactly thread 2's stack and guard removed; nothing added, changed or moved"

"$BIN" diff "$dir/a.json" "$dir/b.json" -r -n -o CHANGE,START,END >"$dir/t" 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || fail "diff exited $rc, not 1 (differences): $(cat "$dir/err")"
awk '{ print $1, $2, $3 }' "$dir/t" | sort >"$dir/t.got"
awk '{ print "removed", $1, $2 }' "$dir/expected" | sort >"$dir/t.want"
cmp -s "$dir/t.got" "$dir/t.want" || fail "diff table: $(cat "$dir/t") (want $(cat "$dir/t.want"))"
ok "diff table: the same rows, all removed"

"$BIN" diff "$dir/a.json" "$dir/b.json" --addresses -J -o CHANGE,START,END,PERMS,NAME >"$dir/ja" 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || fail "diff --addresses -J exited $rc, not 1 (differences): $(cat "$dir/err")"
check "diff --addresses -J" "$dir/ja" -
ok "diff --addresses agrees"
