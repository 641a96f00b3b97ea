#!/bin/bash
# make bench: mapscope against pmap, lsof and the raw PROCMAP_QUERY loop, as
# ratios measured in one run (bench/README.md says how to read the table).
#
# Environment (make bench sets the first three):
#   MS_BIN      the mapscope to measure
#   BENCH_BIN   where ms-bench-gen, -fleet, -engine, -maxrss and -goto are
#   HOSTILE_BIN tests/ms-hostile, for one process with many distinct files
#   BENCH_OUT   where results.txt and the scratch directory go (anywhere:
#               every stale command below reads the bench's own, empty,
#               ignore list, so /tmp's default rule never applies)
#   BENCH_SIZES         mapping counts of the generator (default "1000 10000 60000";
#                       the targets apply to 60000)
#   BENCH_ROUNDS        hyperfine rounds per pair, order flipped each round (5)
#   BENCH_RUNS          timed runs per command and round (4)
#   BENCH_FLEET         processes in the fleet (500)
#   BENCH_EXPLORER_SECS how long the explorer stays open (30)
#   BENCH_NO_INSTALL=1  never run apt-get; missing tools skip their rows
#   BENCH_SYSTEM_WIDE=1 also time stale and lsof over every process (they read
#                       processes that are not ours, so it is off by default;
#                       checkrestart takes no PIDs, so its row always does)
#   BENCH_CASES         which groups run (default "sizes fleet files symbols";
#                       "explorer" runs only the explorer's CPU rows, at 60,000;
#                       "goto" only the g row, at 60,000;
#                       "packages" only the list PACKAGE rows, which fleet runs too;
#                       "stale" only stale against its exact-verdict floor, which fleet runs too;
#                       "who" only the who rows, which fleet runs too;
#                       "dpkglog" only the dpkg log rows, which fleet and packages run too;
#                       "libver" only the list LIBVER rows, which files runs too;
#                       "diff" only the diff and snapshot rows, which sizes runs too;
#                       "libsview" only the explorer's libraries view row, which fleet runs too;
#                       "cyclonedx" only the SBOM rows (libs --format=cyclonedx against
#                       libs + openssl dgst), which fleet runs too)
set -u

: "${MS_BIN:?MS_BIN: the mapscope binary}"
: "${BENCH_BIN:?BENCH_BIN: the directory of the bench programs}"
: "${BENCH_OUT:?BENCH_OUT: the output directory}"
SIZES=${BENCH_SIZES:-"1000 10000 60000"}
TARGET_N=60000
ROUNDS=${BENCH_ROUNDS:-5}
RUNS=${BENCH_RUNS:-4}
FLEET=${BENCH_FLEET:-500}
EXPLORER_SECS=${BENCH_EXPLORER_SECS:-30}
# One tmux server per run: two benches at once (other trees, other users)
# neither join each other's sessions nor kill each other's server.
TMUX_SOCK=benchsock.$$

say() { printf 'bench: %s\n' "$*" >&2; }

