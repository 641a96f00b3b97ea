#!/bin/bash
# The bash completion offers every command that `mapscope --help` lists and
# every long option that each command's --help lists, so the two cannot
# drift apart.  bash-completion's helpers are stubbed: only our function is
# under test.
set -u
BIN=${MS_BIN:-./mapscope}
DATA="$(dirname "$0")/../data"
failed=0
checked=0

# shellcheck source=tests/completion_stubs.sh
. "$(dirname "$0")/completion_stubs.sh"

# offered WORD ARGS...: does completing after ARGS offer WORD?
offered() {
	local want=$1
	shift
	COMP_WORDS=(mapscope "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_mapscope
	local w
	for w in "${COMPREPLY[@]}"; do
		# An option that takes a value is offered with its '='.
		[ "$w" = "$want" ] || [ "$w" = "$want=" ] && return 0
	done
	return 1
}

check() {
	checked=$((checked + 1))
	if offered "$@"; then
		echo "ok $checked - '$1' offered after: ${*:2}"
	else
		echo "not ok $checked - '$1' not offered after: ${*:2}"
		failed=$((failed + 1))
	fi
}

commands=$("$BIN" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { if (on) exit }')
[ -n "$commands" ] || { echo "no commands in mapscope --help"; exit 1; }
for c in $commands; do
	check "$c" ""
	for opt in $("$BIN" "$c" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		check "$opt" "$c" "${opt:0:3}"
	done
done
echo "$checked passed, $failed failed" | sed "s/^$checked passed/$((checked - failed)) passed/"
[ "$failed" -eq 0 ]
