#!/bin/bash
# Fleet deployment, checked by the real tools on what `make install` places
# (into a scratch DESTDIR):
#   - every file is where it belongs (binary, man page, units, rules,
#     completions);
#   - systemd-analyze verify accepts the units with no warning at all, in a
#     root that holds the installed binary and man page (ExecStart= and
#     Documentation= must resolve) and the host's own units;
#   - systemd-analyze security rates the service's exposure 2.0 or better;
#   - the service's CapabilityBoundingSet= is enough and all of it is
#     needed: mapscope, limited to exactly those capabilities (setpriv) and
#     in a mount namespace of its own as under ProtectSystem=, judges a
#     file that `nobody` runs from a 0700 directory; without
#     CAP_DAC_READ_SEARCH it cannot look the path up, and without
#     CAP_SYS_PTRACE it cannot read the process;
#   - every system call `stale --metrics-file` makes (strace) passes the
#     service's SystemCallFilter= (expanded by systemd-analyze
#     syscall-filter), and so does every call of mapscope-sbom.service's
#     ExecStart= (as installed, its spool moved to a scratch folder);
#   - that command, end to end: the SBOM it writes passes the CycloneDX
#     clients (tests/cdx_validate.sh), is mode 0600, is replaced by a new
#     inode on the next run with no temporary left beside it, and a
#     symlink or a FIFO at its name is never written through;
#   - promtool check rules and promtool test rules (the alerts fire after an
#     hour, not before) on the installed rules;
#   - promtool check metrics on real `stale --openmetrics` output, and on
#     files written by stale's and libs' --metrics-file.
# A check whose tool cannot be had says why and is skipped.
set -u
: "${MS_BIN:?}" "${MS_MAKE:?}" "${MS_BUILDDIR:?}" "${MS_SRCDIR:?}" "${MS_BINDIR:?}"
: "${MS_MANDIR:?}" "${MS_UNITDIR:?}" "${MS_RULESDIR:?}"