# ---- scratch space, and ending everything we started ------------------------
mkdir -p "$BENCH_OUT"
tmp=$(mktemp -d "$BENCH_OUT/run.XXXXXX") || exit 2
started=()
cleanup() {
	local p
	for p in "${started[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	command -v tmux >/dev/null && tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The stale rules of the bench: none.  Every `mapscope stale` below passes
# --ignore-file with this empty file, so that its verdicts depend neither
# on where the tree lives (the built-in list skips /tmp, /run...) nor on
# the user's own stale-ignore.conf.
noignore="$tmp/stale-ignore.none"
: >"$noignore"
# (As one hyperfine command string, for the timed rows.)
STALE="$MS_BIN stale --ignore-file=$noignore"

# ---- tools --------------------------------------------------------------------
# tool:package pairs; hyperfine and jq together time whole commands.
tools="hyperfine:hyperfine jq:jq pmap:procps lsof:lsof tmux:tmux checkrestart:debian-goodies openssl:openssl"
missing_pkgs=()
for tp in $tools; do
	command -v "${tp%%:*}" >/dev/null || missing_pkgs+=("${tp#*:}")
done
if ((${#missing_pkgs[@]})); then
	if [ "$(id -u)" = 0 ] && [ -z "${BENCH_NO_INSTALL:-}" ] && command -v apt-get >/dev/null; then
		say "installing ${missing_pkgs[*]} with apt-get"
		apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_pkgs[@]}" >&2 ||
			say "apt-get failed: the rows that need ${missing_pkgs[*]} are skipped"
	else
		say "missing ${missing_pkgs[*]}: run 'apt-get install ${missing_pkgs[*]}' as root; their rows are skipped"
	fi
fi
have() { command -v "$1" >/dev/null; }
have_hf() { have hyperfine && have jq; }

# ---- the table ------------------------------------------------------------------
rows="$tmp/rows"
: >"$rows"
row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$rows"; }

# fnum EXPR: evaluate a float expression with awk.
fnum() { awk "BEGIN { printf \"%.6g\", $1 }"; }
# judge VALUE OP LIMIT: PASS or FAIL (OP is >= or <=).
judge() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = op == ">=" ? v >= l : v <= l; print ok ? "PASS" : "FAIL" }'; }
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# hf_pair NAME A B: time commands A and B with hyperfine, ROUNDS rounds of
# RUNS runs each, the order flipped every round; prints "medianA medianB
# cpuA cpuB" in seconds: the medians of the wall times over all runs, then
# the medians over the rounds of the mean CPU time (user + system, children
# included) of a run.  On a loaded machine a command waits for a core
# without using one, so the CPU times' ratio stays where the wall times'
# drifts towards 1.  Both may exit non-zero (stale and lsof do).
hf_pair() {
	local name=$1 a=$2 b=$3 r
	: >"$tmp/$name.a"
	: >"$tmp/$name.b"
	: >"$tmp/$name.ca"
	: >"$tmp/$name.cb"
	for ((r = 0; r < ROUNDS; r++)); do
		local first=$a second=$b
		if ((r % 2)); then first=$b second=$a; fi
		if ! hyperfine -N -i --style none --warmup 1 --runs "$RUNS" \
			--export-json "$tmp/$name.json" "$first" "$second" >/dev/null 2>"$tmp/$name.err"; then
			say "hyperfine failed for $name: $(tail -n 3 "$tmp/$name.err")"
			return 1
		fi
		jq -r --arg c "$a" '.results[] | select(.command == $c) | .times[]' "$tmp/$name.json" >>"$tmp/$name.a"
		jq -r --arg c "$b" '.results[] | select(.command == $c) | .times[]' "$tmp/$name.json" >>"$tmp/$name.b"
		jq -r --arg c "$a" '.results[] | select(.command == $c) | .user + .system' "$tmp/$name.json" >>"$tmp/$name.ca"
		jq -r --arg c "$b" '.results[] | select(.command == $c) | .user + .system' "$tmp/$name.json" >>"$tmp/$name.cb"
	done
	echo "$(median "$tmp/$name.a") $(median "$tmp/$name.b") $(median "$tmp/$name.ca") $(median "$tmp/$name.cb")"
}

# cpu_note CA CB speedup|ratio: ", CPU X.XXx (A vs B ms)" beside a row's wall
# times, the CPU times' B/A for a speedup, A/B for a ratio.
cpu_note() {
	local x
	if [ "$3" = speedup ]; then x=$(fnum "$2 / $1"); else x=$(fnum "$1 / $2"); fi
	printf ', CPU %.2fx (%.1f vs %.1f ms)' "$x" "$(fnum "$1 * 1000")" "$(fnum "$2 * 1000")"
}

# speed_row CASE JUDGE A B TARGET NAME: a row for "A at least TARGET times
# faster than B"; JUDGE is "judge", or "info" for a row without a target.
speed_row() {
	local case=$1 judged=$2 a=$3 b=$4 target=$5 name=$6 t ta tb ca cb x status label
	# A floor row (judged "info") has no target: its label says so, so
	# that a reader never takes the floor's speedup for a goal.
	label=">= ${target}x faster"
	[ "$judged" = judge ] || label=info
	if ! have_hf; then
		row "$case" "-" "$label" "skipped (no hyperfine/jq)"
		return
	fi
	if ! t=$(hf_pair "$name" "$a" "$b"); then
		row "$case" "-" "$label" "skipped (hyperfine failed)"
		return
	fi
	read -r ta tb ca cb <<<"$t"
	x=$(fnum "$tb / $ta")
	status=$(judge "$x" ">=" "$target")
	[ "$judged" = judge ] || status=info
	row "$case" "$(printf 'speedup %.2fx (%.1f vs %.1f ms)' "$x" "$(fnum "$ta * 1000")" "$(fnum "$tb * 1000")")$(cpu_note "$ca" "$cb" speedup)" \
		"$label" "$status"
}

# ratio_row CASE NAME A B LIMIT: a row for "A takes at most LIMIT times B's
# time" (LIMIT "info": a row without a target).
ratio_row() {
	local case=$1 name=$2 a=$3 b=$4 limit=$5 t ta tb ca cb x target status
	target="<= ${limit}x" status=
	[ "$limit" = info ] && target=info status=info
	if ! t=$(hf_pair "$name" "$a" "$b"); then
		row "$case" "-" "$target" "skipped (hyperfine failed)"
		return
	fi
	read -r ta tb ca cb <<<"$t"
	x=$(fnum "$ta / $tb")
	row "$case" "$(printf '%.2fx (%.1f vs %.1f ms)' "$x" "$(fnum "$ta * 1000")" "$(fnum "$tb * 1000")")$(cpu_note "$ca" "$cb" ratio)" \
		"$target" "${status:-$(judge "$x" "<=" "$limit")}"
}

# ---- the generator ----------------------------------------------------------------
# start_bg OUTFILE CMD...: start CMD in the background, wait (deadline) for its
# "ready" line in OUTFILE.
start_bg() {
	local out=$1 deadline=$((SECONDS + 120))
	shift
	"$@" >"$out" &
	started+=($!)
	while ! grep -q '^ready' "$out" 2>/dev/null; do
		if ! kill -0 "${started[-1]}" 2>/dev/null || ((SECONDS > deadline)); then
			say "$1 did not get ready"
			return 1
		fi
		sleep 0.1
	done
}
stop_last() {
	local p=${started[-1]}
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	unset 'started[-1]'
}

max_map_count=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
for n in $SIZES; do
	if ((n + 100 > max_map_count)); then
		say "vm.max_map_count is $max_map_count: $n mappings do not fit (sysctl -w vm.max_map_count=$((n + 1000)))"
	fi
done

# ---- the explorer's CPU ---------------------------------------------------------------
# explorer_cpu NAME ARGS...: start `mapscope ARGS` in a private tmux server,
# return its CPU share (percent of one core) over EXPLORER_SECS seconds from
# launch: startup and its first full walk are included.
explorer_start() {
	local name=$1 deadline pane
	shift
	mkdir -p "$tmp/cfg"
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s "$name" -x 120 -y 24 \
		"exec env XDG_CONFIG_HOME='$tmp/cfg' '$MS_BIN' --delay=1 $*" || return 1
	deadline=$((SECONDS + 20))
	while :; do
		pane=$(tmux -L "$TMUX_SOCK" list-panes -t "$name" -F '#{pane_pid}' 2>/dev/null)
		[ -n "$pane" ] && [ "$(cat "/proc/$pane/comm" 2>/dev/null)" = mapscope ] && break
		((SECONDS > deadline)) && return 1
		sleep 0.1
	done
	echo "$pane"
}
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

explorer_row() {
	local case=$1 pid=$2 t0=$3 status=$4 ticks hz elapsed pct
	ticks=$(cpu_ticks "$pid") || { row "$case" "-" "< 2% of one core" "skipped (explorer exited)"; return; }
	hz=$(getconf CLK_TCK)
	elapsed=$(fnum "$(date +%s.%N) - $t0")
	pct=$(fnum "100 * $ticks / $hz / $elapsed")
	if [ "$status" != info ]; then
		status=$(awk -v p="$pct" 'BEGIN { print p < 2 ? "PASS" : "FAIL" }')
	fi
	row "$case" "$(printf '%.2f%% (%.2f s CPU in %.0f s)' "$pct" "$(fnum "$ticks / $hz")" "$elapsed")" \
		"< 2% of one core" "$status"
}

# The files view (F from the maps view) on the generator: a session started
# beside the others, so its 30 s are theirs.  files_view_start PID prints
# the pane's PID once the view is up; files_view_row PANE T0 says its CPU.
files_view_start() {
	local pane deadline
	pane=$(explorer_start files "$1") || return 1
	tmux -L "$TMUX_SOCK" send-keys -t files F
	deadline=$((SECONDS + 20))
	until tmux -L "$TMUX_SOCK" capture-pane -p -t files | grep -q "| files: .* | sorted by"; do
		((SECONDS > deadline)) && return 1
		sleep 0.1
	done
	echo "$pane"
}
files_view_row() {
	local case="explorer files view at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N)"
	if [ -n "$1" ] && tmux -L "$TMUX_SOCK" capture-pane -p -t files | grep -q "| files: .* | sorted by"; then
		explorer_row "$case" "$1" "$2" judge
	else
		row "$case" "-" "< 2% of one core" "skipped (the files view did not open)"
	fi
}

explorer_case() {
	local pid=$1 t0 mp lp op fp
	if ! have tmux; then
		row "explorer maps view at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N)" "-" "< 2% of one core" "skipped (no tmux)"
		return
	fi
	say "explorer: maps view and process lists open for ${EXPLORER_SECS} s in tmux"
	t0=$(date +%s.%N)
	mp=$(explorer_start maps "$pid")
	lp=$(explorer_start procs)
	# Started on the generator's maps view, then back: the process list
	# with the 60,000-mapping process selected, so on screen.
	op=$(explorer_start onscreen "$pid") && tmux -L "$TMUX_SOCK" send-keys -t onscreen Escape
	fp=$(files_view_start "$pid")
	sleep "$EXPLORER_SECS"   # the measured interval itself, not a wait for an event
	if [ -n "$mp" ]; then
		explorer_row "explorer maps view at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N)" "$mp" "$t0" judge
	else
		row "explorer maps view at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N)" "-" "< 2% of one core" "skipped (did not start)"
	fi
	if [ -n "$lp" ]; then
		explorer_row "explorer process list at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N present)" "$lp" "$t0" judge
	else
		row "explorer process list at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N present)" "-" "< 2% of one core" "skipped (did not start)"
	fi
	if [ -n "$op" ] && tmux -L "$TMUX_SOCK" capture-pane -p -t onscreen | grep -q "^ *$pid "; then
		explorer_row "explorer process list at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N on screen)" "$op" "$t0" judge
	else
		row "explorer process list at 1 Hz, ${EXPLORER_SECS} s ($TARGET_N on screen)" "-" "< 2% of one core" "skipped (not on screen)"
	fi
	files_view_row "$fp" "$t0"
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
}

# ---- g in the maps view, in-process ----------------------------------------------------
# goto_case PID: 100 g jumps on the maps view's model (ms-bench-goto): the
# median jump, with the first (it collects the symbols' index) and how many
# whole collections and index walks all of them made.
goto_case() {
	local pid=$1 case="explorer g: 100 jumps, in-process on the model ($TARGET_N)" t med first max coll walks sym
	if [ ! -x "$BENCH_BIN/ms-bench-goto" ]; then
		row "$case" "-" "< 2 ms median" "skipped (no ms-bench-goto)"
		return
	fi
	say "explorer g: 100 jumps in the $TARGET_N-mapping process"
	if ! t=$("$BENCH_BIN/ms-bench-goto" "$pid" 100 2>"$tmp/goto.err"); then
		row "$case" "-" "< 2 ms median" "FAIL (ms-bench-goto: $(head -n 1 "$tmp/goto.err"))"
		return
	fi
	read -r _ med first max coll walks sym <<<"$t"
	row "$case" "$(printf 'median %.2f ms (first %.1f, max %.1f ms; %d collections, %d index walks%s)' "$(fnum "$med / 1000")" \
		"$(fnum "$first / 1000")" "$(fnum "$max / 1000")" "$coll" "$walks" \
		"$([ "$sym" = 1 ] || echo ', no libdw')")" "< 2 ms median" "$(judge "$(fnum "$med / 1000")" "<=" 2)"
}

# ---- peak RSS ---------------------------------------------------------------------------
maxrss_median() {
	local f=$1
	shift
	"$BENCH_BIN/ms-bench-maxrss" "$@" | awk '{ print $2 }' >>"$f"
}
# rss_case PID OPTION LABEL: peak RSS of `mapscope list OPTION PID` against pmap's.
rss_case() {
	local pid=$1 opt=$2 case="peak RSS: $3 vs pmap ($TARGET_N)" i a b x
	if ! have pmap; then
		row "$case" "-" "<= 2x" "skipped (no pmap)"
		return
	fi
	: >"$tmp/rss.a"
	: >"$tmp/rss.b"
	for ((i = 0; i < 5; i++)); do
		# shellcheck disable=SC2086
		maxrss_median "$tmp/rss.a" "$MS_BIN" list $opt "$pid"
		maxrss_median "$tmp/rss.b" pmap "$pid"
	done
	a=$(median "$tmp/rss.a")
	b=$(median "$tmp/rss.b")
	x=$(fnum "$a / $b")
	row "$case" "$(printf '%.2fx (%d vs %d KiB)' "$x" "$a" "$b")" "<= 2x" "$(judge "$x" "<=" 2)"
}

# ---- what a listing printed ------------------------------------------------------------------
# mappings_of PID [x]: the mappings a walk returns ([vsyscall] is in the text
# only); with x, the file-backed executable ones.
mappings_of() {
	awk -v x="${2:-}" '$6 == "[vsyscall]" { next } x == "" || ($2 ~ /x/ && $5 != 0) { n++ } END { print n + 0 }' "/proc/$1/maps"
}
# printed FORMAT CMD...: the mappings CMD printed: lines after the heading
# (table, raw), lines (noheadings) or records (json).
printed() {
	local format=$1
	shift
	case $format in
	json) "$@" 2>/dev/null | jq '.mappings | length' ;;
	noheadings) "$@" 2>/dev/null | wc -l ;;
	*) "$@" 2>/dev/null | awk 'END { print NR - 1 }' ;;
	esac
}
# count_ok CASE TARGET FORMAT EXPECTED CMD: 0 when CMD printed EXPECTED
# mappings, else a FAIL row.
count_ok() {
	local case=$1 target=$2 format=$3 expected=$4 got
	# shellcheck disable=SC2086
	got=$(printed "$format" $5)
	[ "$got" = "$expected" ] && return 0
	row "$case" "printed $got of $expected mappings" "$target" "FAIL (wrong count)"
	return 1
}
# list_row CASE JUDGE FORMAT EXPECTED A B TARGET NAME: speed_row for a
# listing that printed every mapping.
list_row() {
	local case=$1 judged=$2 format=$3 expected=$4
	shift 4
	count_ok "$case" ">= ${3}x faster" "$format" "$expected" "$1" || return
	speed_row "$case" "$judged" "$@"
}
# floor_row CASE JUDGE EXPECTED A B NAME FLOORCMD: A's speedup against B
# must be at least 90% of the bare loop's (FLOORCMD, run as a command like
# A and B, so all three pay exec) speedup against B.  B's time cancels out
# of the share, FLOORCMD's time / A's, which is timed as its own pair.
floor_row() {
	local case=$1 judged=$2 expected=$3 a=$4 b=$5 name=$6 floorcmd=$7 t ta tb taf tf x share status
	count_ok "$case" ">= 90% of floor's" x "$expected" "$a" || return
	if ! have_hf || ! t=$(hf_pair "$name" "$a" "$b") || ! tf=$(hf_pair "$name.floor" "$a" "$floorcmd"); then
		row "$case" "-" ">= 90% of floor's" "skipped (no hyperfine/jq, or it failed)"
		return
	fi
	read -r ta tb _ _ <<<"$t"
	read -r taf tf _ _ <<<"$tf"
	x=$(fnum "$tb / $ta")
	# The share from the pair timed together: mapscope and the loop alternated.
	share=$(fnum "100 * $tf / $taf")
	status=$(judge "$share" ">=" 90)
	[ "$judged" = judge ] || status=info
	row "$case" "$(printf '%.2fx (%.1f vs %.1f ms); %.0f%% of the loop (%.1f vs %.1f ms)' "$x" \
		"$(fnum "$ta * 1000")" "$(fnum "$tb * 1000")" "$share" "$(fnum "$taf * 1000")" "$(fnum "$tf * 1000")")" \
		">= 90% of floor's" "$status"
}

