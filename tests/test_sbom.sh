#!/bin/sh
# `mapscope libs --format=cyclonedx` on real processes, validated against
# the official CycloneDX 1.6 JSON schema (tests/data/cyclonedx, offline)
# with Debian's python3-jsonschema, every purl checked against the purl
# rules (tests/sbom_check.py), and by the clients a consumer uses
# (tests/cdx_validate.sh: @cyclonedx/cyclonedx-library, packageurl-js).  Two python3 processes map:
#   - libc (the distribution's: a deb component, at dpkg's version);
#   - a Python extension module laid out by hand in a site-packages with
#     My_Pkg-1.2.3+local.dist-info (a pypi component: pkg:pypi/my-pkg@1.2.3+local);
#   - a library no package owns, mapped by both (a file component with the
#     SHA-256 of the file and both PIDs), one named with a newline and a
#     quote (its own name once the JSON is parsed), and one deleted after it was loaded (as root, hashed
#     through the running copy; otherwise no hash, and why), and a file over
#     the 64 MiB a file is hashed for (no hash, and why).
# As root, where libcrypto.so.3 cannot be loaded (hidden under /dev/null in
# a private mount namespace): no file has a hash, and each says why.
# Skips, saying why, without /usr/bin/python3 with jsonschema or dpkg.
set -u
NAME=test_sbom
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/shtest.sh"
. "$SRC/tests/cdx_validate.sh"

[ -x $PY ] && $PY -c 'import jsonschema' 2>/dev/null || skip "needs python3-jsonschema (setup.sh installs it)"
command -v dpkg-query >/dev/null 2>&1 || skip "needs dpkg (a deb component to expect)"
. "$SRC/tests/syslib.sh"
# Copies python3 can load in any build: two different libraries.
LIBA=$(syslib libbz2.so.1.0 libstale-a.so)
LIBB=$(syslib liblzma.so.5 libstale-b.so)
[ -f "$LIBA" ] && [ -f "$LIBB" ] || fail "no libraries to copy ($LIBA, $LIBB)"
LIBZ=
for f in /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 /usr/lib/aarch64-linux-gnu/libz.so.1; do
	[ -f "$f" ] && LIBZ=$f && break
done
[ -n "$LIBZ" ] || skip "no libz.so.1 to copy as an extension module"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-sbom.XXXXXX") || exit 1
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

site=$tmp/lib/python3.11/site-packages
mkdir -p "$site/my_pkg" "$site/My_Pkg-1.2.3+local.dist-info" "$tmp/stray" || exit 1
cp "$LIBZ" "$site/my_pkg/_ext.so"
printf 'Metadata-Version: 2.1\nName: My_Pkg\nVersion: 1.2.3+local\n\n' > "$site/My_Pkg-1.2.3+local.dist-info/METADATA"
printf 'my_pkg/__init__.py,,\nmy_pkg/_ext.so,,\nMy_Pkg-1.2.3+local.dist-info/RECORD,,\n' \
	> "$site/My_Pkg-1.2.3+local.dist-info/RECORD"
stray=$tmp/stray/libstray.so
hostile=$(printf '%s/stray/lib"q\nx.so' "$tmp")
gone=$tmp/stray/libgone.so
cp "$LIBA" "$stray" && cp "$LIBA" "$hostile" && cp "$LIBB" "$gone" || exit 1
sum() { sha256sum "$1" | cut -d' ' -f1; }
stray_sum=$(sum "$stray")
gone_sum=$(sum "$gone")

# hold OUT LIB...: a python3 that loads the libraries, says so in OUT, and waits.
hold() {
	out=$1
	shift
	start "$out" $PY -c 'import ctypes, mmap, os, sys, time
held = []
for p in sys.argv[1:]:
    if p.endswith(".big"):
        fd = os.open(p, os.O_RDONLY)
        held.append(mmap.mmap(fd, os.fstat(fd).st_size, prot=mmap.PROT_READ | mmap.PROT_EXEC))
    else:
        ctypes.CDLL(p)
print("ready", flush=True)
time.sleep(600)' "$@"
}
# Past the 64 MiB a file is hashed for: sparse, mapped executable.
big=$tmp/stray/huge.big
truncate -s 65M "$big" || exit 1
hold "$tmp/one.out" "$site/my_pkg/_ext.so" "$stray" "$hostile" "$gone" "$big"
p1=$last
hold "$tmp/two.out" "$stray"
p2=$last
rm -f "$gone"

"$BIN" libs --pid=$p1,$p2 --format=cyclonedx > "$tmp/sbom.json" 2> "$tmp/err" ||
	fail "libs --format=cyclonedx: exit $?: $(cat "$tmp/err")"

if [ "$(id -u)" -eq 0 ]; then
	set -- file "$gone (deleted)" "$gone_sum" "$p1"
else
	set -- nohash "$gone (deleted)" root
fi
lo=$p1 hi=$p2
[ "$p1" -gt "$p2" ] && lo=$p2 hi=$p1
$PY "$SRC/tests/sbom_check.py" "$SRC/tests/data/cyclonedx" "$tmp/sbom.json" \
	deb libc6 "$(dpkg-query -W -f='${Version}' "libc6:$(dpkg --print-architecture)")" "$(dpkg --print-architecture)" \
	pypi My_Pkg 1.2.3+local \
	file "$stray" "$stray_sum" "$lo $hi" \
	file "$hostile" "$stray_sum" "$p1" \
	nohash "$big" "larger than 64 MiB" \
	"$@" || fail "the SBOM does not hold (above); it is in $tmp/sbom.json: $(head -c 4000 "$tmp/sbom.json")"
cdx_validate "$tmp/sbom.json" || fail "the SBOM fails the CycloneDX clients (above)"

# Without libcrypto: no hash of our own, the reason instead.
libcrypto=$(ldconfig -p 2>/dev/null | awk '/libcrypto\.so\.3 / { print $NF; exit }')
if [ "$(id -u)" -ne 0 ] || [ -z "$libcrypto" ] || ! command -v unshare >/dev/null 2>&1; then
	echo "$NAME: the case without libcrypto needs root, unshare and libcrypto.so.3: not run"
elif ! unshare -m true 2>/dev/null; then
	# A chroot whose root is no mount point refuses a private mount namespace.
	echo "$NAME: the case without libcrypto needs a private mount namespace, refused here: not run"
else
	libcrypto=$(readlink -f "$libcrypto")
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$libcrypto" \
		"$BIN" libs --pid=$p2 --format=cyclonedx > "$tmp/nocrypto.json" 2> "$tmp/err" ||
		fail "without libcrypto: exit $?: $(cat "$tmp/err")"
	$PY "$SRC/tests/sbom_check.py" "$SRC/tests/data/cyclonedx" "$tmp/nocrypto.json" \
		nohash "$stray" "libcrypto.so.3 is not available: " ||
		fail "without libcrypto, the SBOM does not say why (above): $(head -c 4000 "$tmp/nocrypto.json")"
fi

# Options that make no sense with it are refused.
"$BIN" libs --format=cyclonedx -J > /dev/null 2>&1
[ $? -eq 2 ] || fail "--format=cyclonedx -J was not refused"
"$BIN" libs --format=spdx > /dev/null 2>&1
[ $? -eq 2 ] || fail "--format=spdx was not refused"
echo "test_sbom: ok"
