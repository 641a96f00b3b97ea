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
#     deleted copy's package is the new version installed; which one runs
#     comes from dnf's log (rpmlog.h), a tmpfs mounted over /var/log here
#     holding a root-owned dnf.rpm.log the test writes as dnf does:
#     without an entry for the upgrade it is unknown (null in JSON, VERWHY
#     saying why), with "Upgrade:"/"Upgraded:" lines at the real upgrade's
#     time it is 1.0-1, in list --by-file, stale and libs alike;
#   - libs --format=cyclonedx names it
#     pkg:rpm/ID/NAME@1.0-1?arch=ARCH&distro=ID-VERSION_ID&upstream=NAME-1.0-1.src.rpm
#     (os-release's ID and VERSION_ID, the source rpm rpmbuild recorded),
#     after the upgrade, while the running one is unknown, as a file
#     component of the package (no purl without a version), and with 1.0-1, "replaced", once the log dates it (the
#     installed one 2:2.0-3), valid against the CycloneDX schema
#     (tests/sbom_check.py; where python3-jsonschema is).
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

# pick NAME KEY...: the values of KEY... of the object named NAME anywhere in the JSON on stdin.
pick() {
	python3 -c 'import json, sys
def walk(x):
    if isinstance(x, dict):
        if x.get("name") == sys.argv[1]:
            yield x
        for v in x.values():
            yield from walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v)
rows = list(walk(json.load(sys.stdin)))
print(" ".join(str(rows[0].get(k)) for k in sys.argv[2:]) if rows else "no row")' "$@"
}

said=$(rpm --dbpath=/var/lib/rpm -qf --qf '%{NAME} %{EVR}' "$LIB" 2>/dev/null)
[ "$said" = "$PKG 1.0-1" ] || fail "rpm -qf says '$said'"
got="$(field "$LIB" package) $(field "$LIB" version)"
[ "$got" = "$said" ] || fail "list --by-file says '$got', rpm -qf '$said'"
[ "$(field "$LIB" installed)" = 1.0-1 ] || fail "INSTALLED is not 1.0-1"
[ "$(field "$LIB" pkgsrc)" = rpm ] || fail "PKGSRC is '$(field "$LIB" pkgsrc)', not rpm"
ok "list --by-file: PACKAGE $PKG, VERSION 1.0-1 as rpm -qf says, PKGSRC rpm"

# sbom EXPECTATION...: libs --format=cyclonedx holds them (tests/sbom_check.py), and is valid.
SRC=$(cd "$(dirname "$0")/.." && pwd)
vendor=$(. /etc/os-release && echo "$ID")
distro=$(. /etc/os-release && echo "$ID-${VERSION_ID:-$VERSION_CODENAME}")
arch=$(rpm --dbpath=/var/lib/rpm -q --qf '%{ARCH}' $PKG 2>/dev/null)
. "$SRC/tests/cdx_validate.sh"
sbom() {
	"$BIN" libs --pid="$hpid" --format=cyclonedx > "$tmp/sbom.json" 2>/dev/null || fail "libs --format=cyclonedx"
	cdx_validate "$tmp/sbom.json" || fail "the SBOM fails the CycloneDX clients (above)"
	/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || { echo "# no python3-jsonschema: SBOM not checked"; return 0; }
	/usr/bin/python3 "$SRC/tests/sbom_check.py" "$SRC/tests/data/cyclonedx" "$tmp/sbom.json" "$@" ||
		fail "the SBOM: $(cat "$tmp/sbom.json")"
	ok "libs --format=cyclonedx: $*"
}
sbom purl "pkg:rpm/$vendor/$PKG@1.0-1?arch=$arch&distro=$distro&upstream=$PKG-1.0-1.src.rpm" installed -