# startup_rows: beside the filtered listing, what it pays that the loop
# run as a command does not: mapscope's start-up (exec, its libraries, the
# locale), against /bin/true and against the loop's own program exiting at
# once (exec and libc only, like the loop).
startup_rows() {
	speed_row "start-up: /bin/true vs mapscope --help" info "/bin/true" "$MS_BIN --help" 1 "startup"
	speed_row "start-up: the loop's program vs mapscope --help" info \
		"$BENCH_BIN/ms-bench-engine start" "$MS_BIN --help" 1 "startup.loop"
}

# ---- one generator size ---------------------------------------------------------------------
size_cases() {
	local n=$1 pid count reps t status judged=info all xs
	local bare="" filtered="" raw="" textwalk="" ioctlwalk=""
	[ "$n" = "$TARGET_N" ] && judged=judge
	say "generator: $n mappings"
	if ! start_bg "$tmp/gen.$n" "$BENCH_BIN/ms-bench-gen" "$n" "$tmp"; then
		row "generator with $n mappings" "-" "-" "skipped (did not start)"
		return
	fi
	read -r _ pid count <"$tmp/gen.$n"
	say "generator pid $pid holds $count mappings"
	all=$(mappings_of "$pid")
	xs=$(mappings_of "$pid" x)

	# The engine and the kernel's floors first: the filtered row is judged by them.
	reps=$((n >= 60000 ? 31 : n >= 10000 ? 101 : 301))
	if t=$("$BENCH_BIN/ms-bench-engine" "$pid" "$reps" 2>"$tmp/engine.err"); then
		local eng win parse x pct
		eng=$(awk '$1 == "walk" { print $2 }' <<<"$t")
		raw=$(awk '$1 == "walk" { print $3 }' <<<"$t")
		win=$(awk '$1 == "window" { print $2 }' <<<"$t")
		parse=$(awk '$1 == "window" { print $3 }' <<<"$t")
		textwalk=$(awk '$1 == "fullwalk" { print $2 }' <<<"$t")
		ioctlwalk=$(awk '$1 == "fullwalk" { print $3 }' <<<"$t")
		bare=$(awk '$1 == "limits" { print $2 }' <<<"$t")
		filtered=$(awk '$1 == "limits" { print $3 }' <<<"$t")
		x=$(fnum "$eng / $raw")
		status=$(judge "$x" "<=" 1.1)
		[ "$judged" = judge ] || status=info
		row "engine ioctl walk vs raw PROCMAP_QUERY loop ($n)" \
			"$(printf '%.3fx (%.2f vs %.2f ms)' "$x" "$(fnum "$eng / 1000")" "$(fnum "$raw / 1000")")" "<= 1.1x" "$status"
		pct=$(fnum "100 * $win / $parse")
		status=$(judge "$pct" "<=" 1)
		[ "$judged" = judge ] || status=info
		row "explorer 50-row window vs full text parse ($n)" \
			"$(printf '%.3f%% (%.1f us vs %.2f ms)' "$pct" "$win" "$(fnum "$parse / 1000")")" "<= 1%" "$status"
		row "full walk, names: streamed text vs ioctl ($n)" \
			"$(printf '%.2fx (%.2f vs %.2f ms)' "$(fnum "$ioctlwalk / $textwalk")" \
				"$(fnum "$textwalk / 1000")" "$(fnum "$ioctlwalk / 1000")")" "info" "info"
		row "floor: raw loop, ranges only ($n)" "$(printf '%.2f ms' "$(fnum "$bare / 1000")")" "-" "info"
	else
		row "engine timings ($n)" "-" "-" "FAIL (ms-bench-engine: $(head -n 1 "$tmp/engine.err"))"
	fi

	if have pmap && have jq; then
		floor_row "list --file-backed --perms=x vs pmap ($n)" "$judged" "$xs" \
			"$MS_BIN list --file-backed --perms=x $pid" "pmap $pid" "listx.$n" \
			"$BENCH_BIN/ms-bench-engine $pid once"
		[ "$n" = "$TARGET_N" ] && startup_rows
		list_row "list (all, names) vs pmap ($n)" "$judged" table "$all" "$MS_BIN list $pid" "pmap $pid" 2.2 "list.$n"
		list_row "list -r vs pmap ($n)" "$judged" table "$all" "$MS_BIN list -r $pid" "pmap $pid" 1.5 "listr.$n"
		list_row "list -n vs pmap ($n)" "$judged" noheadings "$all" "$MS_BIN list -n $pid" "pmap $pid" 1.5 "listn.$n"
		list_row "list -J vs pmap ($n)" "$judged" json "$all" "$MS_BIN list -J $pid" "pmap $pid" 1.2 "listj.$n"
	else
		row "list vs pmap ($n)" "-" ">= 1.5x faster" "skipped (no pmap or jq)"
	fi
	if [ -n "$raw" ] && [ -s "$tmp/list.$n.b" ]; then
		local pm
		pm=$(median "$tmp/list.$n.b")
		row "floor: raw loop filtered file+x, names ($n)" \
			"$(printf '%.2f ms: pmap/floor %.1fx' "$(fnum "$filtered / 1000")" "$(fnum "$pm * 1e6 / $filtered")")" "-" "info"
		row "floor: pmap / raw full walk ($n)" "$(printf '%.2fx' "$(fnum "$pm * 1e6 / $raw")")" "-" "info"
		row "floor: pmap / streamed text walk ($n)" "$(printf '%.2fx' "$(fnum "$pm * 1e6 / $textwalk")")" "-" "info"
	fi

	if [ "$n" = "$TARGET_N" ]; then
		if have pmap && have jq; then
			list_row "list -o START,RSS vs pmap -x ($n)" "$judged" table "$all" \
				"$MS_BIN list -o START,RSS $pid" "pmap -x $pid" 5 "rss.$n"
		else
			row "list -o START,RSS vs pmap -x ($n)" "-" ">= 5x faster" "skipped (no pmap or jq)"
		fi
		rss_case "$pid" "" list
		rss_case "$pid" -J "list -J"
		explorer_case "$pid"
		goto_case "$pid"
	fi
	stop_last
}

