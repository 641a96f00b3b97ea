#!/bin/sh
# A mapping's name is a claim, not a path (DESIGN.md, attacker model): an
# unprivileged user must not make root's mapscope give a file the wrong
# package.  Issue 32, attacks 1 and 2.  uid 65534 makes a user and mount
# namespace of its own, and a process of theirs in OUR mount namespace
# dlopens a file through /proc/NSPID/root/..., so the kernel names the
# mapping with the namespace's path:
#  1. Root's zlib as the user's Python package.  In the namespace, a tmpfs
#     over the user's site-packages and root's libz.so.1.2.13 bind-mounted at
#     SITE/zok.libs/libz.so.1.2.13.  In our root, SITE/zok.libs is the user's
#     symlink to the system's library folder and zok-9.9.9.dist-info/RECORD
#     lists zok.libs/libz.so.1.2.13.  A root process maps the same zlib by
#     its real path.  With the user's process started first (lower PID) and
#     then root's first, each with --pid in both orders (libs walks the
#     processes in the order given, and today keeps the first name it meets
#     for an inode): libs, libs -J, --format=cyclonedx and --openmetrics give
#     that inode dpkg's package (zlib1g), and never zok or python.
#  2. The user's file as Debian's libssl3.  In the namespace, the user's
#     evil.so bind-mounted over the system's libssl.so.3.  stale,
#     stale --show=all -J (verdict unknown, why "not a path in our root"),
#     stale --openmetrics, who LIBSSL, and libs as a table, -J, CycloneDX and
#     OpenMetrics never name libssl3 for it nor call it replaced.
# Each command looks at the test's PIDs only (who, which takes none: at
# its rows for them).  Skips, saying why, without root, dpkg, user
# namespaces, or a dpkg-owned libz.so.1 (attack 1) or libssl.so.3 (attack 2).
set -u
NA=test_names_attack
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/names_attack.sh"
command -v dpkg-query >/dev/null 2>&1 || skip "needs dpkg: the attacks are on dpkg's packages"
na_setup
WHY="not a path in our root"

LIBZ=$(na_syslib libz.so.1)
ZPKG=
[ -n "$LIBZ" ] && ZPKG=$(na_owner "$LIBZ")
LIBSSL=$(na_syslib libssl.so.3)
SSLPKG=
[ -n "$LIBSSL" ] && SSLPKG=$(na_owner "$LIBSSL")
[ -n "$ZPKG" ] || [ -n "$SSLPKG" ] || skip "no libz.so.1 nor libssl.so.3 that dpkg owns"

# ---- attack 1 --------------------------------------------------------------
# zok_table OUT: a cell says ZPKG, none says zok or 9.9.9 (a path's zok.libs is a path)
zok_table() {
	ran "$1" || return 1
	awk -v want="$ZPKG" '{ for (i = 1; i <= NF; i++) { if ($i == want) w = 1; if ($i == "zok" || $i == "9.9.9") bad = 1 } if (bad) { b = 1; print; bad = 0 } }
		END { if (!w) print "no row says " want; exit !(w && !b) }' "$tmp/$1"
}
# zok_metrics OUT: a series of ZPKG from dpkg, none of zok or from python
zok_metrics() {
	ran "$1" || return 1
	grep -q "^mapscope_library_processes{package=\"$ZPKG\",.*source=\"dpkg\"" "$tmp/$1" ||
		{ echo "no series of $ZPKG from dpkg:"; grep '^mapscope_library_processes' "$tmp/$1"; return 1; }
	! grep -E '^[^#].*(package="zok"|source="python")' "$tmp/$1"
}
# zok_round LABEL A B: every output for the PIDs A,B and B,A
zok_round() {
	for _pids in "$2,$3" "$3,$2"; do
		ms z.txt libs --pid="$_pids"
		check "attack 1, $1, libs --pid=$_pids: $ZPKG, no zok" zok_table z.txt
		ms z.json libs --pid="$_pids" -J -o NAME,PACKAGE,VERSION,PKGSRC,DEV,INODE
		check "attack 1, $1, libs --pid=$_pids -J: the zlib inode is $ZPKG from dpkg, not zok/python" \
			py libs-inode z.json "$LIBZ" "$ZPKG" zok
		ms z.cdx libs --pid="$_pids" --format=cyclonedx
		check "attack 1, $1, libs --pid=$_pids --format=cyclonedx: pkg:deb $ZPKG, no zok" py cdx z.cdx "$ZPKG" zok
		check "attack 1, $1, libs --format=cyclonedx: the CycloneDX clients accept it" cdx_validate "$tmp/z.cdx"
		ms z.om libs --pid="$_pids" --openmetrics
		check "attack 1, $1, libs --pid=$_pids --openmetrics: $ZPKG from dpkg, no zok/python" zok_metrics z.om
	done
}
# zok_user OUT: the user's process on root's zlib through the namespace; sets U
zok_user() {
	na_hold "$1" "/proc/$NSPID/root$zname" zlibVersion
	U=$NP
	_got=$(na_name "$U" "$NSYM")
	[ "$_got" = "$(printf '%s\t%s' "$zname" "$zid")" ] ||
		fail "the kernel names the user's zlib '$_got', not '$zname' at $zid"
}
if [ -n "$ZPKG" ]; then
	site=$tmp/u/lib/python3.11/site-packages
	zbase=$(basename "$LIBZ")
	zname=$site/zok.libs/$zbase
	zid=$(na_id "$LIBZ")
	na_user mkdir -p "$site/zok-9.9.9.dist-info" &&
		na_user ln -s "$(dirname "$LIBZ")" "$site/zok.libs" &&
		na_user sh -c 'printf "Metadata-Version: 2.1\nName: zok\nVersion: 9.9.9\n\n" >"$1/METADATA" &&
			printf "zok.libs/%s,,\nzok-9.9.9.dist-info/METADATA,,\nzok-9.9.9.dist-info/RECORD,,\n" "$2" >"$1/RECORD"' \
			sh "$site/zok-9.9.9.dist-info" "$zbase" || fail "cannot lay out the user's site-packages"
	[ "$(readlink -f "$zname")" = "$LIBZ" ] || fail "$zname does not lead to $LIBZ in our root"
	na_ns ns1 'mount -t tmpfs none "$1"; mkdir "$1/zok.libs"; : >"$2"; mount --bind "$3" "$2"' \
		"$site" "$zname" "$LIBZ"

	zok_user u1a
	na_start r1a "$HOLD" 0 "$LIBZ" zlibVersion
	R=$NP
	[ "$U" -lt "$R" ] || echo "# PIDs wrapped: the user's process $U started first, root's is $R"
	zok_round "user's process first" "$U" "$R"

	na_start r1b "$HOLD" 0 "$LIBZ" zlibVersion
	R=$NP
	zok_user u1b
	[ "$R" -lt "$U" ] || echo "# PIDs wrapped: root's process $R started first, the user's is $U"
	zok_round "root's process first" "$R" "$U"
