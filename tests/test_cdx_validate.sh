#!/bin/sh
# The validator every SBOM test relies on (tests/cdx_validate.sh, .mjs)
# cannot pass vacuously: a document made by hand with a purl at each place a
# document can hold one (a component, a nested component, metadata.component,
# an evidence identity) passes, and each single fault of it is refused with
# the fault named: a property CycloneDX 1.6 does not have, a value of the
# wrong type, a serial number out of its pattern, another specVersion, text
# that is not JSON, and at each of the four places a purl packageurl-js would
# write otherwise (%2B for +, unsorted qualifiers, an upper-case type) or
# cannot parse.  Without node, or without the clients, it fails and points
# at ./setup.sh.
set -u
NAME=test_cdx_validate
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/shtest.sh"
. "$SRC/tests/cdx_validate.sh"
MS_SRCDIR=${MS_SRCDIR:-$SRC}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-cdxv.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

GOOD=pkg:deb/debian/libssl3@3.0.15-1~deb12u1+b1?arch=amd64\&distro=debian-12\&upstream=openssl
# doc OUT [PURL_AT PURL] [EXTRA_AT EXTRA]: the document, with PURL at one of
# the places (comp, nested, meta, identity) and EXTRA spliced in at one of
# top, comp, serial, spec, version.
doc() {
	_out=$1
	pc=$GOOD pn=pkg:pypi/my-pkg@1.2.3 pm=pkg:generic/host@1 pi=$GOOD
	case ${2:-} in
	comp) pc=$3 ;; nested) pn=$3 ;; meta) pm=$3 ;; identity) pi=$3 ;;
	esac
	top= comp= serial=urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79 spec=1.6 version=1
	case ${4:-} in
	top) top=$5 ;; comp) comp=$5 ;; serial) serial=$5 ;; spec) spec=$5 ;; version) version=$5 ;;
	esac
	cat >"$_out" <<JSON
{"bomFormat": "CycloneDX", "specVersion": "$spec", "serialNumber": "$serial", "version": $version, $top
 "metadata": {"component": {"type": "operating-system", "name": "host", "purl": "$pm"}},
 "components": [
  {"type": "library", "name": "libssl3", "version": "3.0.15-1~deb12u1+b1", "purl": "$pc", $comp
   "evidence": {"identity": [{"field": "purl", "confidence": 1, "concludedValue": "$pi",
     "methods": [{"technique": "manifest-analysis", "confidence": 1, "value": "dpkg"}]}],
     "occurrences": [{"location": "/usr/lib/x86_64-linux-gnu/libssl.so.3"}]},
   "components": [{"type": "library", "name": "my-pkg", "version": "1.2.3", "purl": "$pn"}]}
 ]}
JSON
}

# passes FILE...: the validator accepts them.
passes() {
	cdx_validate "$@" >"$tmp/out" 2>&1 || fail "refused ($*): $(cat "$tmp/out")"
}
# refuses WANT DESC FILE...: the validator fails, and says WANT.
refuses() {
	_want=$1 _desc=$2
	shift 2
	cdx_validate "$@" >"$tmp/out" 2>&1
	_rc=$?
	[ "$_rc" -eq 1 ] || fail "$_desc: status $_rc, not 1: $(cat "$tmp/out")"
	grep -qF -- "$_want" "$tmp/out" || fail "$_desc: does not say '$_want': $(cat "$tmp/out")"
	ok "$_desc: refused, saying $_want"
}

doc "$tmp/good.json"
passes "$tmp/good.json"
grep -q '4 purls canonical' "$tmp/out" || fail "the four purls were not all checked: $(cat "$tmp/out")"
ok "a valid document with four canonical purls passes"

doc "$tmp/x.json" "" "" top '"bogus": 1,'
refuses '"additionalProperty":"bogus"' "an unknown top-level property" "$tmp/x.json"
doc "$tmp/x.json" "" "" comp '"mapscope:running": "yes",'
refuses '/components/0' "an unknown component property" "$tmp/x.json"
doc "$tmp/x.json" "" "" version '"1"'
refuses '/version' "a version that is a string" "$tmp/x.json"
doc "$tmp/x.json" "" "" serial 'urn:uuid:not-a-uuid'
refuses '/serialNumber' "a serial number out of its pattern" "$tmp/x.json"
doc "$tmp/x.json" "" "" spec 1.5
refuses 'not a CycloneDX 1.6 document' "specVersion 1.5" "$tmp/x.json"
printf '{"bomFormat": "CycloneDX",' >"$tmp/x.json"
refuses 'not a JSON document' "a truncated document" "$tmp/x.json"

pct=pkg:deb/debian/libssl3@3.0.15-1~deb12u1%2Bb1?arch=amd64
for at in comp nested meta identity; do
	doc "$tmp/x.json" $at "$pct"
	refuses "purl $pct" "%2B for + ($at)" "$tmp/x.json"
	grep -qF 'packageurl-js writes it pkg:deb/debian/libssl3@3.0.15-1~deb12u1+b1?arch=amd64' "$tmp/out" ||
		fail "the canonical form is not shown: $(cat "$tmp/out")"
done
doc "$tmp/x.json" nested 'pkg:deb/debian/x@1?distro=debian-12&arch=amd64'
refuses "purl pkg:deb/debian/x@1?distro=debian-12&arch=amd64" "unsorted qualifiers" "$tmp/x.json"
doc "$tmp/x.json" meta 'pkg:DEB/debian/x@1'
refuses "purl pkg:DEB/debian/x@1" "an upper-case type" "$tmp/x.json"
doc "$tmp/x.json" identity 'pkg:/x'
refuses "packageurl-js refuses it" "a purl packageurl-js cannot parse" "$tmp/x.json"
# Every file is checked: a good one first does not hide a bad one.
doc "$tmp/x.json" comp "$pct"
refuses "$tmp/x.json: purl $pct" "the second of two files" "$tmp/good.json" "$tmp/x.json"

# Without the clients: a failure that points at ./setup.sh, not a pass.
MS_NODE_MODULES=$tmp/none cdx_validate "$tmp/good.json" >"$tmp/out" 2>&1 &&
	fail "passed without the clients: $(cat "$tmp/out")"
grep -q 'run ./setup.sh' "$tmp/out" || fail "without the clients, no word of ./setup.sh: $(cat "$tmp/out")"
ok "without the clients: refused, pointing at ./setup.sh"
PATH=$tmp/none cdx_validate "$tmp/good.json" >"$tmp/out" 2>&1 &&
	fail "passed without node: $(cat "$tmp/out")"
grep -q 'node is missing: run ./setup.sh' "$tmp/out" || fail "without node, no word of ./setup.sh: $(cat "$tmp/out")"
ok "without node: refused, pointing at ./setup.sh"
echo "$NAME: ok"