# ---- the package lookup -------------------------------------------------------------------
# pkg_lookup_row WHAT PID...: the package of every distinct file mapped by the
# PIDs, in one lookup, the usual way (candidate lists first) against the full
# scan of every dpkg list, in-process (ms-bench-engine pkg-lookup).
pkg_lookup_row() {
	local what=$1 out usual full files found
	shift
	if [ ! -d /var/lib/dpkg/info ]; then
		row "package lookup alone, $what" "-" "info" "skipped (no dpkg database)"
		return
	fi
	if ! out=$("$BENCH_BIN/ms-bench-engine" pkg-lookup 20 "$@"); then
		row "package lookup alone, $what" "-" "info" "skipped (ms-bench-engine failed)"
		return
	fi
	read -r _ usual full files found <<<"$out"
	row "package lookup alone, $what ($found of $files files packaged)" \
		"$(printf '%.2f ms; full scan %.2f ms' "$(fnum "$usual / 1000")" "$(fnum "$full / 1000")")" "info" info
}

# RUNNING's read of dpkg's log alone, for the 50 packages dpkg upgraded or
# installed last, as if mapped by a process started HOURS ago: an hour back
# the newest file answers; a year back every rotated copy is read.
dpkglog_row() {
	local hours=$1 out t files bytes entries known names
	if [ ! -r /var/log/dpkg.log ]; then
		row "dpkg log read for a replaced copy's VERSION, start ${hours} h ago" "-" "info" "skipped (no /var/log/dpkg.log)"
		return
	fi
	names=$(awk '$3 == "upgrade" || $3 == "install" { sub(/:.*/, "", $4); print $4 }' /var/log/dpkg.log |
		tail -n 50)
	# shellcheck disable=SC2086
	if [ -z "$names" ] || ! out=$("$BENCH_BIN/ms-bench-engine" dpkglog 20 "$hours" $names); then
		row "dpkg log read for a replaced copy's VERSION, start ${hours} h ago" "-" "info" "skipped (ms-bench-engine failed)"
		return
	fi
	read -r _ t files bytes entries known <<<"$out"
	row "dpkg log read for a replaced copy's VERSION, 50 packages, start ${hours} h ago ($files files, $((bytes / 1024)) KiB, $known known)" \
		"$(printf '%.2f ms' "$(fnum "$t / 1000")")" "info" info
}

# start_python30 OUT PY: PY started in the background after importing about
# 30 extension modules and the libraries they load (whichever of them are
# installed); it waits for the bench to end it.
start_python30() {
	local imports="ssl, sqlite3, ctypes, decimal, lzma, bz2, zlib, json, csv, hashlib, curses, readline, uuid, socket, select, mmap, array, math, cmath, binascii, unicodedata, pyexpat, xml.etree.ElementTree, asyncio, multiprocessing, queue, zoneinfo, dbm.ndbm, _curses_panel, _multibytecodec, _codecs_jp"
	start_bg "$1" "$2" -c "
import importlib, signal
for m in '$imports'.split(', '):
    try:
        importlib.import_module(m)
    except ImportError:
        pass
print('ready', flush=True)
signal.pause()"
}

# `list --by-file` with PACKAGE, on a python3 that has imported about 30
# extension modules and libraries, against the same without PACKAGE.
package_list_case() {
	local case="list --by-file (PACKAGE, VERSION) vs without them, python3 with 30 modules" pid py=python3
	# Debian's own, whose files dpkg lists; another (pyenv, /usr/local) is
	# packaged by nobody, and only the full scan of every list can say so.
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	if ! have "$py" || ! have_hf; then
		row "$case" "-" "<= 1.5x" "skipped (no python3, or no hyperfine/jq)"
		return
	fi
	if ! start_python30 "$tmp/python.out" "$py"; then
		row "$case" "-" "<= 1.5x" "skipped (python3 did not start)"
		return
	fi
	pid=${started[-1]}
	ratio_row "$case" list.package "$MS_BIN list $pid --by-file" \
		"$MS_BIN list $pid --by-file -o MAPS,SIZE,PERMS,SONAME,NAME" 1.5
	pkg_lookup_row "python3's mapped files" "$pid"
	stop_last
}

