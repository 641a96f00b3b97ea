#!/bin/sh
# One verdict everywhere: every place that shows a stale verdict is run on
# the same process and must give the same answer for the same five files.
# tests/stale-child maps four copies of libstale-a.so and a memfd; then one
# copy is deleted, one replaced by libstale-b.so (another build), one by an
# identical copy (cp + mv: the same build), and one, named by the user's
# ignore list, replaced too (ignored wins).  Hard links kept to the four
# copies let `who` find the mapped files.
#
# The places: `stale` (-J, and the text table), `list --by-file -o
# +VERDICT` (-J), `who -o +VERDICT` (-J), and in the explorer (tmux) the
# maps view's row flag (D, R or blank), the detail pane's "stale" line, the
# files view's VERDICT, the stale view's lines (D: stale files only) and
# the process list's STALE count.  `stale -J` is the reference, checked
# first against what each case must be; every place is then compared with
# it, and every disagreement is reported before the test fails, so a
# failure names all the places that disagree.  `who` names a file by path,
# and a memfd has none: the memfd is left out there only.
# Polls with a deadline; no fixed sleeps.  Exit 77 (skip) when tmux or
# python3 (to read the JSON) is absent.
set -u

E2E_NAME="verdicts e2e"
E2E_TAG=verdicts
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "$E2E_NAME: SKIP (no python3)"; exit 77; }
BUILT=$(dirname "$FIXTURE")
CASES="deleted replaced same ignored memfd"
LIBS="$TMP/libs"
KEEP="$TMP/keep"
GOT="$TMP/got"
mkdir "$LIBS" "$KEEP" "$GOT"

# lib CASE: the mapped copy's path (memfd has none).
lib() { echo "$LIBS/libv-$1.so"; }
# case_of NAME: which case a mapped name is, or nothing.
case_of() {
	case $1 in
	"$LIBS"/libv-*.so*)
		c=${1#"$LIBS"/libv-}
		echo "${c%%.so*}" ;;
	/memfd:ms-stale*) echo memfd ;;
	esac
}
# row_text CASE: the text that names CASE's file wherever it is shown.
row_text() { if [ "$1" = memfd ]; then echo "/memfd:ms-stale"; else echo "/libv-$1.so"; fi; }
# leading_verdict PLACE FILE: for each case, the verdict at the start of
# FILE's first line naming it (every verdict is one word: "same-build"),
# to $GOT/PLACE.
leading_verdict() {
	for c in $CASES; do
		grep -F "$(row_text "$c")" "$2" | head -1 | awk -v c="$c" '{ print c, $1 }'
	done | sort > "$GOT/$1"
}
# verdicts_json [PID]: from JSON on stdin, "NAME<TAB>VERDICT" for every
# object with a name and a verdict (of process PID only, when given and the
# object has a pid).
verdicts_json() {
	python3 -c '
import json, sys
pid = int(sys.argv[1]) if len(sys.argv) > 1 else None
def walk(o):
    if isinstance(o, dict):
        if "verdict" in o and o.get("verdict") is not None and \
           (pid is None or o.get("pid") in (None, pid)):
            print("%s\t%s" % (o.get("name", ""), o["verdict"]))
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(json.load(sys.stdin))
' "$@"
}
# by_case PLACE: "NAME<TAB>VERDICT" lines on stdin to $GOT/PLACE as
# "CASE VERDICT", sorted, the names of no case dropped.
by_case() {
	while IFS="$(printf '\t')" read -r name verdict; do
		c=$(case_of "$name")
		[ -n "$c" ] && echo "$c $verdict"
	done | sort -u > "$GOT/$1"
}

# -- the process and its five files ---------------------------------------------------
for c in deleted replaced same ignored; do
	cp "$BUILT/libstale-a.so" "$(lib $c)" || fail "no $BUILT/libstale-a.so"
