#!/bin/sh
# The real prometheus-node-exporter serves what mapscope writes: its
# textfile collector reads a directory where `stale --metrics-file` and
# `libs --metrics-file` both wrote, and a scrape over HTTP on localhost
# must hold their series with the right values, and no textfile error
# (a document it cannot parse, or one metric written by both, sets
# node_textfile_scrape_error).
#
# The processes looked at: a copy of ms-sleeper, deleted once it runs, and
# ms-dlopen-hold on a library a hand-made Python distribution vendors,
# whose METADATA gives a name and version with quotes, backslashes and
# "# EOF" in them.  Both map libc (libc6 on Debian), so libs gives a series
# for libc's package at the version dpkg-query reports, counting 2; the
# hostile distribution's series must come through quoted; stale finds one
# deleted file.
# node_exporter runs as our own instance, only the textfile collector, on
# a port the kernel chose free; every wait polls with a deadline.
# Exit 77 (skip) without prometheus-node-exporter, python3 or dpkg.
set -u
NAME=node-exporter
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
# printf, not echo: dash's echo would read the backslashes of the labels shown.
skip() { printf '%s\n' "$NAME: SKIP ($*)"; exit 77; }
fail() { printf '%s\n' "$NAME: FAIL: $*"; exit 1; }
n=0
ok() { n=$((n + 1)); printf '%s\n' "ok $n - $*"; }

EXPORTER=$(command -v prometheus-node-exporter || command -v node_exporter) ||
	skip "no prometheus-node-exporter (apt-get install prometheus-node-exporter)"
command -v python3 >/dev/null 2>&1 || skip "no python3 to scrape with"
command -v dpkg-query >/dev/null 2>&1 || skip "not a dpkg system: no package to expect for libc"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-nodeexp.XXXXXX") || exit 1
SPID= HPID= EPID=
trap 'exec 3>&-; for p in $SPID $HPID $EPID; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