# `list --by-file` (its package columns) on a python3 whose extension modules
# sit in a site-packages of 200 distributions (RECORDs of 300 lines, about
# 5 MB in all), against the same without them.  One module no RECORD lists, so
# every RECORD is read (core/pkg/pydist.h): the most a Python lookup costs
# per site directory.  Info: the target is the Debian python3's row above.
pydist_list_case() {
	local case="list --by-file (PACKAGE, VERSION) vs without them, python3 with 11 modules in 200 distributions"
	local py=python3
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	if ! have "$py" || ! have_hf; then
		row "$case" "-" "info" "skipped (no python3, or no hyperfine/jq)"
		return
	fi
	if ! start_bg "$tmp/pydist.out" "$py" -c "
import ctypes, ctypes.util, os, shutil, signal
ctypes.CDLL(ctypes.util.find_library('z'))
lib = [l.split()[-1] for l in open('/proc/self/maps') if 'libz.so' in l][0]
site = '$tmp/venv/lib/python3/site-packages'
mods = []
for d in range(200):
    name = 'dist%03d' % d
    info = os.path.join(site, name + '-1.0.dist-info')
    os.makedirs(info)
    os.makedirs(os.path.join(site, name))
    with open(os.path.join(info, 'METADATA'), 'w') as f:
        f.write('Metadata-Version: 2.1\\nName: %s\\nVersion: 1.0\\n\\n' % name)
    lines = ['%s/module_%03d.py,sha256=%s,1234\\n' % (name, m, 'x' * 43) for m in range(300)]
    if d % 20 == 0:
        ext = os.path.join(site, name, '_ext.so')
        shutil.copy(lib, ext)
        mods.append(ext)
        lines.append('%s/_ext.so,,\\n' % name)
    with open(os.path.join(info, 'RECORD'), 'w') as f:
        f.writelines(lines)
stray = os.path.join(site, 'stray.so')
shutil.copy(lib, stray)
for m in mods + [stray]:
    ctypes.CDLL(m)
print('ready', flush=True)
signal.pause()"; then
		row "$case" "-" "info" "skipped (python3 did not start)"
		return
	fi
	ratio_row "$case" list.pydist "$MS_BIN list ${started[-1]} --by-file" \
		"$MS_BIN list ${started[-1]} --by-file -o MAPS,SIZE,PERMS,SONAME,NAME" info
	stop_last
}

# `list --by-file` with LIBVER on a python3 with a dozen libraries that
# define versions (libssl, libcrypto, libsqlite3, libffi, libz...): against
# the same columns with SONAME only, which opens the same files (LIBVER
# adds its walk of the version definitions), and against columns that read
# no file (what opening them costs at all).
libver_list_case() {
	local cols=MAPS,SIZE,PERMS,SONAME,NAME pid py=python3
	local case="list --by-file -o $cols,LIBVER vs -o $cols, python3, a dozen libraries"
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	if ! have "$py" || ! have_hf; then
		row "$case" "-" "<= 1.5x" "skipped (no python3, or no hyperfine/jq)"
		return
	fi
	if ! start_bg "$tmp/libver.out" "$py" -c "
import signal, ssl, sqlite3, ctypes, lzma, bz2, zlib, uuid, pyexpat, readline, curses, decimal
print('ready', flush=True)
signal.pause()"; then
		row "$case" "-" "<= 1.5x" "skipped (python3 did not start, or lacks a module)"
		return
	fi
	pid=${started[-1]}
	ratio_row "$case" list.libver "$MS_BIN list $pid --by-file -o $cols,LIBVER" \
		"$MS_BIN list $pid --by-file -o $cols" 1.5
	ratio_row "list --by-file -o $cols,LIBVER vs -o MAPS,SIZE,PERMS,NAME, the same python3" \
		list.libver.plain "$MS_BIN list $pid --by-file -o $cols,LIBVER" \
		"$MS_BIN list $pid --by-file -o MAPS,SIZE,PERMS,NAME" info
	stop_last
}

# ---- libs over the fleet ------------------------------------------------------------------
# libs_fleet_row "PID PID..." PID,PID,...: `libs` (one line per mapped file, its
# package and running version, PROCS, verdict) against lsof -nP over the same
# processes, both listing what they map.  Checked first: both count the
# same holders of the fleet's deleted copies (libs sums the PROCS of
# those rows: each copy is its own file; lsof lists their PIDs).
libs_fleet_row() {
	local pids=$1 commas=$2 case="libs vs lsof -nP, $FLEET processes" ours theirs
	ours=$("$MS_BIN" libs --pid="$commas" -r -n -o NAME,PROCS 2>/dev/null |
		awk -v dir="$tmp/fleet/" 'index($1, dir) == 1 { n += $2 } END { print n + 0 }')
	theirs=$(lsof -nP -p "$commas" 2>/dev/null | awk -v dir="$tmp/fleet/" 'index($0, dir) { print $2 }' |
		sort -u | wc -l)
	say "fleet: libs counts $ours holders of deleted copies; lsof shows $theirs"
	if [ "$ours" = 0 ] || [ "$ours" != "$theirs" ]; then
		row "$case" "libs $ours, lsof $theirs" ">= 5x faster" "FAIL (not the same files)"
		return
	fi
	speed_row "$case" judge "$MS_BIN libs --pid=$commas" "lsof -nP -p $commas" 5 "libs"
}

# ---- the explorer's libraries view over the fleet --------------------------------------------
# libs_view_row: the explorer opened on its libraries view (L from the
# process list) while the fleet is up, its CPU over EXPLORER_SECS seconds
# from launch, the first whole walk included; later walks are spread over
# ticks (src/tui/libs_feed.h).
libs_view_row() {
	local case="explorer libraries view at 1 Hz, ${EXPLORER_SECS} s ($FLEET processes)" pane t0 deadline
	if ! have tmux; then
		row "$case" "-" "< 2% of one core" "skipped (no tmux)"
		return
	fi
	say "explorer: the libraries view open for ${EXPLORER_SECS} s with the fleet"
	t0=$(date +%s.%N)
	if ! pane=$(explorer_start libs); then
		row "$case" "-" "< 2% of one core" "skipped (did not start)"
		return
	fi
	tmux -L "$TMUX_SOCK" send-keys -t libs L
	deadline=$((SECONDS + 20))
	until tmux -L "$TMUX_SOCK" capture-pane -p -t libs | grep -q "| libraries: .* scanned"; do
		if ((SECONDS > deadline)); then
			row "$case" "-" "< 2% of one core" "skipped (the libraries view did not open)"
			tmux -L "$TMUX_SOCK" kill-session -t libs 2>/dev/null
			return
		fi
		sleep 0.1
	done
	sleep "$EXPLORER_SECS"   # the measured interval itself, not a wait for an event
	explorer_row "$case" "$pane" "$t0" judge
	tmux -L "$TMUX_SOCK" kill-session -t libs 2>/dev/null
}
libs_view_case() {
	mkdir -p "$tmp/libsfleet"
	if ! start_bg "$tmp/libsfleet.out" "$BENCH_BIN/ms-bench-fleet" "$FLEET" "$tmp/libsfleet"; then
		row "explorer libraries view at 1 Hz, ${EXPLORER_SECS} s ($FLEET processes)" "-" "< 2% of one core" \
			"skipped (fleet did not start)"
		return
	fi
	libs_view_row
	stop_last
}