n=0 failed=0 skipped=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n # SKIP $*"; }
check() { # check DESCRIPTION COMMAND...: passes when COMMAND does
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-fleet.XXXXXX") || exit 99
victim=
cleanup() {
	[ -n "$victim" ] && kill "$victim" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
dest=$tmp/dest

# ---- make install DESTDIR (no jobserver of the outer make: a plain sub-make)
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MS_MAKE" -s -C "$MS_BUILDDIR" install \
	DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR"
else
	not_ok "make install DESTDIR"
	cat "$tmp/install.log"
	exit 1
fi
for f in "$MS_BINDIR/mapscope" "$MS_MANDIR/man1/mapscope.1" "$MS_RULESDIR/mapscope.rules.yml" \
	"$MS_ZSHDIR/_mapscope" "$MS_FISHDIR/mapscope.fish" "$MS_BASHDIR/mapscope"; do
	check "installed: $f" test -s "$dest$f"
done

# ---- systemd units
units=
if [ "$MS_UNITDIR" = no ]; then
	skip "systemd units: configured --with-systemdsystemunitdir=no"
else
	units="$MS_UNITDIR/mapscope-stale.service $MS_UNITDIR/mapscope-stale.timer"
	units="$units $MS_UNITDIR/mapscope-sbom.service $MS_UNITDIR/mapscope-sbom.timer"
	for f in $units; do
		check "installed: $f" test -s "$dest$f"
	done
	check "ExecStart names the installed binary" \
		grep -qx "ExecStart=$MS_BINDIR/mapscope stale --metrics-file=/var/lib/prometheus/node-exporter/mapscope.prom" \
		"$dest$MS_UNITDIR/mapscope-stale.service"
	check "ExecStart writes the SBOM into the spool, the one writable folder" \
		grep -qx "ExecStart=$MS_BINDIR/mapscope libs --sbom-file=/var/lib/mapscope/sbom/mapscope.cdx.json" \
		"$dest$MS_UNITDIR/mapscope-sbom.service"
	check "the SBOM service may write its spool and nothing else" \
		test "$(grep -E '^(ReadWritePaths|StateDirectory)=' "$dest$MS_UNITDIR/mapscope-sbom.service" | tr '\n' ' ')" = \
		"StateDirectory=mapscope/sbom ReadWritePaths=/var/lib/mapscope/sbom "
fi

host_units=
for d in /usr/lib/systemd/system /lib/systemd/system; do
	[ -e "$d/sysinit.target" ] && { host_units=$d; break; }
done
if [ -z "$units" ]; then
	:
elif ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "systemd-analyze: not installed (apt-get install systemd)"
elif [ -z "$host_units" ]; then
	skip "systemd-analyze verify: no sysinit.target on this host to root the units in"
else
	# The root: what make install placed, and the host's units the ours pull in.
	mkdir -p "$dest/usr/lib/systemd/system"
	cp -R "$host_units/." "$dest/usr/lib/systemd/system/"
	# shellcheck disable=SC2086
	MANPATH=$dest$MS_MANDIR systemd-analyze verify --root="$dest" $units >"$tmp/verify.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/verify.log" ]; then
		ok "systemd-analyze verify: no error, no warning"
	else
		not_ok "systemd-analyze verify (status $rc)"
		sed 's/^/# /' "$tmp/verify.log"
	fi
	for svc in mapscope-stale.service mapscope-sbom.service; do
		if systemd-analyze security --offline=yes --root="$dest" --threshold=20 \
			"$MS_UNITDIR/$svc" >"$tmp/security.log" 2>&1; then
			ok "systemd-analyze security $svc: $(grep -o 'exposure level.*' "$tmp/security.log")"
		else
			not_ok "systemd-analyze security $svc: exposure over 2.0"
			grep -E '✗|exposure' "$tmp/security.log" | sed 's/^/# /'
		fi
	done
fi

# ---- the unit's capabilities, on a real process of another user
# stale_as CAPS PID: mapscope limited to CAPS (setpriv's syntax), in a mount
# namespace of its own; prints the verdict of the process's executable.
stale_as() {
	unshare --mount --propagation private \
		setpriv --bounding-set=-all"$1" --inh-caps=-all --no-new-privs \
		"$MS_BIN" stale --ignore-file="$tmp/none.conf" --show=all -o NAME,VERDICT -r -n "$2" \
		2>"$tmp/caps.err" | awk -v exe="$tmp/home/sleep" '$1 ~ exe "$" { print $2 }'
}
if [ -z "$units" ]; then
	:
elif [ "$(id -u)" -ne 0 ]; then
	skip "capabilities: needs root"
elif ! command -v setpriv >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
	skip "capabilities: setpriv or unshare missing (apt-get install util-linux)"
elif ! unshare --mount --propagation private true 2>/dev/null; then
	skip "capabilities: no private mount namespace here (a chroot whose root is not a mount point)"
else
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$dest$MS_UNITDIR/mapscope-stale.service")
	set_caps=$(for c in $caps; do c=${c#CAP_}; printf ',+%s' "${c,,}"; done)
	: >"$tmp/none.conf"
	chmod 755 "$tmp"
	mkdir "$tmp/home"
	cp "$(command -v sleep)" "$tmp/home/sleep"
	chown -R 65534:65534 "$tmp/home"
	chmod 700 "$tmp/home"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/home/sleep" 60 &
	victim=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(readlink "/proc/$victim/exe" 2>/dev/null)" = "$tmp/home/sleep" ] && break
		sleep 0.1
	done
	got=$(stale_as "$set_caps" "$victim")
	check "CapabilityBoundingSet=$caps: nobody's file in a 0700 directory is judged (got '$got')" \
		test "$got" = ok
	got=$(stale_as "${set_caps/,+dac_read_search/}" "$victim")
	check "without CAP_DAC_READ_SEARCH the path cannot be looked up (got '$got')" \
		test "$got" = unknown
	got=$(stale_as "${set_caps/,+sys_ptrace/}" "$victim")
	check "without CAP_SYS_PTRACE the process cannot be read" \
		grep -q 'needs ptrace access' "$tmp/caps.err"
	kill "$victim"
	victim=
fi

# ---- the system call filter, against the calls a real run makes
# expand NAME...: system call names, @groups expanded as systemd does.
expand() {
	local g x
	for g; do
		case $g in
		@*) for x in $(systemd-analyze syscall-filter "$g" | awk 'NR > 1 && $1 !~ /^#/ { print $1 }'); do
			expand "$x"
		done ;;
		*) echo "$g" ;;
		esac
	done
}
# allowed_by UNIT: the system calls UNIT's SystemCallFilter= lines allow, in
# order as systemd reads them after a first allow-list: a list adds, a ~list
# takes away.
allowed_by() {
	local line
	: >"$tmp/allowed"
	while IFS= read -r line; do
		case $line in
		'~'*)
			# shellcheck disable=SC2086
			expand ${line#\~} | sort -u >"$tmp/denied"
			comm -23 "$tmp/allowed" "$tmp/denied" >"$tmp/allowed.new" ;;
		*)
			# shellcheck disable=SC2086
			{ cat "$tmp/allowed"; expand $line; } | sort -u >"$tmp/allowed.new" ;;
		esac
		mv "$tmp/allowed.new" "$tmp/allowed"
	done < <(sed -n 's/^SystemCallFilter=//p' "$1")
}
# filter_ok UNIT WHAT COMMAND...: every system call COMMAND makes (strace)
# passes UNIT's SystemCallFilter=.
filter_ok() {
	local unit=$1 what=$2 bad
	shift 2
	allowed_by "$unit"
	# LeakSanitizer cannot run under ptrace: a sanitizer build leaves it off here.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -o "$tmp/trace" "$@" 2>/dev/null
	awk 'match($0, /^[0-9]+ +[a-z0-9_]+\(/) { s = substr($0, RSTART, RLENGTH - 1); sub(/^[0-9]+ +/, "", s); print s }' \
		"$tmp/trace" | sort -u >"$tmp/used"
	bad=$(comm -23 "$tmp/used" "$tmp/allowed" | tr '\n' ' ')
	if [ -s "$tmp/used" ] && [ -s "$tmp/allowed" ] && [ -z "$bad" ]; then
		ok "$(basename "$unit"): SystemCallFilter= allows all $(wc -l <"$tmp/used") system calls of $what"
	else
		not_ok "$(basename "$unit"): SystemCallFilter= would refuse, in $what: ${bad:-(no calls traced)}"
	fi
}
# The SBOM service's command as installed, its spool moved into $tmp/spool.
sbom_cmd=
if [ -n "$units" ]; then
	sbom_cmd=$(sed -n 's|^ExecStart=||p' "$dest$MS_UNITDIR/mapscope-sbom.service" |
		sed "s|^$MS_BINDIR/|$dest$MS_BINDIR/|; s|/var/lib/mapscope/sbom/|$tmp/spool/|g")
	mkdir -p "$tmp/spool"
	chmod 700 "$tmp/spool"