# poll SECONDS COMMAND...: until COMMAND succeeds, every 0.1 s.
poll() {
	_tries=$(($1 * 10))
	shift
	while ! "$@"; do
		_tries=$((_tries - 1))
		[ "$_tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# ---- the process: a deleted program that maps libc
cp "$TDIR/ms-sleeper" "$TMP/sleeper" || fail "cannot copy ms-sleeper"
"$TMP/sleeper" >"$TMP/sleeper.out" &
SPID=$!
poll 10 test -s "$TMP/sleeper.out" || fail "ms-sleeper did not start"
rm "$TMP/sleeper" || fail "rm"

SITE=$TMP/lib/python3.11/site-packages
mkdir -p "$SITE/evil.libs" "$SITE/evil-1.0.dist-info" || fail "mkdir"
cp "$TDIR/libstale-a.so" "$SITE/evil.libs/libx.so" || fail "cannot copy libstale-a.so"
printf 'Metadata-Version: 2.1\nName: a"b\\c} 9 # EOF\nVersion: 1"\\x\n' >"$SITE/evil-1.0.dist-info/METADATA"
printf 'evil.libs/libx.so,,\nevil-1.0.dist-info/METADATA,,\n' >"$SITE/evil-1.0.dist-info/RECORD"
mkfifo "$TMP/hold.in" || fail "mkfifo"
"$TDIR/ms-dlopen-hold" "$(id -u)" "$SITE/evil.libs/libx.so" stale_lib_answer <"$TMP/hold.in" >"$TMP/hold.out" &
HPID=$!
exec 3>"$TMP/hold.in"
poll 10 grep -q '^ready' "$TMP/hold.out" || fail "ms-dlopen-hold did not start: $(cat "$TMP/hold.out")"

libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/$SPID/maps")
[ -n "$libc" ] || skip "ms-sleeper maps no libc.so.6"
# dpkg lists files under /lib where /usr/lib is the same directory (merged /usr).
owner=$(dpkg-query -S "$libc" 2>/dev/null || dpkg-query -S "${libc#/usr}" 2>/dev/null) ||
	skip "dpkg knows no package of $libc"
pkgarch=${owner%%: *}
pkg=${pkgarch%%:*}
arch=
[ "$pkg" = "$pkgarch" ] || arch=${pkgarch#*:}
version=$(dpkg-query -W -f '${Version}' "$pkgarch") && [ -n "$version" ] || fail "no version of $pkgarch"

# ---- mapscope writes both documents into the textfile directory
DIR=$TMP/textfile
mkdir "$DIR" || fail "mkdir"
: >"$TMP/no-rules"
"$BIN" stale --ignore-file="$TMP/no-rules" --metrics-file="$DIR/mapscope-stale.prom" "$SPID" 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "stale --metrics-file exited $rc, not 1 (something stale): $(cat "$TMP/err")"
"$BIN" libs --pid="$SPID,$HPID" --metrics-file="$DIR/mapscope-libs.prom" 2>"$TMP/err" ||
	fail "libs --metrics-file exited $?: $(cat "$TMP/err")"
ok "stale and libs wrote their metrics files"

# ---- node_exporter on a free port of our own
# The kernel picks a free port; node_exporter may lose it to another
# program before it binds, so a failed start is tried again.
start_exporter() {
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		fail "no free port"
	"$EXPORTER" --web.listen-address="127.0.0.1:$PORT" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$DIR" >"$TMP/exporter.log" 2>&1 &
	EPID=$!
}

# scrape: the metrics page into $TMP/scraped, within 2 seconds.
scrape() {
	python3 - "http://127.0.0.1:$PORT/metrics" "$TMP/scraped" <<'EOF'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=2) as r:
    body = r.read(16 << 20)
open(sys.argv[2], "wb").write(body)
EOF
}

# up: node_exporter runs and answers, or it has exited (then stop waiting).
up() { scrape 2>/dev/null || ! kill -0 "$EPID" 2>/dev/null; }

for attempt in 1 2 3; do
	start_exporter
	poll 15 up || fail "node_exporter did not answer on port $PORT: $(cat "$TMP/exporter.log")"
	kill -0 "$EPID" 2>/dev/null && break
	EPID=
	[ "$attempt" = 3 ] && fail "node_exporter would not start: $(cat "$TMP/exporter.log")"
done
ok "node_exporter serves http://127.0.0.1:$PORT/metrics"

# has LINE: the scraped page holds LINE, whole.  node_exporter sorts labels
# by name.  has_series NAME{LABELS}: that series, whatever its value.
has() {
	grep -Fqx -e "$1" "$TMP/scraped" || lacks "$1"
	ok "served: $1"
}
has_series() {
	grep -e '^[^ ]* ' "$TMP/scraped" | grep -Fq -e "$1 " || lacks "$1"
	ok "served: $1"
}
lacks() {
	fail "the scrape lacks: $1
--- mapscope lines scraped:
$(grep -e '^mapscope_' -e '^node_textfile' "$TMP/scraped")"
}

has 'node_textfile_scrape_error 0'
has_series "node_textfile_mtime_seconds{file=\"$DIR/mapscope-libs.prom\"}"
has_series "node_textfile_mtime_seconds{file=\"$DIR/mapscope-stale.prom\"}"
has "mapscope_library_processes{arch=\"$arch\",installed=\"$version\",package=\"$pkg\",source=\"dpkg\",version=\"$version\"} 2"
# METADATA's a"b\c} 9 # EOF and 1"\x: escaped once, by OpenMetrics' rules (" and \ get a backslash).
has 'mapscope_library_processes{arch="",installed="1\"\\x",package="a\"b\\c} 9 # EOF",source="python",version="1\"\\x"} 1'
# The two programs, ms-sleeper's deleted copy and ms-dlopen-hold.
has 'mapscope_library_files{owner="none"} 2'
has 'mapscope_library_unpackaged_processes 2'
has 'mapscope_library_series_dropped 0'
has 'mapscope_libs_scan_processes{outcome="scanned"} 2'
has 'mapscope_stale_processes 1'
has 'mapscope_stale_files{verdict="deleted"} 1'
has 'mapscope_stale_container_processes{container=""} 1'
has 'mapscope_scan_processes{outcome="scanned"} 1'
has_series mapscope_stale_scan_timestamp_seconds
has_series mapscope_libs_scan_timestamp_seconds
echo "$NAME: $n passed"