# ---- diff ----------------------------------------------------------------------------------
# diff_case PID: two snapshots of the generator compared by what each
# mapping is (hashed keys) against by exact range (one merge), and by file;
# and the snapshot's package lookup against none.  "At most 1.5x as long"
# is a speedup of at least 0.67.
diff_case() {
	local pid=$1 a="$tmp/diff.a.json" b="$tmp/diff.b.json"
	if ! "$MS_BIN" snapshot "$pid" -o "$a" 2>/dev/null || ! "$MS_BIN" snapshot "$pid" -o "$b" 2>/dev/null; then
		row "diff A B vs diff --addresses A B ($TARGET_N)" "-" ">= 0.67x faster" "FAIL (snapshot failed)"
		return
	fi
	speed_row "diff A B vs diff --addresses A B ($TARGET_N)" judge \
		"$MS_BIN diff $a $b" "$MS_BIN diff --addresses $a $b" 0.67 "diff.kind"
	speed_row "diff --by-file A B vs diff A B ($TARGET_N)" info \
		"$MS_BIN diff --by-file $a $b" "$MS_BIN diff $a $b" 0.67 "diff.files"
	speed_row "snapshot vs snapshot --no-packages ($TARGET_N)" info \
		"$MS_BIN snapshot $pid -o $tmp/diff.c.json" "$MS_BIN snapshot $pid --no-packages -o $tmp/diff.d.json" 0.67 "diff.snap"
}

# ---- the fleet ------------------------------------------------------------------------------
# stale_floor_row PIDS: `stale` (its default columns) against the floor of
# an exact verdict, the probe with names, exe and namespace, as commands
# timed together: what mapscope adds beyond the system calls no verdict
# can skip.
stale_floor_row() {
	ratio_row "stale vs the exact-verdict floor (probe-verdict), $FLEET processes" stale.vsfloor \
		"$STALE $1" "$BENCH_BIN/ms-bench-engine probe-verdict $1" 1.15
	# What the default rows of stale processes read beyond a verdict, added to the floor.
	ratio_row "stale vs the floor and its stale rows' reads (probe-stale), $FLEET processes" stale.vsrows \
		"$STALE $1" "$BENCH_BIN/ms-bench-engine probe-stale $1" info
}

# stale_case: the fleet and the stale row against its floor alone.
stale_case() {
	local pids
	say "fleet: $FLEET processes"
	mkdir -p "$tmp/fleet"
	if ! have_hf || ! start_bg "$tmp/fleet.out" "$BENCH_BIN/ms-bench-fleet" "$FLEET" "$tmp/fleet"; then
		row "stale vs the exact-verdict floor (probe-verdict), $FLEET processes" "-" "<= 1.15x" \
			"skipped (no hyperfine/jq, or the fleet did not start)"
		return
	fi
	pids=$(sed 's/^ready //' "$tmp/fleet.out")
	stale_floor_row "$pids"
	stop_last
}

fleet_cases() {
	local case="stale vs lsof -nP, $FLEET processes" pids commas found del
	if ! have lsof; then
		row "$case" "-" ">= 10x faster" "skipped (no lsof)"
		return
	fi
	say "fleet: $FLEET processes"
	mkdir -p "$tmp/fleet"
	if ! start_bg "$tmp/fleet.out" "$BENCH_BIN/ms-bench-fleet" "$FLEET" "$tmp/fleet"; then
		row "$case" "-" ">= 10x faster" "skipped (fleet did not start)"
		return
	fi
	pids=$(sed 's/^ready //' "$tmp/fleet.out")
	commas=$(tr ' ' ',' <<<"$pids")
	# Say what both see, so the comparison is of like with like.
	# Check what is timed: both must name the same processes, and some.
	"$MS_BIN" stale --ignore-file="$noignore" -n -r -o PID $pids 2>/dev/null | awk NF | sort -u >"$tmp/stale.flagged"
	lsof -nP -p "$commas" 2>/dev/null | awk '$4 == "DEL" || /\(deleted\)/ { print $2 }' | sort -u >"$tmp/lsof.deleted"
	found=$(wc -l <"$tmp/stale.flagged")
	del=$(wc -l <"$tmp/lsof.deleted")
	say "fleet: mapscope stale flags $found processes; lsof shows deleted files in $del"
	if [ "$del" = 0 ] || ! cmp -s "$tmp/stale.flagged" "$tmp/lsof.deleted"; then
		row "$case" "flagged $found, lsof shows $del ($(comm -3 "$tmp/stale.flagged" "$tmp/lsof.deleted" | wc -l) differ)" \
			">= 10x faster" "FAIL (not the same processes)"
	else
		speed_row "$case" judge "$STALE $pids" "lsof -nP -p $commas" 10 "stale"
	fi
	# Where the time goes: the same without the package lookup (it reads
	# dpkg's whole file list once something is stale), and the floor.
	speed_row "stale without PACKAGE vs lsof -nP, $FLEET processes" info \
		"$STALE -o NAME,PID,UNIT,CONTAINER,VERDICT,WHY $pids" "lsof -nP -p $commas" 10 "stale.nopkg"
	speed_row "floor: bare probe as a command vs lsof -nP, $FLEET processes" info \
		"$BENCH_BIN/ms-bench-engine probe $pids" "lsof -nP -p $commas" 10 "stale.floor"
	speed_row "floor: probe with names, exe and namespace vs lsof -nP, $FLEET processes" info \
		"$BENCH_BIN/ms-bench-engine probe-verdict $pids" "lsof -nP -p $commas" 10 "stale.floor.verdict"
	stale_floor_row "$pids"
	# What a package lookup cannot go below: reading dpkg's lists once.
	if [ -d /var/lib/dpkg/info ]; then
		speed_row "floor: reading dpkg's list files, as a command, vs lsof -nP" info \
			"$BENCH_BIN/ms-bench-engine read-lists /var/lib/dpkg" "lsof -nP -p $commas" 10 "stale.floor.lists"
	fi
	libs_fleet_row "$pids" "$commas"
	libs_view_row
	# The lookup alone over every file the fleet maps: its deleted copies are
	# packaged by nobody, which the index of dpkg's lists says (the full
	# scan, the other number, is what says it without the index).
	pkg_lookup_row "the fleet's mapped files" $pids
	# checkrestart (debian-goodies) takes no PIDs: both walk every process,
	# the fleet included, which is the comparison it offers.
	if have checkrestart; then
		speed_row "stale vs checkrestart, every process" judge "$STALE" "checkrestart" 20 "checkrestart"
		# The same exact-verdict floor as above, over every process.
		speed_row "floor: probe with names, exe and namespace, every process, vs checkrestart" info \
			"$BENCH_BIN/ms-bench-engine probe-verdict $(ls /proc | grep -E '^[0-9]+$' | tr '\n' ' ')" \
			"checkrestart" 20 "checkrestart.floor"
	else
		row "stale vs checkrestart, every process" "-" ">= 20x faster" "skipped (no checkrestart: debian-goodies)"
	fi
	if [ -n "${BENCH_SYSTEM_WIDE:-}" ]; then
		speed_row "stale vs lsof -nP, every process" info "$STALE" "lsof -nP" 10 "stale.all"
	else
		row "stale vs lsof -nP, every process" "-" "info" "skipped (reads others' processes; BENCH_SYSTEM_WIDE=1)"
	fi
	stop_last
}

