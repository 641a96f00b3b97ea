# Sourced by the symbol tests: where ms-fixture's known symbol is.
#   fixture_sym_start DIR   start $FIXTURE in DIR; sets FPID and SYM (the
#                           address of ms_fixture_sym_target, hex, no 0x);
#                           the caller kills FPID
#   fixture_sym_lines       sets SYM_FIRST and SYM_LAST: the source lines of
#                           the target's body, from the markers around it
#   fixture_sym_setup NAME  for a test that needs libdw: BIN, FIXTURE,
#                           fail(), a skip without libdw, TMP (removed on
#                           exit) and a trap that kills FPID
# Both need SRCDIR or srcdir, and fail() from the caller.
fixture_sym_setup() {
	_name=$1
	BIN=${MS_BIN:-./mapscope}
	FIXTURE=${MS_FIXTURE:-./tests/ms-fixture}
	grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || { echo "$_name: SKIP (built without libdw)"; exit 77; }
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-$_name.XXXXXX") || exit 1
	FPID=
	trap '[ -n "$FPID" ] && kill "$FPID" 2>/dev/null; rm -rf "$TMP"' EXIT
	trap 'exit 1' INT TERM
	fail() { echo "$_name: FAIL: $*"; exit 1; }
}

fixture_sym_start() {
	mkfifo "$1/fixture-sym.out" || fail "mkfifo"
	"$FIXTURE" "$1" </dev/null >"$1/fixture-sym.out" &
	FPID=$!
	SYM=
	while read -r word _ b; do
		[ "$word" = sym ] && SYM=$b
		[ "$word" = ready ] && break
	done <"$1/fixture-sym.out"
	[ -n "$SYM" ] || fail "the fixture gave no symbol address"
}

fixture_sym_lines() {
	_src=${SRCDIR:-${srcdir:-.}}/tests/fixture_sym.c
	_decl=$(grep -n '^const int ms_fixture_sym_first_line' "$_src" | cut -d: -f1)
	_off=$(sed -n 's/^const int ms_fixture_sym_first_line = __LINE__ + \([0-9]*\);$/\1/p' "$_src")
	SYM_LAST=$(grep -n '^const int ms_fixture_sym_last_line' "$_src" | cut -d: -f1)
	[ -n "$_decl" ] && [ -n "$_off" ] && [ -n "$SYM_LAST" ] || fail "no line markers in $_src"
	SYM_FIRST=$((_decl + _off))
	SYM_LAST=$((SYM_LAST - 1))
}
