#!/bin/bash
# Every list of a command's columns says what the command takes: for each
# command and option that takes -o, the set `mapscope CMD --list-columns`
# prints (the command's own table) must be exactly what
#   - the bash completion offers after "-o " and after "-o FIRST,",
#   - the fish completion offers after "-o " (fish asked for real),
#   - the zsh completion offers after "-o " (an interactive zsh on a
#     pseudo-terminal, tests/zsh_complete.zsh),
#   - the man page lists under "Columns of CMD -o:".
# The completions ask the program itself, so the program under test is put
# first in PATH as `mapscope`.  A shell that is not installed is skipped
# with the reason; the bash and man page checks always run.
set -u
BIN=${MS_BIN:-./mapscope}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
HERE="$(cd "$(dirname "$0")" && pwd)"
DATA="$(cd "$HERE/../data" && pwd)"
MAN="$HERE/../man/mapscope.1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/bin" "$TMP/home"
ln -s "$BIN" "$TMP/bin/mapscope"
PATH=$TMP/bin:$PATH
n=0 failed=0 skipped=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n # SKIP $*"; }

# Each command and option that takes -o: the words typed before "-o".
tables=("list" "list --by-file" "at" "stale" "who" "libs" "diff" "diff --by-file")

# columns WORDS...: the registry's names, one a line, sorted.
columns() { mapscope "$@" --list-columns --raw | cut -d' ' -f1 | sort; }

# same WHAT EXPECTED GOT: compare two sorted lists.
same() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/#   /'
	fi
}

for t in "${tables[@]}"; do
	want=$(columns $t)
	[ -n "$want" ] || not_ok "mapscope $t --list-columns lists nothing"
done

# ---- bash
# shellcheck source=tests/completion_stubs.sh
. "$HERE/completion_stubs.sh"
bash_offers() {
	COMP_WORDS=(mapscope "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_mapscope
	printf '%s\n' "${COMPREPLY[@]}" | sort
}
for t in "${tables[@]}"; do
	want=$(columns $t)
	first=$(mapscope $t --list-columns --raw | head -n1 | cut -d' ' -f1)
	# shellcheck disable=SC2086
	same "bash offers the columns of '$t -o'" "$want" "$(bash_offers $t -o '')"
	# shellcheck disable=SC2086
	same "bash offers the columns of '$t -o $first,'" "$(printf '%s\n' "$want" | sed "s/^/$first,/")" \
		"$(bash_offers $t -o "$first,")"
done

# ---- fish
if ! command -v fish >/dev/null 2>&1; then
	skip "fish: not installed (apt-get install fish)"
else
	for t in "${tables[@]}"; do
		got=$(HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/config XDG_DATA_HOME=$TMP/home/data fish -c '
			source $argv[1]
			complete -C "mapscope $argv[2] -o "' "$DATA/fish-completion/mapscope.fish" "$t" 2>&1 |
			cut -f1 | sort)
		same "fish offers the columns of '$t -o'" "$(columns $t)" "$got"
	done
fi

# ---- zsh
if ! command -v zsh >/dev/null 2>&1; then
	skip "zsh: not installed (apt-get install zsh)"
else
	answers=$(for t in "${tables[@]}"; do echo "mapscope $t -o "; done |
		HOME=$TMP/home timeout 120 zsh -f "$HERE/zsh_complete.zsh" "$DATA/zsh-completion")
	for t in "${tables[@]}"; do
		got=$(printf '%s\n' "$answers" | awk -v q="== mapscope $t -o " '$0 == q { on = 1; next } /^== / { on = 0 } on' | sort)
		same "zsh offers the columns of '$t -o'" "$(columns $t)" "$got"
	done
fi

# ---- the man page: '.B "Columns of CMD \-o:"', then the names up to the next request.
for t in "${tables[@]}"; do
	got=$(awk -v want="Columns of $t -o:" '
		/^\.B "Columns of / { line = $0; gsub(/\\-/, "-", line); on = index(line, "\"" want "\"") > 0; next }
		/^\./ { on = 0 }
		on { gsub(/[^A-Z0-9]+/, " "); for (i = 1; i <= NF; i++) print $i }' "$MAN" | sort)
	same "the man page lists the columns of '$t -o'" "$(columns $t)" "$got"
done

echo "$((n - failed - skipped)) passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