# ---- the SBOM's hashes: libcrypto against openssl dgst --------------------------------------
# cdx_files SBOM OUT: the files SBOM hashed, one a line, as openssl can open
# them: the path, or for a deleted copy its running copy through the
# map_files of the first process that maps it (root); and checks that
# openssl dgst gives each the hash the SBOM gives.  Prints "FILES BYTES",
# or fails saying why.
cdx_files() {
	local sbom=$1 out=$2 name hash pid path range got
	: >"$out"
	while IFS=$'\t' read -r name hash pid; do
		path=$name
		if [[ $name == *" (deleted)" ]]; then
			range=$(awk -v n="$name" '{ p = $0; for (i = 0; i < 5; i++) sub(/^[^ ]+ +/, "", p) } p == n { print $1; exit }' \
				"/proc/$pid/maps" 2>/dev/null)
			[ -n "$range" ] || { echo "no mapping of $name in $pid"; return 1; }
			path=/proc/$pid/map_files/$range
		fi
		got=$(openssl dgst -sha256 -r "$path" 2>/dev/null | cut -d' ' -f1)
		[ "$got" = "$hash" ] || { echo "openssl dgst says ${got:-nothing} of $name, the SBOM $hash"; return 1; }
		printf '%s\n' "$path" >>"$out"
	done < <(jq -r '.components[] | select(.type == "file" and .hashes) |
		[.name, .hashes[0].content, ((.properties // [])[] | select(.name == "mapscope:pids") | .value | split(" ")[0])] | @tsv' "$sbom")
	echo "$(wc -l <"$out") $(xargs -r -d '\n' stat -L -c %s <"$out" | awk '{ b += $1 } END { print b + 0 }')"
}

# cdx_row WHAT PIDS: `libs --format=cyclonedx` against `libs` then `openssl
# dgst -sha256` over exactly the files the SBOM hashed (none: `libs` alone),
# in the same run, each through a small bash script.
cdx_row() {
	local what=$1 pids=$2 case files bytes n=${#started[@]} f
	case="libs --format=cyclonedx vs libs + openssl dgst, $what"
	if ! have_hf || ! have openssl; then
		row "$case" "-" "<= 1.5x" "skipped (no hyperfine/jq, or no openssl)"
		return
	fi
	if ! "$MS_BIN" libs --pid="$pids" --format=cyclonedx >"$tmp/cdx.$n.json" 2>"$tmp/cdx.err"; then
		row "$case" "-" "<= 1.5x" "FAIL (libs --format=cyclonedx: $(head -n 1 "$tmp/cdx.err"))"
		return
	fi
	read -r files bytes < <(cdx_files "$tmp/cdx.$n.json" "$tmp/cdx.$n.files")
	if ! [[ $files =~ ^[0-9]+$ && $bytes =~ ^[0-9]+$ ]]; then
		row "$case" "-" "<= 1.5x" "FAIL (not the same hashes: $files $bytes)"
		return
	fi
	printf 'exec %q libs --pid=%q --format=cyclonedx >/dev/null\n' "$MS_BIN" "$pids" >"$tmp/cdx.$n.sbom.sh"
	printf '%q libs --pid=%q >/dev/null\n' "$MS_BIN" "$pids" >"$tmp/cdx.$n.dgst.sh"
	if ((files)); then
		printf 'exec openssl dgst -sha256' >>"$tmp/cdx.$n.dgst.sh"
		while IFS= read -r f; do printf ' %q' "$f"; done <"$tmp/cdx.$n.files" >>"$tmp/cdx.$n.dgst.sh"
		printf ' >/dev/null\n' >>"$tmp/cdx.$n.dgst.sh"
	fi
	ratio_row "$case ($files files, $(printf '%.1f' "$(fnum "$bytes / 1048576")") MiB hashed)" \
		"cdx.$n" "bash $tmp/cdx.$n.sbom.sh" "bash $tmp/cdx.$n.dgst.sh" 1.5
}

# The 500-process fleet (its deleted copies and the fleet program are the
# files no package owns), and python3 after about 30 imports: the one on
# PATH (pyenv's or /usr/local's: its libpython and modules are unpackaged,
# tens of MB hashed), and Debian's (every file packaged: nothing hashed).
cdx_case() {
	local pids py seen=""
	mkdir -p "$tmp/cdxfleet"
	if start_bg "$tmp/cdxfleet.out" "$BENCH_BIN/ms-bench-fleet" "$FLEET" "$tmp/cdxfleet"; then
		pids=$(sed 's/^ready //' "$tmp/cdxfleet.out" | tr ' ' ',')
		cdx_row "$FLEET processes" "$pids"
		stop_last
	else
		row "libs --format=cyclonedx vs libs + openssl dgst, $FLEET processes" "-" "<= 1.5x" "skipped (fleet did not start)"
	fi
	for py in "$(command -v python3)" /usr/bin/python3; do
		[ -x "$py" ] || continue
		# The interpreter itself, not a pyenv shim.
		py=$("$py" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null) || continue
		[[ " $seen " == *" $py "* ]] && continue
		seen="$seen $py"
		if ! start_python30 "$tmp/cdxpy.out" "$py"; then
			row "libs --format=cyclonedx vs libs + openssl dgst, $py" "-" "<= 1.5x" "skipped (it did not start)"
			continue
		fi
		cdx_row "$py ($("$MS_BIN" libs --pid="${started[-1]}" -n | wc -l) files)" "${started[-1]}"
		stop_last
	done
}

# ---- who: a name (base name or SONAME) against a path ---------------------------------------
# who NAME reads the SONAME of every distinct file whose base name is not
# NAME, once each, whoever maps it; who PATH reads none.  Both walk every
# process, with a fleet of its own up (its deleted copies included), and
# first show they found the same holders of zlib.
who_case() {
	local case="who libz.so.1 (SONAMEs read) vs who PATH, every process" zlib byname bypath
	zlib=$(ls /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 /usr/lib64/libz.so.1 \
		2>/dev/null | head -n 1)
	if [ -z "$zlib" ]; then
		row "$case" "-" ">= 0.5x faster" "skipped (no libz.so.1)"
		return
	fi
	mkdir -p "$tmp/whofleet"
	if ! start_bg "$tmp/whofleet.out" "$BENCH_BIN/ms-bench-fleet" "$FLEET" "$tmp/whofleet"; then
		row "$case" "-" ">= 0.5x faster" "skipped (fleet did not start)"
		return
	fi
	byname=$("$MS_BIN" who libz.so.1 -n -r -o PID 2>/dev/null | sort -u | wc -l)
	bypath=$("$MS_BIN" who "$zlib" -n -r -o PID 2>/dev/null | sort -u | wc -l)
	say "who: libz.so.1 in $byname processes, $zlib in $bypath"
	if [ "$byname" -lt "$bypath" ] || [ "$bypath" -lt 1 ]; then
		row "$case" "by name $byname, by path $bypath" ">= 0.5x faster" "FAIL (the name missed holders)"
	else
		speed_row "$case" judge "$MS_BIN who libz.so.1 -o PID" "$MS_BIN who $zlib -o PID" 0.5 "who"
	fi
	stop_last
}

# ---- one process with 65,000 distinct mapped files ---------------------------------------
# Grouping mappings into files was a linear search per mapping: 4 s here.
many_files_case() {
	local case="stale, one process with 65,000 distinct files" pid ms
	if [ -z "${HOSTILE_BIN:-}" ] || [ ! -x "$HOSTILE_BIN" ]; then
		row "$case" "-" "< 1 s" "skipped (no ms-hostile: make check builds it)"
		return
	fi
	if (($(cat /proc/sys/vm/max_map_count) < 65200)); then
		row "$case" "-" "< 1 s" "skipped (vm.max_map_count below 65200)"
		return
	fi
	say "one process with 65,000 distinct files"
	mkdir -p "$tmp/hostile"
	if ! start_bg "$tmp/hostile.out" env MS_HOSTILE_FILES=65000 "$HOSTILE_BIN" "$tmp/hostile"; then
		row "$case" "-" "< 1 s" "skipped (ms-hostile did not start)"
		return
	fi
	pid=$(sed -n 's/^ready //p' "$tmp/hostile.out")
	: >"$tmp/many.times"
	for _ in 1 2 3 4 5; do
		local t0 t1
		t0=$(date +%s%N)
		"$MS_BIN" stale --ignore-file="$noignore" "$pid" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000)) >>"$tmp/many.times"
	done
	ms=$(fnum "$(median "$tmp/many.times") / 1000")
	row "$case" "$(printf 'median %.1f ms of 5 runs' "$ms")" "< 1 s" "$(judge "$ms" "<=" 1000)"
	stop_last
}

# ---- symbols: 10,000 addresses in a process with 100 libraries ------------------------
# `at` with SYMBOL against eu-addr2line --pid, for the same addresses; the
# row also checks that both name the same symbol for every address.
symbols_case() {
	local case="at SYMBOL vs eu-addr2line --pid, 10,000 addrs" lib pid i
	if ! "$MS_BIN" at --help | grep -q SYMBOL; then
		row "$case" "-" ">= 20x faster" "skipped (built without libdw)"
		return
	fi
	if ! have eu-addr2line || ! have python3; then
		row "$case" "-" ">= 20x faster" "skipped (no eu-addr2line or python3)"
		return
	fi
	say "symbols: a process with 100 libraries"
	lib=$(python3 -c 'import ctypes.util, sys; print(ctypes.util.find_library("z") or "")')
	lib=$(ldconfig -p | awk -v n="$lib" '$1 == n { print $NF; exit }')
	if [ -z "$lib" ]; then
		row "$case" "-" ">= 20x faster" "skipped (no libz to copy)"
		return
	fi
	mkdir -p "$tmp/libs"
	for ((i = 0; i < 100; i++)); do cp "$lib" "$tmp/libs/libbench$i.so"; done
	if ! start_bg "$tmp/symbols.out" python3 -c '
import ctypes, glob, sys, time
libs = [ctypes.CDLL(p) for p in sorted(glob.glob(sys.argv[1] + "/libbench*.so"))]
print("ready", len(libs), flush=True)
time.sleep(3600)' "$tmp/libs"; then
		row "$case" "-" ">= 20x faster" "skipped (the process did not start)"
		return
	fi
	pid=${started[-1]}
	python3 -c '
import random, sys
ex = []
for line in open("/proc/%s/maps" % sys.argv[1]):
    f = line.split()
    if len(f) > 5 and "x" in f[1] and f[5].startswith("/"):
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        ex.append((lo, hi))
rnd = random.Random(1)
total = sum(h - l for l, h in ex)
out = []
for _ in range(10000):
    k = rnd.randrange(total)
    for l, h in ex:
        if k < h - l:
            out.append("0x%x" % (l + k)); break
        k -= h - l
print("\n".join(out))' "$pid" >"$tmp/addrs"
	# Both must agree before their speed means anything.  Both read the
	# addresses from standard input: as one argument to hyperfine they
	# pass the kernel's limit on an argument's length.
	"$MS_BIN" at "$pid" -r -n -o SYMBOL <"$tmp/addrs" | awk '{ print ($0 == "" ? "??" : $0) }' >"$tmp/sym.ms"
	eu-addr2line --pid "$pid" -S <"$tmp/addrs" | awk 'NR % 2 == 1 { s = $0; if (s ~ /^\(/) s = "??"; else if (s !~ /\+0x/ && s != "??") s = s "+0x0"; print s }' >"$tmp/sym.eu"
	if ! cmp -s "$tmp/sym.ms" "$tmp/sym.eu"; then
		row "$case" "$(diff "$tmp/sym.ms" "$tmp/sym.eu" | grep -c '^<') of 10000 differ" ">= 20x faster" "FAIL (answers differ)"
		stop_last
		return
	fi
	speed_row "$case" judge "sh -c 'exec $MS_BIN at $pid -r -n -o SYMBOL <$tmp/addrs'" \
		"sh -c 'exec eu-addr2line --pid $pid -S <$tmp/addrs'" 20 "symbols"
	# The floor: the same run without symbols (no reader, no file opened).
	speed_row "floor: at START (no symbols) vs eu-addr2line --pid, 10,000 addrs" info \
		"sh -c 'exec $MS_BIN at $pid -r -n -o START <$tmp/addrs'" \
		"sh -c 'exec eu-addr2line --pid $pid -S <$tmp/addrs'" 20 "symbols_floor"
	stop_last
}

# ---- run -----------------------------------------------------------------------------------
start_time=$(date '+%Y-%m-%d %H:%M:%S %Z')
CASES=" ${BENCH_CASES:-sizes fleet files symbols} "
if [[ $CASES == *" sizes "* ]]; then
	for n in $SIZES; do
		size_cases "$n"
	done
fi
# at_target CASEFN: CASEFN PID on a generator of TARGET_N mappings of its own.
at_target() {
	if start_bg "$tmp/gen.$1" "$BENCH_BIN/ms-bench-gen" "$TARGET_N" "$tmp"; then
		read -r _ pid _ <"$tmp/gen.$1"
		"$1" "$pid"
		stop_last
	else
		row "generator with $TARGET_N mappings" "-" "-" "skipped (did not start)"
	fi
}
# The explorer rows alone, and g alone (sizes runs them too, after everything else at 60,000).
[[ $CASES == *" explorer "* ]] && at_target explorer_case
[[ $CASES == *" goto "* ]] && at_target goto_case
[[ $CASES == *" fleet "* ]] && fleet_cases
[[ $CASES == *" stale "* ]] && stale_case
[[ $CASES == *" libsview "* ]] && libs_view_case
[[ $CASES == *" fleet "* || $CASES == *" packages "* ]] && package_list_case
[[ $CASES == *" fleet "* || $CASES == *" packages "* ]] && pydist_list_case
[[ $CASES == *" fleet "* || $CASES == *" who "* ]] && who_case
[[ $CASES == *" fleet "* || $CASES == *" cyclonedx "* ]] && cdx_case
if [[ $CASES == *" fleet "* || $CASES == *" packages "* || $CASES == *" dpkglog "* ]]; then
	dpkglog_row 1
	dpkglog_row 8760
fi
[[ $CASES == *" files "* ]] && many_files_case
[[ $CASES == *" files "* || $CASES == *" libver "* ]] && libver_list_case
[[ $CASES == *" symbols "* ]] && symbols_case
[[ $CASES == *" sizes "* || $CASES == *" diff "* ]] && at_target diff_case

{
	printf 'mapscope bench, %s\n' "$start_time"
	printf 'machine: %s, %s cores, %s; %s\n' "$(uname -n)" "$(nproc)" "$(uname -r)" \
		"$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	printf 'hyperfine: %s rounds x %s runs per command, order flipped each round, medians\n\n' "$ROUNDS" "$RUNS"
	printf '%-52s  %-40s  %-20s  %s\n' case measured target result
	printf '%-52s  %-40s  %-20s  %s\n' ---- -------- ------ ------
	while IFS=$'\t' read -r c m t s; do
		printf '%-52s  %-40s  %-20s  %s\n' "$c" "$m" "$t" "$s"
	done <"$rows"
} | tee "$BENCH_OUT/results.txt"

fails=$(awk -F'\t' '$4 ~ /^FAIL/' "$rows" | wc -l)
if ((fails)); then
	say "$fails row(s) FAIL (bench/README.md: what was found)"
	exit 1
fi
exit 0
