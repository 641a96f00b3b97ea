# Sourced by the symbol tests: a process of uid 65534 that maps a library.
#   hold_start DIR HOLD LIB SYMBOL
#       start HOLD (ms-dlopen-hold) as uid 65534 on LIB, through FIFOs in
#       DIR, its standard input held open on fd 3 (close fd 3, or kill
#       HPID, to end it); sets HPID and HSYM (where SYMBOL is, hex, no 0x)
# Needs fail() from the caller.
hold_start() {
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
