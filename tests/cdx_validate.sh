# Sourced by every test that writes a CycloneDX document:
#   cdx_validate FILE...   validate each FILE with the real clients
#                          (tests/cdx_validate.mjs: @cyclonedx/cyclonedx-library's
#                          strict JSON validation of CycloneDX 1.6, and every
#                          purl round-tripped through packageurl-js); print why
#                          not and return non-zero when one does not pass.
# node and the clients are part of what make check needs, as python3-jsonschema
# is: ./setup.sh installs Debian's nodejs and npm, and runs npm ci in tests/js.
# When they are missing this is a failure that says so, never a skip.
# The clients are looked up in $MS_NODE_MODULES (make check sets it), else
# in tests/js/node_modules of the source tree.
cdx_validate() {
	_cdx_src=${MS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
	_cdx_mods=${MS_NODE_MODULES:-$_cdx_src/tests/js/node_modules}
	if ! command -v node >/dev/null 2>&1; then
		printf '%s\n' "cdx_validate: node is missing: run ./setup.sh (it installs nodejs and npm, then the validator in tests/js)"
		return 2
	fi
	if [ ! -d "$_cdx_mods/@cyclonedx/cyclonedx-library" ] || [ ! -d "$_cdx_mods/packageurl-js" ]; then
		printf '%s\n' "cdx_validate: the validator is not installed in $_cdx_mods: run ./setup.sh (npm ci in tests/js)"
		return 2
	fi
	MS_NODE_MODULES=$_cdx_mods node "$_cdx_src/tests/cdx_validate.mjs" "$@"
}