fi
if [ -z "$units" ]; then
	:
elif ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "system call filter: systemd-analyze not installed (apt-get install systemd)"
elif ! command -v strace >/dev/null 2>&1; then
	skip "system call filter: strace not installed (apt-get install strace)"
else
	filter_ok "$dest$MS_UNITDIR/mapscope-stale.service" "a real scan" "$MS_BIN" stale --metrics-file="$tmp/traced.prom"
	# shellcheck disable=SC2086
	filter_ok "$dest$MS_UNITDIR/mapscope-sbom.service" "its ExecStart=" $sbom_cmd
	rm -f "$tmp/spool"/* "$tmp/spool"/.??*
fi

# ---- the SBOM service's command, end to end, on this host's processes
if [ -n "$units" ]; then
	. "$MS_SRCDIR/tests/cdx_validate.sh"
	sbom=$tmp/spool/mapscope.cdx.json
	# shellcheck disable=SC2086
	$sbom_cmd 2>"$tmp/sbom.err"
	rc=$?
	check "$sbom_cmd: exits 0 (got $rc: $(head -c 300 "$tmp/sbom.err"))" test "$rc" = 0
	check "the SBOM it wrote passes the CycloneDX clients" cdx_validate "$sbom"
	check "the SBOM is mode 0600 (got $(stat -c %a "$sbom" 2>/dev/null))" test "$(stat -c %a "$sbom" 2>/dev/null)" = 600
	first=$(stat -c %i "$sbom" 2>/dev/null)
	# shellcheck disable=SC2086
	$sbom_cmd 2>/dev/null
	check "the next run replaces it by a new file (rename, not rewrite)" \
		test -f "$sbom" -a "$(stat -c %i "$sbom")" != "$first"
	check "no temporary is left in the spool (got: $(ls -A "$tmp/spool" | tr '\n' ' '))" \
		test "$(ls -A "$tmp/spool")" = mapscope.cdx.json
	# A symlink at the name: replaced, never written through.
	printf 'keep\n' >"$tmp/victim"
	rm -f "$sbom"
	ln -s "$tmp/victim" "$sbom"
	# shellcheck disable=SC2086
	$sbom_cmd 2>/dev/null
	check "a symlink at the name is not followed: what it points to is untouched" \
		test "$(cat "$tmp/victim")" = keep
	check "a symlink at the name is replaced by the document itself" \
		sh -c 'test -f "$1" && ! test -L "$1"' sh "$sbom"
	# A FIFO at the name: refused without a hang, and left as it was.
	rm -f "$sbom"
	mkfifo "$sbom"
	# shellcheck disable=SC2086
	timeout 300 $sbom_cmd 2>"$tmp/sbom.err"
	rc=$?
	check "a FIFO at the name is refused (status $rc: $(head -c 200 "$tmp/sbom.err"))" \
		sh -c 'test "$1" = 2 && test -p "$2" && grep -q "not a regular file" "$3"' sh "$rc" "$sbom" "$tmp/sbom.err"
	check "and leaves no temporary (got: $(ls -A "$tmp/spool" | tr '\n' ' '))" \
		test "$(ls -A "$tmp/spool")" = mapscope.cdx.json
fi

# ---- Prometheus
if ! command -v promtool >/dev/null 2>&1; then
	skip "promtool: not installed (apt-get install prometheus)"
else
	rules=$dest$MS_RULESDIR/mapscope.rules.yml
	check "promtool check rules" promtool check rules "$rules"
	cp "$MS_SRCDIR/tests/prometheus/mapscope.rules.test.yml" "$rules" "$tmp/"
	check "promtool test rules: the alerts fire after an hour, not before" \
		sh -c 'cd "$1" && promtool test rules mapscope.rules.test.yml' sh "$tmp"
	"$MS_BIN" stale --openmetrics >"$tmp/stdout.prom" 2>/dev/null
	rc=$?
	check "stale --openmetrics exits 0 or 1 (got $rc)" test "$rc" -le 1
	check "promtool check metrics: stale --openmetrics" sh -c 'promtool check metrics <"$1"' sh "$tmp/stdout.prom"
	"$MS_BIN" stale --metrics-file="$tmp/mapscope.prom" 2>/dev/null
	check "promtool check metrics: stale --metrics-file" sh -c 'promtool check metrics <"$1"' sh "$tmp/mapscope.prom"
	check "the metrics file is 0644" test "$(stat -c %a "$tmp/mapscope.prom")" = 644
	"$MS_BIN" libs --metrics-file="$tmp/mapscope-libs.prom" 2>/dev/null
	rc=$?
	check "libs --metrics-file exits 0 (got $rc)" test "$rc" = 0
	check "promtool check metrics: libs --metrics-file" sh -c 'promtool check metrics <"$1"' sh "$tmp/mapscope-libs.prom"
	check "the libs metrics file is 0644" test "$(stat -c %a "$tmp/mapscope-libs.prom")" = 644
fi

echo "$((n - failed - skipped)) passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ] || exit 1
exit 0