else
	echo "# attack 1 skipped: no libz.so.1 that dpkg owns"
fi

# ---- attack 2 --------------------------------------------------------------
# replaced_files OUT: stale's OpenMetrics count no replaced file
replaced_files() {
	ran "$1" || return 1
	! grep -E '^mapscope_stale_files\{verdict="replaced"\} [1-9]' "$tmp/$1"
}
if [ -n "$SSLPKG" ]; then
	na_ns ns2 'mount --bind "$1" "$2"' "$tmp/u/evil.so" "$LIBSSL"
	na_hold u2 "/proc/$NSPID/root$LIBSSL" ms_fixture_sym_target
	U=$NP
	_got=$(na_name "$U" "$NSYM")
	[ "${_got%%	*}" = "$LIBSSL" ] || fail "the kernel names the user's evil.so '$_got', not $LIBSSL"
	NOIGN=--ignore-file=$tmp/no-ignore.conf

	ms s.txt stale "$NOIGN" "$U"
	check "attack 2, stale $U: no $SSLPKG, nothing replaced" none s.txt "$SSLPKG" replaced
	ms s.json stale "$NOIGN" --show=all -J "$U"
	check "attack 2, stale --show=all -J: $LIBSSL is unknown, $WHY" py stale-row s.json "$LIBSSL" unknown "$WHY"
	check "attack 2, stale --show=all -J: no $SSLPKG" none s.json "$SSLPKG"
	ms s.om stale "$NOIGN" --openmetrics "$U"
	check "attack 2, stale --openmetrics: no replaced file" replaced_files s.om
	check "attack 2, stale --openmetrics: no $SSLPKG" none s.om "$SSLPKG"
	ms w.json who "$LIBSSL" -J -o PID,COPY,VERDICT,PACKAGE,VERSION,NAME
	check "attack 2, who $LIBSSL -J, rows of $U: no $SSLPKG, nothing replaced" py who-pid w.json "$U" "$SSLPKG"
	ms l.txt libs --pid="$U"
	check "attack 2, libs --pid=$U: no $SSLPKG, nothing replaced" none l.txt "$SSLPKG" replaced
	ms l.json libs --pid="$U" -J -o NAME,PACKAGE,VERSION,PKGSRC,VERDICT,DEV,INODE
	check "attack 2, libs -J: $LIBSSL neither $SSLPKG nor replaced" py libs-name l.json "$LIBSSL" "$SSLPKG"
	check "attack 2, libs -J: no $SSLPKG" none l.json "$SSLPKG"
	ms l.cdx libs --pid="$U" --format=cyclonedx
	check "attack 2, libs --format=cyclonedx: no $SSLPKG component, $LIBSSL not replaced" \
		py cdx l.cdx - "$SSLPKG" "$LIBSSL"
	check "attack 2, libs --format=cyclonedx: no $SSLPKG anywhere" none l.cdx "$SSLPKG"
	check "attack 2, libs --format=cyclonedx: the CycloneDX clients accept it" cdx_validate "$tmp/l.cdx"
	ms l.om libs --pid="$U" --openmetrics
	check "attack 2, libs --openmetrics: no $SSLPKG" none l.om "$SSLPKG"
else
	echo "# attack 2 skipped: no libssl.so.3 that dpkg owns"
fi
na_done
