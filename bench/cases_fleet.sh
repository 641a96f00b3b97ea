# bench/cases_fleet.sh - make bench's rows over many processes or files: the
# fleet (stale against its floors and its peers), the SBOM's hashes, who,
# one process with 65,000 distinct files, and at's symbols.  Sourced by
# bench/run.sh, whose helpers and settings these functions use; defining
# them runs nothing.

# ---- the fleet ------------------------------------------------------------------------------
# stale_floor_row PIDS: `stale` (its default columns) against the floor of
# an exact verdict, the probe with names, exe and namespace, as commands
# timed together: what mapscope adds beyond the system calls no verdict
# can skip.  Its target is 15% above a floor of about 20 ms, closer than
# 20 runs a side can tell on a shared 2-core machine (four runs of one
# build spread over 1.08x-1.21x), so these two rows take more:
# BENCH_FLOOR_ROUNDS rounds of BENCH_FLOOR_RUNS runs.
stale_floor_row() {
	local ROUNDS=$FLOOR_ROUNDS RUNS=$FLOOR_RUNS
	ratio_row "stale vs the exact-verdict floor (probe-verdict), $FLEET processes" stale.vsfloor \
		"$STALE $1" "$BENCH_BIN/ms-bench-engine probe-verdict $1" 1.15
	# What the default rows of stale processes read beyond a verdict, added to the floor.
	ratio_row "stale vs the floor and its stale rows' reads (probe-stale), $FLEET processes" stale.vsrows \
		"$STALE $1" "$BENCH_BIN/ms-bench-engine probe-stale $1" info
}

# replaced_row: a second fleet, as after an upgrade of a library a server
# and every worker it forked map: all hold one copy whose path now holds a
# file with another build ID.  `stale` must ask for build IDs there, and
# dates the copy through the parent; against probe-stale (whose row reads
# are the deleted copy's).  The target is ours, not issue 37's: before the
# walk shared its mount tables and its package questions this was 2.3x.
replaced_row() {
	local case="stale vs the floor and its stale rows' reads (probe-stale), $FLEET holders of one replaced copy"
	local ROUNDS=$FLOOR_ROUNDS RUNS=$FLOOR_RUNS pids
	mkdir -p "$tmp/fleet-replaced"
	if ! start_bg "$tmp/fleet-replaced.out" "$BENCH_BIN/ms-bench-fleet" "$FLEET" "$tmp/fleet-replaced" replaced; then
		row "$case" "-" "<= 1.25x" "skipped (the fleet did not start)"
		return
	fi
	pids=$(sed 's/^ready //' "$tmp/fleet-replaced.out")
	if [ "$("$MS_BIN" stale --ignore-file="$noignore" -n -r -o VERDICT $pids 2>/dev/null | grep -c replaced)" -lt "$FLEET" ]; then
		row "$case" "-" "<= 1.25x" "FAIL (not every holder judged replaced)"
	else
		ratio_row "$case" stale.replaced "$STALE $pids" "$BENCH_BIN/ms-bench-engine probe-stale $pids" 1.25
	fi
	stop_last
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
	replaced_row
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
	replaced_row
}

# ---- the SBOM's hashes: libcrypto against openssl dgst --------------------------------------
# cdx_files SBOM OUT: the files SBOM hashed, one a line, as openssl can open
# them: the path, or for a deleted copy its running copy through the
# map_files of the first process that maps it (root; the SBOM names its
# holders in the occurrence's context, "pids 123 456; ..."); and checks that
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
		[.name, .hashes[0].content,
		 (((.evidence.occurrences // [])[0].additionalContext // "") | (capture("^pids (?<p>[0-9]+)") | .p) // "")] |
		@tsv' "$sbom")
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