# dnf's log of what rpm did, on a tmpfs over /var/log: root's, 0644, as dnf keeps it.
mount -t tmpfs -o mode=0755 mapscope-rpmlog /var/log || fail "mount a tmpfs over /var/log"
dnflog=/var/log/dnf.rpm.log
dnf_line() { echo "$(date -d "@$1" +%Y-%m-%dT%H:%M:%S%z) $2" >> "$dnflog"; }
dnf_line "$(($(date +%s) - 60))" "INFO --- logging initialized ---"
dnf_line "$(($(date +%s) - 60))" "SUBDEBUG Installed: $PKG-1.0-1.$arch"
chmod 0644 "$dnflog"
before=$(date +%s)
rpmr --nodeps -U "$rpm2" || fail "rpm -U"
after=$(date +%s)
grep -q "$LIB (deleted)" "/proc/$hpid/maps" || fail "rpm -U did not replace the mapped copy"
said=$(rpm --dbpath=/var/lib/rpm -qf --qf '%{EVR}' "$LIB" 2>/dev/null)
[ "$said" = 2:2.0-3 ] || fail "rpm -qf says '$said' after the upgrade"
[ "$(field "$LIB (deleted)" package)" = $PKG ] || fail "the deleted copy's PACKAGE"
[ "$(field "$LIB (deleted)" installed)" = "$said" ] ||
	fail "INSTALLED is '$(field "$LIB (deleted)" installed)', rpm -qf '$said'"
[ "$(field "$LIB (deleted)" version)" = None ] ||
	fail "VERSION of the deleted copy is '$(field "$LIB (deleted)" version)', not unknown"
got=$("$BIN" stale --by-file -J -o NAME,VERSION,INSTALLED "$hpid" | pick "$LIB (deleted)" version installed)
[ "$got" = "None 2:2.0-3" ] || fail "stale says VERSION INSTALLED '$got' with no entry in dnf's log"
why=$("$BIN" stale --by-file -J -o NAME,VERSION,VERWHY "$hpid" | pick "$LIB (deleted)" verwhy)
case $why in *"no upgrade or removal of $PKG"*) ;; *) fail "VERWHY of the unknown version: '$why'" ;; esac
ok "after rpm -U with no entry in dnf's log: its package installed at $said, its running version unknown ($why)"
# A version no history names: the copy is a file component of the package, never a purl without a version.
sbom unknown "$LIB (deleted)" "$PKG" 2:2.0-3

# dnf's lines for that upgrade, at its real time: the element that replaced the copy names 1.0-1.
dnf_line "$before" "INFO --- logging initialized ---"
dnf_line "$before" "SUBDEBUG Upgrade: $PKG-2:2.0-3.$arch"
dnf_line "$after" "SUBDEBUG Upgraded: $PKG-1.0-1.$arch"
[ "$(field "$LIB (deleted)" version)" = 1.0-1 ] ||
	fail "VERSION of the deleted copy is '$(field "$LIB (deleted)" version)', not 1.0-1"
[ "$(field "$LIB (deleted)" installed)" = 2:2.0-3 ] || fail "INSTALLED is '$(field "$LIB (deleted)" installed)'"
got=$("$BIN" stale --by-file -J -o NAME,VERSION,INSTALLED "$hpid" | pick "$LIB (deleted)" version installed)
[ "$got" = "1.0-1 2:2.0-3" ] || fail "stale says VERSION INSTALLED '$got'"
got=$("$BIN" libs -J --pid="$hpid" -o NAME,VERSION,INSTALLED | pick "$LIB (deleted)" version installed)
[ "$got" = "1.0-1 2:2.0-3" ] || fail "libs says VERSION INSTALLED '$got'"
why=$("$BIN" stale --by-file -J -o NAME,VERSION,VERWHY "$hpid" | pick "$LIB (deleted)" verwhy)
case $why in *"dnf's upgrade from 1.0-1 to 2:2.0-3"*) ;; *) fail "VERWHY of the dated version: '$why'" ;; esac
ok "with dnf's entry: list --by-file, stale and libs say VERSION 1.0-1, INSTALLED 2:2.0-3 ($why)"
sbom purl "pkg:rpm/$vendor/$PKG@1.0-1?arch=$arch&distro=$distro&upstream=$PKG-1.0-1.src.rpm" replaced 2:2.0-3
echo "1..$n"