done
start_stale_child verdict-child
n=0
for c in deleted replaced same ignored; do
	echo "mapx $(lib $c)" >&3
	n=$((n + 1))
	wait_for "$c mapped" sh -c "[ \$(grep -c '^ok' '$TMP/child.out') -ge $n ]"
	ln "$(lib $c)" "$KEEP/libv-$c.so"
done
echo memfd >&3
wait_for "the memfd mapped" sh -c "[ \$(grep -c '^ok' '$TMP/child.out') -ge 5 ]"
grep -q '^err' "$TMP/child.out" && fail "child: $(cat "$TMP/child.out")"

rm "$(lib deleted)"
# put_over SRC CASE: a copy of SRC moved over CASE's path, as a package manager does.
put_over() {
	cp "$1" "$LIBS/.new" && mv "$LIBS/.new" "$(lib "$2")" || fail "cannot replace $2"
}
put_over "$BUILT/libstale-b.so" replaced
put_over "$BUILT/libstale-a.so" same
put_over "$BUILT/libstale-b.so" ignored

# The user's list, which every place loads (the defaults would ignore /tmp).
mkdir -p "$TMP/config/mapscope"
printf '/memfd:* memory file\n*/libv-ignored.so a rule of the verdicts test\n' \
	> "$TMP/config/mapscope/stale-ignore.conf"
XDG_CONFIG_HOME="$TMP/config"
export XDG_CONFIG_HOME

# -- the reference: stale -J, and what each case must be ------------------------------
"$BIN" stale "$CPID" --show=all --all-mappings -J > "$TMP/stale.json"
[ $? -le 1 ] || fail "stale -J failed: $(cat "$TMP/stale.json")"
verdicts_json "$CPID" < "$TMP/stale.json" | by_case stale-json
printf '%s\n' "deleted deleted" "ignored ignored" "memfd ignored" "replaced replaced" \
	"same same-build" > "$TMP/want"
cmp -s "$TMP/want" "$GOT/stale-json" ||
	fail "stale -J: $(tr '\n' ',' < "$GOT/stale-json"), want $(tr '\n' ',' < "$TMP/want")"
pass "stale -J: deleted, replaced, same-build, ignored (a rule), ignored (memfd)"
REF="$GOT/stale-json"
# ref CASE: the reference verdict.
ref() { awk -v c="$1" '$1 == c { sub(/^[^ ]+ /, ""); print }' "$REF"; }
is_stale() { [ "$1" = deleted ] || [ "$1" = replaced ]; }

DISAGREE=
# agree PLACE: $GOT/PLACE against $TMP/want.PLACE, recording a disagreement.
agree() {
	if cmp -s "$TMP/want.$1" "$GOT/$1"; then
		pass "$1 agrees with stale"
	else
		echo "# $1 disagrees with stale: got $(tr '\n' ',' < "$GOT/$1") want $(tr '\n' ',' < "$TMP/want.$1")"
		DISAGREE="$DISAGREE $1"
	fi
}
# want_all PLACE [CASES]: the reference verdicts of CASES (default: all).
want_all() {
	for c in ${2:-$CASES}; do
		echo "$c $(ref "$c")"
	done | sort > "$TMP/want.$1"
}

# -- stale, the text table ---------------------------------------------------------------
"$BIN" stale "$CPID" --show=all --all-mappings -r -o VERDICT,NAME > "$TMP/stale.txt"
leading_verdict stale-text "$TMP/stale.txt"
want_all stale-text
agree stale-text

# -- list --by-file -o +VERDICT ------------------------------------------------------------
"$BIN" list "$CPID" --by-file -o NAME,VERDICT -J > "$TMP/list.json" 2> "$TMP/list.err" ||
	fail "list --by-file failed: $(cat "$TMP/list.err")"
verdicts_json < "$TMP/list.json" | by_case list-by-file
want_all list-by-file
agree list-by-file

