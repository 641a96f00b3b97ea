#!/bin/sh
# rpm answers `list --by-file` for real, as on an rpm system: rpm's
# database at its system place (/var/lib/rpm) and the package's file at
# the path it was installed to.  In a private mount namespace (nothing
# of the host changes), a database made here with rpm --root is mounted
# over /var/lib/rpm, and the package's files over /mnt; the package is
# built here with rpmbuild and ships a test library at
# /mnt/mapscope-rpmtest/libx.so, which a process maps:
#   - PACKAGE, VERSION and INSTALLED are what rpm -qf says, PKGSRC rpm;
#   - after rpm -U to a version with an epoch under the process, the
#     deleted copy's package is the new version installed, and which one
#     runs is unknown (null in JSON): rpm keeps no history;
#   - libs --format=cyclonedx names it pkg:rpm/<os-release ID>/NAME@1.0-1?arch=ARCH,
#     then, after the upgrade, without a version (and says the running
#     version is unknown, the installed one 2:2.0-3), valid against the
#     CycloneDX schema (tests/sbom_check.py; where python3-jsonschema is).
# Needs root, rpm, rpmbuild, python3 and a mapscope built with librpm;
# otherwise it skips and says why.
set -u
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
PKG=mapscope-rpmtest
LIB=/mnt/$PKG/libx.so
skip() { echo "test_rpm_owner: SKIP: $*"; exit 77; }
fail() { echo "test_rpm_owner: FAIL: $*"; exit 1; }

if [ "${MS_RPM_OWNER_NS:-}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace)"
	for tool in rpm rpmbuild python3 unshare; do
		command -v $tool >/dev/null 2>&1 || skip "needs $tool (setup.sh installs it)"
	done
	grep -aq 'librpm\.so' "$BIN" || skip "mapscope was built without librpm"
	[ -d /var/lib/rpm ] && [ -d /mnt ] || skip "no /var/lib/rpm or /mnt to mount over"
	unshare -m true 2>/dev/null || skip "no private mount namespace here"
	MS_RPM_OWNER_NS=1 exec unshare -m "$0" "$@"
fi

mount --make-rprivate / || fail "mount --make-rprivate /"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-rpm.XXXXXX") || exit 1
hpid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

# build_rpm V R EPOCH|"" LIBRARY
build_rpm() {
	cat > "$tmp/$PKG.spec" <<EOF
Name: $PKG
Version: $1
Release: $2
${3:+Epoch: $3}
Summary: a library for mapscope's rpm test
License: MIT
%global debug_package %{nil}
%global __os_install_post %{nil}
%description
A library for mapscope's rpm test.
%install
mkdir -p %{buildroot}/mnt/$PKG
cp $4 %{buildroot}$LIB
%files
$LIB
EOF
	rpmbuild --quiet --nodeps --define "_topdir $tmp/top" -bb "$tmp/$PKG.spec" >/dev/null 2>&1 ||
		fail "rpmbuild $1-$2"
	find "$tmp/top/RPMS" -name "$PKG-$1-$2.*.rpm"
}
. "${srcdir:-.}/tests/syslib.sh"
rpm1=$(build_rpm 1.0 1 "" "$(syslib libbz2.so.1.0 libstale-a.so)")
rpm2=$(build_rpm 2.0 3 2 "$(syslib liblzma.so.5 libstale-b.so)")
root=$tmp/root
mkdir -m 0755 "$root"
rpmr() { rpm --root="$root" --dbpath=/var/lib/rpm "$@" 2>/dev/null; }
rpmr --initdb || fail "rpm --initdb"
rpmr --nodeps -i "$rpm1" || fail "rpm -i"
mount --bind "$root/var/lib/rpm" /var/lib/rpm || fail "mount over /var/lib/rpm"
mount --bind "$root/mnt" /mnt || fail "mount over /mnt"

# The holder maps the library until its standard input, a FIFO held open on fd 3, ends.
mkfifo "$tmp/in"
python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]); sys.stdin.read()' "$LIB" < "$tmp/in" &
hpid=$!
exec 3> "$tmp/in"
i=0
until grep -q "$LIB" "/proc/$hpid/maps" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "the process did not map $LIB"
	sleep 0.05
done

# field NAME KEY: the value of KEY of the list --by-file -J row NAME ("None" for null).
field() {
	"$BIN" list --by-file -J -o NAME,PACKAGE,VERSION,INSTALLED,PKGSRC "$hpid" |
		python3 -c 'import json, sys
rows = [f for f in json.load(sys.stdin)["files"] if f["name"] == sys.argv[1]]
print(rows[0][sys.argv[2]] if rows else "no row")' "$1" "$2"
}

said=$(rpm --dbpath=/var/lib/rpm -qf --qf '%{NAME} %{EVR}' "$LIB" 2>/dev/null)
[ "$said" = "$PKG 1.0-1" ] || fail "rpm -qf says '$said'"
got="$(field "$LIB" package) $(field "$LIB" version)"
[ "$got" = "$said" ] || fail "list --by-file says '$got', rpm -qf '$said'"
[ "$(field "$LIB" installed)" = 1.0-1 ] || fail "INSTALLED is not 1.0-1"
[ "$(field "$LIB" pkgsrc)" = rpm ] || fail "PKGSRC is '$(field "$LIB" pkgsrc)', not rpm"
ok "list --by-file: PACKAGE $PKG, VERSION 1.0-1 as rpm -qf says, PKGSRC rpm"

# sbom PURL RUNNING INSTALLED: libs --format=cyclonedx has that component, and is valid.
SRC=$(cd "$(dirname "$0")/.." && pwd)
vendor=$(. /etc/os-release && echo "$ID")
arch=$(rpm --dbpath=/var/lib/rpm -q --qf '%{ARCH}' $PKG 2>/dev/null)
sbom() {
	"$BIN" libs --pid="$hpid" --format=cyclonedx > "$tmp/sbom.json" 2>/dev/null || fail "libs --format=cyclonedx"
	/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || { echo "# no python3-jsonschema: SBOM not checked"; return 0; }
	/usr/bin/python3 "$SRC/tests/sbom_check.py" "$SRC/tests/data/cyclonedx" "$tmp/sbom.json" purl "$1" "$2" "$3" ||
		fail "the SBOM: $(cat "$tmp/sbom.json")"
	ok "libs --format=cyclonedx: $1, running $2"
}
sbom "pkg:rpm/$vendor/$PKG@1.0-1?arch=$arch" installed -

rpmr --nodeps -U "$rpm2" || fail "rpm -U"
grep -q "$LIB (deleted)" "/proc/$hpid/maps" || fail "rpm -U did not replace the mapped copy"
said=$(rpm --dbpath=/var/lib/rpm -qf --qf '%{EVR}' "$LIB" 2>/dev/null)
[ "$said" = 2:2.0-3 ] || fail "rpm -qf says '$said' after the upgrade"
[ "$(field "$LIB (deleted)" package)" = $PKG ] || fail "the deleted copy's PACKAGE"
[ "$(field "$LIB (deleted)" installed)" = "$said" ] ||
	fail "INSTALLED is '$(field "$LIB (deleted)" installed)', rpm -qf '$said'"
[ "$(field "$LIB (deleted)" version)" = None ] ||
	fail "VERSION of the deleted copy is '$(field "$LIB (deleted)" version)', not unknown"
ok "after rpm -U: the deleted copy's package installed at $said, its running version unknown"
sbom "pkg:rpm/$vendor/$PKG?arch=$arch" unknown 2:2.0-3
echo "1..$n"
