#!/bin/sh
# `mapscope list PID --total` against a sum computed here from
# /proc/PID/smaps (Size, Rss and Swap in kB; [vsyscall] left out, as the
# ioctl never reports it), on ms-residency-fixture, whose pages are in
# known states and which touches nothing after "ready":
#   - the table's and -r's last line is "total" with SIZE, RSS and SWAP;
#   - -J has a "total" object (mappings, size, rss, swap) beside the array,
#     numbers of bytes without -b;
#   - the streaming writer and libsmartcols print the same bytes;
#   - -o picks where the sums show; --by-file refuses it.
set -u
BIN=${MS_BIN:-./mapscope}
FIXTURE=${MS_RES_FIXTURE:-tests/ms-residency-fixture}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-total.XXXXXX") || exit 1
cpid=
cleanup() {
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "list --total: FAIL: $*"; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

mkdir "$tmp/fx" && mkfifo "$tmp/in"
"$FIXTURE" "$tmp/fx" < "$tmp/in" > "$tmp/out" 2>&1 &
cpid=$!
exec 3> "$tmp/in"
i=0
until grep -q '^ready' "$tmp/out"; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "the fixture did not start: $(cat "$tmp/out")"
	sleep 0.05
done
pid=$(awk '/^ready/ { print $2 }' "$tmp/out")

# The reference, in bytes: kB lines of every mapping but [vsyscall].
awk '
	/^[0-9a-f]+-[0-9a-f]+ / { skip = ($NF == "[vsyscall]"); if (!skip) maps++; next }
	skip { next }
	$1 == "Size:" { size += $2 } $1 == "Rss:" { rss += $2 } $1 == "Swap:" { swap += $2 }
	# %.0f, not %d: mawk caps %d at 2^31-1, and a sanitizer build maps terabytes.
	END { printf "%.0f %.0f %.0f %.0f\n", maps, size * 1024, rss * 1024, swap * 1024 }
' "/proc/$pid/smaps" > "$tmp/ref" || fail "cannot read /proc/$pid/smaps"
read -r maps size rss swap < "$tmp/ref"
[ "$rss" -gt 0 ] || fail "the reference has no resident memory"

"$BIN" list "$pid" --total -r -n -b -o SIZE,RSS,SWAP,NAME > "$tmp/raw" || fail "list --total -r failed"
last=$(tail -n 1 "$tmp/raw")
[ "$last" = "$size $rss $swap total" ] || fail "-r total line '$last', smaps says '$size $rss $swap total'"
[ "$(($(wc -l < "$tmp/raw") - 1))" -eq "$maps" ] || fail "-r: $(wc -l < "$tmp/raw") lines for $maps mappings and a total"
ok "-r -b: the last line sums SIZE $size, RSS $rss, SWAP $swap as smaps does"

"$BIN" list "$pid" --total -J > "$tmp/json" || fail "list --total -J failed"
python3 - "$tmp/json" "$maps" "$size" "$rss" "$swap" <<'PY' || fail "-J total differs from smaps"
import json, sys
doc = json.load(open(sys.argv[1]))
want = dict(zip(("mappings", "size", "rss", "swap"), map(int, sys.argv[2:6])))
assert doc["total"] == want, (doc["total"], want)
assert len(doc["mappings"]) == want["mappings"]
assert sum(m["size"] for m in doc["mappings"]) == want["size"]
PY
ok "-J: a \"total\" object beside the mappings, numbers of bytes equal to smaps"
"$BIN" list "$pid" --total -J -b > "$tmp/json-b" || fail "list --total -J -b failed"
cmp -s "$tmp/json" "$tmp/json-b" || fail "-J and -J -b differ: sizes are not bytes by default"
ok "-J prints sizes in bytes with or without -b"

for args in "-J" "-J -b" "-r" "-r -b" ""; do
	# shellcheck disable=SC2086
	"$BIN" list "$pid" --total $args > "$tmp/colw"
	# shellcheck disable=SC2086
	MAPSCOPE_OUTPUT=smartcols "$BIN" list "$pid" --total $args > "$tmp/scols"
	cmp -s "$tmp/colw" "$tmp/scols" || fail "--total $args: the two writers differ: $(diff "$tmp/colw" "$tmp/scols" | head -5)"
done
ok "the streaming writer and libsmartcols print the same bytes, every mode"

"$BIN" list "$pid" --total -n | tail -n 1 | grep -Eq '^ +[0-9.]+[KMGTP] +[0-9.]+[BKMGTP] +[0-9.]+[BKMGTP] +total$' ||
	fail "the default table's total: '$("$BIN" list "$pid" --total -n | tail -n 1)'"
"$BIN" list "$pid" --total -r -n -b -o START,SIZE | tail -n 1 | grep -qx "total $size" ||
	fail "without NAME, 'total' is not in the first column that is not summed"
ok "default columns gain RSS and SWAP; without NAME the label takes the first other column"

"$BIN" list "$pid" --by-file --total > /dev/null 2>&1
[ $? -eq 2 ] || fail "--by-file --total is not a usage error"
ok "--by-file --total is a usage error"