# -- who -o +VERDICT, through the hard links ----------------------------------------------
: > "$TMP/who.lines"
for c in deleted replaced same ignored; do
	if "$BIN" who "$KEEP/libv-$c.so" -o PID,NAME,VERDICT -J > "$TMP/who.json" 2> "$TMP/who.err"; then
		verdicts_json "$CPID" < "$TMP/who.json" >> "$TMP/who.lines"
	else
		echo "# who $c: $(cat "$TMP/who.err")"
	fi
done
by_case who < "$TMP/who.lines"
want_all who "deleted replaced same ignored"
agree who

# -- the explorer ------------------------------------------------------------------------
tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 200 -y 100 \
	"cd '$TMP' && XDG_CONFIG_HOME='$TMP/config' '$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")' $CPID; echo \$? > '$TMP/status'; sleep 60" ||
	fail "cannot start tmux"
wait_for "the maps view" shows_re "^pid $CPID verdict-child \\|"

# start CASE: the start address of CASE's mapping.
start() {
	if [ "$1" = memfd ]; then
		"$BIN" list "$CPID" -r -n -o START,NAME | awk '$2 ~ /^\/memfd:ms-stale/ { print $1; exit }'
	else
		"$BIN" list "$CPID" -r -n -o START,NAME | awk -v n="/libv-$1.so" 'index($0, n) { print $1; exit }'
	fi
}

# The maps view's flag, the second column: D, R or blank.  Every row on
# screen is judged in the same tick, so once the deleted row shows D all do;
# but a frame is drawn in pieces, top down: every case's row is waited for.
wait_for "the deleted row flagged" shows_re "^.D .*/libv-deleted\\.so \\(deleted\\)"
every_row() {
	for c in $CASES; do
		shows "$(row_text "$c")" || return 1
	done
}
wait_for "every case's row in the maps view" every_row
screen > "$TMP/maps.screen"
for c in $CASES; do
	t=$(row_text "$c")
	flag=$(awk -v t="$t" 'index($0, t) { print "[" substr($0, 2, 1) "]"; exit }' "$TMP/maps.screen")
	[ -n "$flag" ] || fail "no row for $c in the maps view"
	echo "$c $flag"
done | sort > "$GOT/maps-flag"
for c in $CASES; do
	v=$(ref "$c")
	case $v in deleted) f=D ;; replaced) f=R ;; *) f=" " ;; esac
	echo "$c [$f]"
done | sort > "$TMP/want.maps-flag"
agree maps-flag

# The detail pane's "stale" line, for each case's mapping in turn.
# detail_verdict CASE: once the pane names CASE's file, its verdict word(s).
detail_verdict() {
	screen > "$TMP/detail.screen"
	grep -q "^name .*$(row_text "$1")" "$TMP/detail.screen" || return 1
	sed -n 's/^stale  *\([^:]*\): .*/\1/p' "$TMP/detail.screen" | grep .
}
# A pane is drawn top down, in pieces: a pane moved to the next case could
# show its name line above the last case's stale line.  So each case opens
# the pane afresh, once the last one is gone (its name and stale lines too).
pane_gone() { ! screen | grep -qE '^(- detail -|name |stale )'; }
for c in $CASES; do
	a=$(start "$c")
	[ -n "$a" ] || fail "list does not show $c's mapping"
	keys g "$a" Enter
	keys Enter
	wait_for "the detail pane of $c" detail_verdict "$c"
	echo "$c $(detail_verdict "$c")"
	keys Escape
	wait_for "the detail pane of $c closed" pane_gone
done | sort > "$GOT/detail-pane"
want_all detail-pane
agree detail-pane

