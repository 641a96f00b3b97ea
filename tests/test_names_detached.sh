#!/bin/sh
# A mapping's name from a mount that is in no table (DESIGN.md, "A
# mapping's name is a claim"): uid 65534 makes a tmpfs mounted nowhere
# (fsopen/fsmount in a user namespace of its own, handed to a process in
# OUR mount namespace: tests/names_detached.py) and maps files there named
# as the system's libcrypto.so.3, unlinked so that the kernel marks it
# " (deleted)", and libgcc_s.so.1 (deleted), a file really named so.  The
# marks alone once made root's mapscope call both replaced copies of
# libssl3 and libgcc-s1.  Now the mapped file itself (map_files) must lie on
# a mount of our table, the mount of the path: both are unknown, "not a path in our root", with no package in stale -J, libs
# -J, the SBOM or who.  Skips where the kernel has no fsmount (Linux 5.2).
set -u
NA=test_names_detached
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/names_attack.sh"
na_setup
WHY="not a path in our root"
LIB=/usr/lib/x86_64-linux-gnu
cp "$SRC/tests/names_detached.py" "$tmp/u/detached.py" && chmod 0644 "$tmp/u/detached.py" || fail "copy"

_out=$tmp/detached
$AS_NOBODY $PY "$tmp/u/detached.py" "$tmp/u/evil.so" <"$tmp/life" >"$_out" 2>&1 9>&- &
pids="$pids $!"
_i=0
until grep -qs '^ready \|^skip ' "$_out"; do
	_i=$((_i + 1))
	[ $_i -le 200 ] || fail "names_detached.py did not start: $(cat "$_out")"
	sleep 0.05
done
grep -q '^skip ' "$_out" && skip "$(sed -n 's/^skip //p' "$_out")"
P=$(sed -n 's/^ready //p' "$_out")

for name in "$LIB/libcrypto.so.3 (deleted)" "$LIB/libgcc_s.so.1 (deleted)"; do
	ms s.json stale --ignore-file="$tmp/no-ignore.conf" --show=all -J "$P"
	check "stale -J: $name is unknown, $WHY" py stale-row s.json "$name" unknown "$WHY"
done
ms s.txt stale --ignore-file="$tmp/no-ignore.conf" "$P"
check "stale: nothing replaced, no libssl3 nor libgcc-s1" none s.txt replaced libssl3 libgcc-s1
ms l.json libs --pid="$P" -J -o NAME,PACKAGE,PKGSRC,VERDICT
check "libs -J: no libssl3 nor libgcc-s1, nothing replaced" none l.json libssl3 libgcc-s1 replaced
ms c.json libs --pid="$P" --format=cyclonedx
check "libs --format=cyclonedx: no libssl3 nor libgcc-s1" none c.json libssl3 libgcc-s1
check "libs --format=cyclonedx: the CycloneDX clients accept it" cdx_validate "$tmp/c.json"
ms w.json who libcrypto.so.3 -J -o PID,COPY,VERDICT,PACKAGE,NAME
check "who libcrypto.so.3: no libssl3, nothing replaced for $P" py who-pid w.json "$P" libssl3
na_done
