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
#   BENCH_FLOOR_ROUNDS, BENCH_FLOOR_RUNS  the same for the two rows of stale
#                       against its floors, whose target is close (15, 8)
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
FLOOR_ROUNDS=${BENCH_FLOOR_ROUNDS:-15}
FLOOR_RUNS=${BENCH_FLOOR_RUNS:-8}
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

# The cases themselves, one file per family (each only defines functions).
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$BENCH_DIR/cases_listing.sh"
. "$BENCH_DIR/cases_packages.sh"
. "$BENCH_DIR/cases_fleet.sh"

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
