#!/bin/sh
# A Python distribution whose METADATA names it ev"il}\pkg (a quote, a brace
# and a backslash), mapped by a process of ours, comes out as its real name,
# escaped once by each format that writes it (issue 32):
#   - the CycloneDX JSON, parsed: the component's name is ev"il}\pkg;
#   - its purl, percent-encoded once: pkg:pypi/ev%22il%7D%5Cpkg@1.0\1,
#     which decodes to the name;
#   - the OpenMetrics label of `libs --openmetrics`, escaped once as
#     OpenMetrics says: package="ev\"il}\\pkg", which unescapes to the name.
# The version, 1.0\1, carries a backslash too.  Needs no root; skips,
# saying why, without /usr/bin/python3.
set -u
NAME=test_pyname_once
. "$(dirname "$0")/shtest.sh"
. "$(dirname "$0")/cdx_validate.sh"

[ -x $PY ] || skip "needs $PY"
LIB=$TDIR/libstale-a.so
[ -f "$LIB" ] || fail "no $LIB (make check builds it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-pyname.XXXXXX") || exit 1
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

site=$tmp/lib/python3.11/site-packages
mkdir -p "$site/evil" "$site/evil-1.0.dist-info" || exit 1
cp "$LIB" "$site/evil/_ext.so" || exit 1
printf 'Metadata-Version: 2.1\nName: ev"il}\\pkg\nVersion: 1.0\\1\n\n' >"$site/evil-1.0.dist-info/METADATA"
printf 'evil/__init__.py,,\nevil/_ext.so,,\nevil-1.0.dist-info/RECORD,,\n' >"$site/evil-1.0.dist-info/RECORD"

# Mapped, not loaded: a sanitizer build's library cannot load into python3.
start "$tmp/hold.out" $PY -c 'import mmap, os, sys, time
held = mmap.mmap(os.open(sys.argv[1], os.O_RDONLY), 0, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC)
print("ready", flush=True)
time.sleep(600)' "$site/evil/_ext.so"
pid=$last

"$BIN" libs --pid=$pid --format=cyclonedx >"$tmp/sbom.json" 2>"$tmp/err" ||
	fail "libs --format=cyclonedx: exit $?: $(cat "$tmp/err")"
cdx_validate "$tmp/sbom.json" || fail "the SBOM fails the CycloneDX clients (above)"
"$BIN" libs --pid=$pid --openmetrics >"$tmp/metrics" 2>"$tmp/err" ||
	fail "libs --openmetrics: exit $?: $(cat "$tmp/err")"

$PY - "$tmp/sbom.json" "$tmp/metrics" <<'EOF' || fail "the name is not the distribution's (above)"
import json, re, sys, urllib.parse

NAME, VERSION = 'ev"il}\\pkg', '1.0\\1'
failed = []

doc = json.load(open(sys.argv[1]))
pypi = [c for c in doc["components"] if c.get("purl", "").startswith("pkg:pypi/")]
if len(pypi) != 1:
    failed.append("pypi components: %r" % pypi)
else:
    c = pypi[0]
    print("CycloneDX name %r, version %r, purl %s" % (c["name"], c.get("version"), c["purl"]))
    if c["name"] != NAME or c.get("version") != VERSION:
        failed.append("CycloneDX: name %r version %r, not %r %r" % (c["name"], c.get("version"), NAME, VERSION))
    if c["purl"] != "pkg:pypi/ev%22il%7D%5Cpkg@1.0%5C1":
        failed.append("purl %s is not encoded once" % c["purl"])
    name, _, version = c["purl"][len("pkg:pypi/"):].partition("@")
    if urllib.parse.unquote(name) != NAME or urllib.parse.unquote(version) != VERSION:
        failed.append("purl %s decodes to %r @ %r" % (c["purl"], urllib.parse.unquote(name),
                                                        urllib.parse.unquote(version)))


def unescape(value):
    """A label value as OpenMetrics reads it: \\\\, \\" and \\n are its only escapes."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "\\":
            nxt = value[i + 1]
            if nxt not in '\\"n':
                raise ValueError("not an OpenMetrics escape: \\" + nxt)
            out.append("\n" if nxt == "n" else nxt)
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


series = [l for l in open(sys.argv[2]).read().splitlines()
          if l.startswith("mapscope_library_processes{") and 'source="python"' in l]
if len(series) != 1:
    failed.append("mapscope_library_processes series: %r" % series)
else:
    print("OpenMetrics: " + series[0])
    labels = dict((k, unescape(v)) for k, v in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', series[0]))
    if labels.get("package") != NAME or labels.get("version") != VERSION or labels.get("installed") != VERSION:
        failed.append("OpenMetrics labels read back as %r" % labels)
    if 'package="ev\\"il}\\\\pkg"' not in series[0]:
        failed.append("the package label is not escaped once: " + series[0])
for f in failed:
    print("FAIL: " + f)
sys.exit(1 if failed else 0)
EOF
ok "CycloneDX, purl and OpenMetrics each hold the real name, escaped once"
echo "$NAME: $n passed"
