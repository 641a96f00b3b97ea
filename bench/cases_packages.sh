# bench/cases_packages.sh - make bench's rows on packages and libraries: the
# package lookup of list and stale, libs over the fleet, the explorer's
# libraries view, diff and snapshot.  Sourced by bench/run.sh, whose helpers
# and settings these functions use; defining them runs nothing.

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