# The files view's VERDICT column (after MAPS, SIZE and PERMS, the permission sets).
keys F
wait_for "the files view" shows "| sorted by SIZE"
wait_for "the files' verdicts" shows_re "/libv-deleted\\.so \\(deleted\\)"
wait_for "the files' verdicts" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | grep -F '/libv-deleted.so' | grep -Eq ' [rwxs!,-]+ +[a-z]'"
# The other rows may be drawn after that one (or filled later): each case's row with its verdict.
every_verdict() {
	for c in $CASES; do
		screen | grep -F "$(row_text "$c")" | head -1 | grep -Eq ' [rwxs!,-]+ +[a-z]' || return 1
	done
}
wait_for "every case's verdict in the files view" every_verdict
screen > "$TMP/files.screen"
for c in $CASES; do
	line=$(grep -F "$(row_text "$c")" "$TMP/files.screen" | head -1)
	[ -n "$line" ] || fail "no row for $c in the files view"
	v=$(echo "$line" | sed -E 's/^ *[0-9]+ +[0-9.]+[KMGTP]? +[rwxs!,-]+ +(.{10}).*/\1/; s/ +$//')
	echo "$c $v"
done | sort > "$GOT/files-view"
want_all files-view
agree files-view
keys Escape
wait_for "the maps view again" shows_re "^pid $CPID verdict-child \\|"

# The stale view: the child, then its stale files only, with their verdicts.
# Other stale processes on the host would push the child's lines off the
# screen: the filter (\) on its command line keeps the child and all its files.
keys D
wait_for "the stale view" shows "mapscope | stale:"
keys '\'
wait_for "the stale filter prompt" shows "name contains:"
keys -l "$TMP/verdict-child"
keys Enter
wait_for "the filter in the stale header" shows "| name~$TMP/verdict-child"
# The lines under the header are drawn after it, in pieces: wait for the
# filter's lines whole, the child's first and then its file lines only.
stale_filtered() {
	screen | sed '$d' | awk -v p="$CPID" 'NR > 2 && NF {
		if (!seen) { if ($1 != p) { bad = 1; exit } seen = 1; next }
		if ($0 !~ /^ +[a-z]/) { bad = 1; exit } } END { exit bad || !seen }'
}
wait_for "the child's line, then only its files', under the filter" stale_filtered
screen > "$TMP/staleview.screen"
line=$(awk -v p="$CPID" 'NR > 2 && $1 == p { print NR; exit }' "$TMP/staleview.screen")
# The file lines under the child, "  VERDICT NAME  WHY", up to the next process.
if [ -n "$line" ]; then
	awk -v l="$line" 'NR > l { if ($0 !~ /^ +[a-z]/) exit; print }' "$TMP/staleview.screen"
fi > "$TMP/staleview.files"
leading_verdict stale-view "$TMP/staleview.files"
for c in $CASES; do
	v=$(ref "$c")
	is_stale "$v" && echo "$c $v"
done | sort > "$TMP/want.stale-view"
agree stale-view

# The process list's STALE column: the stale files among the executable
# mappings, as `stale` counts them by default.
"$BIN" stale "$CPID" -J > "$TMP/stale-exec.json"
want=$(verdicts_json "$CPID" < "$TMP/stale-exec.json" | awk -F '\t' '$2 == "deleted" || $2 == "replaced"' | wc -l)
want=$((want))
# The reference itself: the deleted and the replaced copy (the memfd is not executable).
[ "$want" = 2 ] || fail "stale counts $want stale executable files, want 2"
keys q
wait_for "the maps view again" shows_re "^pid $CPID verdict-child \\|"
keys q
wait_for "the process list" shows "STALE"
keys / "$TMP/verdict-child"
keys Enter
wait_for "the child's row" sh -c "tmux -S '$SOCK' capture-pane -p -t ms | awk -v p=$CPID '\$1 == p && \$6 ~ /^[0-9]+\$/ { f = 1 } END { exit !f }'"
echo "count $(screen | awk -v p="$CPID" '$1 == p { print $6; exit }')" > "$GOT/procs-stale"
echo "count $want" > "$TMP/want.procs-stale"
agree procs-stale

keys q
wait_for "mapscope to exit" test -s "$TMP/status"
[ "$(cat "$TMP/status")" = 0 ] || fail "exit status $(cat "$TMP/status")"
[ -z "$DISAGREE" ] || fail "these places disagree with stale:$DISAGREE"
echo "verdicts e2e: $PASSED checks passed"
exit 0
