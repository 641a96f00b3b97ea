#!/bin/sh
# A build without libdw says that symbols are absent, everywhere one could
# ask for them: the help texts, at's SYMBOL and SOURCE columns and
# --debuginfod (usage errors that say why), and the explorer's --debuginfod.
# Exit 77 (skip) only when the build has libdw (test_symbols_at.sh covers it).
set -u
BIN=${MS_BIN:-./mapscope}
FIXTURE=${MS_FIXTURE:-./tests/ms-fixture}
NAME="symbols absent"
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" && { echo "$NAME: SKIP (built with libdw)"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-symabs.XXXXXX") || exit 1
FPID=
cleanup() { [ -n "$FPID" ] && kill "$FPID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
fail() { echo "$NAME: FAIL: $*"; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

"$BIN" --help | grep -q "^Built without libdw: 'at' has no SYMBOL or SOURCE column" ||
	fail "mapscope --help does not say the symbol columns are absent"
"$BIN" at --help >"$TMP/help" || fail "at --help exited $?"
grep -q '^SYMBOL and SOURCE are not available: mapscope was built without libdw' "$TMP/help" ||
	fail "at --help does not say so"
grep -Eq '^ +(SYMBOL|SOURCE) ' "$TMP/help" && fail "at --help lists a symbol column"
grep -q -- '--debuginfod' "$TMP/help" && fail "at --help offers --debuginfod"
ok "mapscope --help and at --help say the symbol columns are absent"

. "${srcdir:-.}/tests/fixture_sym.sh"
fixture_sym_start "$TMP"
sym=$SYM

# usage_error WHAT ARGS...: status 2 and a message naming libdw, nothing on stdout.
usage_error() {
	what=$1
	shift
	"$BIN" "$@" >"$TMP/o" 2>"$TMP/e"
	st=$?
	[ $st -eq 2 ] && [ ! -s "$TMP/o" ] && grep -q -e "$what.*built without libdw" "$TMP/e" ||
		fail "$*: status $st, stderr: $(cat "$TMP/e"), stdout: $(cat "$TMP/o")"
}
usage_error "SYMBOL and SOURCE are not available" at "$FPID" "$sym" -o SYMBOL
usage_error "SYMBOL and SOURCE are not available" at "$FPID" "$sym" -o +source
ok "at -o SYMBOL (or +SOURCE) is a usage error that names libdw"
usage_error "--debuginfod" at "$FPID" "$sym" --debuginfod
usage_error "--debuginfod" --debuginfod "$FPID"
ok "--debuginfod, in at and in the explorer, is a usage error that names libdw"

# The default columns still work, without the symbol ones.
"$BIN" at "$FPID" "$sym" >"$TMP/o" || fail "at exited $?"
head -1 "$TMP/o" | grep -q 'NAME$' || fail "at's headings: $(head -1 "$TMP/o")"
grep -q 'libms-fixture-sym\.so' "$TMP/o" || fail "at does not name the library: $(cat "$TMP/o")"
ok "at's default columns end with NAME"
