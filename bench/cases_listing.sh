# bench/cases_listing.sh - make bench's rows on one process's mappings: the
# explorer's CPU, g in the maps view, peak RSS, what a listing printed, and
# each generator size's rows (size_cases).  Sourced by bench/run.sh, whose
# helpers (row, hf_pair, start_bg...) and settings these functions use;
# defining them runs nothing.

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
