# Sourced by the symbol tests: a process of uid 65534 that maps a library.
#   hold_start DIR HOLD LIB SYMBOL
#       start HOLD (ms-dlopen-hold) as uid 65534 on LIB, through FIFOs in
#       DIR, its standard input held open on fd 3 (close fd 3, or kill
#       HPID, to end it); sets HPID and HSYM (where SYMBOL is, hex, no 0x)
#   hold_fixture_lib_own DIR TDIR
#       the same on DIR/libms-fixture-sym.so, a copy of TDIR's, with
#       ms_fixture_sym_target; ms-dlopen-hold is started as uid 65534
#       already (through setpriv), so it stays dumpable and that uid may
#       read its maps too.  DIR and TDIR are absolute; DIR is made 0755.
#   hold_lib_own DIR TDIR LIB SYMBOL
#       the same for any library LIB of TDIR (copied to DIR/LIB), SYMBOL
#       one of its functions
#   hold_need_tmpdir
#       exit 77 (skip) unless uid 65534 may enter $TMPDIR, where the callers
#       keep LIB (it may not: a $TMPDIR under /root); hold_start checks it
#       too, which ends only a subshell when it is called in one.
# Needs fail() from the caller.
hold_need_tmpdir() {
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "${TMPDIR:-/tmp}" || {
		echo "SKIP: uid 65534 cannot enter \$TMPDIR (${TMPDIR:-/tmp}), where the library it maps is"
		exit 77
	}
}

hold_start() {
	hold_need_tmpdir
	exec 3>&-
	rm -f "$1/hold.in" "$1/hold.out"
	mkfifo "$1/hold.in" "$1/hold.out" || fail "mkfifo"
	"$2" 65534 "$3" "$4" <"$1/hold.in" >"$1/hold.out" &
	HPID=$!
	exec 3>"$1/hold.in"
	HSYM=
	_ready=
	while read -r _word _value; do
		case $_word in
		sym) HSYM=$_value ;;
		ready) _ready=$_value; break ;;
		*) fail "ms-dlopen-hold $3: $_word $_value" ;;
		esac
	done <"$1/hold.out"
	[ -n "$HSYM" ] && [ "$_ready" = "$HPID" ] || fail "ms-dlopen-hold $3 did not start"
}

hold_fixture_lib_own() {
	hold_lib_own "$1" "$2" libms-fixture-sym.so ms_fixture_sym_target
}

hold_lib_own() {
	chmod 0755 "$1" || fail "chmod $1"
	cp "$2/$3" "$1/$3" && chmod 0644 "$1/$3" || fail "cannot copy the library"
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' \
		"$2/ms-dlopen-hold" >"$1/hold-own" && chmod 0755 "$1/hold-own" || fail "cannot write the holder"
	hold_start "$1" "$1/hold-own" "$1/$3" "$4"
}
