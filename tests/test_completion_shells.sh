#!/bin/bash
# The zsh and fish completions offer every command that `mapscope --help`
# lists and every long option that each command's --help lists, as
# test_completion.sh checks the bash one.
#   - fish: `fish --no-execute` parses the file, then one fish process is
#     asked for real: `complete -C "mapscope CMD --xy"`;
#   - zsh: `zsh -n` parses the file and `autoload +X` loads it as compinit
#     would; then an interactive zsh on a pseudo-terminal completes each
#     line with Tab (tests/zsh_complete.zsh).
# Each query types the command and the first three characters of an option
# ("mapscope stale --m"); the option must be among the matches.
# A shell that is not installed is skipped with the reason.
set -u
BIN=${MS_BIN:-./mapscope}
HERE="$(cd "$(dirname "$0")" && pwd)"
DATA="$(cd "$HERE/../data" && pwd)"
ZSH_FILE=$DATA/zsh-completion/_mapscope
FISH_FILE=$DATA/fish-completion/mapscope.fish
n=0 failed=0 skipped=0
# fish makes its config and data folders (history, universal variables) in
# the home it is given: a folder of the test's own, removed at the end.
FISH_HOME=$(mktemp -d)
trap 'rm -rf "$FISH_HOME"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n # SKIP $*"; }

commands=$("$BIN" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { if (on) exit }')
[ -n "$commands" ] || { echo "no commands in mapscope --help"; exit 1; }
options_of() { "$BIN" "$1" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u; }

# One query a line: "CMD OPTION", "- COMMAND" for the commands, and
# ". OPTION" for mapscope's own options.
queries=$(for opt in $("$BIN" --help | sed -n '/^Options:/,/^$/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
	echo ". $opt"
done
for c in $commands; do
	echo "- $c"
	for opt in $(options_of "$c"); do echo "$c $opt"; done
done)

# offered SHELL ANSWERS: each query's word must be among the matches that
# ANSWERS ("== LINE" then a match a line) lists for its line.
offered() {
	local shell=$1 answers=$2 c opt line block
	while read -r c opt; do
		case $c in
		-) line="mapscope " ;;
		.) line="mapscope ${opt:0:3}" ;;
		*) line="mapscope $c ${opt:0:3}" ;;
		esac
		block=$(printf '%s\n' "$answers" | awk -v q="== $line" '$0 == q { on = 1; next } /^== / { on = 0 } on')
		if printf '%s\n' "$block" | cut -f1 | grep -qxF -- "$opt"; then
			ok "$shell offers '$opt' after: $line"
		else
			not_ok "$shell does not offer '$opt' after: $line"
		fi
	done <<<"$queries"
}
lines() {
	local c opt
	while read -r c opt; do
		case $c in
		-) echo "mapscope " ;;
		.) echo "mapscope ${opt:0:3}" ;;
		*) echo "mapscope $c ${opt:0:3}" ;;
		esac
	done <<<"$queries" | sort -u
}

# ---- fish
if ! command -v fish >/dev/null 2>&1; then
	skip "fish: not installed (apt-get install fish)"
elif ! HOME=$FISH_HOME XDG_CONFIG_HOME=$FISH_HOME/config XDG_DATA_HOME=$FISH_HOME/data fish --no-execute "$FISH_FILE"; then
	not_ok "fish --no-execute $FISH_FILE"
else
	ok "fish --no-execute parses it"
	answers=$(lines | HOME=$FISH_HOME XDG_CONFIG_HOME=$FISH_HOME/config XDG_DATA_HOME=$FISH_HOME/data fish -c '
		source $argv[1]
		while read -l line
			echo "== $line"
			complete -C "$line"
		end' "$FISH_FILE" 2>&1)
	offered fish "$answers"
fi

# ---- zsh
if ! command -v zsh >/dev/null 2>&1; then
	skip "zsh: not installed (apt-get install zsh)"
elif ! zsh -n "$ZSH_FILE"; then
	not_ok "zsh -n $ZSH_FILE"
elif ! zsh -f -c 'fpath=("$1" $fpath); autoload -Uz +X _mapscope' zsh "$(dirname "$ZSH_FILE")"; then
	not_ok "zsh cannot load _mapscope as a completion function"
else
	ok "zsh -n parses it, and autoload +X loads it"
	answers=$(lines | timeout 120 zsh -f "$HERE/zsh_complete.zsh" "$(dirname "$ZSH_FILE")")
	rc=$?
	[ "$rc" -eq 0 ] || not_ok "zsh's completion system did not answer (status $rc)"
	offered zsh "$answers"
fi

echo "$((n - failed - skipped)) passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
