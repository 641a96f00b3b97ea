#!/bin/bash
# The zsh and fish completions offer every command that `mapscope --help`
# lists and every long option that each command's --help lists, as
# test_completion.sh checks the bash one.
#   - fish: asked for real (`complete -C "mapscope CMD --xy"`) in one fish
#     process, after `fish --no-execute` parsed the file;
#   - zsh: `zsh -n` parses the file and `autoload +X` loads it as the
#     function compinit would; then each option must be in its command's
#     branch of _mapscope, or in a shared spec array that branch uses
#     (zsh's completion system cannot be driven without a terminal).
# A shell that is not installed is skipped with the reason.
set -u
BIN=${MS_BIN:-./mapscope}
DATA="$(cd "$(dirname "$0")/../data" && pwd)"
ZSH_FILE=$DATA/zsh-completion/_mapscope
FISH_FILE=$DATA/fish-completion/mapscope.fish
n=0 failed=0 skipped=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n # SKIP $*"; }

commands=$("$BIN" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { if (on) exit }')
[ -n "$commands" ] || { echo "no commands in mapscope --help"; exit 1; }
options_of() { "$BIN" "$1" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u; }

# ---- fish
if ! command -v fish >/dev/null 2>&1; then
	skip "fish: not installed (apt-get install fish)"
elif ! fish --no-execute "$FISH_FILE"; then
	not_ok "fish --no-execute $FISH_FILE"
else
	ok "fish --no-execute parses it"
	# One query a line: "CMD OPTION"; fish prints each answer after a marker.
	queries=$(for c in $commands; do
		echo "- $c"
		for opt in $(options_of "$c"); do echo "$c $opt"; done
	done)
	answers=$(printf '%s\n' "$queries" | fish -c '
		source $argv[1]
		while read -l cmd opt
			echo "== $cmd $opt"
			if test "$cmd" = -
				complete -C "mapscope "
			else
				complete -C "mapscope $cmd "(string sub -l 3 -- $opt)
			end
		end' "$FISH_FILE" 2>&1)
	while read -r c opt; do
		block=$(printf '%s\n' "$answers" | awk -v q="== $c $opt" '$0 == q { on = 1; next } /^== / { on = 0 } on')
		if [ "$c" = - ]; then
			want=$opt where="mapscope"
		else
			want=$opt where="mapscope $c"
		fi
		if printf '%s\n' "$block" | cut -f1 | grep -qxF -- "$want"; then
			ok "fish offers '$want' after: $where"
		else
			not_ok "fish does not offer '$want' after: $where"
		fi
	done <<<"$queries"
fi

# ---- zsh
# branch CMD: the text of CMD's branch of _mapscope, with the shared spec
# arrays it uses.
branch() {
	local text arr
	text=$(awk -v c="$1" '$0 ~ "^\t" c "\\)$" { on = 1 } on { print } on && /;;/ { exit }' "$ZSH_FILE")
	printf '%s\n' "$text"
	for arr in table backend help; do
		case $text in *"\$$arr"*)
			awk -v a="$arr" '$0 ~ "^\t" a "=\\(" { on = 1 } on { print } on && /\)$/ { exit }' "$ZSH_FILE" ;;
		esac
	done
}
if ! command -v zsh >/dev/null 2>&1; then
	skip "zsh: not installed (apt-get install zsh)"
elif ! zsh -n "$ZSH_FILE"; then
	not_ok "zsh -n $ZSH_FILE"
elif ! zsh -f -c 'fpath=("$1" $fpath); autoload -Uz +X _mapscope' zsh "$(dirname "$ZSH_FILE")"; then
	not_ok "zsh cannot load _mapscope as a completion function"
else
	ok "zsh -n parses it, and autoload +X loads it"
	for c in $commands; do
		if grep -qE "^[[:space:]]*'$c:" "$ZSH_FILE"; then
			ok "zsh offers '$c' after: mapscope"
		else
			not_ok "zsh does not offer '$c' after: mapscope"
		fi
		text=$(branch "$c")
		for opt in $(options_of "$c"); do
			if printf '%s\n' "$text" | grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)"; then
				ok "zsh offers '$opt' after: mapscope $c"
			else
				not_ok "zsh does not offer '$opt' after: mapscope $c"
			fi
		done
	done
fi

echo "$((n - failed - skipped)) passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
